//! The tally of a run: what it tells at its end, and its exit code —
//! failed benchmarks, regressions under `--fail-on-regression`, stored
//! files that could not be read or written, and how per-iteration counts
//! were read.

use std::collections::BTreeSet;

use crate::analysis::comparison::{fails, MetricChange, Target, Thresholds, Verdict};
use crate::analysis::Analysed;
use crate::output::format::{change_text, count, plural, printable};
use crate::run::cli::RegressionGate;
use crate::run::stderr::{self, workflow_data, workflow_property};
use crate::store::StoreError;

/// Exit code when a benchmark failed (libtest's).
pub const EXIT_FAILED: i32 = 101;
/// Exit code for bad options or events, or unusable stored results.
pub const EXIT_USAGE: i32 = 2;
/// Exit code of `--fail-on-regression` when a metric regressed.
pub const EXIT_REGRESSED: i32 = 3;

/// Why per-iteration counts were read with `read()`: what user-space reads
/// need on this architecture.
const USER_READS_NEED: &str = if cfg!(target_arch = "aarch64") {
    " (user-space reads need a CPU PMU and kernel.perf_user_access = 1)"
} else {
    " (rdpmc needs a hardware PMU that allows user-space reads)"
};

/// The tallies of a run, benchmark by benchmark.
#[derive(Debug, Default)]
pub struct RunTally {
    /// Benchmarks that failed, by id.
    pub failed: Vec<String>,
    /// Regressions that fail the run, one line each.
    pub regressions: Vec<String>,
    /// Stored files that could not be read or written.
    pub store_errors: usize,
    /// How per-iteration counts were read.
    pub read_paths: BTreeSet<&'static str>,
    /// Benchmarks measured and analysed.
    pub measured: usize,
    /// What the run's comparisons found, for the gate's line.
    pub verdicts: Verdicts,
    /// A GitHub Actions `::error` line per regression.
    pub annotations: Vec<String>,
    /// The gate and noise thresholds, set where the run compares: the gate
    /// line is said only then.
    pub gate: Option<(RegressionGate, Thresholds)>,
}

/// The metrics the run's comparisons judged, by verdict, and the
/// benchmarks they belong to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Verdicts {
    /// Benchmarks compared (neither new nor compared unfairly).
    pub benchmarks: usize,
    /// Benchmarks in neither the stored run nor compared fairly.
    pub not_compared: usize,
    /// Metrics regressed.
    pub regressed: usize,
    /// Metrics improved.
    pub improved: usize,
    /// Metrics without a change beyond the noise.
    pub unchanged: usize,
}

impl RunTally {
    /// Counts a measured benchmark, against `--fail-on-regression`'s gate.
    pub fn measured(&mut self, a: &Analysed, gate: RegressionGate) {
        self.measured += 1;
        // Wall time alone reads no counter.
        let counted = a.recording.series.len() > 1;
        if let Some(path) = a.recording.read_path.filter(|_| counted) {
            self.read_paths.insert(path.name());
        }
        self.judged(a);
        let changes = a.comparison.as_ref().and_then(|c| c.changes.as_ref());
        let limit = match gate {
            RegressionGate::Off => return,
            RegressionGate::AnyRegression => None,
            RegressionGate::Beyond(fraction) => Some(fraction),
        };
        let Some(changes) = changes else {
            return;
        };
        for c in changes.iter().filter(|c| fails(c, limit)) {
            self.regressions.push(format!(
                "  {} {}: {}",
                printable(&a.recording.id),
                c.name,
                change_text(&c.change)
            ));
        }
    }

    /// Says that the baseline `name` was saved, with how many benchmarks,
    /// or why not (then counted as a stored file that failed).
    pub fn baseline_saved(
        &mut self,
        committed: Option<Result<(), StoreError>>,
        name: Option<&str>,
    ) {
        match (committed, name) {
            (Some(Err(err)), _) => {
                stderr::error(&err.to_string());
                self.store_errors += 1;
            }
            (Some(Ok(())), Some(name)) => stderr::say(&format!(
                "saved baseline `{name}` ({})",
                count(self.measured, "benchmark")
            )),
            _ => {}
        }
    }

