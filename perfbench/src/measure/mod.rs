//! The measurement loop: warm-up, the sampling plan, the samples, and the
//! [`Bencher`] a benchmark drives it with.
//!
//! In batch mode each sample enables the counter group, runs the routine `n`
//! times, disables the group and reads it once. With linear sampling sample
//! `i` runs `i · d` iterations, so the slope of total against iterations is
//! the per-iteration cost and the fixed cost of toggling and reading lands
//! in the intercept; a routine too slow for that within the budget is
//! sampled flat, or in fewer samples ([`SamplingPlan`]).

mod async_bencher;
pub mod async_executor;
mod async_repeat;
mod batch_mode;
mod batch_windows;
mod batched_inputs;
mod bencher;
pub mod environment;
mod method;
mod per_iter;
mod pin;
mod sampled_pass;
mod sampling;
mod threads;

use std::io;
use std::time::Duration;

use crate::counter::group::Counts;

pub use async_bencher::AsyncBencher;
pub use async_executor::{AsyncExecutor, BlockOn};
pub use batch_mode::{calibrate, measure, measure_pass, Planning, Ran};
pub use batched_inputs::BatchSize;
pub use bencher::{profile, run_once, Bencher};
pub use method::Method;
pub use per_iter::{
    calibrate_per_iter, measurable_by_read, measurable_per_iteration, measure_per_iter,
    IterationCounts, PerIterMeasurement, MAX_STORED_ITERATIONS,
};
pub use pin::{choose_core, CoreChoice, PinError, ThreadPin};
pub use sampled_pass::{
    pass_spec, sample_routine, sample_routine_as, ProfilingError, MAX_FREQUENCY, STACK_BYTES,
};
pub use sampling::{Costs, SamplingPlan, Shape, FEWEST_SAMPLES, MAX_SAMPLES};

/// How long and how often to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Time spent running the routine before sampling starts.
    pub warm_up: Duration,
    /// Target time for all samples together.
    pub measurement: Duration,
    /// Number of samples asked for; the [`SamplingPlan`] may take fewer.
    pub sample_count: u64,
    /// Rounds a run measures each benchmark in, interleaved with the other
    /// benchmarks; the times and samples above, and the iterations
    /// per-iteration mode keeps, are shared among them ([`Config::rounds`],
    /// [`Config::round`]).
    pub rounds: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            warm_up: Duration::from_millis(150),
            measurement: Duration::from_millis(700),
            sample_count: 50,
            rounds: 10,
        }
    }
}

/// Fewest samples a round takes: a round's slope is one of the values its
/// interval is made of, and a line through two or three samples lets any
/// cost that falls on one of them into the slope (a joined thread's time
/// counted a sample late moved one benchmark's task-clock by 1.8×).
pub const MIN_SAMPLES_PER_ROUND: u64 = 5;

impl Config {
    /// The settings as one line, the same for every run of the same
    /// settings (`50 samples in 10 rounds, warm-up 150 ms, measurement
    /// 700 ms`): what a stored run records of how it was measured.
    pub fn key(&self) -> String {
        format!(
            "{} samples in {} rounds, warm-up {} ms, measurement {} ms",
            self.sample_count,
            self.rounds(),
            self.warm_up.as_millis(),
            self.measurement.as_millis()
        )
    }

    /// The rounds a benchmark is measured in: as many as asked, while each
    /// keeps at least [`MIN_SAMPLES_PER_ROUND`] samples (one round
    /// otherwise).
    pub fn rounds(&self) -> u64 {
        self.rounds
            .min(self.sample_count / MIN_SAMPLES_PER_ROUND)
            .max(1)
    }

    /// What round `index` (from 0) of the [`Config::rounds`] measures: its
    /// share of the measurement time and of the samples (the first rounds
    /// take one more where they do not divide evenly), and of the warm-up:
    /// half of it for the first round, which also sets the step of every
    /// round, the other half shared among the others, which only warm up
    /// again after the other benchmarks ran. Its `rounds` stays the run's,
    /// for the shares measuring takes itself.
    pub fn round(&self, index: u64) -> Config {
        let rounds = self.rounds();
        let share = |d: Duration, n: u64| d / u32::try_from(n).unwrap_or(u32::MAX);
        let warm_up = match (rounds, index) {
            (1, _) => self.warm_up,
            (_, 0) => self.warm_up / 2,
            _ => share(self.warm_up / 2, rounds - 1),
        };
        Config {
            warm_up,
            measurement: share(self.measurement, rounds),
            sample_count: self.sample_count / rounds
                + u64::from(index < self.sample_count % rounds),
            rounds,
        }
    }
}

/// Work done per iteration, to turn counts into per-byte or per-element
/// figures.
///
/// ```no_run
/// use perfbench::{perfbench, Bencher, Throughput};
///
/// #[perfbench]
/// fn checksum_4k(b: &mut Bencher) {
///     let data = vec![7u8; 4096];
///     b.throughput(Throughput::Bytes(data.len() as u64));
///     b.iter(|| data.iter().map(|&x| u64::from(x)).sum::<u64>());
/// }
///
/// #[perfbench]
/// fn sort_1000(b: &mut Bencher) {
///     let data: Vec<u32> = (0..1000).rev().collect();
///     b.throughput(Throughput::Elements(1000));
///     b.iter(|| {
///         let mut v = data.clone();
///         v.sort_unstable();
///         v
///     });
/// }
/// ```
///
/// Stored and printed as JSON `{"bytes": n}` or `{"elements": n}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Throughput {
    /// Bytes processed per iteration.
    Bytes(u64),
    /// Elements processed per iteration.
    Elements(u64),
}

