//! `cargo run -p perfbench-tests --bin coverage --release -- [--gate [--work
//! PCT]] RUNS [BENCH ARGS…]`: how well perfbench's intervals and regression
//! gate hold up when the same suite is run again and again (issue 11's
//! figures; a benchmark to quote, not a test).
//!
//! Runs the example suite (`cargo bench -p perfbench-examples --bench
//! workloads -- BENCH ARGS`; `--bench criterion_style` the same workloads
//! as a Criterion suite through perfbench-criterion), or with `--gate` the
//! gate suite (`benches/gate.rs`), `RUNS`
//! times, each against a baseline saved by a first run. With `--work PCT`
//! the runs after the first do PCT % of the baseline's work (125: an A/B
//! test of a +25 % change; the default 100 is A/A). With `--pairs` the
//! baseline is saved again before each of them, as a CI job measuring the
//! main branch and then the change does; `--baseline-args ARGS` gives the
//! runs that save it further arguments (a longer run, say). Prints for
//! every time metric
//! (wall time, task-clock), over all benchmarks and for each:
//! - coverage: how often the next run's estimate lies inside this run's
//!   95 % interval;
//! - the median half-width of the intervals, relative to the estimate;
//! - the run-to-run coefficient of variation of the estimates (median over
//!   benchmarks);
//! - the gate: runs that `--fail-on-regression` fails (exit 3), and
//!   verdicts of `regressed`, per metric (for A/A the false-alarm rate,
//!   for A/B the catch rate).
//!
//! `COVERAGE_DUMP=FILE` also writes every run's estimates, a JSON line per
//! run.
//!
//! `coverage --paired …` measures paired runs (`--paired-with`) instead:
//! see `paired.rs`. Both print the gate's figures through `tally.rs`, in
//! the same table.

mod paired;
mod tally;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use tally::{Outcome, Run, Tally, TIMES};

/// What to run: which suite, and how much work the later runs do.
struct Setup {
    /// `cargo bench` arguments choosing the suite.
    suite: Vec<String>,
    /// `FIXTURE_GATE_WORK` of the runs after the first.
    work: u32,
    /// Save the baseline again before every gated run, as a CI job that
    /// measures the main branch and then the change does.
    pairs: bool,
    runs: usize,
    extra: Vec<String>,
    /// Further arguments of the runs that save the baseline
    /// (`--baseline-args "--rounds 30 …"`).
    baseline_extra: Vec<String>,
}

/// The `cargo bench` arguments of the examples' bench target `target`.
fn examples(target: &str) -> Vec<String> {
    ["-p", "perfbench-examples", "--bench", target]
        .map(String::from)
        .into()
}

