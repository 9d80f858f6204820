//! The program `perfbench::main!()` expands to: parse options, select
//! benchmarks, and run them — as tests, or measured as a pipeline of preparation,
//! per-benchmark steps (measure, analyse, compare, store), outputs and a
//! summary with the exit code.

pub mod bench;
pub mod bench_failure;
pub mod calibration;
pub mod case_args;
pub mod cli;
pub mod end_of_run;
pub mod origin;
pub mod paired;
pub mod panics;
pub mod preparation;
pub mod profiling;
pub mod registry;
pub mod round_source;
pub mod scheduler;
pub mod setup;
pub mod setup_error;
pub mod sinks;
pub mod stderr;
pub mod stored_runs;
pub mod suite;

use std::time::Duration;

use crate::analysis::comparison::Target;
use crate::counter::group;
use crate::kernel::pmu;
use crate::measure::{self, run_once};
use crate::output::format::{count, plural, printable, quoted, thousands};
use crate::output::{event_list, RunHeader, Sink};
use crate::run::bench::Underway;
use crate::run::bench_failure::BenchFailure;
use crate::run::cli::{Action, Filter, OutputFormat, RunMode, RunOptions};
use crate::run::end_of_run::{RunTally, EXIT_FAILED, EXIT_USAGE};
use crate::run::panics::{catch, caught};
use crate::run::preparation::Preparation;
use crate::run::registry::{Broken, Entry, Registered};
use crate::run::round_source::{Local, RoundSource};
use crate::run::scheduler::run_steps;
use crate::run::setup_error::SetupError;
use crate::run::suite::Suite;
use crate::store::{self, Store};

/// Runs the `#[perfbench]` functions of this binary, the bench target
/// `target`, as the command line asks and exits.
pub fn main(target: &paired::revision::BenchTarget) -> ! {
    main_of(target, &Registered::new())
}

/// Runs the benchmarks of `suite`, the bench target `target`, as the
/// command line asks and exits.
pub fn main_of(target: &paired::revision::BenchTarget, suite: &dyn Suite) -> ! {
    let names: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .collect();
    for warning in cli::unknown_variables(&names) {
        stderr::warning(&warning);
    }
    let given = suite.arguments().into_iter().map(std::ffi::OsString::from);
    let args = given.chain(std::env::args_os().skip(1));
    let code = match cli::parse_in(suite.dialect(), args, |var| {
        // Not UTF-8: passed on mangled, for the error to name the variable.
        std::env::var_os(var).map(|v| v.to_string_lossy().into_owned())
    }) {
        Ok(options) => {
            for warning in &options.warnings {
                stderr::warning(warning);
            }
            run(&options, (target, suite))
        }
        Err(e) => {
            stderr::error(&e.to_string());
            EXIT_USAGE
        }
    };
    std::process::exit(code)
}

/// The store of `target`'s results ([`store::default_root`]).
fn store_of(target: &paired::revision::BenchTarget) -> Store {
    Store::at(store::default_root(target.package, target.crate_name))
}

/// Runs with `options` the benchmarks of `suite`, the bench target
/// `target`, and returns the exit code.
pub fn run(
    options: &RunOptions,
    (target, suite): (&paired::revision::BenchTarget, &dyn Suite),
) -> i32 {
    let mode = match options.action {
        Action::Help => {
            print!("{}", cli::usage());
            return 0;
        }
        Action::ListEvents => {
            print!("{}", event_list());
            return 0;
        }
        Action::List { terse } => {
            return match selected(&options.filter, suite) {
                Ok((selection, broken, _)) => list(&selection, &broken, terse),
                Err(code) => code,
            }
        }
        Action::Run(mode) => mode,
    };
    let (selection, broken, total) = match selected(&options.filter, suite) {
        Ok(selected) => selected,
        Err(code) => return code,
    };
    let chosen = selection.run.len() + selection.ignored.len() + broken.len();
    if let Some(nothing) = nothing_selected(&options.filter, chosen, total) {
        stderr::say(&nothing);
    }
    let code = match mode {
        RunMode::Test => return run_tests(suite, &selection, &broken),
        RunMode::Profile(time) => run_profiles(suite, &selection.run, &broken, time),
        RunMode::Bench if paired::child::requested() => {
            return paired::child::serve(options, (suite, &selection.run), store_of(target))
        }
        RunMode::Bench => match run_benches(options, (target, suite), &selection.run, &broken) {
            Ok(code) => code,
            Err(e) => {
                stderr::error(&e.to_string());
                return EXIT_USAGE;
            }
        },
    };
    say_ignored(&selection.ignored);
    code
}

