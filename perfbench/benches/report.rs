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
//! `cargo bench -p perfbench --bench report`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;

use common::Noise;
use perfbench::analysis::compare::{compare_runs, Comparison, Target, Thresholds};
use perfbench::analysis::{analyze, Analysed, Calibration, Recording};
use perfbench::counter::event::parse_list;
use perfbench::counter::group::Counts;
use perfbench::measure::environment::Environment;
use perfbench::measure::{Measurement, Sample};
use perfbench::output::html::{write_report, ReportOptions};
use perfbench::store::{Slot, Store};

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
                baseline: Some(base),
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
    if !std::env::args().any(|a| a == "--bench") {
        // `cargo test --all-targets` runs benches once as tests: nothing to
        // check here, and the figures only mean something under `cargo bench`.
        return;
    }
    let root = std::env::temp_dir().join(format!("perfbench-report-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let start = Instant::now();
    let (store, ids) = build_store(&root);
    println!(
        "store: {BENCHMARKS} benchmarks × 6 metrics × {SAMPLES} samples, latest and baseline, built in {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (what, options) in [
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
    ] {
        let run = analysed(&store, &ids, &options.against);
        let (time, index) = best_of(3, || {
            write_report(&store, &run, &options).expect("the report is written")
        });
        let (files, bytes) = size(index.parent().expect("report/"));
        println!(
            "{what:<44} {:>8.1} ms  ({files} files, {:.1} MB, {threads} threads)",
            time.as_secs_f64() * 1e3,
            bytes as f64 / 1e6
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
