//! Addresses of this process → the frames at each: the function that
//! holds it from its module's symbol table, demangled, and where the
//! module has DWARF, the functions inlined there with their files and
//! lines. Each address is resolved once.

use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use super::dwarf_frames::{DwarfFrame, DwarfFrames};
use super::frame_name::{folded_frame, frame_of_symbol, UNKNOWN_FRAME};
use super::module::Module;
use super::symbol_table::SymbolTable;

/// One frame of a stack: a function at an address, inlined there or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The function's name, demangled and fit for the folded format
    /// (`profile::folded_frame`): [`UNKNOWN_FRAME`] where no module holds
    /// the address, `[FILE]` (the module's file name, e.g.
    /// `[libc.so.6]`) where the module names no function there.
    pub function: String,
    /// The source file, where DWARF line tables say.
    pub file: Option<String>,
    /// The line in it: of the instruction in the innermost frame at an
    /// address, of the inlined call in the others.
    pub line: Option<u32>,
}

impl Frame {
    /// A frame of `function` without a source line.
    fn named(function: String) -> Frame {
        Frame {
            function,
            file: None,
            line: None,
        }
    }
}

/// What resolves the addresses of one module.
struct ModuleSymbols {
    avma: Range<u64>,
    bias: u64,
    /// `[FILE]`, the frame of an address no symbol covers.
    anonymous: String,
    table: SymbolTable,
    dwarf: Option<DwarfFrames>,
}

/// Resolves this process's addresses to frames, each address once.
pub(super) struct Symbolizer {
    modules: Vec<ModuleSymbols>,
    cache: HashMap<u64, Rc<[Frame]>>,
}

impl Symbolizer {
    /// A symbolizer of `modules` (sorted by address): their symbol tables
    /// read, and their DWARF where they have any.
    pub(super) fn new(modules: &[Module]) -> Symbolizer {
        let modules = modules
            .iter()
            .map(|m| ModuleSymbols {
                avma: m.avma.clone(),
                bias: m.bias,
                anonymous: folded_frame(&format!("[{}]", m.file_name())),
                table: m
                    .elf()
                    .map(|elf| SymbolTable::new(&elf))
                    .unwrap_or_default(),
                dwarf: DwarfFrames::new(m),
            })
            .collect();
        Symbolizer {
            modules,
            cache: HashMap::new(),
        }
    }

    /// Whether any module has DWARF (inlined frames and lines).
    pub(super) fn has_dwarf(&self) -> bool {
        self.modules.iter().any(|m| m.dwarf.is_some())
    }

    /// The frames at `address` (a lookup address: see
    /// [`SelfUnwinder::unwind`](super::unwind::SelfUnwinder::unwind)),
    /// innermost first: never empty.
    pub(super) fn frames(&mut self, address: u64) -> Rc<[Frame]> {
        if let Some(frames) = self.cache.get(&address) {
            return frames.clone();
        }
        let frames: Rc<[Frame]> = self.resolve(address).into();
        self.cache.insert(address, frames.clone());
        frames
    }

    fn resolve(&self, address: u64) -> Vec<Frame> {
        let after = self.modules.partition_point(|m| m.avma.start <= address);
        let module = after
            .checked_sub(1)
            .map(|i| &self.modules[i])
            .filter(|m| address < m.avma.end);
        let Some(module) = module else {
            return vec![Frame::named(UNKNOWN_FRAME.to_string())];
        };
        let svma = address.wrapping_sub(module.bias);
        let symbol = module.table.name_at(svma).map(frame_of_symbol);
        let inlined = module.dwarf.as_ref().map_or_else(Vec::new, |d| d.at(svma));
        if inlined.is_empty() {
            let name = symbol.unwrap_or_else(|| module.anonymous.clone());
            return vec![Frame::named(name)];
        }
        dwarf_frames(inlined, symbol)
    }
}

/// DWARF's frames at an address as [`Frame`]s; the outermost, the
/// function whose machine code it is, named by its `symbol` where the
/// table has one, as the stacks of a build without DWARF name it.
///
/// Inlined frames are kept only where DWARF names each by its linkage
/// name (mangled, so its whole path): `debug = "limited"` or more does,
/// while `debug = "line-tables-only"` gives bare names (`{closure#0}`,
/// `next<u64>`) that neither read as paths nor let the cut find the
/// harness's inlined closures. There the address is its function alone,
/// with the line of the innermost frame.
pub(super) fn dwarf_frames(inlined: Vec<DwarfFrame>, symbol: Option<String>) -> Vec<Frame> {
    let last = inlined.len() - 1;
    let linkage = |f: &DwarfFrame| f.name.as_deref().is_some_and(is_mangled);
    if !inlined[..last].iter().all(linkage) {
        let innermost = &inlined[0];
        let function = match symbol {
            Some(symbol) => symbol,
            None => inlined[last]
                .name
                .as_deref()
                .map_or_else(|| UNKNOWN_FRAME.to_string(), frame_of_symbol),
        };
        return vec![Frame {
            function,
            file: innermost.file.clone(),
            line: innermost.line,
        }];
    }
    inlined
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let function = match (&symbol, &f.name) {
                (Some(symbol), _) if i == last => symbol.clone(),
                (_, Some(name)) => frame_of_symbol(name),
                (_, None) => UNKNOWN_FRAME.to_string(),
            };
            Frame {
                function,
                file: f.file,
                line: f.line,
            }
        })
        .collect()
}

/// Whether `name` is a mangled (linkage) name: Rust's, legacy or v0, or
/// C++'s.
fn is_mangled(name: &str) -> bool {
    name.starts_with("_Z") || rustc_demangle::try_demangle(name).is_ok()
}
