//! The benchmarks a bench target declares ([`Entry`]): those
//! `#[perfbench]` registered (the [`Registered`] suite), their ids, and
//! filtering. Another suite (a Criterion-style one) declares its own
//! entries through [`crate::run::suite::Suite`].

use std::collections::HashMap;
use std::time::Duration;

use crate::analysis::standings::Membership;
use crate::measure::Bencher;
use crate::output::format::printable;
use crate::run::bench::Routine;
use crate::run::bench_failure::BenchFailure;
use crate::run::panics::{catch, Panic};
use crate::run::suite::Suite;

/// One function marked `#[perfbench]`: it makes one benchmark, or one per
/// type of `types = [...]` and argument of `args = …` ([`Case`]).
#[doc(hidden)]
pub struct Benchmark {
    /// `module_path!()` where the function was defined.
    pub module_path: &'static str,
    /// The function's name.
    pub name: &'static str,
    /// Source file and line of the function, to list in source order.
    pub file: &'static str,
    /// See `file`.
    pub line: u32,
    /// What the attribute set besides the cases.
    pub settings: Settings,
    /// Its benchmarks: one, or one per type and argument, with their ids.
    pub cases: fn() -> Vec<Case>,
    /// Runs one of them with a bencher.
    pub run: fn(&mut Bencher<'_>, &Case),
}

inventory::collect!(Benchmark);

/// One benchmark of a function: the type, argument and thread count it
/// runs with, by position in `types`, `args` and `threads`, and as its id
/// names them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Case {
    /// The type of `types = [...]`, as written.
    pub ty: Option<(usize, &'static str)>,
    /// The argument of `args`, by its `Display` (else its `Debug`).
    pub arg: Option<(usize, String)>,
    /// The thread count of `threads = [...]`.
    pub threads: Option<(usize, usize)>,
}

impl Case {
    /// The position of its type in `types` (0 without).
    pub fn type_index(&self) -> usize {
        self.ty.map_or(0, |(i, _)| i)
    }

    /// The position of its argument in `args` (0 without).
    pub fn arg_index(&self) -> usize {
        self.arg.as_ref().map_or(0, |(i, _)| *i)
    }

    /// The threads its routine runs on at once: its count of `threads`,
    /// else 1.
    pub fn threads(&self) -> usize {
        self.threads.map_or(1, |(_, n)| n)
    }

    /// What its id adds to the function's name: `/arg` for an argument of
    /// `args`, `/threads=N` for a count of `threads` (`/64/threads=4`).
    fn suffix(&self) -> String {
        let arg = self.arg.iter().map(|(_, arg)| format!("/{arg}"));
        let threads = self.threads.iter().map(|(_, n)| format!("/threads={n}"));
        arg.chain(threads).collect()
    }
}

/// The cases of a function with these `types` (none for a function that
/// is not generic) and arguments (`None` without `args`): every type with
/// every argument.
pub fn cases(types: &[&'static str], args: Option<Vec<String>>) -> Vec<Case> {
    let types: Vec<Option<(usize, &'static str)>> = match types {
        [] => vec![None],
        _ => types.iter().copied().enumerate().map(Some).collect(),
    };
    let args: Vec<Option<(usize, String)>> = match args {
        None => vec![None],
        Some(args) => args.into_iter().enumerate().map(Some).collect(),
    };
    types
        .iter()
        .flat_map(|&ty| {
            args.iter().map(move |arg| Case {
                ty,
                arg: arg.clone(),
                threads: None,
            })
        })
        .collect()
}

/// The cases of a function with `threads = [...]`: each of `cases` on each
/// thread count, in the order given.
pub fn with_threads(cases: Vec<Case>, threads: &[usize]) -> Vec<Case> {
    cases
        .into_iter()
        .flat_map(|case| {
            threads.iter().copied().enumerate().map(move |t| Case {
                threads: Some(t),
                ..case.clone()
            })
        })
        .collect()
}

/// What `#[perfbench(…)]` set for a function's benchmarks, besides their
/// cases. The measurement settings give way to the run's own (command
/// line, environment, `--quick`): see [`crate::run::cli::RunOptions::config_for`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// `group = "name"`: the group its benchmarks are compared in, instead
    /// of their module's.
    pub group: Option<&'static str>,
    /// `ignore` or `#[ignore]`: skipped unless `--ignored` or
    /// `--include-ignored`.
    pub ignore: bool,
    /// `sample_count = N`.
    pub sample_count: Option<u64>,
    /// `warm_up_time = …`.
    pub warm_up: Option<Duration>,
    /// `measurement_time = …`.
    pub measurement: Option<Duration>,
    /// `events = "…"`, as `--events` takes them.
    pub events: Option<&'static str>,
    /// `mode = "per-iter"` (`true`) or `"batch"`.
    pub per_iter: Option<bool>,
}

impl Settings {
    /// Nothing set: what `#[perfbench]` alone gives.
    pub const NONE: Settings = Settings {
        group: None,
        ignore: false,
        sample_count: None,
        warm_up: None,
        measurement: None,
        events: None,
        per_iter: None,
    };
}

/// A benchmark a suite declares: its id and what it asks of the run. Its
/// routine is reached through the suite ([`crate::run::suite::Suite::visit`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// `module::path::name[::<T>][/arg][/threads=N]`, without the crate
    /// name, for a registered function.
    pub id: String,
    /// The path of what declared it, as errors name it: a registered
    /// function's `module::path::name`.
    pub origin: String,
    /// Its own settings, under the run's.
    pub settings: Settings,
    /// The group it is compared in, and its name and argument there.
    pub membership: Option<Membership>,
    /// The threads its routine runs on at once.
    pub threads: usize,
}