fn parse(mut args: Vec<String>) -> Option<Setup> {
    let mut setup = Setup {
        suite: examples("workloads"),
        work: 100,
        pairs: false,
        runs: 0,
        extra: Vec::new(),
        baseline_extra: Vec::new(),
    };
    while let Some(flag) = args.first().filter(|a| a.starts_with("--")).cloned() {
        args.remove(0);
        match flag.as_str() {
            "--gate" => {
                setup.suite = ["-p", "perfbench-tests", "--bench", "gate"]
                    .map(String::from)
                    .into()
            }
            "--bench" if !args.is_empty() => setup.suite = examples(&args.remove(0)),
            "--work" if !args.is_empty() => setup.work = args.remove(0).parse().ok()?,
            "--pairs" => setup.pairs = true,
            "--baseline-args" if !args.is_empty() => {
                setup.baseline_extra = args
                    .remove(0)
                    .split_whitespace()
                    .map(String::from)
                    .collect();
            }
            _ => return None,
        }
    }
    setup.runs = args.first()?.parse().ok()?;
    setup.extra = args[1..].to_vec();
    Some(setup)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--paired") {
        return paired::main(args[1..].to_vec());
    }
    let Some(setup) = parse(args) else {
        eprintln!("usage: coverage [--gate | --bench EXAMPLE] [--work PCT] [--pairs] [--baseline-args ARGS] RUNS [BENCH ARGS…]");
        std::process::exit(2);
    };
    let home = std::env::temp_dir().join(format!("perfbench-coverage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let save: Vec<&str> = ["--save-baseline", "aa"]
        .into_iter()
        .chain(setup.baseline_extra.iter().map(String::as_str))
        .collect();
    let (saved, _) = bench(&setup, &home, 100, &save);
    let mut results = vec![saved];
    let mut gate = Tally::default();
    for k in 1..setup.runs {
        if setup.pairs && k > 1 {
            bench(&setup, &home, 100, &save);
        }
        let flags = ["--baseline", "aa", "--fail-on-regression"];
        let (run, outcome) = bench(&setup, &home, setup.work, &flags);
        eprintln!(
            "run {k}: exit {:?}; wall time %: {}; regressed: {}",
            outcome.code,
            outcome.wall_changes.join(", "),
            outcome.regressed().join(" ")
        );
        gate.add(&outcome, false);
        results.push(run);
    }
    let _ = std::fs::remove_dir_all(&home);
    report(&results);
    let pairs = if setup.pairs { " --pairs" } else { "" };
    let label = format!("unpaired{pairs}, work {}", setup.work);
    let columns = [(label, &gate)];
    print!("{}", tally::table(&columns));
    print!("{}", tally::notes(&columns));
    if let Some(path) = std::env::var_os("COVERAGE_DUMP") {
        dump(&results, Path::new(&path));
    }
}

/// Every run's estimates and intervals as JSON lines, for analyses this
/// program does not make (`COVERAGE_DUMP=FILE`).
fn dump(results: &[Run], path: &Path) {
    let lines: Vec<String> = results
        .iter()
        .map(|run| {
            let entries: Vec<Value> = run
                .iter()
                .map(|((id, metric), (e, lo, hi))| {
                    serde_json::json!({"id": id, "metric": metric, "estimate": e, "ci": [lo, hi]})
                })
                .collect();
            Value::Array(entries).to_string()
        })
        .collect();
    if let Err(e) = std::fs::write(path, lines.join("\n")) {
        eprintln!("coverage: {}: {e}", path.display());
    }
}

/// One run of the suite at `work` percent, storing under `home`.
fn bench(setup: &Setup, home: &Path, work: u32, flags: &[&str]) -> (Run, Outcome) {
    let start = Instant::now();
    let out = Command::new("cargo")
        .args(["bench", "-q"])
        .args(&setup.suite)
        .arg("--")
        .args(&setup.extra)
        .args(flags)
        .args(["--output-format", "json"])
        .env("PERFBENCH_HOME", home)
        .env("FIXTURE_GATE_WORK", work.to_string())
        .output()
        .expect("cargo runs");
    tally::read(&out, start.elapsed())
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// What one benchmark's metric did over the runs.
struct Figures {
    /// Next estimates inside this run's interval, of pairs of runs.
    inside: usize,
    pairs: usize,
    /// Each run's half-width over its estimate.
    half: Vec<f64>,
    /// Run-to-run coefficient of variation of the estimates.
    cv: f64,
}

impl Figures {
    fn of(series: &[(f64, f64, f64)]) -> Figures {
        let pairs = series.len().saturating_sub(1);
        let inside = series
            .windows(2)
            .filter(|w| (w[0].1..=w[0].2).contains(&w[1].0))
            .count();
        let half = series
            .iter()
            .map(|&(e, lo, hi)| (hi - lo) / 2.0 / e.abs())
            .collect();
        let n = series.len() as f64;
        let mean = series.iter().map(|s| s.0).sum::<f64>() / n;
        let var = series.iter().map(|s| (s.0 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        Figures {
            inside,
            pairs,
            half,
            cv: var.sqrt() / mean.abs(),
        }
    }

    fn line(&self, half: f64, cv: f64) -> String {
        format!(
            "coverage {:5.1} % ({}/{})  median half-width {:5.2} %  run-to-run CV {:5.2} %",
            100.0 * self.inside as f64 / self.pairs.max(1) as f64,
            self.inside,
            self.pairs,
            100.0 * half,
            100.0 * cv
        )
    }
}

fn report(results: &[Run]) {
    println!(
        "runs {}, benchmarks × time metrics {}",
        results.len(),
        results[0].len()
    );
    for metric in TIMES {
        let keys: Vec<_> = results[0].keys().filter(|(_, m)| m == metric).collect();
        let each: Vec<Figures> = keys
            .iter()
            .map(|key| {
                let series: Vec<_> = results
                    .iter()
                    .filter_map(|r| r.get(*key).copied())
                    .collect();
                Figures::of(&series)
            })
            .collect();
        let all = Figures {
            inside: each.iter().map(|f| f.inside).sum(),
            pairs: each.iter().map(|f| f.pairs).sum(),
            half: each.iter().flat_map(|f| f.half.clone()).collect(),
            cv: median(each.iter().map(|f| f.cv).collect()),
        };
        println!(
            "{metric:10}  {}",
            all.line(median(all.half.clone()), all.cv)
        );
        for ((id, _), f) in keys.iter().zip(&each) {
            println!("  {id}: {}", f.line(median(f.half.clone()), f.cv));
        }
    }
}
