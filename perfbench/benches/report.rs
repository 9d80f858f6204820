//! The cost of the HTML report: `write_report` over a synthetic store of
//! 100 benchmarks × 6 metrics (wall time and five events) × 100 samples in
//! batch mode, 40 of them in groups with arguments, each with a baseline.
//! Timed with plots against the baseline (every page has overlays), with
//! plots against the previous run, and without plots. The store is built
//! through the public API in a temporary folder and removed afterwards; the
//! run's benchmarks are analysed and compared before the clock starts, as a
//! run does before its report (the stored benchmarks outside the run would
//! be analysed inside it; here every benchmark is in the run). Prints
//! figures; asserts nothing.
//!
//! Then the report's cost at scale: the report of a run of one quick
//! benchmark alone, in a store of 5,000 other benchmarks, and next to 11
//! stored per-iteration benchmarks of 500,000 samples each, with the
//! largest page each writes. The first report in each store is timed apart
//! (it is where a report meets results stored without its summaries).
//!
//! `cargo bench -p perfbench --bench report` (`-- scale` for the scale
//! figures only, `-- small` for the first ones only, `-- history` for the
//! report of 100 benchmarks with 1,000 runs of history each). `-- small keep DIR`
//! builds the store in DIR and keeps each report there (`report-0/` to
//! `report-2/`): the store and its reports are the same, byte for byte, on
//! every run, so a change to the report's code shows as a `diff -r` of the
//! reports kept before and after it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;

use common::Noise;
use perfbench::analysis::comparison::{compare_runs, Comparison, Target, Thresholds};
use perfbench::analysis::{analyze, Analysed, Calibration, Recording};
use perfbench::counter::event::parse_list;
use perfbench::counter::event::Unit;
use perfbench::counter::group::{Counts, ReadPath};
use perfbench::measure::environment::Environment;
use perfbench::measure::{Measurement, Sample};
use perfbench::output::html::{write_report, ReportOptions};
use perfbench::stats::{Estimate, Interval};
use perfbench::store::history::HistoryRun;
use perfbench::store::json::encode_history_run;
use perfbench::store::{folder_name, Slot, Store};

const BENCHMARKS: usize = 100;
const SAMPLES: u64 = 100;
const EVENTS: &str = "task-clock,page-faults,minor-faults,context-switches,cpu-migrations";

/// Totals with noise and outliers, for the stored runs.
trait Totals {
    fn total(&mut self, per_iter: u64, x: u64, fixed: u64) -> u64;
}

impl Totals for Noise {
    /// `per_iter · x` plus a fixed cost, with 2 % noise and now and then an
    /// outlier.
    fn total(&mut self, per_iter: u64, x: u64, fixed: u64) -> u64 {
        let mut y = (per_iter * x + fixed) as f64 * (1.0 + 0.02 * self.centred());
        if self.next() % 50 == 0 {
            y *= 1.5;
        }
        y.max(0.0) as u64
    }
}

/// The ids: 60 plain benchmarks, 4 groups of 5 numeric arguments and 4
/// groups of 5 named ones.
fn ids() -> Vec<String> {
    let mut ids: Vec<String> = (0..60).map(|b| format!("suite::plain_{b:02}")).collect();
    for g in 0..4 {
        for arg in [64, 512, 4096, 32768, 262144] {
            ids.push(format!("suite::sized_{g}/{arg}"));
        }
    }
    for g in 0..4 {
        for arg in ["ascii", "latin-1 é", "emoji 🦀", "<tag>", "empty"] {
            ids.push(format!("suite::named_{g}/{arg}"));
        }
    }
    assert_eq!(ids.len(), BENCHMARKS);
    ids
}

