//! Criterion's `profiler` module: the [`Profiler`] trait a suite may give
//! `with_profiler`. perfbench does not call it: `--profile` samples each
//! benchmark's routine itself; one line says so when a suite gives one.

use std::path::Path;

/// A profiler Criterion starts and stops around `--profile-time` runs.
pub trait Profiler {
    /// Starts profiling benchmark `benchmark_id`.
    fn start_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
    /// Stops profiling it.
    fn stop_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
}
