//! The program `perfbench::main!()` expands to: parse options, select
//! benchmarks, and run them — as tests, or measured as a pipeline of plan,
//! per-benchmark steps (measure, analyse, compare, store), outputs and a
//! summary with the exit code.

pub mod bench;
pub mod cli;
pub mod panics;
pub mod plan;
pub mod registry;
pub mod summary;

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use crate::counter::group;
use crate::kernel::pmu;
use crate::measure::{self, run_once};
use crate::output::html::{ReportOptions, ReportSink};
use crate::output::table::TableSink;
use crate::output::{event_list, RunHeader, Sink};
use crate::run::cli::{Options, OutputFormat, RunMode};
use crate::run::panics::catch;
use crate::run::plan::Plan;
use crate::run::registry::Entry;
use crate::run::summary::{Summary, EXIT_FAILED, EXIT_USAGE};

/// Runs the benchmarks of this binary as the command line asks and exits.
pub fn main() -> ! {
    let code = match cli::parse(std::env::args_os().skip(1), |var| std::env::var(var).ok()) {
        Ok(options) => run(&options),
        Err(e) => {
            eprintln!("perfbench: error: {e}");
            EXIT_USAGE
        }
    };
    std::process::exit(code)
}

/// Runs with `options` and returns the exit code.
pub fn run(options: &Options) -> i32 {
    if options.help {
        print!("{}", cli::usage());
        return 0;
    }
    if options.list_events {
        print!(
            "{}",
            event_list::render(pmu::live_root(), |e| group::probe(e)
                .map_err(|err| err.reason()))
        );
        return 0;
    }
    let all = registry::all();
    let total = all.len();
    let selected: Vec<Entry> = all
        .into_iter()
        .filter(|e| {
            !options.ignored
                && registry::matches(&e.id, &options.filters, &options.skip, options.exact)
        })
        .collect();
    if options.list {
        for e in &selected {
            println!("{}: benchmark", e.id);
        }
        if !options.terse {
            println!("\n{} benchmarks", selected.len());
        }
        return 0;
    }
    if selected.is_empty() && !options.filters.is_empty() {
        eprintln!(
            "perfbench: no benchmark matches {} ({total} registered; `--list` shows them)",
            options
                .filters
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let filtered_out = total - selected.len();
    match options.mode {
        RunMode::Test => run_tests(&selected, filtered_out),
        RunMode::Bench => match run_benches(options, &selected) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("perfbench: error: {e}");
                EXIT_USAGE
            }
        },
    }
}

/// Test mode: each routine once, reported the way libtest does.
fn run_tests(entries: &[Entry], filtered_out: usize) -> i32 {
    println!("\nrunning {} tests", entries.len());
    let mut failures = Vec::new();
    for e in entries {
        let outcome = match catch(|| run_once(e.bench.run)) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) => Err(err.to_string()),
            Err(panic) => Err(panic),
        };
        match outcome {
            Ok(()) => println!("test {} ... ok", e.id),
            Err(why) => {
                println!("test {} ... FAILED", e.id);
                failures.push((e.id.as_str(), why));
            }
        }
    }
    if !failures.is_empty() {
        println!("\nfailures:");
        for (id, why) in &failures {
            println!("    {id}: {why}");
        }
    }
    let verdict = if failures.is_empty() { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {} passed; {} failed; 0 ignored; 0 measured; {filtered_out} filtered out\n",
        entries.len() - failures.len(),
        failures.len()
    );
    if failures.is_empty() {
        0
    } else {
        EXIT_FAILED
    }
}

/// Measures `entries` as `options` ask and returns the exit code; `Err` is
/// a user's mistake found before the first benchmark.
fn run_benches(options: &Options, entries: &[Entry]) -> Result<i32, String> {
    if entries.is_empty() {
        return Ok(0);
    }
    let mut plan = plan::prepare(options)?;
    let mut sinks = sinks(options, &plan);
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    let header = RunHeader {
        ids: &ids,
        events: &plan.events,
        groups: plan.pass_names(),
        per_iter: options.per_iter,
        sample_count: options.config.sample_count,
        rounds: options.config.rounds(),
        environment: &plan.environment,
        calibration: &plan.calibration,
    };
    for sink in &mut sinks {
        sink.start(&header);
    }
    let summary = run_steps(options, &mut plan, entries, &mut sinks);
    finish(plan, sinks, summary, entries.len())
}

/// The outputs of a run: the format asked for on stdout, and the report.
fn sinks(options: &Options, plan: &Plan) -> Vec<Sink> {
    let stdout = match options.output_format {
        OutputFormat::Pretty => Sink::Table(TableSink::new(options.color)),
        OutputFormat::Json => Sink::JsonLines(plan.environment.clone()),
        OutputFormat::Bencher => Sink::BencherLines,
    };
    let report = ReportOptions {
        plots: !options.noplot,
        against: plan.target.clone(),
        thresholds: options.thresholds,
    };
    vec![
        stdout,
        Sink::Report(ReportSink::new(plan.store.clone(), report)),
    ]
}