    /// Counts the verdicts of `a`'s comparison, and words an annotation
    /// for each regression.
    fn judged(&mut self, a: &Analysed) {
        let Some(comparison) = &a.comparison else {
            return;
        };
        let changes = comparison.changes.as_ref();
        let Some(changes) = changes.filter(|_| comparison.unfair.is_none()) else {
            self.verdicts.not_compared += 1;
            return;
        };
        self.verdicts.benchmarks += 1;
        for c in changes {
            match c.verdict {
                Verdict::Regressed => self.verdicts.regressed += 1,
                Verdict::Improved => self.verdicts.improved += 1,
                Verdict::WithinNoise | Verdict::NoChange => self.verdicts.unchanged += 1,
            }
        }
        let regressed = changes.iter().filter(|c| c.verdict == Verdict::Regressed);
        for c in regressed {
            let annotation = annotation(&a.recording.id, c, &comparison.against);
            self.annotations.push(annotation);
        }
    }

    /// Prints the end of the run on stderr: [`RunTally::lines`]; under
    /// GitHub Actions (`GITHUB_ACTIONS=true`) the annotations first, on
    /// stdout where the table is (the runner reads commands there), else
    /// on stderr, out of the way of JSON or another format.
    pub fn print(&self, total: usize, target: &Target, table_on_stdout: bool) {
        let actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
        for line in self.annotations.iter().filter(|_| actions) {
            match table_on_stdout {
                true => println!("{line}"),
                false => eprintln!("{line}"),
            }
        }
        for line in self.lines(total, target) {
            eprintln!("{line}");
        }
    }

    /// The gate's line, the run's last where it compared anything:
    /// against what, how many metrics regressed, improved or stayed, over
    /// how many benchmarks, at which threshold, and whether it gates.
    pub fn gate_line(&self, target: &Target) -> Option<String> {
        let (gate, thresholds) = self.gate?;
        let v = self.verdicts;
        let against = match target {
            Target::PreviousRun => "the previous run".to_string(),
            other => other.label(),
        };
        let outcome = match gate {
            RegressionGate::Off => "not gating (no --fail-on-regression)",
            _ if self.regressions.is_empty() => "passes",
            _ => "fails",
        };
        // A gate says what it did not look at: benchmarks new to the
        // target, or measured in too few rounds to compare.
        let skipped = v.not_compared;
        if v.benchmarks == 0 {
            let none = match skipped {
                0 => "nothing compared".to_string(),
                n => format!("nothing compared ({} not compared)", count(n, "benchmark")),
            };
            let line = format!("perfbench: gate against {against}: {none}; {outcome}");
            return (gate != RegressionGate::Off).then_some(line);
        }
        let skipped = match skipped {
            0 => String::new(),
            n => format!(", {n} more not compared"),
        };
        let threshold = match (thresholds.time, thresholds.count) {
            (t, c) if t == c => format!("threshold {}", pct(t)),
            (t, c) => format!("threshold {} for times, {} for counts", pct(t), pct(c)),
        };
        // Only those beyond the gate's own limit fail the run.
        let beyond = match gate {
            RegressionGate::Beyond(limit) => {
                format!(" ({} beyond {})", self.regressions.len(), pct(limit))
            }
            _ => String::new(),
        };
        Some(format!(
            "perfbench: gate against {against}: {} regression{}{beyond}, {} improved, \
             {} unchanged ({}{skipped}, {threshold}); {outcome}",
            v.regressed,
            plural(v.regressed),
            v.improved,
            v.unchanged,
            count(v.benchmarks, "benchmark"),
        ))
    }

