//! The unwinder of this process's samples: framehop over each module's
//! `.eh_frame` (indexed by `.eh_frame_hdr`) as its ELF file holds it,
//! run on the user registers and the copy of the user stack a sample
//! carries. It needs neither frame pointers nor debug information.

use std::ops::{Deref, Range};
use std::sync::Arc;

// This machine's unwinder; elsewhere (no `StackResolver` is made there)
// x86_64's, so that perfbench still builds.
#[cfg(target_arch = "aarch64")]
use framehop::aarch64::{
    CacheAarch64 as Cache, UnwindRegsAarch64 as Regs, UnwinderAarch64 as NativeUnwinder,
};
#[cfg(not(target_arch = "aarch64"))]
use framehop::x86_64::{
    CacheX86_64 as Cache, UnwindRegsX86_64 as Regs, UnwinderX86_64 as NativeUnwinder,
};
use framehop::{ExplicitModuleSectionInfo, MayAllocateDuringUnwind, Unwinder};

use super::module::{section_place, Module};
use crate::kernel::sampling::ThreadSample;

/// The most frames a stack is unwound to: a bound on a corrupt stack's
/// loop, far above any real depth at a benchmark's routine.
pub(super) const MAX_FRAMES: usize = 1024;

/// Bytes of a section, borrowed from the module's whole file (no copy).
#[derive(Clone, Debug)]
pub(super) struct SectionBytes {
    file: Arc<[u8]>,
    range: Range<usize>,
}

impl SectionBytes {
    /// `range` of `file`, if the file holds it.
    fn new(file: &Arc<[u8]>, range: Range<usize>) -> Option<SectionBytes> {
        file.get(range.clone())?;
        Some(SectionBytes {
            file: file.clone(),
            range,
        })
    }
}

impl Deref for SectionBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.file[self.range.clone()]
    }
}

/// Unwinds samples of this process, with the modules it was made with.
pub(super) struct SelfUnwinder {
    unwinder: NativeUnwinder<SectionBytes, MayAllocateDuringUnwind>,
    cache: Cache<MayAllocateDuringUnwind>,
}

impl SelfUnwinder {
    /// An unwinder of `modules`; one without unwind information is
    /// unwound through frame pointers where it keeps them.
    pub(super) fn new(modules: &[Module]) -> SelfUnwinder {
        let mut unwinder = NativeUnwinder::new();
        for module in modules.iter().filter_map(framehop_module) {
            unwinder.add_module(module);
        }
        SelfUnwinder {
            unwinder,
            cache: Cache::new(),
        }
    }

    /// The frames of `sample`, innermost first, as addresses to look up:
    /// the user instruction pointer as it is (the one of the sampled user
    /// registers: the sample's own `ip` is the kernel's where the overflow
    /// interrupt came after user space entered the kernel, as the emulated
    /// arm64 PMU's did for 192 of 236 samples), then each return address
    /// less one byte (inside the call instruction, so that a call that
    /// ends its function is not taken for the next function). Unwinding
    /// stops where the copied stack ends, where no rule is found, or at
    /// [`MAX_FRAMES`]; a sample without the registers of
    /// [`UNWIND_REGS`](crate::kernel::sampling::UNWIND_REGS) gives its instruction pointer alone.
    pub(super) fn unwind(&mut self, sample: &ThreadSample) -> Vec<u64> {
        let Some((regs, sp, pc)) = self.registers(&sample.regs) else {
            return vec![sample.ip];
        };
        let stack = &sample.stack;
        let mut read_stack = |address: u64| read_word(stack, sp, address);
        let mut iter = self
            .unwinder
            .iter_frames(pc, regs, &mut self.cache, &mut read_stack);
        let mut frames = Vec::new();
        while frames.len() < MAX_FRAMES {
            match iter.next() {
                Ok(Some(frame)) => frames.push(frame.address_for_lookup()),
                // The end of the stack, or where it could go no further:
                // what was unwound so far is kept either way.
                Ok(None) | Err(_) => break,
            }
        }
        frames
    }