/// A registered function's benchmark: its entry, and the registration and
/// case its routine runs.
struct Registration {
    entry: Entry,
    bench: &'static Benchmark,
    case: Case,
}

impl Registration {
    fn of(bench: &'static Benchmark, case: Case) -> Registration {
        Registration {
            entry: Entry {
                id: id_of(bench.module_path, bench.name, &case),
                origin: id_of(bench.module_path, bench.name, &Case::default()),
                settings: bench.settings.clone(),
                membership: membership(bench, &case),
                threads: case.threads(),
            },
            bench,
            case,
        }
    }

    /// Where it stands in the source: file, line, then type, argument and
    /// thread count.
    fn source_order(&self) -> (&'static str, u32, usize, usize, usize) {
        let b = self.bench;
        let c = &self.case;
        let threads = c.threads.map_or(0, |(i, _)| i);
        (b.file, b.line, c.type_index(), c.arg_index(), threads)
    }

    /// Runs it with `b`, on its threads.
    fn run(&self, b: &mut Bencher<'_>) {
        b.set_threads(self.case.threads());
        (self.bench.run)(b, &self.case)
    }
}

/// The group a registered function's benchmark is compared in (its
/// `group = "…"`, else its module without the crate name; none in the
/// crate's root), and its name and argument there: members are compared
/// at equal arguments and thread counts, so the thread count is part of
/// the argument (`64/threads=4`, or `threads=4` alone), as its id ends.
fn membership(b: &Benchmark, case: &Case) -> Option<Membership> {
    let group = b
        .settings
        .group
        .or_else(|| b.module_path.split_once("::").map(|(_, m)| m))?;
    Some(Membership {
        group: group.to_string(),
        member: member_name(b.name, case),
        arg: case.suffix().strip_prefix('/').map(str::to_string),
    })
}

/// The suite of the functions marked `#[perfbench]` in this binary.
pub struct Registered {
    registrations: Vec<Registration>,
    broken: Vec<Broken>,
}

impl Registered {
    /// Every registered benchmark, in source order, and the functions
    /// whose cases panicked.
    pub fn new() -> Registered {
        let benches: Vec<&'static Benchmark> = inventory::iter::<Benchmark>.into_iter().collect();
        Registered::of(benches)
    }

