//! End to end, through tests/benches/spin.rs: per-iteration mode times a
//! routine as batch mode does (the clock inside the counter reads, its own
//! cost taken off), and leaves task-clock out, saying so once.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::json::Fields;
use serde_json::Value;

/// Runs of each mode, alternating, so that a busy spell of the machine
/// falls on both modes alike.
const RUNS: usize = 4;

/// The routines whose agreement is asserted. Per-iteration mode times a
/// routine just after a `read()` system call, with the CPU's predictors
/// cold, which costs it some 30 ns more than in batch mode's loop on the VM
/// this was written on (medians: 264 against 229 ns, 1016 against 989 ns;
/// 55 against 27 ns for `spin/50ns`, 104 against 67 ns for `spin/100ns`).
/// So the agreement within 25 % holds from about 250 ns up.
const ROUTINES: &[&str] = &["spin/250ns", "spin/1us"];

/// The spin bench binary, built once.
fn spin_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::built(&["--bench", "spin"], "/spin-"))
}

/// One run of every routine in `mode`, with the default events: its JSON
/// lines by id, and stderr.
fn run(mode: &str, home: &Path) -> (Vec<Value>, String) {
    // Built before the lock, which building takes too.
    let run = common::bench_run::BenchRun::of(spin_binary())
        .args(ROUTINES)
        .args(["--exact", "--mode", mode, "--output-format", "json"])
        .quick()
        .home(home)
        .run();
    assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
    (run.json(), run.stderr)
}

/// `metric`'s `key` in the line of `id`.
fn figure(lines: &[Value], id: &str, metric: &str, key: &str) -> f64 {
    let line = lines.iter().find(|l| l["id"] == id).expect("a line per id");
    line["metrics"][metric][key]
        .as_f64()
        .unwrap_or_else(|| panic!("{id}: no {metric} {key} in {line}"))
}

/// The low end of the interval of `id`'s headline wall time, which in
/// per-iteration mode is the median of the iterations.
fn interval_low(lines: &[Value], id: &str) -> f64 {
    let line = lines.iter().find(|l| l["id"] == id).expect("a line per id");
    let wall = &line["metrics"]["wall-time"];
    assert_eq!(wall["estimator"], "median", "{id}: {line}");
    wall["ci"][0]
        .as_f64()
        .unwrap_or_else(|| panic!("{id}: no interval in {line}"))
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    (values[(n - 1) / 2] + values[n / 2]) / 2.0
}

/// Per-iteration mode's wall time is the routine's: its headline, the
/// median iteration less the empty routine's (two timestamp reads), is
/// within 25 % of batch mode's per iteration for a ~250 ns and a ~1 µs
/// routine, and its interval, the empty routine's taken off, stays at 0 or
/// above.
/// Batch mode's figure is its fastest sample over the runs: a sample lasts
/// milliseconds, and where the test shares its CPU (other tests, a busy
/// core) it holds the time the thread waited, which doubled its median
/// with the other core busy, while few iterations of per-iteration mode
/// wait (their median did not move). Only time the routine did not run
/// makes a sample slower, so the fastest is the least disturbed.
/// (A mean headline failed this: with the other core busy a preempted
/// iteration adds milliseconds to one round's mean, and the rounds'
/// interval of a 250 ns routine reached −2.2 µs.) Per-iteration mode is
/// judged on the median over alternating runs of each run's median: a run
/// on a busy machine moves one figure, not the verdict.
/// `cargo test -- --nocapture` prints the ratios.
#[test]
fn per_iteration_and_batch_wall_times_agree() {
    let home = common::fresh_dir("per_iteration_wall", "agree");
    let all = ROUTINES;
    let mut batch = vec![Vec::new(); all.len()];
    let mut per_iter = vec![Vec::new(); all.len()];
    for round in 0..RUNS {
        let order = if round % 2 == 0 {
            ["batch", "per-iter"]
        } else {
            ["per-iter", "batch"]
        };
        for mode in order {
            let (lines, _) = run(mode, &home);
            for (i, id) in all.iter().enumerate() {
                if mode == "batch" {
                    batch[i].push(figure(&lines, id, "wall-time", "min"));
                    continue;
                }
                per_iter[i].push(figure(&lines, id, "wall-time", "estimate"));
                let low = interval_low(&lines, id);
                assert!(low >= 0.0, "{id}: per-iteration wall time from {low} ns");
            }
        }
    }
    let mut ratios = Vec::new();
    for (i, id) in all.iter().enumerate() {
        let fastest = batch[i].iter().copied().fold(f64::INFINITY, f64::min);
        let (b, p) = (fastest, median(per_iter[i].clone()));
        ratios.push((*id, p / b, b, p));
    }
    eprintln!("per-iteration median / batch fastest wall time: {ratios:?}");
    for (i, &(id, ratio, b, p)) in ratios.iter().enumerate() {
        assert!(
            (0.75..=1.25).contains(&ratio),
            "{id}: per-iteration {p:.1} ns, batch {b:.1} ns (x{ratio:.3}); \
             batch runs {:?}, per-iteration runs {:?}",
            batch[i],
            per_iter[i]
        );
    }
}

/// task-clock is left out of per-iteration mode in every output, and named
/// once on stderr; batch mode counts it. Where nothing counts it (under the
/// seccomp filter) neither mode has it and nothing is said.
#[test]
fn per_iteration_mode_leaves_task_clock_out_in_one_note() {
    let home = common::fresh_dir("per_iteration_wall", "task_clock");
    let counted = common::counted("task-clock");
    let (batch, _) = run("batch", &home);
    let (per_iter, stderr) = run("per-iter", &home);
    for line in &batch {
        assert_eq!(
            line["metrics"].get("task-clock").is_some(),
            counted.is_some()
        );
    }
    for line in &per_iter {
        let names: Vec<&String> = line.object_at("metrics").keys().collect();
        assert!(
            !names.iter().any(|n| n.contains("clock")),
            "{}: {names:?}",
            line["id"]
        );
    }
    let notes: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("per-iteration mode leaves out"))
        .collect();
    let expected: &[&str] = match counted {
        Some(_) => &[
            "perfbench: note: per-iteration mode leaves out task-clock: the kernel's \
             clock counts part of each read() system call around an iteration, by more than a \
             short routine takes and never the same; batch mode measures it",
        ],
        None => &[],
    };
    assert_eq!(notes, expected, "{stderr}");
    // The stored results, and the report made from them, hold what the
    // JSON lines held: the per-iteration run, stored last, has no clock.
    let shown: Vec<PathBuf> = common::files_under(&home)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name == "latest.json"
                || (p.to_string_lossy().contains("/report/") && name != "index.html")
        })
        .collect();
    assert_eq!(shown.len(), 2 + 2 * 3, "{shown:?}");
    for file in &shown {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(!text.contains("task-clock"), "{}", file.display());
    }
}
