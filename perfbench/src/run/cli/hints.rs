//! What an unknown option or `PERFBENCH_*` variable is told: the way to do
//! what a Criterion or libtest option does here, else the nearest name we
//! know, else where to look. Users arrive with those harnesses' flags in
//! their fingers and scripts, so a bare "unknown option" would strand them.

use crate::counter::event::close_names;
use crate::output::format::quoted;

use super::flags::{find, FLAGS};
use super::usage_error::UsageError;

/// Options of Criterion and libtest that perfbench does not have, and what
/// to do instead.
const FOREIGN: &[(&str, &str)] = &[
    (
        "baseline-lenient",
        "Criterion's; --baseline NAME is lenient already: a benchmark missing from NAME is \
         shown as new",
    ),
    ("confidence-level", "Criterion's; intervals are always 95 %"),
    (
        "discard-baseline",
        "Criterion's; every run is stored as the latest, for the next to compare with",
    ),
    (
        "load-baseline",
        "Criterion's; perfbench always measures: compare with a stored run with --baseline NAME",
    ),
    (
        "nresamples",
        "Criterion's; the bootstrap always takes 1000 resamples, seeded",
    ),
    (
        "plotting-backend",
        "Criterion's; the report's plots are always SVG, --noplot leaves them out",
    ),
    (
        "significance-level",
        "Criterion's; a change is judged by its 95 % interval against --noise-threshold",
    ),
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

/// Criterion's one-letter options and the flags they stand for.
const CRITERION_SHORT: &[(char, &str)] = &[
    ('b', "baseline"),
    ('c', "color"),
    ('s', "save-baseline"),
    ('v', "verbose"),
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
    let known: Vec<&str> = FLAGS.iter().map(|f| f.name).collect();
    let aliases = FLAGS.iter().filter_map(|f| f.alias.map(|(alias, _)| alias));
    let known: Vec<&str> = known.into_iter().chain(aliases).collect();
    match close_names(name, &known).first() {
        Some(flag) => format!("did you mean `--{flag}`?"),
        None => "see --help".into(),
    }
}

/// Why `-c` is no option: perfbench has long options only (but for `-h`
/// and libtest's `-q`); Criterion's one-letter forms get the long one.
pub(super) fn unknown_short(c: char) -> UsageError {
    let hint = match CRITERION_SHORT.iter().find(|(s, _)| *s == c) {
        Some((_, long)) if find(long).is_some() => {
            format!("Criterion's; here it is `--{long}`")
        }
        Some((_, long)) => hint(long),
        None => "see --help".into(),
    };
    UsageError::UnknownShort { letter: c, hint }
}

/// A warning for each of `names` that looks like ours (`PERFBENCH_…`) but
/// that perfbench does not read, with the nearest variable it does.
pub fn unknown_variables<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    // Compared without the prefix they share, which would make any two
    // look close.
    let known: Vec<String> = FLAGS
        .iter()
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