    /// The suite of `benches`.
    pub(crate) fn of(mut benches: Vec<&'static Benchmark>) -> Registered {
        benches.sort_by_key(|b| (b.file, b.line));
        let (mut registrations, mut broken) = (Vec::new(), Vec::new());
        for bench in benches {
            match catch(bench.cases) {
                Ok(cases) => (registrations)
                    .extend(cases.into_iter().map(|case| Registration::of(bench, case))),
                Err(panic) => broken.push(Broken {
                    path: id_of(bench.module_path, bench.name, &Case::default()),
                    panic,
                    doing: "listing its cases: `args` or an argument's `Display`",
                }),
            }
        }
        registrations.sort_by_key(Registration::source_order);
        Registered {
            registrations,
            broken,
        }
    }
}

impl Default for Registered {
    fn default() -> Self {
        Registered::new()
    }
}

impl Suite for Registered {
    fn declared(&self) -> Registry {
        Registry {
            entries: self.registrations.iter().map(|r| r.entry.clone()).collect(),
            broken: self.broken.clone(),
        }
    }

    fn visit(&self, each: &mut dyn FnMut(&Entry, Routine<'_>)) {
        for r in &self.registrations {
            each(&r.entry, &|b: &mut Bencher<'_>| r.run(b));
        }
    }
}

/// What a suite declares: its benchmarks, and what could not be listed.
#[derive(Clone)]
pub struct Registry {
    /// Every benchmark, in the order they run.
    pub entries: Vec<Entry>,
    /// What could not be listed: the functions whose `cases` panicked (an
    /// argument's `Display`, or `args` itself), in source order.
    pub broken: Vec<Broken>,
}

/// A function whose benchmarks could not be listed: it fails, and the
/// others go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// Its path as ids begin: `module::path::name` without the crate name.
    pub path: String,
    /// The panic that listing its benchmarks raised.
    pub panic: Panic,
    /// What listing them was doing, as the failure says it.
    pub doing: &'static str,
}

impl Broken {
    /// Why it fails.
    pub fn why(&self) -> BenchFailure {
        BenchFailure::ListingPanicked(self.panic.clone(), self.doing)
    }
}

/// The first id two benchmarks share, as an error naming it and the
/// function (or the two functions) it belongs to.
pub fn duplicate_id(entries: &[Entry]) -> Option<String> {
    let mut seen: HashMap<&str, &Entry> = HashMap::new();
    for e in entries {
        let Some(first) = seen.insert(&e.id, e) else {
            continue;
        };
        let path = |e: &Entry| printable(&e.origin).into_owned();
        let whose = if first.origin == e.origin {
            format!(
                "of `{}`: two of its arguments are written alike (give them distinct `Display`s)",
                path(e)
            )
        } else {
            format!("of both `{}` and `{}`", path(first), path(e))
        };
        return Some(format!(
            "duplicate benchmark id `{}` {whose}",
            printable(&e.id)
        ));
    }
    None
}

/// Whether the filters could select a benchmark of the function at `path`
/// (an id begins with its function's path): they match the path, or, not
/// `exact`, a filter begins with it (`crc/64` selects from `crc`).
pub fn could_match(path: &str, filters: &[String], skips: &[String], exact: bool) -> bool {
    let longer = !exact && filters.iter().any(|f| f.starts_with(path));
    matches(path, filters, skips, exact) || (longer && matches(path, &[], skips, exact))
}

/// The id of a benchmark: its module path without the crate name, its
/// name, `::<T>` for a type of `types`, `/arg` for an argument of `args`
/// and `/threads=N` for a count of `threads`.
pub fn id_of(module_path: &str, name: &str, case: &Case) -> String {
    let member = member_name(name, case);
    let id = match module_path.split_once("::") {
        Some((_crate, rest)) => format!("{rest}::{member}"),
        None => member,
    };
    id + &case.suffix()
}

/// A function's name with the type of `types` it runs with: `sort::<u64>`.
fn member_name(name: &str, case: &Case) -> String {
    match case.ty {
        Some((_, ty)) => format!("{name}::<{ty}>"),
        None => name.to_string(),
    }
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
    /// The ids of those it runs and of the ignored ones, in the suite's
    /// order: what `--list` shows.
    pub listed: Vec<String>,
    /// Those it runs, in the suite's order.
    pub run: Vec<Entry>,
    /// Those the filters matched but that are ignored, and not asked for.
    pub ignored: Vec<Entry>,
    /// Those the filters (or `--ignored`) left out.
    pub filtered_out: usize,
}

/// What becomes of `#[ignore]`d benchmarks (libtest's flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ignored {
    /// Unasked: set aside, and named.
    #[default]
    Skipped,
    /// `--ignored`: they alone run, the others counting as filtered out.
    Only,
    /// `--include-ignored`: they run with the others.
    Included,
}