/// `--list-events`: every event name, and whether it opens here.
fn event_list() -> String {
    event_list::render(pmu::live_root(), |e| match group::countable(e.clone()) {
        Ok(group::Countable::AsAsked(_)) => Ok(None),
        Ok(group::Countable::UserOnly(e)) => {
            Ok(Some(format!("user space only here, as {}", e.name)))
        }
        Err(err) => Err(err.reason()),
    })
}

/// The benchmarks of `suite` that `filter` selects, what could not be
/// listed that it could select, and how many it declares; or the exit code
/// where the suite is unfit to run (said on stderr).
fn selected(
    filter: &Filter,
    suite: &dyn Suite,
) -> Result<(registry::Selection, Vec<Broken>, usize), i32> {
    let registry = suite.declared();
    if let Err(e) = check(&registry.entries) {
        stderr::error(&e.to_string());
        return Err(EXIT_USAGE);
    }
    let total = registry.entries.len() + registry.broken.len();
    let broken: Vec<Broken> = (registry.broken.into_iter())
        .filter(|b| filter.could_match(&b.path))
        .collect();
    let selection = registry::select(registry.entries, |id| filter.matches(id), filter.ignored);
    Ok((selection, broken, total))
}

/// What makes the registered benchmarks unfit to run at all: two with one
/// id (their results would overwrite each other), or a function's own
/// setting beyond the limits the command line has.
fn check(entries: &[Entry]) -> Result<(), SetupError> {
    if let Some(duplicate) = registry::duplicate_id(entries) {
        return Err(SetupError::DuplicateId(duplicate));
    }
    for e in entries {
        cli::check_settings(&printable(&e.origin), &e.settings).map_err(SetupError::Setting)?;
    }
    Ok(())
}

/// Where filters or `--skip` leave no benchmark of the `total` registered
/// (`chosen` is what they left), the line that says so.
fn nothing_selected(filter: &Filter, chosen: usize, total: usize) -> Option<String> {
    if chosen > 0 || total == 0 || (filter.patterns.is_empty() && filter.skip.is_empty()) {
        return None;
    }
    let quoted = |patterns: &[String]| {
        let quoted: Vec<String> = patterns
            .iter()
            .map(|p| format!("`{}`", quoted(p)))
            .collect();
        quoted.join(", ")
    };
    let skip = quoted(&filter.skip);
    let what = match (filter.patterns.is_empty(), skip.is_empty()) {
        (true, _) => format!("--skip {skip} leaves no benchmark"),
        (false, true) => format!("no benchmark matches {}", quoted(&filter.patterns)),
        (false, false) => format!(
            "no benchmark matches {} but for --skip {skip}",
            quoted(&filter.patterns)
        ),
    };
    let empty = if filter.skip.iter().any(String::is_empty) {
        "; an empty --skip is in every id"
    } else {
        ""
    };
    Some(format!(
        "{what} ({total} registered{empty}; `--list` shows them)"
    ))
}

/// `--list`: the benchmarks a run would consider, ignored ones included
/// as libtest lists them; a function whose cases could not be listed is
/// named on stderr, and fails the listing as it would the run.
fn list(selection: &registry::Selection, broken: &[Broken], terse: bool) -> i32 {
    for id in &selection.listed {
        println!("{}: benchmark", printable(id));
    }
    if !terse {
        println!("\n{}", count(selection.listed.len(), "benchmark"));
    }
    failures(broken).exit_code()
}

/// A tally that counts the functions whose cases could not be listed as
/// failed, each named on stderr.
fn failures(broken: &[Broken]) -> RunTally {
    let mut tally = RunTally::default();
    for b in broken {
        failed(&b.path, &b.why(), &mut tally);
    }
    tally
}

/// Names the ignored benchmarks a measuring run leaves out, on stderr.
fn say_ignored(ignored: &[Entry]) {
    if ignored.is_empty() {
        return;
    }
    let ids: Vec<_> = ignored.iter().map(|e| printable(&e.id)).collect();
    eprintln!(
        "perfbench: {} ignored: {} (`--ignored` runs only those, `--include-ignored` all)",
        count(ids.len(), "benchmark"),
        ids.join(", ")
    );
}

