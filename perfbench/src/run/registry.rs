//! The benchmarks `#[perfbench]` registered, their ids, and filtering.

use crate::measure::Bencher;

/// One registered benchmark; `#[perfbench]` submits one per function, or one
/// per element of `args`.
#[doc(hidden)]
pub struct Benchmark {
    /// `module_path!()` where the function was defined.
    pub module_path: &'static str,
    /// The function's name.
    pub name: &'static str,
    /// The argument, written with its `Display`, for `args` benchmarks.
    pub arg: Option<fn() -> String>,
    /// The position of the argument in `args`, to keep their order.
    pub arg_index: usize,
    /// Source file and line of the function, to list in source order.
    pub file: &'static str,
    /// See `file`.
    pub line: u32,
    /// `#[ignore]`: skipped unless `--ignored` or `--include-ignored`.
    pub ignore: bool,
    /// Runs the benchmark function with a bencher.
    pub run: fn(&mut Bencher<'_>),
}

inventory::collect!(Benchmark);

/// A registered benchmark with its id worked out.
pub struct Entry {
    /// `module::path::name[/arg]`, without the crate name.
    pub id: String,
    /// The registration.
    pub bench: &'static Benchmark,
}

impl Entry {
    /// Where it stands in the source: file, line, then argument.
    pub fn source_order(&self) -> (&'static str, u32, usize) {
        (self.bench.file, self.bench.line, self.bench.arg_index)
    }
}

/// Every registered benchmark, in source order.
pub fn all() -> Vec<Entry> {
    let mut entries: Vec<Entry> = inventory::iter::<Benchmark>
        .into_iter()
        .map(|bench| Entry {
            id: id_of(bench.module_path, bench.name, bench.arg.map(|f| f())),
            bench,
        })
        .collect();
    entries.sort_by_key(Entry::source_order);
    entries
}

/// The id of a benchmark: its module path without the crate name, its name,
/// and `/arg` for `args` benchmarks.
pub fn id_of(module_path: &str, name: &str, arg: Option<String>) -> String {
    let mut id = match module_path.split_once("::") {
        Some((_crate, rest)) => format!("{rest}::{name}"),
        None => name.to_string(),
    };
    if let Some(arg) = arg {
        id.push('/');
        id.push_str(&arg);
    }
    id
}

/// libtest's filter semantics: with no filter everything matches; otherwise
/// an id matches if it contains any filter, or equals one with `exact`; and
/// ids containing a `skip` pattern never match.
pub fn matches(id: &str, filters: &[String], skips: &[String], exact: bool) -> bool {
    let selected = filters.is_empty()
        || filters.iter().any(|f| {
            if exact {
                id == f
            } else {
                id.contains(f.as_str())
            }
        });
    let skipped = skips.iter().any(|s| {
        if exact {
            id == s
        } else {
            id.contains(s.as_str())
        }
    });
    selected && !skipped
}

/// What a run does with the registered benchmarks.
pub struct Selection {
    /// Those it runs, in source order.
    pub run: Vec<Entry>,
    /// Those the filters matched but that are ignored, and not asked for.
    pub ignored: Vec<Entry>,
    /// Those the filters (or `--ignored`) left out.
    pub filtered_out: usize,
}

/// libtest's selection: the benchmarks the filters match, less the ignored
/// ones; with `only_ignored` (`--ignored`) the ignored ones only, the
/// others counting as filtered out; with `include_ignored`
/// (`--include-ignored`) all of them.
pub fn select(
    all: Vec<Entry>,
    filter: impl Fn(&str) -> bool,
    only_ignored: bool,
    include_ignored: bool,
) -> Selection {
    let total = all.len();
    let (mut run, mut ignored) = (Vec::new(), Vec::new());
    for e in all.into_iter().filter(|e| filter(&e.id)) {
        let ignore = e.bench.ignore;
        if only_ignored && !ignore {
            continue;
        }
        if ignore && !(only_ignored || include_ignored) {
            ignored.push(e);
        } else {
            run.push(e);
        }
    }
    Selection {
        filtered_out: total - run.len() - ignored.len(),
        run,
        ignored,
    }
}

/// A registration made by hand, for tests: `name` in module `tests`.
#[cfg(test)]
pub(crate) const fn registered(
    name: &'static str,
    ignore: bool,
    run: fn(&mut Bencher<'_>),
) -> Benchmark {
    Benchmark {
        module_path: "tests",
        name,
        arg: None,
        arg_index: 0,
        file: "",
        line: 0,
        ignore,
        run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_drop_the_crate_and_append_the_arg() {
        assert_eq!(id_of("hashing", "fib_20", None), "fib_20");
        assert_eq!(id_of("hashing::three", "sum", None), "three::sum");
        assert_eq!(
            id_of("h::a::b", "crc", Some("4096".into())),
            "a::b::crc/4096"
        );
    }

    static PLAIN: Benchmark = registered("plain", false, |_| {});
    static SLOW: Benchmark = registered("slow", true, |_| {});
    static OTHER: Benchmark = registered("other", false, |_| {});

    #[test]
    fn ignored_benchmarks_are_set_aside_unless_asked_for() {
        let all = || {
            [&PLAIN, &SLOW, &OTHER]
                .map(|bench| Entry {
                    id: bench.name.to_string(),
                    bench,
                })
                .into_iter()
                .collect::<Vec<_>>()
        };
        let ids = |v: &[Entry]| v.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
        let not_other = |id: &str| id != "other";
        let s = select(all(), not_other, false, false);
        assert_eq!(
            (ids(&s.run), ids(&s.ignored), s.filtered_out),
            (vec!["plain".to_string()], vec!["slow".to_string()], 1)
        );
        let s = select(all(), not_other, true, false);
        assert_eq!(
            (ids(&s.run), s.ignored.len(), s.filtered_out),
            (vec!["slow".to_string()], 0, 2)
        );
        let s = select(all(), |_| true, false, true);
        assert_eq!((s.run.len(), s.ignored.len(), s.filtered_out), (3, 0, 0));
    }

    #[test]
    fn filters_follow_libtest() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(matches("three::sum", &[], &[], false));
        assert!(matches("three::sum", &f(&["sum", "zzz"]), &[], false));
        assert!(!matches("three::sum", &f(&["zzz"]), &[], false));
        assert!(!matches("three::sum", &f(&["sum"]), &[], true));
        assert!(matches("three::sum", &f(&["three::sum"]), &[], true));
        assert!(!matches("three::sum", &[], &f(&["three"]), false));
    }
}
