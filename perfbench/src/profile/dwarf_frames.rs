//! A module's DWARF, where its file has any (`.debug_info` with line
//! tables, uncompressed): the functions inlined at an address, with their
//! source files and lines, through `addr2line` on framehop's `gimli`.

use addr2line::Context;
use gimli::{EndianArcSlice, RunTimeEndian, SectionId};
use object::Object;

use super::module::{section_place, Module};

/// The reader of the module's sections: ranges of its whole file, shared.
type Reader = EndianArcSlice<RunTimeEndian>;

/// One frame DWARF gives for an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct DwarfFrame {
    /// The function's name as DWARF holds it (mangled, its linkage name
    /// where it has one).
    pub(super) name: Option<String>,
    /// The source file of the frame's line.
    pub(super) file: Option<String>,
    /// The line in it: of the sampled instruction in the innermost frame,
    /// of the call (the inlined call site) in the others.
    pub(super) line: Option<u32>,
}

/// The DWARF of one module.
pub(super) struct DwarfFrames {
    context: Context<Reader>,
}

impl DwarfFrames {
    /// The DWARF of `module`'s file; `None` where it has no `.debug_info`
    /// (a default release build), has it compressed, or it does not parse.
    pub(super) fn new(module: &Module) -> Option<DwarfFrames> {
        let elf = module.elf()?;
        let info = section_place(&elf, ".debug_info")?;
        if info.bytes.is_empty() {
            return None;
        }
        let endian = if elf.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let whole = Reader::new(module.file.clone(), endian);
        let load = |id: SectionId| -> Result<Reader, gimli::Error> {
            let bytes = section_place(&elf, id.name())
                .map(|place| place.bytes)
                .filter(|bytes| bytes.end <= module.file.len())
                .unwrap_or(0..0);
            Ok(whole.range(bytes))
        };
        let dwarf = gimli::Dwarf::load(load).ok()?;
        let context = Context::from_dwarf(dwarf).ok()?;
        Some(DwarfFrames { context })
    }

    /// The frames at `svma` (an address of the file), innermost first: the
    /// functions inlined there, then the one whose machine code it is.
    /// Empty where DWARF says nothing of it (code without debug
    /// information, a library's).
    pub(super) fn at(&self, svma: u64) -> Vec<DwarfFrame> {
        let mut frames = Vec::new();
        let Ok(mut iter) = self.context.find_frames(svma).skip_all_loads() else {
            return frames;
        };
        while let Ok(Some(frame)) = iter.next() {
            let name = frame
                .function
                .as_ref()
                .and_then(|f| f.raw_name().ok())
                .map(|n| n.into_owned());
            let (file, line) = frame
                .location
                .map(|l| (l.file.map(str::to_string), l.line))
                .unwrap_or_default();
            frames.push(DwarfFrame { name, file, line });
        }
        frames
    }
}
