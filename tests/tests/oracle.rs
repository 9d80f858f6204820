//! perfbench against an independent oracle, `perf stat` (Debian's
//! linux-perf): the routines of `perfbench_tests::ROUTINES`, measured by
//! the `oracle/NAME` benchmarks, and run `2M` and `M` times by the
//! `oracle-routine` binary under `perf stat`; the oracle's figure per
//! iteration is the difference divided by `M`, so that start-up and the
//! first, colder iterations cancel out as they do in perfbench's slope. Exact events must agree to
//! the count, task-clock within 10 %. Skips, saying why, where `perf`
//! cannot run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{built, fixtures_binary, Run, RUNS};

/// Events both sides count, in `perf stat`'s spelling and ours.
const EVENTS: &str = "page-faults,context-switches,task-clock";

/// Per routine: how many runs the oracle times, the events whose count
/// per iteration is exact, and whether task-clock is held to 10 %.
///
/// Not yet held: `sleep_4` (40 µs of mostly kernel time) and `thread`,
/// whose task-clock moved by more than 10 % between interleaved runs on
/// these VMs (sleep_4 from −12 % to +2 %, thread from −14 % to +6 %): printed,
/// not asserted, until the harness's intervals account for such drift.
const CASES: [(&str, u64, &[&str], bool); 5] = [
    ("touch_pages", 8000, &["page-faults"], true),
    ("read_into_pages", 8000, &["page-faults"], true),
    ("sleep_4", 3000, &["context-switches"], false),
    ("thread", 2000, &["page-faults"], false),
    ("compute", 12000, &[], true),
];

/// The `oracle-routine` binary, built optimised like the benchmarks.
fn oracle_binary() -> PathBuf {
    built(&["--bin", "oracle-routine"], "/oracle-routine")
}

/// `perf stat`'s counts of [`EVENTS`] for `oracle-routine NAME times`, in
/// our units (task-clock in ns), or why it could not run.
fn perf_stat(binary: &Path, name: &str, times: u64) -> Result<Vec<f64>, String> {
    let out = Command::new("perf")
        .args(["stat", "-x", ",", "-e", EVENTS, "--"])
        .arg(binary)
        .args([name, &times.to_string()])
        .output()
        .map_err(|e| format!("perf does not run: {e}"))?;
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!("perf stat failed: {text}"));
    }
    EVENTS
        .split(',')
        .map(|event| {
            let line = text
                .lines()
                .find(|l| l.split(',').nth(2) == Some(event))
                .ok_or_else(|| format!("no {event} in: {text}"))?;
            let value: f64 = line
                .split(',')
                .next()
                .unwrap()
                .parse()
                .map_err(|_| line.to_string())?;
            // perf stat prints task-clock in milliseconds.
            Ok(if event == "task-clock" {
                value * 1e6
            } else {
                value
            })
        })
        .collect()
}

/// The oracle's figure per iteration of routine `name`, per event: the
/// counts of `2 · times` runs less those of `times` runs, over `times`.
fn oracle(binary: &Path, name: &str, times: u64) -> Result<Vec<f64>, String> {
    let with = perf_stat(binary, name, 2 * times)?;
    let without = perf_stat(binary, name, times)?;
    Ok(with
        .iter()
        .zip(&without)
        .map(|(w, o)| (w - o) / times as f64)
        .collect())
}

/// perfbench's estimates of benchmark `oracle/NAME`, per event.
fn perfbench(name: &str) -> Vec<f64> {
    let binary = fixtures_binary();
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let id = format!("oracle/{name}");
    let run = Run::finish(
        Command::new(binary)
            .args(["--bench", "--exact", &id, "--events", EVENTS])
            .args(["--output-format", "json", "--sample-count", "20"])
            .args(["--warm-up-time", "0.05", "--measurement-time", "0.3"])
            .env(
                "PERFBENCH_HOME",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-home"),
            )
            .output()
            .expect("runs"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = &run.json()[0];
    EVENTS
        .split(',')
        .map(|event| line["metrics"][event]["estimate"].as_f64().unwrap())
        .collect()
}

/// Rounds of both sides, in turn.
const ROUNDS: usize = 5;

/// Per event, the median of [`ROUNDS`] runs of `measure`.
fn median(mut measure: impl FnMut() -> Vec<f64>) -> Vec<f64> {
    let runs: Vec<Vec<f64>> = (0..ROUNDS).map(|_| measure()).collect();
    (0..runs[0].len())
        .map(|event| {
            let mut values: Vec<f64> = runs.iter().map(|r| r[event]).collect();
            values.sort_by(f64::total_cmp);
            values[ROUNDS / 2]
        })
        .collect()
}

#[test]
fn every_count_agrees_with_perf_stat() {
    let binary = oracle_binary();
    if let Err(why) = perf_stat(&binary, "compute", 0) {
        eprintln!("skipped: {why}");
        return;
    }
    let mut table = vec!["| routine | event | perfbench | perf stat |".to_string()];
    let mut wrong = Vec::new();
    for (name, times, exact, hold_time) in CASES {
        // Both sides in turn, so that the machine's slow drifts in speed
        // reach both alike.
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            ours.push(perfbench(name));
            theirs.push(oracle(&binary, name, times).unwrap());
        }
        let ours = median(|| ours.pop().unwrap());
        let theirs = median(|| theirs.pop().unwrap());
        for ((event, our), their) in EVENTS.split(',').zip(ours).zip(theirs) {
            table.push(format!("| {name} | {event} | {our:.3} | {their:.3} |"));
            // An exact count is the same integer per iteration on both
            // sides, up to a rare preemption or early timer.
            let near = |x: f64| (x - their.round()).abs() < 0.05;
            let agrees = if exact.contains(&event) {
                near(our) && near(their)
            } else if event == "task-clock" && hold_time {
                (our / their - 1.0).abs() <= 0.10
            } else {
                true
            };
            if !agrees {
                wrong.push(format!(
                    "{name} {event}: perfbench {our}, perf stat {their}"
                ));
            }
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(wrong.is_empty(), "{wrong:#?}\n{}", table.join("\n"));
}