fn build_store(root: &Path) -> (Store, Vec<String>) {
    let store = Store::at(root);
    let events = parse_list(EVENTS).expect("the events parse");
    let env = Environment {
        cpu_model: "Synthetic CPU @ 3.0GHz".into(),
        kernel: "6.18.0".into(),
        cpu: Some(1),
        ..Default::default()
    };
    let mut noise = Noise(0x9E37_79B9_7F4A_7C15);
    let ids = ids();
    for (b, id) in ids.iter().enumerate() {
        let b = b as u64;
        let d = 1 + b % 7;
        for (slot, scale) in [(Slot::Baseline("main".into()), 100), (Slot::Latest, 103)] {
            let samples = (1..=SAMPLES)
                .map(|i| {
                    let x = i * d;
                    Sample {
                        iterations: x,
                        wall_ns: noise.total((250 + 10 * b) * scale / 100, x, 900),
                        counts: Counts {
                            time_enabled: 1,
                            time_running: 1,
                            values: vec![
                                noise.total((240 + 10 * b) * scale / 100, x, 600),
                                16 * x,
                                (3 + b) * x,
                                noise.next() % 3,
                                0,
                            ],
                        },
                    }
                })
                .collect();
            let m = Measurement {
                samples,
                throughput: None,
            };
            let mut run = Recording::new(id, &events, &m, env.clone());
            let n = run.iterations.len();
            run.rounds = (0..n).map(|i| (5 * i / n) as u32).collect();
            store
                .save(&run, &slot, &analyze(&run, &Calibration::default()))
                .expect("the synthetic store is writable");
        }
    }
    (store, ids)
}

/// The benchmarks `ids` as a run compared with `against` hands them to the
/// report (the previous run being the stored baseline `main` here).
fn analysed(store: &Store, ids: &[String], against: &Target) -> Vec<Analysed> {
    ids.iter()
        .map(|id| {
            let recording = store.load(id, &Slot::Latest).unwrap().expect("stored");
            let base = store
                .load(id, &Slot::Baseline("main".into()))
                .unwrap()
                .expect("stored");
            let changes = compare_runs(&base, &recording, &Thresholds::default());
            Analysed {
                result: analyze(&recording, &Calibration::default()),
                recording,
                comparison: Some(Comparison {
                    against: against.clone(),
                    changes: Some(changes),
                    unfair: None,
                }),
                compared_with: Some(base),
            }
        })
        .collect()
}

/// The fastest of `runs` timings of `f`.
fn best_of(runs: usize, mut f: impl FnMut() -> PathBuf) -> (Duration, PathBuf) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed());
        out = Some(r);
    }
    (best, out.expect("runs > 0"))
}

/// Files and bytes under `dir`.
fn size(dir: &Path) -> (usize, u64) {
    let mut files = 0;
    let mut bytes = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            let (f, b) = size(&path);
            files += f;
            bytes += b;
        } else {
            files += 1;
            bytes += entry.metadata().map_or(0, |m| m.len());
        }
    }
    (files, bytes)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        // `cargo test --all-targets` runs benches once as tests: nothing to
        // check here, and the figures only mean something under `cargo bench`.
        return;
    }
    if args.iter().any(|a| a == "history") {
        history();
        return;
    }
    if !args.iter().any(|a| a == "scale") {
        let keep = args.iter().position(|a| a == "keep");
        small(keep.and_then(|i| args.get(i + 1)).map(Path::new));
    }
    if !args.iter().any(|a| a == "small") {
        scale::run();
    }
}

/// Runs each benchmark's history holds in [`history`]'s store.
const HISTORY_RUNS: usize = 1000;

