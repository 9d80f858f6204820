//! The analysis of a fixed set of samples gives the same outputs, byte for
//! byte, as it did before the runtime was reorganised (issue 8): JSON lines,
//! stored files, bencher lines and table rows. The expected file
//! `golden/outputs.txt` was written by commit d30e728, before the move, with
//! `PERFBENCH_WRITE_GOLDEN=1 cargo test -p perfbench --test golden`; the
//! bootstrap is seeded, so the figures are deterministic. Since the move
//! this test calls the new paths (a `Recording` analysed with a
//! `Calibration`, a `Target` to compare with); the expected file is as it
//! was, but for `sw::touch_16`, whose six multiplexed samples (every fifth)
//! batch mode has left out since issue 23, and whose context switches
//! (never one) are headlined as a `rate` since then: its figures, notes
//! and stored samples were written again; and `hw::loop/4096`'s bencher
//! line, which has ended at `(+/- M)` since issue 26 (the services'
//! parsers drop a line with ` = 7426 MB/s` after it). Since issue 27 the
//! rows above are `--verbose`'s; each case adds its default block after
//! them, and the file ends with the run's folded line, its GitHub Actions
//! annotations and the gate's line.

use std::path::{Path, PathBuf};

use perfbench::analysis::comparison::{compare_runs, Comparison, Target, Thresholds};
use perfbench::analysis::{analyze, Analysed, BenchResult, Calibration, Recording, ResultView};
use perfbench::counter::event::parse_list_in;
use perfbench::counter::group::Counts;
use perfbench::measure::environment::Environment;
use perfbench::measure::{Measurement, Sample, Throughput};
use perfbench::output::bencher_lines::bencher_line;
use perfbench::output::folded::Folded;
use perfbench::output::json_lines::bench_line as json_line;
use perfbench::output::table::Table;
use perfbench::run::cli::RegressionGate;
use perfbench::run::end_of_run::RunTally;
use perfbench::stats::{analyze_metric, Bootstrap};
use perfbench::store::{Slot, Store};

/// A fake sysfs tree with a PMU whose event has a `.scale` and `.unit`.
fn fake_sysfs(root: &Path) {
    for (path, text) in [
        ("power/type", "23\n"),
        ("power/format/event", "config:0-7\n"),
        ("power/events/energy-pkg", "event=0x02\n"),
        (
            "power/events/energy-pkg.scale",
            "2.3283064365386962890625e-10\n",
        ),
        ("power/events/energy-pkg.unit", "Joules\n"),
    ] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
}

/// A deterministic pseudo-random stream (SplitMix64).
struct Noise(u64);

impl Noise {
    fn next(&mut self, spread: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % spread.max(1)
    }
}

/// Linear samples of `per_iter` counts per event plus noise; every fifth
/// sample multiplexed where `multiplexed`.
fn measurement(
    seed: u64,
    per_iter: &[u64],
    wall: u64,
    throughput: Option<Throughput>,
    multiplexed: bool,
) -> Measurement {
    let mut noise = Noise(seed);
    let samples = (1..=30u64)
        .map(|i| {
            let n = 7 * i;
            Sample {
                iterations: n,
                wall_ns: n * wall + 3000 + noise.next(n * wall / 10 + 1),
                counts: Counts {
                    time_enabled: 1000,
                    time_running: if multiplexed && i % 5 == 0 { 900 } else { 1000 },
                    values: per_iter
                        .iter()
                        .map(|&c| n * c + noise.next(c / 50 + 1))
                        .collect(),
                },
            }
        })
        .collect();
    Measurement {
        samples,
        throughput,
    }
}

struct Case {
    id: &'static str,
    events: &'static str,
    per_iter: &'static [u64],
    throughput: Option<Throughput>,
    overhead: Option<bool>,
}

const CASES: &[Case] = &[
    Case {
        id: "hw::loop/4096",
        events: "instructions,cycles,branches,branch-misses,cache-references,cache-misses",
        per_iter: &[40_000, 20_000, 5_000, 50, 900, 30],
        throughput: Some(Throughput::Bytes(4096)),
        overhead: None,
    },
    Case {
        id: "sw::touch_16",
        events: "task-clock,page-faults,context-switches",
        per_iter: &[9_000, 16, 0],
        throughput: Some(Throughput::Elements(16)),
        overhead: Some(true),
    },
    Case {
        id: "energy",
        events: "power/energy-pkg/,page-faults",
        per_iter: &[1 << 32, 2],
        throughput: None,
        overhead: Some(false),
    },
];

