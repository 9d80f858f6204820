//! What an unknown option or `PERFBENCH_*` variable is told: the way to do
//! what a Criterion or libtest option does here, else the nearest name we
//! know, else where to look. Users arrive with those harnesses' flags in
//! their fingers and scripts, so a bare "unknown option" would strand them.

use crate::counter::event::close_names;
use crate::output::format::quoted;

use super::flags::all;
use super::usage_error::UsageError;

/// Options of libtest that perfbench does not have, and what to do instead
/// (Criterion's are all accepted: `criterion_flags.rs`).
const FOREIGN: &[(&str, &str)] = &[
    (
        "logfile",
        "libtest's; redirect stdout instead (--output-format json for a file a program reads)",
    ),
    (
        "shuffle",
        "libtest's; benchmarks run in source order, interleaved in rounds (--rounds)",
    ),
    (
        "shuffle-seed",
        "libtest's; benchmarks run in source order, interleaved in rounds (--rounds)",
    ),
];

/// Variables perfbench reads that are no flag's twin.
const OTHER_VARIABLES: &[&str] = &[
    "PERFBENCH_HOME",
    "PERFBENCH_WRITE_GOLDEN",
    "PERFBENCH_PMU_VM_CACHE",
    crate::run::paired::protocol::CHILD_VARIABLE,
    crate::run::paired::protocol::TOKEN_VARIABLE,
];

/// Why `--name` is no option: `unknown option `--name` (hint)`.
pub(super) fn unknown_option(name: &str) -> UsageError {
    UsageError::UnknownOption {
        name: name.into(),
        hint: hint(name),
    }
}

/// What to write instead of the unknown `--name`: the way to do what a
/// Criterion or libtest option does, else the flag it is likely a typo of,
/// else `see --help`.
fn hint(name: &str) -> String {
    if let Some((_, instead)) = FOREIGN.iter().find(|(n, _)| *n == name) {
        return instead.to_string();
    }
    let known: Vec<&str> = all().map(|f| f.name).collect();
    let aliases = all().filter_map(|f| f.alias.map(|(alias, _)| alias));
    let known: Vec<&str> = known.into_iter().chain(aliases).collect();
    match close_names(name, &known).first() {
        Some(flag) => format!("did you mean `--{flag}`?"),
        None => "see --help".into(),
    }
}

/// Why `-x` is no option: the one-letter forms are Criterion's, libtest's
/// `-q` and `-h`, which `--help` lists.
pub(super) fn unknown_short(c: char) -> UsageError {
    let hint = "see --help".into();
    UsageError::UnknownShort { letter: c, hint }
}

/// A warning for each of `names` that looks like ours (`PERFBENCH_…`) but
/// that perfbench does not read, with the nearest variable it does.
pub fn unknown_variables<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    // Compared without the prefix they share, which would make any two
    // look close.
    let known: Vec<String> = all()
        .filter_map(|f| f.twin())
        .chain(OTHER_VARIABLES.iter().map(|v| v.to_string()))
        .map(|v| v["PERFBENCH_".len()..].to_string())
        .collect();
    names
        .iter()
        .filter_map(|n| n.as_ref().strip_prefix("PERFBENCH_"))
        .filter(|rest| !known.iter().any(|k| k == rest))
        .map(|rest| {
            let hint = match close_names(rest, &known).first() {
                Some(var) => format!("did you mean `PERFBENCH_{var}`?"),
                None => "`--help` lists the options; each has a PERFBENCH_ twin".into(),
            };
            format!(
                "unknown variable `PERFBENCH_{}` is ignored ({hint})",
                quoted(rest)
            )
        })
        .collect()
}