    /// framehop's registers, the stack pointer and the instruction
    /// pointer, from a sample's `sample_regs_user` of
    /// [`UNWIND_REGS`](crate::kernel::sampling::UNWIND_REGS) (lowest bit
    /// first: BP, SP, IP).
    #[cfg(target_arch = "x86_64")]
    fn registers(&self, regs: &[u64]) -> Option<(Regs, u64, u64)> {
        let &[bp, sp, ip] = regs else { return None };
        debug_assert_eq!(crate::kernel::sampling::UNWIND_REGS.count_ones(), 3);
        Some((Regs::new(ip, sp, bp), sp, ip))
    }

    /// framehop's registers, the stack pointer and the program counter,
    /// from a sample's `sample_regs_user` of
    /// [`UNWIND_REGS`](crate::kernel::sampling::UNWIND_REGS) (lowest bit
    /// first: X29, LR, SP, PC). A pointer-authenticated link register is
    /// stripped to the bits the highest known code address uses.
    #[cfg(target_arch = "aarch64")]
    fn registers(&self, regs: &[u64]) -> Option<(Regs, u64, u64)> {
        use framehop::aarch64::PtrAuthMask;
        let &[fp, lr, sp, pc] = regs else {
            return None;
        };
        debug_assert_eq!(crate::kernel::sampling::UNWIND_REGS.count_ones(), 4);
        let mask = PtrAuthMask::from_max_known_address(self.unwinder.max_known_code_address());
        Some((Regs::new_with_ptr_auth_mask(mask, lr, sp, fp), sp, pc))
    }

    /// No registers to unwind from on other architectures.
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    fn registers(&self, _regs: &[u64]) -> Option<(Regs, u64, u64)> {
        None
    }
}

/// The word at `address` of the stack copied from `sp` up; an error past
/// the copy's end or below `sp`.
fn read_word(stack: &[u8], sp: u64, address: u64) -> Result<u64, ()> {
    let at = usize::try_from(address.checked_sub(sp).ok_or(())?).map_err(|_| ())?;
    let bytes = stack.get(at..at.checked_add(8).ok_or(())?).ok_or(())?;
    Ok(u64::from_ne_bytes(bytes.try_into().map_err(|_| ())?))
}

/// framehop's view of `module`: its `.eh_frame`, `.eh_frame_hdr`, `.text`
/// and `.got` (for `.eh_frame`'s text- and data-relative pointers), by
/// the file's addresses, at the module's bias. `None` if the file no
/// longer parses.
fn framehop_module(module: &Module) -> Option<framehop::Module<SectionBytes>> {
    let elf = module.elf()?;
    let section = |name| {
        let place = section_place(&elf, name)?;
        let bytes = SectionBytes::new(&module.file, place.bytes)?;
        Some((place.svma, bytes))
    };
    let (text_svma, text) = section(".text").unzip();
    let (eh_frame_svma, eh_frame) = section(".eh_frame").unzip();
    let (eh_frame_hdr_svma, eh_frame_hdr) = section(".eh_frame_hdr").unzip();
    let got_svma = section_place(&elf, ".got").map(|place| place.svma);
    let info = ExplicitModuleSectionInfo {
        // An ELF file's addresses are its own (base 0); the module's
        // base in this process is then its bias.
        base_svma: 0,
        text_svma,
        text,
        got_svma,
        eh_frame_svma,
        eh_frame,
        eh_frame_hdr_svma,
        eh_frame_hdr,
        // Mach-O's and `.debug_frame` (not loaded: `.eh_frame` is the
        // table the compiler keeps in every build).
        stubs_svma: None,
        stub_helper_svma: None,
        unwind_info: None,
        debug_frame: None,
        text_segment_svma: None,
        text_segment: None,
    };
    Some(framehop::Module::new(
        module.name.clone(),
        module.avma.clone(),
        module.bias,
        info,
    ))
}