/// Measures the benchmarks in rounds, each round going through all of them
/// in turn, so that a slow spell of the machine is shared among them rather
/// than spoiling one; after its last round a benchmark is concluded and
/// fed to every sink. Failures and stored files that could not be used are
/// named on stderr.
fn run_steps(options: &Options, plan: &mut Plan, entries: &[Entry], sinks: &mut [Sink]) -> Summary {
    let rounds = options.config.rounds();
    let mut summary = Summary::default();
    let mut warned = BTreeSet::new();
    let mut pending: Vec<Option<bench::Rounds>> =
        entries.iter().map(|_| Some(Default::default())).collect();
    for round in 1..=rounds {
        for (i, e) in entries.iter().enumerate() {
            let Some(so_far) = pending[i].as_mut() else {
                continue;
            };
            let progress = Progress::show(round, rounds, i, entries.len(), &e.id);
            let measured = bench::measure_round(options, plan, &e.id, e.bench.run, so_far);
            drop(progress);
            if let Err(why) = measured {
                eprintln!("perfbench: error: benchmark `{}`{why}", e.id);
                summary.failed.push(e.id.clone());
                pending[i] = None;
                continue;
            }
            if round == rounds {
                let so_far = pending[i].take().expect("measured above");
                let recording = so_far.recording.expect("a round was recorded");
                let step = bench::conclude(options, plan, recording, so_far.took);
                report_step(options, &e.id, step, &mut warned, &mut summary, sinks);
            }
        }
    }
    summary
}

/// The `[round r/R] [i/n] id ...` line on a terminal, cleared when dropped.
struct Progress(bool);

impl Progress {
    fn show(round: u64, rounds: u64, i: usize, n: usize, id: &str) -> Progress {
        let shown = std::io::stderr().is_terminal();
        if shown {
            let of_rounds = if rounds > 1 {
                format!("[round {round}/{rounds}] ")
            } else {
                String::new()
            };
            eprint!("\r\x1b[K{of_rounds}[{}/{n}] {id} ...", i + 1);
            let _ = std::io::stderr().flush();
        }
        Progress(shown)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.0 {
            eprint!("\r\x1b[K");
        }
    }
}

/// Warns of what a concluded benchmark's step found, counts it in the
/// summary and feeds it to every sink.
fn report_step(
    options: &Options,
    id: &str,
    step: bench::Step,
    warned: &mut BTreeSet<String>,
    summary: &mut Summary,
    sinks: &mut [Sink],
) {
    if let Some(warning) = slow_warning(id, step.took, &options.config) {
        eprintln!("{warning}");
    }
    if let Some(why) = step.mismatch.filter(|why| warned.insert(why.clone())) {
        eprintln!(
            "perfbench: warning: comparing with results from {why}: changes may come from that alone"
        );
    }
    for err in &step.store_errors {
        eprintln!("perfbench: error: {err}");
    }
    summary.store_errors += step.store_errors.len();
    summary.measured(&step.analysed, options.fail_on_regression);
    for sink in sinks.iter_mut() {
        sink.benchmark(&step.analysed);
    }
}

/// Releases the pin, ends every output and prints the summary; returns the
/// exit code.
fn finish(plan: Plan, sinks: Vec<Sink>, mut summary: Summary, total: usize) -> Result<i32, String> {
    let Plan { pin, target, .. } = plan;
    drop(pin);
    let measured = total > summary.failed.len();
    for sink in sinks {
        if matches!(sink, Sink::Report(_)) && !measured {
            continue;
        }
        match sink.finish() {
            Ok(Some(index)) => eprintln!("perfbench: report: {}", index.display()),
            Ok(None) => {}
            Err(err) => {
                eprintln!("perfbench: error: {err}");
                summary.store_errors += 1;
            }
        }
    }
    summary.print(total, &target);
    Ok(summary.exit_code())
}

/// Linear sampling runs at least `n(n+1)/2` iterations; for a slow routine
/// that can far exceed the time asked for. Say so, with the remedy.
fn slow_warning(id: &str, took: Duration, config: &measure::Config) -> Option<String> {
    let budget = config.warm_up + config.measurement;
    (took > budget * 3 && took > Duration::from_secs(2)).then(|| {
        format!(
            "perfbench: warning: `{id}` took {:.1} s for a budget of {:.1} s: at one iteration per \
             step, {} samples need that long; lower --sample-count or raise --measurement-time",
            took.as_secs_f64(),
            budget.as_secs_f64(),
            config.sample_count
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_benchmarks_get_a_warning_with_the_remedy() {
        let config = measure::Config::default(); // 0.85 s in all
        assert_eq!(slow_warning("x", Duration::from_secs(1), &config), None);
        assert_eq!(
            slow_warning("x", Duration::from_millis(2500), &config),
            None
        );
        let w = slow_warning("x", Duration::from_secs(9), &config).unwrap();
        assert!(w.contains("`x` took 9.0 s for a budget of 0.8 s"), "{w}");
        assert!(w.contains("--sample-count"), "{w}");
    }
}