/// libtest's selection: the benchmarks the filters match, less the ignored
/// ones unless `ignored` asks for them.
pub fn select(all: Vec<Entry>, filter: impl Fn(&str) -> bool, ignored: Ignored) -> Selection {
    let total = all.len();
    let (mut run, mut set_aside, mut listed) = (Vec::new(), Vec::new(), Vec::new());
    for e in all.into_iter().filter(|e| filter(&e.id)) {
        let ignore = e.settings.ignore;
        if ignored == Ignored::Only && !ignore {
            continue;
        }
        listed.push(e.id.clone());
        if ignore && ignored == Ignored::Skipped {
            set_aside.push(e);
        } else {
            run.push(e);
        }
    }
    Selection {
        listed,
        filtered_out: total - run.len() - set_aside.len(),
        run,
        ignored: set_aside,
    }
}

/// A registration made by hand, for tests: `name` in module `tests`.
#[cfg(test)]
pub(crate) const fn registered(
    name: &'static str,
    ignore: bool,
    run: fn(&mut Bencher<'_>, &Case),
) -> Benchmark {
    Benchmark {
        module_path: "tests",
        name,
        file: "",
        line: 0,
        settings: Settings {
            ignore,
            ..Settings::NONE
        },
        cases: || vec![Case::default()],
        run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_drop_the_crate_and_append_the_arg() {
        let plain = Case::default();
        let arg = Case {
            arg: Some((1, "4096".into())),
            ..Case::default()
        };
        let typed = Case {
            ty: Some((0, "Vec<u8>")),
            ..arg.clone()
        };
        assert_eq!(id_of("hashing", "fib_20", &plain), "fib_20");
        assert_eq!(id_of("hashing::three", "sum", &plain), "three::sum");
        assert_eq!(id_of("h::a::b", "crc", &arg), "a::b::crc/4096");
        assert_eq!(id_of("h", "crc", &typed), "crc::<Vec<u8>>/4096");
    }

    #[test]
    fn cases_are_every_type_with_every_argument() {
        let ids = |types: &[&'static str], args: Option<Vec<String>>| {
            cases(types, args)
                .iter()
                .map(|c| id_of("c", "f", c))
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&[], None), ["f"]);
        assert_eq!(ids(&[], Some(vec!["1".into(), "2".into()])), ["f/1", "f/2"]);
        assert_eq!(
            ids(&["u8", "u64"], Some(vec!["1".into(), "2".into()])),
            ["f::<u8>/1", "f::<u8>/2", "f::<u64>/1", "f::<u64>/2"]
        );
        let c = &cases(&["u8", "u64"], Some(vec!["1".into(), "2".into()]))[3];
        assert_eq!((c.type_index(), c.arg_index()), (1, 1));
    }

    #[test]
    fn thread_counts_end_the_id_and_join_the_argument_of_a_group() {
        let args = Some(vec!["64".to_string(), "4096".to_string()]);
        let cases = with_threads(cases(&[], args), &[1, 4]);
        let ids: Vec<String> = cases.iter().map(|c| id_of("h::m", "crc", c)).collect();
        assert_eq!(
            ids,
            [
                "m::crc/64/threads=1",
                "m::crc/64/threads=4",
                "m::crc/4096/threads=1",
                "m::crc/4096/threads=4"
            ]
        );
        let threads: Vec<usize> = cases.iter().map(Case::threads).collect();
        assert_eq!(threads, [1, 4, 1, 4]);
        assert_eq!(Case::default().threads(), 1);
        let entry = |case: &Case| Registration::of(&IN_MODULE, case.clone());
        assert_eq!(entry(&cases[3]).source_order(), ("", 0, 0, 1, 1));
        assert_eq!(entry(&cases[3]).entry.threads, 4);
        let arg = |case: &Case| entry(case).entry.membership.unwrap().arg;
        assert_eq!(arg(&cases[1]).as_deref(), Some("64/threads=4"));
        let alone = with_threads(vec![Case::default()], &[2]);
        assert_eq!(id_of("h::m", "spin", &alone[0]), "m::spin/threads=2");
        assert_eq!(arg(&alone[0]).as_deref(), Some("threads=2"));
        assert_eq!(arg(&Case::default()), None);
    }

    static IN_MODULE: Benchmark = Benchmark {
        module_path: "h::m",
        ..registered("crc", false, |_, _| {})
    };

    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static SHARED: Benchmark = registered("shared", false, |b, _| {
        b.iter_shared(|| CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    });

    #[test]
    fn a_benchmark_runs_on_the_threads_of_its_case() {
        let case = with_threads(vec![Case::default()], &[3]).remove(0);
        let r = Registration::of(&SHARED, case);
        crate::measure::run_once(|b| r.run(b)).unwrap();
        assert_eq!(CALLS.load(std::sync::atomic::Ordering::Relaxed), 3);
    }

    static PLAIN: Benchmark = registered("plain", false, |_, _| {});
    static SLOW: Benchmark = registered("slow", true, |_, _| {});
    static OTHER: Benchmark = registered("other", false, |_, _| {});

    #[test]
    fn ignored_benchmarks_are_set_aside_unless_asked_for() {
        let all = || {
            [&PLAIN, &SLOW, &OTHER]
                .map(|bench| Registration::of(bench, Case::default()).entry)
                .into_iter()
                .collect::<Vec<_>>()
        };
        let ids = |v: &[Entry]| v.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
        let not_other = |id: &str| id != "other";
        let s = select(all(), not_other, Ignored::Skipped);
        assert_eq!(
            (ids(&s.run), ids(&s.ignored), s.filtered_out),
            (vec!["plain".to_string()], vec!["slow".to_string()], 1)
        );
        let s = select(all(), not_other, Ignored::Only);
        assert_eq!(
            (ids(&s.run), s.ignored.len(), s.filtered_out),
            (vec!["slow".to_string()], 0, 2)
        );
        let s = select(all(), |_| true, Ignored::Included);
        assert_eq!((s.run.len(), s.ignored.len(), s.filtered_out), (3, 0, 0));
    }

    #[test]
    fn a_shared_id_is_named_with_its_function_or_both() {
        let args = Some(vec!["dup".to_string(), "a\nb".into(), "dup".into()]);
        let entries: Vec<Entry> = cases(&[], args)
            .into_iter()
            .map(|case| Registration::of(&IN_MODULE, case).entry)
            .collect();
        assert_eq!(
            duplicate_id(&entries).unwrap(),
            "duplicate benchmark id `m::crc/dup` of `m::crc`: two of its arguments are \
             written alike (give them distinct `Display`s)"
        );
        assert_eq!(duplicate_id(&entries[..2]), None);
        let two = [&PLAIN, &OTHER].map(|bench| Entry {
            id: "tests::x\u{1b}".into(),
            ..Registration::of(bench, Case::default()).entry
        });
        assert_eq!(
            duplicate_id(&two).unwrap(),
            "duplicate benchmark id `tests::x\\u{1b}` of both `plain` and `other`"
        );
    }

    #[test]
    fn a_function_without_cases_is_selected_by_filters_that_could_select_its_ids() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(could_match("m::crc", &[], &[], false));
        assert!(could_match("m::crc", &f(&["crc"]), &[], false));
        assert!(could_match("m::crc", &f(&["m::crc/64"]), &[], false));
        assert!(!could_match("m::crc", &f(&["m::crc/64"]), &[], true));
        assert!(!could_match("m::crc", &f(&["sum"]), &[], false));
        assert!(!could_match(
            "m::crc",
            &f(&["m::crc/64"]),
            &f(&["crc"]),
            false
        ));
        assert!(!could_match("m::crc", &[], &f(&[""]), false));
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
