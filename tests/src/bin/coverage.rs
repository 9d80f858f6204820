//! `cargo run -p perfbench-tests --bin coverage --release -- RUNS [BENCH ARGS…]`:
//! how well perfbench's intervals and regression gate hold up when the same
//! suite is run again and again (issue 11's figures; a benchmark to quote,
//! not a test).
//!
//! Runs the example suite (`cargo bench -p perfbench-examples -- BENCH
//! ARGS`) `RUNS` times, each against a baseline saved by a first run, and
//! prints for every time metric (wall time, task-clock):
//! - coverage: how often the next run's estimate lies inside this run's
//!   95 % interval;
//! - the median half-width of the intervals, relative to the estimate;
//! - the run-to-run coefficient of variation of the estimates (median over
//!   benchmarks);
//! - the A/A false-alarm rate: runs of identical code that
//!   `--fail-on-regression` fails (exit 3), and verdicts of `regressed`.
//!
//! `COVERAGE_DUMP=FILE` also writes every run's estimates, a JSON line per
//! run.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The metrics measured in time, whose intervals are in question.
const TIMES: [&str; 2] = ["wall-time", "task-clock"];

/// One run: per (benchmark, metric), the estimate and its interval.
type Run = BTreeMap<(String, String), (f64, f64, f64)>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(runs) = args.first().and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("usage: coverage RUNS [BENCH ARGS…]");
        std::process::exit(2);
    };
    let extra = &args[1..];
    let home = std::env::temp_dir().join(format!("perfbench-coverage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let (saved, _) = bench(&home, extra, &["--save-baseline", "aa"]);
    let mut results = vec![saved];
    let (mut failed, mut regressed, mut verdicts) = (0, 0, 0);
    for k in 1..runs {
        let gate = ["--baseline", "aa", "--fail-on-regression"];
        let (run, outcome) = bench(&home, extra, &gate);
        failed += usize::from(outcome.code == Some(3));
        regressed += outcome.regressed;
        verdicts += outcome.verdicts;
        eprintln!(
            "run {k}: exit {:?}, {} regressed",
            outcome.code, outcome.regressed
        );
        results.push(run);
    }
    let _ = std::fs::remove_dir_all(&home);
    report(&results, runs, failed, regressed, verdicts);
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

/// What a gated run said.
struct Outcome {
    code: Option<i32>,
    regressed: usize,
    verdicts: usize,
}

/// One run of the suite storing under `home`.
fn bench(home: &Path, extra: &[String], flags: &[&str]) -> (Run, Outcome) {
    let out = Command::new("cargo")
        .args(["bench", "-q", "-p", "perfbench-examples", "--"])
        .args(extra)
        .args(flags)
        .args(["--output-format", "json"])
        .env("PERFBENCH_HOME", home)
        .output()
        .expect("cargo runs");
    let mut run = Run::new();
    let mut outcome = Outcome {
        code: out.status.code(),
        regressed: 0,
        verdicts: 0,
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(id) = v["id"].as_str() else { continue };
        for metric in TIMES {
            let m = &v["metrics"][metric];
            let (Some(e), Some(lo), Some(hi)) = (
                m["estimate"].as_f64(),
                m["ci"][0].as_f64(),
                m["ci"][1].as_f64(),
            ) else {
                continue;
            };
            run.insert((id.to_string(), metric.to_string()), (e, lo, hi));
            if let Some(verdict) = m["change"]["verdict"].as_str() {
                outcome.verdicts += 1;
                outcome.regressed += usize::from(verdict == "regressed");
            }
        }
    }
    (run, outcome)
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn report(results: &[Run], runs: usize, failed: usize, regressed: usize, verdicts: usize) {
    println!(
        "runs {runs}, benchmarks × time metrics {}",
        results[0].len()
    );
    for metric in TIMES {
        let keys: Vec<_> = results[0].keys().filter(|(_, m)| m == metric).collect();
        let (mut inside, mut pairs) = (0, 0);
        let mut half = Vec::new();
        let mut cvs = Vec::new();
        for key in &keys {
            let series: Vec<(f64, f64, f64)> = results
                .iter()
                .filter_map(|r| r.get(*key).copied())
                .collect();
            for w in series.windows(2) {
                let ((_, lo, hi), (next, _, _)) = (w[0], w[1]);
                pairs += 1;
                inside += usize::from(lo <= next && next <= hi);
            }
            half.extend(series.iter().map(|&(e, lo, hi)| (hi - lo) / 2.0 / e.abs()));
            let n = series.len() as f64;
            let mean = series.iter().map(|s| s.0).sum::<f64>() / n;
            let var = series.iter().map(|s| (s.0 - mean).powi(2)).sum::<f64>() / (n - 1.0);
            cvs.push(var.sqrt() / mean.abs());
        }
        println!(
            "{metric:10}  coverage {:5.1} % ({inside}/{pairs})  median half-width {:5.2} %  run-to-run CV {:5.2} %",
            100.0 * inside as f64 / pairs.max(1) as f64,
            100.0 * median(half),
            100.0 * median(cvs),
        );
    }
    println!(
        "A/A gate: {failed} of {} runs failed (exit 3); {regressed} of {verdicts} time verdicts `regressed`",
        runs - 1
    );
}
