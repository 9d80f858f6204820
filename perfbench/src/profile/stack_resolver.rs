//! [`StackResolver`]: a sample of this process → its stack of function
//! names, cut at the benchmark's routine. The one entry point of the
//! unwinding and symbolizing the profiling pass needs.

use super::module::this_process;
use super::routine_cut::routine_stack;
use super::symbolizer::{Frame, Symbolizer};
use super::unwind::SelfUnwinder;
use super::ProfileError;
use crate::kernel::sampling::ThreadSample;

/// Unwinds and symbolizes samples of this process (taken with
/// `regs_user: UNWIND_REGS` and a `stack_user` copy) with the modules it
/// maps when made: make it after the code to profile is loaded, on the
/// thread that samples. Each address is symbolized once.
pub struct StackResolver {
    unwinder: SelfUnwinder,
    symbolizer: Symbolizer,
    modules: usize,
}

impl std::fmt::Debug for StackResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StackResolver")
            .field("modules", &self.modules)
            .field("dwarf", &self.symbolizer.has_dwarf())
            .finish()
    }
}

impl StackResolver {
    /// Reads this process's modules (`/proc/self/maps`: the executable,
    /// its shared libraries, the vDSO), their unwind tables, symbol
    /// tables and any DWARF.
    pub fn new() -> Result<StackResolver, ProfileError> {
        if !cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
            return Err(ProfileError::Architecture);
        }
        let modules = this_process()?;
        Ok(StackResolver {
            unwinder: SelfUnwinder::new(&modules),
            symbolizer: Symbolizer::new(&modules),
            modules: modules.len(),
        })
    }

    /// Whether any module has DWARF: then stacks hold inlined frames, and
    /// frames their source lines.
    pub fn has_dwarf(&self) -> bool {
        self.symbolizer.has_dwarf()
    }

    /// The sample's frame addresses, innermost first: its instruction
    /// pointer, then each return address less one (the call instruction,
    /// as looked up).
    pub fn unwind(&mut self, sample: &ThreadSample) -> Vec<u64> {
        self.unwinder.unwind(sample)
    }

    /// The sample's frames, outermost first, inlined ones included.
    pub fn frames(&mut self, sample: &ThreadSample) -> Vec<Frame> {
        let mut frames = Vec::new();
        for address in self.unwind(sample).into_iter().rev() {
            frames.extend(self.symbolizer.frames(address).iter().rev().cloned());
        }
        frames
    }

    /// The sample's stack in the routine, outermost first, starting with
    /// `root` (the benchmark's id): see
    /// [`routine_stack`](super::routine_stack). `None` for a sample that
    /// cannot be placed in the routine.
    pub fn stack(&mut self, sample: &ThreadSample, root: &str) -> Option<Vec<String>> {
        let mut names = Vec::new();
        for address in self.unwind(sample).into_iter().rev() {
            let frames = self.symbolizer.frames(address);
            names.extend(frames.iter().rev().map(|f| f.function.clone()));
        }
        routine_stack(&names, root)
    }
}