fn result_of(case: &Case, recording: &Recording) -> BenchResult {
    let r = analyze(recording, &Calibration::default());
    match case.overhead {
        Some(subtract) => {
            // An empty routine costing a tenth of each metric per iteration
            // and 5 per sample, exactly.
            let empty = r
                .metrics
                .iter()
                .map(|m| {
                    let c = (m.stats.slope.point / 10.0) as u64;
                    let totals = [c + 5, 2 * c + 5, 3 * c + 5];
                    let stats = analyze_metric(&[1, 2, 3], &totals, &Bootstrap::default());
                    (m.name.clone(), stats)
                })
                .collect();
            let calibration = Calibration {
                empty,
                per_sample: Vec::new(),
                per_iter: false,
                subtract,
                method: Default::default(),
            };
            analyze(recording, &calibration)
        }
        None => r,
    }
}

/// `r` as if measured in five rounds of consecutive samples.
fn in_rounds(mut r: Recording) -> Recording {
    let n = r.iterations.len();
    r.rounds = (0..n).map(|i| (5 * i / n) as u32).collect();
    r
}

fn outputs(dir: &Path) -> String {
    let sysfs = dir.join("sys");
    fake_sysfs(&sysfs);
    let env = Environment::read_from(Path::new("/nonexistent"), Some(1));
    let store = Store::at(dir.join("out"));
    let mut out = String::new();
    let mut folded = Folded::default();
    let mut tally = RunTally::default();
    for (k, case) in CASES.iter().enumerate() {
        let events = parse_list_in(case.events, &sysfs).unwrap();
        let base_m = measurement(k as u64, case.per_iter, 500, case.throughput, false);
        let new_per_iter: Vec<u64> = case.per_iter.iter().map(|c| c + c / 16).collect();
        let new_m = measurement(100 + k as u64, &new_per_iter, 530, case.throughput, k == 1);
        let base = in_rounds(Recording::new(case.id, &events, &base_m, env.clone()));
        let new = in_rounds(Recording::new(case.id, &events, &new_m, env.clone()));
        let result = result_of(case, &new);
        let view = ResultView::new(&new, &result);
        let comparison = Comparison {
            against: Target::Baseline("main".into()),
            changes: Some(compare_runs(&base, &new, &Thresholds::default())),
            unfair: None,
        };
        out.push_str(&json_line(view, &env, None, None));
        out.push('\n');
        out.push_str(&json_line(view, &env, Some(&comparison), None));
        out.push('\n');
        let previous = Comparison {
            against: Target::PreviousRun,
            changes: comparison.changes.clone(),
            unfair: None,
        };
        out.push_str(&json_line(view, &env, Some(&previous), None));
        out.push('\n');
        let table = Table::new(&[case.id], &[], false, 80, false);
        out.push_str(
            &table
                .change_line(&result, &previous, None)
                .unwrap_or_default(),
        );
        out.push('\n');
        out.push_str(&bencher_line(view));
        out.push('\n');
        let names: Vec<String> = result.metrics.iter().map(|m| m.name.clone()).collect();
        let ipc = result.derived.iter().any(|(n, _)| n == "IPC");
        for width in [80, 400] {
            let table = Table::new(&[case.id], &names, ipc, width, false);
            out.push_str(&table.header());
            out.push('\n');
            out.push_str(&table.row(view));
            out.push('\n');
            out.push_str(&table.throughput_line(view).unwrap_or_default());
            out.push('\n');
            out.push_str(&table.interval_line(&result).unwrap_or_default());
            out.push('\n');
            out.push_str(
                &table
                    .change_line(&result, &comparison, None)
                    .unwrap_or_default(),
            );
            out.push('\n');
        }
        // The default (calm) block, as `--verbose` leaves it for the above.
        let table = Table::new(&[case.id], &names, ipc, 80, false);
        out.push_str(&table.calm_block(view, Some(&comparison), None));
        out.push('\n');
        folded.add(&result);
        let analysed = Analysed {
            recording: new.clone(),
            result: result.clone(),
            comparison: Some(comparison),
            compared_with: Some(base),
        };
        tally.measured(&analysed, RegressionGate::Beyond(0.05));
        store.save(&new, &Slot::Latest, &result).unwrap();
        out.push_str(&std::fs::read_to_string(store.path(case.id, &Slot::Latest)).unwrap());
        out.push('\n');
    }
    // The end of the run: the quiet metrics folded, then the CI lines.
    out.push_str(&folded.line().unwrap_or_default());
    out.push('\n');
    tally.gate = Some((RegressionGate::Beyond(0.05), Thresholds::default()));
    for line in tally
        .annotations
        .iter()
        .chain(&tally.lines(3, &Target::Baseline("main".into())))
    {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[test]
fn outputs_are_byte_identical_to_those_before_the_reorganisation() {
    let dir = std::env::temp_dir().join(format!("perfbench-golden-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let got = outputs(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/outputs.txt");
    if std::env::var_os("PERFBENCH_WRITE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &got).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {} of {} differs", i + 1, golden.display());
    }
    assert_eq!(got.lines().count(), want.lines().count());
}