    /// The end of the run: read paths, regressions, stored files that
    /// failed and failed benchmarks, of `total` benchmarks compared with
    /// `target`.
    pub fn lines(&self, total: usize, target: &Target) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.read_paths.is_empty() {
            let paths: Vec<&str> = self.read_paths.iter().copied().collect();
            let need = if paths == ["read()"] {
                USER_READS_NEED
            } else {
                ""
            };
            lines.push(format!(
                "perfbench: per-iteration counts were read with {}{need}",
                paths.join(" and ")
            ));
        }
        if !self.regressions.is_empty() {
            lines.push(format!(
                "perfbench: {} regression{} against {}:",
                self.regressions.len(),
                plural(self.regressions.len()),
                match target {
                    Target::Paired(_) => target.label(),
                    _ => target.json_name().to_string(),
                }
            ));
            lines.extend(self.regressions.iter().cloned());
        }
        if self.store_errors > 0 {
            lines.push(format!(
                "perfbench: {} could not be read or written (named above)",
                count(self.store_errors, "stored file")
            ));
        }
        if !self.failed.is_empty() {
            let failed: Vec<_> = self.failed.iter().map(|id| printable(id)).collect();
            lines.push(format!(
                "perfbench: {} of {} failed: {}",
                self.failed.len(),
                count(total, "benchmark"),
                failed.join(", ")
            ));
        }
        lines.extend(self.gate_line(target));
        lines
    }

    /// The exit code, of the worst that happened: a failed benchmark (101),
    /// then unusable stored files (2), then regressions (3). Each is said
    /// by [`RunTally::print`] whichever decides the code.
    pub fn exit_code(&self) -> i32 {
        if !self.failed.is_empty() {
            EXIT_FAILED
        } else if self.store_errors > 0 {
            EXIT_USAGE
        } else if !self.regressions.is_empty() {
            EXIT_REGRESSED
        } else {
            0
        }
    }
}

/// The GitHub Actions `::error` line of the regression `c` of benchmark
/// `id` against `against`: the id and the label escaped as everywhere
/// ([`printable`]), then the workflow command's own escapes (`%`, line
/// ends, and in the title `:` and `,`), so that neither can end the
/// command early nor start another.
fn annotation(id: &str, c: &MetricChange, against: &Target) -> String {
    let id = printable(id);
    let title = format!("perfbench: {id} {} regressed", c.name);
    let message = format!(
        "{id}: {} {} against {}",
        c.name,
        change_text(&c.change),
        against.label()
    );
    format!(
        "::error title={}::{}",
        workflow_property(&title),
        workflow_data(&message)
    )
}