/// Writes `id`'s history: [`HISTORY_RUNS`] runs of wall time around 250 ns
/// with 1 % noise, stepping by +5 % at run 600 for every third benchmark
/// and by +10 % 5 runs from the end for every tenth.
fn write_history(store: &Store, b: usize, id: &str, noise: &mut Noise) {
    let mut text = String::new();
    for i in 0..HISTORY_RUNS {
        let step = if b % 3 == 0 && i >= 600 { 1.05 } else { 1.0 };
        let late = if b % 10 == 0 && i >= HISTORY_RUNS - 5 {
            1.1
        } else {
            1.0
        };
        let point = 250.0 * step * late * (1.0 + 0.01 * noise.centred());
        let run = HistoryRun {
            started: Some(format!(
                "2026-11-{:02}T{:02}:{:02}:00Z",
                1 + i / 1440 % 28,
                i / 60 % 24,
                i % 60
            )),
            commit: Some(format!("{:040x}", i * 7919 + b)),
            dirty: Some(i % 9 == 0),
            branch: Some("main".into()),
            host: Some("5d41402abc4b2a76".into()),
            metric: "wall-time".into(),
            unit: Unit::Nanoseconds,
            estimate: Estimate {
                point,
                ci: Interval {
                    low: point * 0.995,
                    high: point * 1.005,
                },
            },
            samples: 100,
            quick: false,
        };
        text.push_str(&encode_history_run(&run));
        text.push('\n');
    }
    let rel = Path::new(&folder_name(id)).join("history.jsonl");
    store
        .write(&rel, text.as_bytes())
        .expect("the synthetic store is writable");
}

