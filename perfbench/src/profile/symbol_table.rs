//! A module's function symbols by address (`.symtab`, else `.dynsym` for a
//! stripped library): the name of the function that holds an address,
//! without any debug information.

use object::{Object, ObjectSymbol, SymbolKind};

use super::module::Elf;

/// A function: its first address and size in the file's address space
/// (size 0 where the symbol does not say), and its name as the file holds
/// it (mangled).
#[derive(Clone, Debug, PartialEq, Eq)]
struct FunctionSymbol {
    start: u64,
    size: u64,
    name: Box<str>,
}

/// The function symbols of one ELF file, sorted by address.
#[derive(Clone, Debug, Default)]
pub(super) struct SymbolTable {
    functions: Vec<FunctionSymbol>,
}

impl SymbolTable {
    /// The defined functions of `.symtab`, or of `.dynsym` where the file
    /// has no `.symtab` (a stripped library keeps its exported names).
    pub(super) fn new(elf: &Elf<'_>) -> SymbolTable {
        let mut functions = functions(elf.symbols());
        if functions.is_empty() {
            functions = self::functions(elf.dynamic_symbols());
        }
        SymbolTable::from_functions(functions)
    }

    /// The table of `(start, size, name)`, in any order: for tests.
    #[cfg(test)]
    pub(super) fn of(entries: &[(u64, u64, &str)]) -> SymbolTable {
        let functions = entries
            .iter()
            .map(|&(start, size, name)| FunctionSymbol {
                start,
                size,
                name: name.into(),
            })
            .collect();
        SymbolTable::from_functions(functions)
    }

    /// Sorted by address; of aliases at one address (`memcpy` and
    /// `__memcpy_avx_unaligned`), the largest, then the first by name.
    fn from_functions(mut functions: Vec<FunctionSymbol>) -> SymbolTable {
        functions.sort_by(|a, b| {
            (a.start, std::cmp::Reverse(a.size), &a.name).cmp(&(
                b.start,
                std::cmp::Reverse(b.size),
                &b.name,
            ))
        });
        functions.dedup_by_key(|f| f.start);
        SymbolTable { functions }
    }

    /// The name of the function holding `svma` (an address of the file):
    /// the last one starting at or below it, unless its size ends before
    /// `svma` (padding between functions, or code no symbol names).
    pub(super) fn name_at(&self, svma: u64) -> Option<&str> {
        let after = self.functions.partition_point(|f| f.start <= svma);
        let f = self.functions.get(after.checked_sub(1)?)?;
        let inside = f.size == 0 || svma - f.start < f.size;
        inside.then_some(&*f.name)
    }
}

/// The defined, named functions among `symbols`.
fn functions<'data>(
    symbols: impl Iterator<Item = impl ObjectSymbol<'data>>,
) -> Vec<FunctionSymbol> {
    symbols
        .filter(|s| s.kind() == SymbolKind::Text && s.is_definition() && s.address() != 0)
        .filter_map(|s| {
            let name = s.name().ok().filter(|n| !n.is_empty())?;
            Some(FunctionSymbol {
                start: s.address(),
                size: s.size(),
                name: name.into(),
            })
        })
        .collect()
}
