//! The modules of this process: each executable mapping of
//! `/proc/self/maps` with the bytes of its ELF file (the executable, the
//! shared libraries, the vDSO) and the bias from the file's addresses to
//! the process's.

use std::collections::HashMap;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use object::read::elf::ElfFile64;
use object::{elf, Endianness, Object, ObjectSection, ObjectSegment, SegmentFlags};

use super::maps::{executable_mappings, Mapping};
use super::ProfileError;

/// The ELF file of this process's code.
pub(super) type Elf<'data> = ElfFile64<'data, Endianness>;

/// An executable mapping and the ELF file it maps.
#[derive(Clone, Debug)]
pub(super) struct Module {
    /// The file's path (`[vdso]` for the vDSO).
    pub(super) name: String,
    /// Where the mapping lies in this process.
    pub(super) avma: Range<u64>,
    /// What is added to an address of the file (an SVMA) to give the
    /// address in this process (an AVMA), wrapping.
    pub(super) bias: u64,
    /// The whole file, shared by the file's mappings.
    pub(super) file: Arc<[u8]>,
}

/// A section of a module's file: its address in the file's address space
/// (SVMA) and its bytes' place in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SectionPlace {
    pub(super) svma: Range<u64>,
    pub(super) bytes: Range<usize>,
}

impl Module {
    /// The file parsed again (cheap: the headers only).
    pub(super) fn elf(&self) -> Option<Elf<'_>> {
        Elf::parse(&*self.file).ok()
    }

    /// The file's name without its folder, for frames of no known symbol.
    pub(super) fn file_name(&self) -> &str {
        self.name.rsplit('/').next().unwrap_or(&self.name)
    }
}

/// Where the section `name` of `elf` is, if the file has it with its
/// bytes in the file, uncompressed.
pub(super) fn section_place(elf: &Elf<'_>, name: &str) -> Option<SectionPlace> {
    let section = elf.section_by_name(name)?;
    let compressed = section.compressed_file_range().ok()?;
    if compressed.format != object::CompressionFormat::None {
        return None;
    }
    let (offset, size) = section.file_range()?;
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(size).ok()?)?;
    let svma = section.address()..section.address().checked_add(section.size())?;
    Some(SectionPlace {
        svma,
        bytes: start..end,
    })
}

/// The modules of this process now, by address. The executable must be
/// read; a library that cannot be read or parsed (deleted since, not ELF)
/// is left out, and its addresses are then in no known module.
pub(super) fn this_process() -> Result<Vec<Module>, ProfileError> {
    let maps = std::fs::read_to_string("/proc/self/maps").map_err(ProfileError::Maps)?;
    let exe = std::fs::read_link("/proc/self/exe").map_err(ProfileError::Executable)?;
    let mut files: HashMap<String, Arc<[u8]>> = HashMap::new();
    let mut modules = Vec::new();
    let mut found_exe = false;
    for mapping in executable_mappings(&maps) {
        let is_exe = Path::new(&mapping.path) == exe;
        let file = match files.get(&mapping.path) {
            Some(file) => Some(file.clone()),
            None => read_module_file(&mapping, is_exe)?,
        };
        let Some(file) = file else { continue };
        files.insert(mapping.path.clone(), file.clone());
        let Some(bias) = Elf::parse(&*file).ok().and_then(|elf| bias(&elf, &mapping)) else {
            if is_exe {
                return Err(ProfileError::NotElf(exe.display().to_string()));
            }
            continue;
        };
        found_exe |= is_exe;
        modules.push(Module {
            name: mapping.path,
            avma: mapping.start..mapping.end,
            bias,
            file,
        });
    }
    if !found_exe {
        return Err(ProfileError::NotElf(exe.display().to_string()));
    }
    modules.sort_by_key(|m| m.avma.start);
    Ok(modules)
}

/// The bytes of the file `mapping` maps: the executable through
/// `/proc/self/exe` (the file that runs, even if replaced on disk since),
/// the vDSO from this process's memory, a library from its path. `None`
/// for what is no file (anonymous, `[vsyscall]`, deleted); an error only
/// if the executable cannot be read.
fn read_module_file(mapping: &Mapping, is_exe: bool) -> Result<Option<Arc<[u8]>>, ProfileError> {
    if is_exe {
        let bytes = std::fs::read("/proc/self/exe").map_err(ProfileError::Executable)?;
        return Ok(Some(bytes.into()));
    }
    if mapping.path == "[vdso]" {
        return Ok(read_own_memory(mapping.start..mapping.end).map(Into::into));
    }
    if !mapping.path.starts_with('/') || mapping.path.ends_with(" (deleted)") {
        return Ok(None);
    }
    Ok(std::fs::read(&mapping.path).ok().map(Into::into))
}

/// The bytes at `range` of this process's memory, read through
/// `/proc/self/mem` (no `unsafe`: a range that is not mapped is an error,
/// not a fault).
fn read_own_memory(range: Range<u64>) -> Option<Vec<u8>> {
    let len = usize::try_from(range.end.checked_sub(range.start)?).ok()?;
    let mut bytes = vec![0; len];
    let mem = File::open("/proc/self/mem").ok()?;
    mem.read_exact_at(&mut bytes, range.start).ok()?;
    Some(bytes)
}

/// The bias of `mapping` (see [`Module::bias`]), from the executable
/// loadable segment it maps. A mapping starts at a page boundary, so its
/// file offset may lie before the segment's own (in the page it shares
/// with the segment before): the segment is the executable one whose
/// pages hold that offset, and the offset's address in the file is then
/// the segment's address less the distance.
fn bias(elf: &Elf<'_>, mapping: &Mapping) -> Option<u64> {
    elf.segments().find_map(|segment| {
        let executable = match segment.flags() {
            SegmentFlags::Elf { p_flags } => p_flags & elf::PF_X != 0,
            _ => false,
        };
        let (offset, size) = segment.file_range();
        let align = segment.align().max(1);
        let first_page = offset - offset % align;
        let held = first_page <= mapping.offset && mapping.offset < offset.checked_add(size)?;
        // avma = start + (x - mapping.offset) and svma = address + (x - offset)
        // for every file offset x of the segment.
        let bias = mapping
            .start
            .wrapping_sub(mapping.offset)
            .wrapping_sub(segment.address().wrapping_sub(offset));
        (executable && held).then_some(bias)
    })
}
