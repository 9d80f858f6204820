//! The executable mappings of this process, as `/proc/self/maps` lists
//! them: where each module's code lies and which file it comes from.

/// One executable mapping: `start..end` holds the file's bytes from
/// `offset` on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Mapping {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) offset: u64,
    /// The file's path, or a pseudo-name such as `[vdso]`; empty for an
    /// anonymous mapping (JIT code, none in a benchmark).
    pub(super) path: String,
}

/// The executable mappings in the text of `/proc/self/maps`, in its order
/// (by address); lines that do not parse are skipped.
pub(super) fn executable_mappings(maps: &str) -> Vec<Mapping> {
    maps.lines().filter_map(executable_mapping).collect()
}

/// One line (`start-end perms offset dev inode   path`), if executable.
fn executable_mapping(line: &str) -> Option<Mapping> {
    let mut rest = line;
    let mut field = || {
        let trimmed = rest.trim_start();
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        rest = &trimmed[end..];
        Some(&trimmed[..end]).filter(|f| !f.is_empty())
    };
    let range = field()?;
    let perms = field()?;
    let offset = field()?;
    let (_dev, _inode) = (field()?, field()?);
    if perms.as_bytes().get(2) != Some(&b'x') {
        return None;
    }
    let (start, end) = range.split_once('-')?;
    Some(Mapping {
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        offset: u64::from_str_radix(offset, 16).ok()?,
        // The path is the rest of the line: it may hold spaces.
        path: rest.trim().to_string(),
    })
}