/// A fraction as people read a threshold: `0.03` is `3 %`.
fn pct(fraction: f64) -> String {
    format!("{} %", (fraction * 1e5).round() / 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_outrank_store_errors_which_outrank_regressions() {
        let mut s = RunTally::default();
        assert_eq!(s.exit_code(), 0);
        s.regressions.push("  x wall-time: +5%".into());
        assert_eq!(s.exit_code(), EXIT_REGRESSED);
        s.store_errors = 1;
        assert_eq!(s.exit_code(), EXIT_USAGE);
        s.failed.push("x".into());
        assert_eq!(s.exit_code(), EXIT_FAILED);
    }

    #[test]
    fn a_regression_is_said_when_storing_failed_too_and_ids_are_escaped() {
        let s = RunTally {
            regressions: vec!["  x wall-time: +5%".into()],
            store_errors: 2,
            failed: vec!["bad\nid\x1b[2J".into()],
            ..RunTally::default()
        };
        assert_eq!(
            s.lines(3, &Target::PreviousRun),
            [
                "perfbench: 1 regression against latest:",
                "  x wall-time: +5%",
                "perfbench: 2 stored files could not be read or written (named above)",
                "perfbench: 1 of 3 benchmarks failed: bad\\nid\\u{1b}[2J",
            ]
        );
    }

    #[test]
    fn the_gate_line_says_against_what_how_many_and_whether_it_gates() {
        let mut s = RunTally {
            verdicts: Verdicts {
                benchmarks: 12,
                not_compared: 0,
                regressed: 0,
                improved: 2,
                unchanged: 46,
            },
            ..RunTally::default()
        };
        let base = Target::Baseline("base".into());
        assert_eq!(s.gate_line(&base), None, "no gate set: not a run");
        let thresholds = Thresholds::default();
        s.gate = Some((RegressionGate::AnyRegression, thresholds));
        assert_eq!(
            s.gate_line(&base).unwrap(),
            "perfbench: gate against `base`: 0 regressions, 2 improved, 46 unchanged \
             (12 benchmarks, threshold 3 % for times, 1 % for counts); passes"
        );
        s.regressions.push("  x wall-time: +5%".into());
        s.verdicts.regressed = 1;
        s.gate = Some((RegressionGate::Beyond(0.02), thresholds));
        let line = s.gate_line(&Target::PreviousRun).unwrap();
        assert!(
            line.starts_with(
                "perfbench: gate against the previous run: 1 regression (1 beyond 2 %), "
            ),
            "{line}"
        );
        assert!(line.contains("1 regression (1 beyond 2 %), "), "{line}");
        assert!(line.ends_with("); fails"), "{line}");
        s.gate = Some((RegressionGate::Off, thresholds));
        assert!(s
            .gate_line(&base)
            .unwrap()
            .ends_with("; not gating (no --fail-on-regression)"));
        assert_eq!(s.lines(12, &base).last(), s.gate_line(&base).as_ref());
        s.verdicts = Verdicts::default();
        assert_eq!(s.gate_line(&base), None, "nothing compared, no gate");
        s.regressions.clear();
        s.gate = Some((RegressionGate::AnyRegression, thresholds));
        assert_eq!(
            s.gate_line(&base).unwrap(),
            "perfbench: gate against `base`: nothing compared; passes"
        );
        s.verdicts.not_compared = 3;
        assert_eq!(
            s.gate_line(&base).unwrap(),
            "perfbench: gate against `base`: nothing compared (3 benchmarks not compared); passes"
        );
        s.verdicts.benchmarks = 2;
        s.verdicts.unchanged = 8;
        assert_eq!(
            s.gate_line(&base).unwrap(),
            "perfbench: gate against `base`: 0 regressions, 0 improved, 8 unchanged \
             (2 benchmarks, 3 more not compared, threshold 3 % for times, 1 % for counts); passes"
        );
    }

    #[test]
    fn a_paired_build_s_path_is_escaped_in_the_regressions_and_the_gate_line() {
        let path = "/tmp/b\n::warning::X\x1b[31m";
        let shown = "the paired build `/tmp/b\\n::warning::X\\u{1b}[31m`";
        let s = RunTally {
            regressions: vec!["  x wall-time: +5%".into()],
            verdicts: Verdicts {
                benchmarks: 1,
                regressed: 1,
                ..Verdicts::default()
            },
            gate: Some((RegressionGate::AnyRegression, Thresholds::default())),
            ..RunTally::default()
        };
        let lines = s.lines(1, &Target::Paired(path.into()));
        assert_eq!(
            lines[0],
            format!("perfbench: 1 regression against {shown}:")
        );
        assert!(
            lines[2].starts_with(&format!("perfbench: gate against {shown}: 1 regression,")),
            "{}",
            lines[2]
        );
        assert!(
            lines.iter().all(|l| !l.contains(['\n', '\x1b'])),
            "{lines:?}"
        );
    }

    #[test]
    fn an_annotation_escapes_the_id_and_the_paired_path_then_for_the_workflow() {
        let c = MetricChange {
            name: "allocs".into(),
            change: crate::stats::Change {
                relative: Some(1.0),
                difference: 1.0,
                ci: Some(crate::stats::Interval {
                    low: 1.0,
                    high: 1.0,
                }),
                p_value: 0.0,
                runs: 1,
            },
            verdict: Verdict::Regressed,
        };
        let against = Target::Paired("/b\n::warning::X\x1b[2J".into());
        let shown = |id| annotation(id, &c, &against);
        assert_eq!(
            shown("a\\nb, c:d"),
            "::error title=perfbench%3A a\\\\nb%2C c%3Ad allocs regressed::a\\\\nb, c:d: allocs \
             +100.00%25 [+100.00%25, +100.00%25], p = 0.000 against the paired build \
             `/b\\n::warning::X\\u{1b}[2J`"
        );
        assert_ne!(shown("a\nb, c:d"), shown("a\\nb, c:d"));
    }
}
