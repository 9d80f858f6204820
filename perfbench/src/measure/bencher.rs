//! [`Bencher`]: what a benchmark drives the measurement with.

use std::hint::black_box;
use std::io;
use std::time::{Duration, Instant};

use super::batch_mode::{
    run_for, sample_planned, start_counting, stop_counting, Measured, Planning, Ran,
};
use super::method::Method;
use super::per_iter::{sample_per_iter, Bracket, PerIterMeasurement};
use super::sampled_pass::{run_windows, SampledWindows};
use super::sampling::SamplingPlan;
use super::{Config, MeasureError, Sample, Throughput};
use crate::counter::group::CounterGroup;

/// Handed to each benchmark: call one of its `iter` methods with the routine
/// to measure.
///
/// ```no_run
/// use perfbench::{black_box, perfbench, Bencher};
///
/// #[perfbench]
/// fn sum_1000(b: &mut Bencher) {
///     let v: Vec<u64> = (0..1000).collect(); // setup, not measured
///     b.iter(|| v.iter().sum::<u64>());
/// }
/// ```
pub struct Bencher<'a> {
    pub(super) task: Task<'a>,
    pub(super) throughput: Option<Throughput>,
    /// The threads [`iter_shared`](Self::iter_shared) runs the routine on
    /// at once (`threads = [...]`); 1 unless set.
    pub(super) threads: usize,
    /// The method the benchmark gave its routine to.
    pub(super) method: Method,
    pub(super) outcome: Option<Result<Outcome, MeasureError>>,
}