/// Test mode: each routine once, reported the way libtest does; a function
/// whose cases could not be listed fails first.
fn run_tests(suite: &dyn Suite, selection: &registry::Selection, broken: &[Broken]) -> i32 {
    let entries = &selection.run;
    let listed = entries.len() + selection.ignored.len() + broken.len();
    println!("\nrunning {}", count(listed, "test"));
    let mut failures = Vec::new();
    for b in broken {
        println!("test {} ... FAILED", printable(&b.path));
        failures.push((b.path.as_str(), b.why().to_string()));
    }
    each_selected(suite, entries, &mut |e, routine| {
        let outcome = match catch(|| run_once(routine)) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) => Err(err.to_string()),
            Err(panic) => Err(panic.to_string()),
        };
        match outcome {
            Ok(()) => println!("test {} ... ok", printable(&e.id)),
            Err(why) => {
                println!("test {} ... FAILED", printable(&e.id));
                failures.push((e.id.as_str(), why));
            }
        }
    });
    for e in &selection.ignored {
        println!("test {} ... ignored", printable(&e.id));
    }
    if !failures.is_empty() {
        println!("\nfailures:");
        for (id, why) in &failures {
            println!("    {}: {why}", printable(id));
        }
    }
    let verdict = if failures.is_empty() { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {} passed; {} failed; {} ignored; 0 measured; {} filtered out\n",
        entries.len() + broken.len() - failures.len(),
        failures.len(),
        selection.ignored.len(),
        selection.filtered_out
    );
    if failures.is_empty() {
        0
    } else {
        EXIT_FAILED
    }
}

/// `--profile-time`: runs each routine for about `time`, with no counters,
/// analysis, storing or report, for a profiler such as `perf record` to
/// watch; a line per benchmark says what ran. Returns the exit code.
fn run_profiles(suite: &dyn Suite, entries: &[Entry], broken: &[Broken], time: Duration) -> i32 {
    let mut tally = failures(broken);
    each_selected(
        suite,
        entries,
        &mut |e, routine| match caught(|| measure::profile(time, routine)) {
            Ok(ran) => println!(
                "perfbench: profiled {}: {} iteration{} in {:.2} s (no analysis, nothing stored)",
                printable(&e.id),
                thousands(ran.iterations as f64),
                plural(ran.iterations as usize),
                ran.elapsed.as_secs_f64()
            ),
            Err(why) => failed(&e.id, &why, &mut tally),
        },
    );
    tally.print(entries.len() + broken.len(), &Target::PreviousRun, false);
    tally.exit_code()
}

/// Names a benchmark that failed and why, and counts it.
fn failed(id: &str, why: &BenchFailure, tally: &mut RunTally) {
    let after = why.after_id();
    eprintln!(
        "perfbench: error: benchmark `{}`{after}{why}",
        printable(id)
    );
    tally.failed.push(id.to_string());
}

/// Measures `entries` as `options` ask and returns the exit code, counting
/// the `broken` functions as failed; `Err` is a user's mistake found before
/// the first benchmark.
fn run_benches(
    options: &RunOptions,
    (target, suite): (&paired::revision::BenchTarget, &dyn Suite),
    entries: &[Entry],
    broken: &[Broken],
) -> Result<i32, SetupError> {
    // Built before pinning, which would hold cargo to one CPU.
    let paired_build = paired::paired_build(options, target).map_err(SetupError::PairedBuild)?;
    let origin = origin::Origin::of(target);
    let early = failures(broken);
    if entries.is_empty() {
        if !broken.is_empty() {
            early.print(broken.len(), &Target::PreviousRun, false);
        }
        return Ok(early.exit_code());
    }
    let mut prep = preparation::prepare(options, &wants(options, entries), store_of(target))?;
    origin.record_in(&mut prep.environment);
    let mut benches = underway(entries, jobs(options, entries, &prep));
    // Started once pinned, it runs on the same CPU.
    let mut source: Box<dyn RoundSource> = match &paired_build {
        Some(build) => {
            let started = paired::PairedBuilds::start(build, entries);
            Box::new(started.map_err(SetupError::Paired)?)
        }
        None => Box::new(Local),
    };
    let most_threads = entries.iter().map(|e| e.threads).max();
    if let Some(warning) = pinned_threads_warning(prep.cpu(), most_threads.unwrap_or(1)) {
        eprintln!("{warning}");
    }
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    let mut sinks = sinks::sinks(options, &prep, &ids);
    let header = RunHeader {
        ids: &ids,
        events: &prep.run_setup().events,
        passes: prep.run_setup().pass_names(),
        per_iter: prep.run_setup().per_iter,
        sample_count: options.config.sample_count,
        rounds: options.config.rounds(),
        environment: &prep.environment,
        calibration: &prep.run_setup().calibration,
    };
    for sink in &mut sinks {
        sink.start(&header);
    }
    let benches = (suite, &mut benches[..]);
    let mut tally = run_steps(options, &mut prep, benches, &mut sinks, &mut *source);
    drop(source);
    tally.failed.splice(0..0, early.failed);
    tally.gate = Some((options.gate, options.thresholds));
    Ok(finish(
        options,
        (prep, sinks),
        tally,
        entries.len() + broken.len(),
    ))
}