impl Throughput {
    /// What the work is counted in: `byte` or `element`.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Throughput::Bytes(_) => "byte",
            Throughput::Elements(_) => "element",
        }
    }

    /// How many bytes or elements one iteration processes.
    pub(crate) fn amount(self) -> u64 {
        match self {
            Throughput::Bytes(n) | Throughput::Elements(n) => n,
        }
    }

    /// The work of `calls` calls: with `threads`, an iteration calls the
    /// routine once on each thread.
    pub(crate) fn times(self, calls: usize) -> Throughput {
        let calls = u64::try_from(calls).unwrap_or(u64::MAX);
        match self {
            Throughput::Bytes(n) => Throughput::Bytes(n.saturating_mul(calls)),
            Throughput::Elements(n) => Throughput::Elements(n.saturating_mul(calls)),
        }
    }
}

/// One sample: `iterations` runs of the routine between one enable and one
/// disable of the group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// How many times the routine ran.
    pub iterations: u64,
    /// Wall time of those runs, in nanoseconds.
    pub wall_ns: u64,
    /// What the group counted meanwhile.
    pub counts: Counts,
}

impl Sample {
    /// Whether the kernel multiplexed the group during this sample (it was
    /// on the PMU for less time than it was enabled), so that its counts
    /// cover only part of the routine's runs.
    pub fn multiplexed(&self) -> bool {
        self.counts.time_running < self.counts.time_enabled
    }
}

/// Leaves out of `items` those the kernel `disturbed`, unless it disturbed
/// every one (then nothing undisturbed is left to measure: they are kept,
/// to be flagged), and returns how many it left out. The one rule of both
/// modes: per-iteration mode applies it to iterations, batch mode to
/// samples.
pub fn leave_out_disturbed<T>(items: &mut Vec<T>, disturbed: impl Fn(&T) -> bool) -> usize {
    let before = items.len();
    if items.iter().any(|it| !disturbed(it)) {
        items.retain(|it| !disturbed(it));
    }
    before - items.len()
}

/// Everything one benchmark's measurement produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The samples, in the order they were taken.
    pub samples: Vec<Sample>,
    /// The throughput the benchmark declared, if any.
    pub throughput: Option<Throughput>,
}

/// Why a benchmark produced no measurement.
#[derive(Debug)]
pub enum MeasureError {
    /// The benchmark function returned without calling an `iter` method.
    NeverIterated,
    /// The benchmark called `iter` methods more than once.
    IteratedTwice,
    /// Starting, stopping or reading the counters failed.
    Counters(io::Error),
    /// `threads` asked for this many threads, but the benchmark gave its
    /// routine to this method, which runs it on one (`iter_shared` shares
    /// it).
    OneThreadRoutine {
        /// The method, `iter` or another.
        method: &'static str,
        /// The threads asked for.
        threads: usize,
    },
    /// `threads` asked for this many threads in per-iteration mode, which
    /// reads the counters of the measuring thread only.
    PerIterThreads(usize),
    /// A thread of `threads` could not be started.
    Spawn(io::Error),
}

impl std::fmt::Display for MeasureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeasureError::NeverIterated => {
                write!(f, "the benchmark returned without calling `Bencher::iter`")
            }
            MeasureError::IteratedTwice => {
                write!(f, "the benchmark called `Bencher::iter` more than once")
            }
            MeasureError::Counters(e) => write!(f, "reading the counters failed: {e}"),
            // `iter_shared` takes no futures: an async routine has no way out.
            MeasureError::OneThreadRoutine { method, threads }
                if method.starts_with("to_async") =>
            {
                write!(
                    f,
                    "`threads` asks for {threads} threads, but `Bencher::{method}` runs its \
                     routine on one, and async routines have no shared form: measure them \
                     without `threads`"
                )
            }
            MeasureError::OneThreadRoutine { method, threads } => write!(
                f,
                "`threads` asks for {threads} threads, but `Bencher::{method}` runs its routine \
                 on one: give the routine to `Bencher::iter_shared`, which the threads share \
                 (it must be `Fn + Sync`)"
            ),
            MeasureError::PerIterThreads(threads) => write!(
                f,
                "per-iteration mode counts the measuring thread only, not {threads} threads: \
                 measure benchmarks with `threads` in batch mode (`--skip threads=` leaves \
                 them out)"
            ),
            MeasureError::Spawn(e) => write!(f, "cannot start a thread of `threads`: {e}"),
        }
    }
}

impl std::error::Error for MeasureError {}

impl Measurement {
    /// Adds the counts of a later pass over the same benchmark with another
    /// counter group, sample by sample (the passes share their step, so the
    /// samples line up). Wall time stays the first pass's; a sample keeps
    /// the times of whichever pass was multiplexed most.
    pub fn merge_pass(&mut self, later: &Measurement) {
        for (s, t) in self.samples.iter_mut().zip(&later.samples) {
            debug_assert_eq!(s.iterations, t.iterations, "passes share their step");
            s.counts.values.extend_from_slice(&t.counts.values);
            let share = |c: &Counts| c.time_running as f64 / c.time_enabled.max(1) as f64;
            if share(&t.counts) < share(&s.counts) {
                s.counts.time_enabled = t.counts.time_enabled;
                s.counts.time_running = t.counts.time_running;
            }
        }
    }
}

#[cfg(test)]
mod tests;