/// What a [`Bencher`] does with the routine it is given.
pub(super) enum Task<'a> {
    /// Run the routine once, as a test.
    Once,
    /// Run the routine for about this long, without counters, for a
    /// profiler (`--profile-time`).
    Profile(Duration),
    /// Measure a round of the benchmark whose whole config this is, with
    /// these counters, as planned.
    Counters(&'a Config, &'a mut CounterGroup, Planning<'a>),
    /// Measure each iteration on its own with these counters.
    PerIter(&'a Config, &'a mut CounterGroup),
    /// Run the routine in windows a sampler samples in (`--profile`).
    Sampled(SampledWindows<'a>),
}

/// Runs `body` `n` times: not inlined and not generic, so the loop is the
/// same machine code around every routine.
#[inline(never)]
pub(super) fn repeat(body: &mut dyn FnMut(), n: u64) {
    for _ in 0..n {
        body();
    }
}

/// What an `iter` method produced, by mode.
pub(super) enum Outcome {
    Batch(Vec<Sample>, SamplingPlan),
    PerIter(PerIterMeasurement),
    /// The routine ran without counters (test mode, `--profile-time`).
    Ran(Ran),
}

impl<'a> Bencher<'a> {
    /// A bencher for `task`, on one thread, that has measured nothing yet.
    pub(super) fn new(task: Task<'a>) -> Self {
        Bencher {
            task,
            throughput: None,
            threads: 1,
            method: Method::Iter,
            outcome: None,
        }
    }
    /// A bencher that would run a routine once and has run nothing: what
    /// a wrapper of this `Bencher` (perfbench-criterion's) leaves in its
    /// place while it holds it by value. Not a public API.
    #[doc(hidden)]
    pub fn __placeholder() -> Self {
        Bencher::new(Task::Once)
    }
}

impl Bencher<'_> {
    /// Measures `routine`; its return value is passed through [`black_box`]
    /// and dropped inside the measurement: with the counting allocator
    /// installed, freeing it counts among the `deallocs` (outputs of
    /// [`iter_batched`](Self::iter_batched) are dropped outside).
    ///
    /// With `threads = [...]` above one thread, use
    /// [`iter_shared`](Self::iter_shared): `iter` runs its routine on one
    /// thread and fails the benchmark.
    ///
    /// ```no_run
    /// use perfbench::{perfbench, Bencher};
    ///
    /// #[perfbench]
    /// fn format_number(b: &mut Bencher) {
    ///     // Returned, so the String is freed inside the measurement: with
    ///     // the counting allocator, 1 alloc and 1 dealloc per iteration.
    ///     b.iter(|| format!("{}", perfbench::black_box(12345)));
    /// }
    /// ```
    pub fn iter<O, R: FnMut() -> O>(&mut self, mut routine: R) {
        if self.refuses_threads("iter") {
            return;
        }
        self.method = Method::Iter;
        // Every mode calls the same body through the same non-inlined,
        // non-generic code: what calibration measures around an empty body
        // is then the very machine code around the routine, and the cost
        // of measuring subtracts exactly, in batch and per-iteration mode
        // alike.
        let mut body = || {
            black_box(routine());
        };
        if let Task::PerIter(..) = self.task {
            self.drive_per_iter(|b| b.bracket_body(&mut body));
            return;
        }
        self.drive(|iterations, _, group| {
            // The clock is read outside the counted window: a clock read
            // may retry its seqlock, and those instructions would land on
            // one sample alone and bend the fit.
            let start = Instant::now();
            start_counting(group.as_deref())?;
            repeat(&mut body, iterations);
            stop_counting(group.as_deref())?;
            Ok(start.elapsed().into())
        });
    }

    /// Measures a routine that times itself, as Criterion's `iter_custom`:
    /// `routine(n)` runs `n` iterations and returns the time they took,
    /// which is the sample's wall time. The counters still bracket the
    /// whole call, so they count whatever it does besides the iterations
    /// (its own clock reads, setup) too: keep that small, or out of it.
    /// In per-iteration mode it is called with 1 for each iteration.
    ///
    /// ```no_run
    /// use std::time::{Duration, Instant};
    /// use perfbench::{black_box, perfbench, Bencher};
    ///
    /// #[perfbench]
    /// fn timed_by_hand(b: &mut Bencher) {
    ///     b.iter_custom(|iters| {
    ///         let start = Instant::now();
    ///         for i in 0..iters {
    ///             black_box(i.wrapping_mul(3));
    ///         }
    ///         start.elapsed()
    ///     });
    /// }
    /// ```
    pub fn iter_custom<R: FnMut(u64) -> Duration>(&mut self, mut routine: R) {
        if self.refuses_threads("iter_custom") {
            return;
        }
        self.method = Method::IterCustom;
        if let Task::PerIter(..) = self.task {
            self.drive_per_iter(|b| b.bracket_timed(|| routine(1)));
            return;
        }
        self.drive(|iterations, _, group| {
            start_counting(group.as_deref())?;
            let took = routine(iterations);
            stop_counting(group.as_deref())?;
            Ok(took.into())
        });
    }

    /// Declares the work one iteration does, for per-byte or per-element
    /// figures; `#[perfbench(args = …, throughput = bytes)]` declares it
    /// from each argument instead.
    ///
    /// ```no_run
    /// use perfbench::{perfbench, Bencher, Throughput};
    ///
    /// #[perfbench(args = [64, 4096])]
    /// fn copy(b: &mut Bencher, len: usize) {
    ///     let src = vec![1u8; len];
    ///     let mut dst = vec![0u8; len];
    ///     b.throughput(Throughput::Bytes(len as u64))
    ///         .iter(|| dst.copy_from_slice(&src));
    /// }
    /// ```
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.throughput = Some(throughput);
        self
    }

    /// Runs warm-up and sampling through `run(n, largest, group)`, which
    /// runs the routine `n` times with the group counting and returns the
    /// wall time of the runs; `largest` is the most iterations any sample of
    /// this round asks for (batching needs it to batch every sample alike).
    pub(super) fn drive<F>(&mut self, mut run: F)
    where
        F: FnMut(u64, u64, Option<&mut CounterGroup>) -> io::Result<Measured>,
    {
        // Only this call is compiled once per routine: warm-up, the plan
        // and the samples are compiled once for all, behind one dynamic
        // call per sample (the routine's own loop stays inside `run`).
        self.drive_samples(&mut run);
    }

    /// [`drive`](Self::drive), for every routine alike.
    fn drive_samples(&mut self, mut run: &mut RunSample<'_>) {
        if self.outcome.is_some() {
            self.outcome = Some(Err(MeasureError::IteratedTwice));
            return;
        }
        let outcome = match &mut self.task {
            Task::Once => run(1, 1, None).map(|m| {
                Outcome::Ran(Ran {
                    iterations: 1,
                    elapsed: m.wall,
                })
            }),
            Task::Profile(time) => run_for(*time, |n| run(n, n, None).map(drop)).map(Outcome::Ran),
            Task::Counters(config, group, planning) => {
                sample_planned(config, group, planning, &mut run)
                    .map(|(samples, plan)| Outcome::Batch(samples, plan))
            }
            Task::Sampled(windows) => run_windows(windows, &mut run).map(Outcome::Ran),
            Task::PerIter(..) => unreachable!("per-iteration tasks use drive_per_iter"),
        };
        self.outcome = Some(outcome.map_err(MeasureError::Counters));
    }

    /// Per-iteration mode: runs warm-up and sampling through `one`, which
    /// runs one iteration, its routine inside [`Bracket::bracket`].
    pub(super) fn drive_per_iter<F>(&mut self, mut one: F)
    where
        F: FnMut(&mut Bracket<'_>) -> io::Result<()>,
    {
        // As `drive`: one dynamic call per iteration, outside its bracket.
        self.drive_iterations(&mut one);
    }

    /// [`drive_per_iter`](Self::drive_per_iter), for every routine alike.
    fn drive_iterations(&mut self, mut one: &mut RunIteration<'_>) {
        if self.outcome.is_some() {
            self.outcome = Some(Err(MeasureError::IteratedTwice));
            return;
        }
        let Task::PerIter(config, group) = &mut self.task else {
            unreachable!("only per-iteration targets come here")
        };
        let outcome = sample_per_iter(config, group, &mut one);
        self.outcome = Some(
            outcome
                .map(Outcome::PerIter)
                .map_err(MeasureError::Counters),
        );
    }
}

/// Runs `n` iterations with the group counting, `largest` the most any
/// sample of the round asks for, and returns their wall time.
pub(super) type RunSample<'r> =
    dyn FnMut(u64, u64, Option<&mut CounterGroup>) -> io::Result<Measured> + 'r;

/// Runs one iteration inside its bracket (per-iteration mode).
type RunIteration<'r> = dyn FnMut(&mut Bracket<'_>) -> io::Result<()> + 'r;

/// Runs the routine of `bench` once, without counters: test mode.
pub fn run_once(bench: impl FnOnce(&mut Bencher<'_>)) -> Result<(), MeasureError> {
    run_without_counters(Task::Once, bench).map(drop)
}

/// Runs the routine of `bench` for about `time`, without counters, for a
/// profiler to watch (`--profile-time`): what ran, in how long.
pub fn profile(time: Duration, bench: impl FnOnce(&mut Bencher<'_>)) -> Result<Ran, MeasureError> {
    run_without_counters(Task::Profile(time), bench)
}

/// Hands `bench` a [`Bencher`] for a task without counters.
fn run_without_counters(
    task: Task<'_>,
    bench: impl FnOnce(&mut Bencher<'_>),
) -> Result<Ran, MeasureError> {
    let mut b = Bencher::new(task);
    bench(&mut b);
    match b.outcome.unwrap_or(Err(MeasureError::NeverIterated))? {
        Outcome::Ran(ran) => Ok(ran),
        _ => unreachable!("targets without counters only run"),
    }
}