/// The report's cost with [`BENCHMARKS`] benchmarks of [`HISTORY_RUNS`]
/// runs of history each: every benchmark in the run (every page and its
/// history chart rewritten), and one alone (the others listed from their
/// summaries, no history read).
fn history() {
    let root = std::env::temp_dir().join(format!("perfbench-history-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (store, ids) = build_store(&root);
    let mut noise = Noise(0x2545_F491_4F6C_DD1D);
    for (b, id) in ids.iter().enumerate() {
        write_history(&store, b, id, &mut noise);
    }
    let (_, stored) = size(&root);
    println!(
        "store: {BENCHMARKS} benchmarks, each with {HISTORY_RUNS} runs of history ({:.1} MB in all)",
        stored as f64 / 1e6
    );
    // What the run's store step adds: one append to each history.
    let latest: Vec<HistoryRun> = ids
        .iter()
        .map(|id| {
            store
                .history(id)
                .expect("readable")
                .runs
                .pop()
                .expect("runs")
        })
        .collect();
    let start = Instant::now();
    for (id, run) in ids.iter().zip(&latest) {
        store.append_history(id, run).expect("appended");
    }
    println!(
        "appending a run to each of the {BENCHMARKS} histories: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let options = ReportOptions {
        plots: true,
        against: Target::PreviousRun,
        thresholds: Thresholds::default(),
    };
    let all = analysed(&store, &ids, &options.against);
    for (what, run) in [
        ("all 100 in the run", &all[..]),
        ("one in the run", &all[..1]),
    ] {
        let (time, index) = best_of(3, || {
            write_report(&store, run, &options)
                .expect("the report is written")
                .index
        });
        let report = index.parent().expect("report/");
        let (files, bytes) = size(report);
        let page =
            std::fs::metadata(report.join("bench/suite.plain_00.html")).map_or(0, |m| m.len());
        let changed = std::fs::read_to_string(&index)
            .unwrap_or_default()
            .matches("<tr><td><a href=\"bench/")
            .count();
        println!(
            "{what:<20} {:>8.1} ms  ({files} files, {:.1} MB; a page with its history chart {:.0} kB; {changed} rows changed lately)",
            time.as_secs_f64() * 1e3,
            bytes as f64 / 1e6,
            page as f64 / 1e3
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// The report of 100 benchmarks, all in the run; with `keep`, in that
/// folder, each report kept.
fn small(keep: Option<&Path>) {
    let temp = std::env::temp_dir().join(format!("perfbench-report-bench-{}", std::process::id()));
    let root = keep.unwrap_or(&temp);
    let _ = std::fs::remove_dir_all(root);
    let start = Instant::now();
    let (store, ids) = build_store(root);
    println!(
        "store: {BENCHMARKS} benchmarks × 6 metrics × {SAMPLES} samples, latest and baseline, built in {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (k, (what, options)) in [
        (
            "plots, against baseline `main` (overlays)",
            ReportOptions {
                plots: true,
                against: Target::Baseline("main".into()),
                thresholds: Thresholds::default(),
            },
        ),
        (
            "plots, against the previous run (overlays)",
            ReportOptions {
                plots: true,
                against: Target::PreviousRun,
                thresholds: Thresholds::default(),
            },
        ),
        (
            "--noplot, against baseline `main`",
            ReportOptions {
                plots: false,
                against: Target::Baseline("main".into()),
                thresholds: Thresholds::default(),
            },
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let run = analysed(&store, &ids, &options.against);
        let (time, index) = best_of(3, || {
            write_report(&store, &run, &options)
                .expect("the report is written")
                .index
        });
        let (files, bytes) = size(index.parent().expect("report/"));
        println!(
            "{what:<44} {:>8.1} ms  ({files} files, {:.1} MB, {threads} threads)",
            time.as_secs_f64() * 1e3,
            bytes as f64 / 1e6
        );
        if keep.is_some() {
            let kept = root.join(format!("report-{k}"));
            std::fs::rename(root.join("report"), kept).expect("the report is kept");
        }
    }
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(root);
    }
}

/// The report of a run of one quick benchmark in stores of many others.
mod scale {
    use super::*;

    const QUICK: &str = "quick::one";
    const MANY: usize = 5000;
    const BIG: usize = 11;
    const BIG_SAMPLES: u64 = 500_000;
    /// Timings of each report, of which the fastest and slowest are shown.
    const REPEATS: usize = 3;

    fn environment() -> Environment {
        Environment {
            cpu_model: "Synthetic CPU @ 3.0GHz".into(),
            kernel: "6.18.0".into(),
            cpu: Some(1),
            ..Default::default()
        }
    }

    /// Stores a batch-mode run of `id`: `samples` samples of wall time and
    /// the five events of [`EVENTS`], in 10 rounds.
    fn store_batch(store: &Store, id: &str, samples: u64, noise: &mut Noise) {
        let events = parse_list(EVENTS).expect("the events parse");
        let m = Measurement {
            samples: (1..=samples)
                .map(|i| Sample {
                    iterations: 10 * i,
                    wall_ns: noise.total(250, 10 * i, 900),
                    counts: Counts {
                        time_enabled: 1,
                        time_running: 1,
                        values: vec![noise.total(240, 10 * i, 600), 16 * 10 * i, 3 * i, 0, 0],
                    },
                })
                .collect(),
            throughput: None,
        };
        let mut run = Recording::new(id, &events, &m, environment());
        let n = run.iterations.len();
        run.rounds = (0..n).map(|i| (10 * i / n) as u32).collect();
        store
            .save(&run, &Slot::Latest, &analyze(&run, &Calibration::default()))
            .expect("the synthetic store is writable");
    }

    /// Stores two per-iteration runs of `id` (the latest and, kept by the
    /// second save, the previous), each of [`BIG_SAMPLES`] iterations of
    /// noisy wall time and exactly 2012 instructions.
    fn store_per_iteration(store: &Store, id: &str, noise: &mut Noise) {
        let events = parse_list("instructions").expect("the events parse");
        for _ in 0..2 {
            let m = Measurement {
                samples: (0..BIG_SAMPLES)
                    .map(|_| Sample {
                        iterations: 1,
                        wall_ns: noise.total(700, 1, 0),
                        counts: Counts {
                            time_enabled: 1,
                            time_running: 1,
                            values: vec![2012],
                        },
                    })
                    .collect(),
                throughput: None,
            };
            let mut run = Recording::new(id, &events, &m, environment());
            let n = run.iterations.len();
            run.rounds = (0..n).map(|i| (10 * i / n) as u32).collect();
            run.read_path = Some(ReadPath::Rdpmc);
            store
                .save(&run, &Slot::Latest, &analyze(&run, &Calibration::default()))
                .expect("the synthetic store is writable");
        }
    }

    /// The quick benchmark as its run hands it to the report: stored again
    /// and compared with the run before.
    fn quick_run(store: &Store, noise: &mut Noise) -> Analysed {
        let before = store.load(QUICK, &Slot::Latest).unwrap().expect("stored");
        store_batch(store, QUICK, 100, noise);
        let recording = store.load(QUICK, &Slot::Latest).unwrap().expect("stored");
        Analysed {
            result: analyze(&recording, &Calibration::default()),
            comparison: Some(Comparison::of(
                &Target::PreviousRun,
                Some(&before),
                &recording,
                &Thresholds::default(),
            )),
            recording,
            compared_with: Some(before),
        }
    }

    /// The largest file under `dir`, with its size.
    fn largest(dir: &Path) -> (u64, PathBuf) {
        let mut best = (0, PathBuf::new());
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let here = if path.is_dir() {
                largest(&path)
            } else {
                (entry.metadata().map_or(0, |m| m.len()), path)
            };
            if here.0 > best.0 {
                best = here;
            }
        }
        best
    }

    /// Times the report of the quick benchmark's run in `store`: the first
    /// report, then the fastest and slowest of [`REPEATS`] more.
    fn time(what: &str, store: &Store, noise: &mut Noise) {
        let options = ReportOptions {
            plots: true,
            against: Target::PreviousRun,
            thresholds: Thresholds::default(),
        };
        let run = [quick_run(store, noise)];
        let start = Instant::now();
        let index = write_report(store, &run, &options)
            .expect("the report is written")
            .index;
        let first = start.elapsed();
        let mut times: Vec<Duration> = (0..REPEATS)
            .map(|_| {
                let run = [quick_run(store, noise)];
                let start = Instant::now();
                write_report(store, &run, &options).expect("the report is written");
                start.elapsed()
            })
            .collect();
        times.sort();
        let (bytes, page) = largest(index.parent().expect("report/"));
        let page = page.strip_prefix(store.root()).unwrap_or(&page);
        println!(
            "{what:<40} first {:>9.1} ms, then {:>8.1} to {:>8.1} ms; largest page {:.2} MB ({})",
            first.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            times[REPEATS - 1].as_secs_f64() * 1e3,
            bytes as f64 / 1e6,
            page.display()
        );
    }

    /// A store under the temporary folder, emptied.
    fn fresh(name: &str) -> Store {
        let root = std::env::temp_dir().join(format!(
            "perfbench-report-scale-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        Store::at(root)
    }

    /// Builds the three stores, times each report and removes them.
    pub fn run() {
        let mut noise = Noise(0x2545_F491_4F6C_DD1D);
        let alone = fresh("alone");
        store_batch(&alone, QUICK, 100, &mut noise);
        time("one quick benchmark alone", &alone, &mut noise);

        let start = Instant::now();
        let many = fresh("many");
        store_batch(&many, QUICK, 100, &mut noise);
        for b in 0..MANY {
            store_batch(
                &many,
                &format!("suite::m{}::b{b:04}", b % 50),
                20,
                &mut noise,
            );
        }
        println!(
            "(store of {MANY} built in {:.1} s)",
            start.elapsed().as_secs_f64()
        );
        time("… in a store of 5,000", &many, &mut noise);

        let start = Instant::now();
        let big = fresh("big");
        store_batch(&big, QUICK, 100, &mut noise);
        for b in 0..BIG {
            store_per_iteration(&big, &format!("per_iter::b{b:02}"), &mut noise);
        }
        println!(
            "(store of {BIG} per-iteration benchmarks built in {:.1} s)",
            start.elapsed().as_secs_f64()
        );
        time("… next to 11 per-iteration benchmarks", &big, &mut noise);
        for store in [alone, many, big] {
            let _ = std::fs::remove_dir_all(store.root());
        }
    }
}