/// Calls `each` with each of `entries` and its routine, in the order
/// `suite` reaches them; one it does not reach is not called.
fn each_selected<'e>(
    suite: &dyn Suite,
    entries: &'e [Entry],
    each: &mut dyn FnMut(&'e Entry, bench::Routine<'_>),
) {
    let at: std::collections::HashMap<&str, &Entry> =
        entries.iter().map(|e| (e.id.as_str(), e)).collect();
    suite.visit(&mut |reached, routine| {
        if let Some(e) = at.get(reached.id.as_str()) {
            each(e, routine);
        }
    });
}

/// Each entry's state through the run, measured as its `job`.
fn underway<'a>(entries: &'a [Entry], jobs: Vec<bench::Job<'a>>) -> Vec<Underway<'a>> {
    (entries.iter().zip(jobs).enumerate())
        .map(|(index, (e, job))| Underway {
            index,
            job,
            membership: e.membership.clone(),
            threads: e.threads,
            rounds: Some(Default::default()),
            partner: Ok(None),
        })
        .collect()
}

/// The setup each entry asks for, with its id (which names it in errors).
fn wants<'a>(options: &RunOptions, entries: &'a [Entry]) -> Vec<(setup::Want, &'a str)> {
    (entries.iter())
        .map(|e| (options.wanted_setup(&e.settings), e.id.as_str()))
        .collect()
}

/// Each entry as the run measures it: its routine, its own settings under
/// the run's, and the setup of `prep` they ask for.
fn jobs<'a>(options: &RunOptions, entries: &'a [Entry], prep: &Preparation) -> Vec<bench::Job<'a>> {
    entries
        .iter()
        .map(|e| bench::Job {
            id: &e.id,
            config: options.config_for(&e.settings),
            setup: prep.setup_id(&options.wanted_setup(&e.settings)),
        })
        .collect()
}

/// Releases the pin, makes the baseline being saved whole, ends every
/// output and prints the summary; returns the exit code.
fn finish(
    options: &RunOptions,
    (prep, sinks): (Preparation, Vec<Sink>),
    mut tally: RunTally,
    total: usize,
) -> i32 {
    let Preparation {
        pin,
        target,
        lock,
        saving,
        ..
    } = prep;
    drop(pin);
    let committed = saving.map(|s| s.commit());
    tally.baseline_saved(committed, options.save_baseline.as_deref());
    let measured = total > tally.failed.len();
    for sink in sinks {
        if matches!(sink, Sink::Report(_)) && !measured {
            continue;
        }
        match sink.finish() {
            Ok(Some(written)) => {
                // Not this run's benchmarks: no reason to fail the run.
                for left_out in &written.left_out {
                    stderr::warning(&format!("left out of the report: {left_out}"));
                }
                // Whole, not cut: a path to open.
                eprintln!(
                    "perfbench: report: {}",
                    printable(&written.index.display().to_string())
                );
            }
            Ok(None) => {}
            Err(err) => {
                stderr::error(&err.to_string());
                tally.store_errors += 1;
            }
        }
    }
    let table_on_stdout = options.output_format == OutputFormat::Pretty;
    tally.print(total, &target, table_on_stdout);
    // Held until the report is written.
    drop(lock);
    tally.exit_code()
}

