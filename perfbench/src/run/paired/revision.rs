//! `--paired-with-rev REV`: this bench target built from a git revision of
//! its own source, cached per commit, for a paired run to measure beside
//! this build.

use std::path::PathBuf;

/// The bench target a binary was built from, as `perfbench::main!()`
/// records it at compile time in the user's crate.
#[derive(Clone, Copy, Debug)]
pub struct BenchTarget {
    /// The package (`CARGO_PKG_NAME`).
    pub package: &'static str,
    /// The target's crate name (`CARGO_CRATE_NAME`: `-` written `_`).
    pub crate_name: &'static str,
    /// The package's folder on the machine that built it
    /// (`CARGO_MANIFEST_DIR`).
    pub manifest_dir: &'static str,
}

/// The bench binary of `target` built at git revision `rev` of the
/// repository holding its source; `Err` says why in one line.
pub fn bench_binary_at(rev: &str, target: &BenchTarget) -> Result<PathBuf, String> {
    let _ = target;
    Err(format!("--paired-with-rev `{rev}`: not built yet"))
}
