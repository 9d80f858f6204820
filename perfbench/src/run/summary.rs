//! What a run tells at its end, and its exit code: failed benchmarks,
//! regressions under `--fail-on-regression`, stored files that could not be
//! read or written, and how per-iteration counts were read.

use std::collections::BTreeSet;

use crate::analysis::compare::{fails, Target};
use crate::analysis::Analysed;
use crate::output::format::{change_text, count, plural};

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
pub struct Summary {
    /// Benchmarks that failed, by id.
    pub failed: Vec<String>,
    /// Regressions that fail the run, one line each.
    pub regressions: Vec<String>,
    /// Stored files that could not be read or written.
    pub store_errors: usize,
    /// How per-iteration counts were read.
    pub read_paths: BTreeSet<&'static str>,
}

impl Summary {
    /// Counts a measured benchmark, against `--fail-on-regression`'s limit
    /// (a fraction) where the gate is on.
    pub fn measured(&mut self, a: &Analysed, gate: Option<Option<f64>>) {
        if let Some(path) = a.result.read_path {
            self.read_paths.insert(path.name());
        }
        let changes = a.comparison.as_ref().and_then(|c| c.changes.as_ref());
        let (Some(limit), Some(changes)) = (gate, changes) else {
            return;
        };
        for c in changes.iter().filter(|c| fails(c, limit)) {
            self.regressions.push(format!(
                "  {} {}: {}",
                a.result.id,
                c.name,
                change_text(&c.change)
            ));
        }
    }

    /// Prints the end of the run on stderr: read paths, regressions and
    /// failures, of `total` benchmarks compared with `target`.
    pub fn print(&self, total: usize, target: &Target) {
        if !self.read_paths.is_empty() {
            let paths: Vec<&str> = self.read_paths.iter().copied().collect();
            eprintln!(
                "perfbench: per-iteration counts were read with {}{}",
                paths.join(" and "),
                if paths == ["read()"] {
                    USER_READS_NEED
                } else {
                    ""
                }
            );
        }
        if !self.regressions.is_empty() {
            eprintln!(
                "perfbench: {} regression{} against {}:",
                self.regressions.len(),
                plural(self.regressions.len()),
                target.json_name()
            );
            for r in &self.regressions {
                eprintln!("{r}");
            }
        }
        if !self.failed.is_empty() {
            eprintln!(
                "perfbench: {} of {} failed: {}",
                self.failed.len(),
                count(total, "benchmark"),
                self.failed.join(", ")
            );
        }
    }

    /// The exit code: a failed benchmark first, then unusable stored files,
    /// then regressions.
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
        let mut s = Summary::default();
        assert_eq!(s.exit_code(), 0);
        s.regressions.push("  x wall-time: +5%".into());
        assert_eq!(s.exit_code(), EXIT_REGRESSED);
        s.store_errors = 1;
        assert_eq!(s.exit_code(), EXIT_USAGE);
        s.failed.push("x".into());
        assert_eq!(s.exit_code(), EXIT_FAILED);
    }
}