/// The warning for a comparison with results from another environment,
/// `why` ([`crate::measure::environment::Environment::mismatch`], which
/// quotes the stored one's CPU model or kernel raw: [`stderr`] escapes it).
fn mismatch_warning(why: &str) -> String {
    format!("comparing with results from {why}: changes may come from that alone")
}

/// A pinned run pins the threads of `threads = [...]` too (they inherit
/// the measuring thread's affinity): where one benchmark asks for more
/// than one, say once that they take turns on the one CPU.
fn pinned_threads_warning(cpu: Option<usize>, most_threads: usize) -> Option<String> {
    let cpu = cpu.filter(|_| most_threads > 1)?;
    Some(format!(
        "perfbench: warning: pinned to CPU {cpu}, so the threads of benchmarks with `threads` \
         (up to {most_threads}) share that one CPU and take turns rather than run at once; \
         `--no-pin` lets them spread"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Bencher;
    use crate::run::registry::{registered, Benchmark};
    use crate::store::Slot;
    use std::sync::Mutex;

    /// The benchmarks of the interleaving test, as each was called.
    static CALLS: Mutex<Vec<&str>> = Mutex::new(Vec::new());

    fn touching(name: &'static str, pages: usize, b: &mut Bencher<'_>) {
        CALLS.lock().unwrap().push(name);
        b.iter(|| crate::fixtures::touch_fresh_pages(pages));
    }

    static ONE: Benchmark = registered("one", false, |b, _| touching("one", 1, b));
    static TWO: Benchmark = registered("two", false, |b, _| touching("two", 2, b));

    #[test]
    fn rounds_go_through_every_benchmark_in_turn() {
        let root = std::env::temp_dir().join(format!("perfbench-rounds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let args = [
            "--bench",
            "--quick",
            "--sample-count",
            "16",
            "--rounds",
            "3",
        ];
        let options = cli::tests::parse_args(&args);
        let mut prep = preparation::tests::page_faults(&root);
        let suite = Registered::of(vec![&ONE, &TWO]);
        let entries = suite.declared().entries;
        let mut benches = underway(&entries, jobs(&options, &entries, &prep));
        let benches = (&suite as &dyn Suite, &mut benches[..]);
        let tally = run_steps(&options, &mut prep, benches, &mut [], &mut Local);
        assert!(tally.failed.is_empty());
        assert_eq!(
            *CALLS.lock().unwrap(),
            ["one", "two", "one", "two", "one", "two"],
            "round 1 of each, then round 2 of each, then round 3"
        );
        for (id, pages) in [("one", 1), ("two", 2)] {
            let r = prep.store.load(id, &Slot::Latest).unwrap().unwrap();
            // 16 samples in 3 rounds: 6, 5 and 5, all on the first step.
            let rounds: Vec<u32> = [0, 1, 2]
                .iter()
                .flat_map(|&r| std::iter::repeat_n(r, if r == 0 { 6 } else { 5 }))
                .collect();
            assert_eq!(r.rounds, rounds);
            let d = r.iterations[0];
            let steps = (1..=6).chain(1..=5).chain(1..=5);
            assert_eq!(r.iterations, steps.map(|i| i * d).collect::<Vec<_>>());
            let faults: Vec<u64> = r.iterations.iter().map(|i| pages * i).collect();
            assert_eq!(r.series("page-faults").unwrap().totals, faults);
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn rounds_share_the_time_and_the_samples() {
        let config = measure::Config {
            warm_up: Duration::from_millis(90),
            measurement: Duration::from_millis(700),
            sample_count: 17,
            rounds: 3,
        };
        assert_eq!(config.rounds(), 3);
        let shares: Vec<u64> = (0..3).map(|i| config.round(i).sample_count).collect();
        assert_eq!(shares, [6, 6, 5]);
        // Half the warm-up for the first round, which sets the step; the
        // rest shared by the others.
        let warm_ups: Vec<Duration> = (0..3).map(|i| config.round(i).warm_up).collect();
        let (first, later) = (Duration::from_millis(45), Duration::from_micros(22_500));
        assert_eq!(warm_ups, [first, later, later]);
        assert_eq!(
            config.round(2).measurement,
            Duration::from_nanos(233_333_333)
        );
        // Every round keeps five samples to fit a line through.
        let few = |sample_count| measure::Config {
            sample_count,
            ..config.clone()
        };
        assert_eq!(
            (few(10).rounds(), few(9).rounds(), few(1).rounds()),
            (2, 1, 1)
        );
    }

    #[test]
    fn filters_or_skips_that_leave_nothing_say_so_naming_them() {
        let said = |args: &[&str], chosen| {
            let options = cli::tests::parse_args(args);
            nothing_selected(&options.filter, chosen, 12)
        };
        assert_eq!(said(&[], 0), None);
        assert_eq!(said(&["x"], 1), None);
        assert_eq!(
            said(&["zz", "a\x1bb"], 0).unwrap(),
            "no benchmark matches `zz`, `a\\u{1b}b` (12 registered; `--list` shows them)"
        );
        assert_eq!(
            said(&["--skip", ""], 0).unwrap(),
            "--skip `` leaves no benchmark (12 registered; an empty --skip is in every id; \
             `--list` shows them)"
        );
        assert_eq!(
            said(&["crc", "--skip=c"], 0).unwrap(),
            "no benchmark matches `crc` but for --skip `c` (12 registered; `--list` shows them)"
        );
    }

    /// Text a hostile store (or command line) may hold: erase-line, a
    /// window title, a clipboard write, a line break and a bidi override.
    const HOSTILE: &str = "\x1b[2K\x1b]0;x\x07\x1b]52;c;ZXZpbA==\x07\r\nevil\u{202e}gpj";
    /// [`HOSTILE`] as it is printed.
    const ESCAPED: &str =
        "\\u{1b}[2K\\u{1b}]0;x\\u{7}\\u{1b}]52;c;ZXZpbA==\\u{7}\\r\\nevil\\u{202e}gpj";

    /// Whether `line` is one line with no raw control or bidi character.
    fn harmless(line: &str) -> bool {
        !line
            .chars()
            .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c))
    }

    #[test]
    fn a_stored_cpu_model_that_differs_is_warned_escaped_on_one_line() {
        let here = crate::measure::environment::Environment {
            cpu_model: "Here CPU".into(),
            ..Default::default()
        };
        let stored = crate::measure::environment::Environment {
            cpu_model: HOSTILE.into(),
            ..Default::default()
        };
        let why = here.mismatch(&stored).unwrap();
        let line = stderr::line(&format!("warning: {}", mismatch_warning(&why)));
        assert!(harmless(&line), "{line}");
        assert!(
            line.starts_with(&format!(
                "perfbench: warning: comparing with results from another CPU model (`{ESCAPED}`, \
                 here `Here CPU`)"
            )),
            "{line}"
        );
    }

    #[test]
    fn a_stored_schema_is_named_escaped_on_one_line() {
        let root = std::env::temp_dir().join(format!("perfbench-schema-{}", std::process::id()));
        let store = crate::store::Store::at(&root);
        let path = store.path("x", &Slot::Latest);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let doc = std::collections::BTreeMap::from([("schema", HOSTILE)]);
        std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
        let err = store.load("x", &Slot::Latest).unwrap_err();
        std::fs::remove_dir_all(&root).unwrap();
        let line = stderr::line(&format!("error: {err}"));
        assert!(harmless(&line), "{line}");
        assert!(line.contains(&format!("has schema `{ESCAPED}`")), "{line}");
    }

    #[test]
    fn filters_that_leave_nothing_are_named_escaped_and_cut() {
        let long = "f".repeat(10_000);
        let args = ["--skip", HOSTILE, long.as_str()];
        let options = cli::tests::parse_args(&args);
        let line = stderr::line(&nothing_selected(&options.filter, 0, 3).unwrap());
        assert!(harmless(&line), "{line}");
        let cut = format!("`{}… (9,800 more characters)`", "f".repeat(200));
        assert!(line.contains(&cut), "{line}");
        assert!(line.contains(&format!("--skip `{ESCAPED}`")), "{line}");
        assert!(
            line.ends_with("(3 registered; `--list` shows them)"),
            "{line}"
        );
    }

    #[test]
    fn a_pinned_run_warns_that_threads_share_its_cpu() {
        assert_eq!(pinned_threads_warning(None, 4), None, "not pinned");
        assert_eq!(pinned_threads_warning(Some(1), 1), None, "one thread");
        let w = pinned_threads_warning(Some(1), 4).unwrap();
        assert!(w.starts_with("perfbench: warning: pinned to CPU 1"), "{w}");
        assert!(w.contains("(up to 4) share that one CPU"), "{w}");
        assert!(!w.contains('\n'), "{w}");
    }
}
