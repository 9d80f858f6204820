//! The tally of a run: what it tells at its end, and its exit code —
//! failed benchmarks, regressions under `--fail-on-regression`, stored
//! files that could not be read or written, and how per-iteration counts
//! were read.

use std::collections::BTreeSet;

use crate::analysis::comparison::{fails, Target};
use crate::analysis::Analysed;
use crate::output::format::{change_text, count, plural, printable};
use crate::run::cli::RegressionGate;

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
}

impl RunTally {
    /// Counts a measured benchmark, against `--fail-on-regression`'s gate.
    pub fn measured(&mut self, a: &Analysed, gate: RegressionGate) {
        // Wall time alone reads no counter.
        let counted = a.recording.series.len() > 1;
        if let Some(path) = a.result.read_path.filter(|_| counted) {
            self.read_paths.insert(path.name());
        }
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
                printable(&a.result.id),
                c.name,
                change_text(&c.change)
            ));
        }
    }

    /// Prints the end of the run on stderr: [`RunTally::lines`].
    pub fn print(&self, total: usize, target: &Target) {
        for line in self.lines(total, target) {
            eprintln!("{line}");
        }
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
}
