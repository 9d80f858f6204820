//! Per-iteration mode: the counters stay enabled and each iteration is
//! bracketed by inline reads (rdpmc where the kernel allows, else `read()`).

use std::io;
use std::time::{Duration, Instant};

use super::batch::warm_up;
use super::bencher::{Bencher, Outcome, Task};
use super::method::Method;
use super::{Config, MeasureError, Measurement, Sample, Throughput};
use crate::counter::group::{CounterGroup, Counts, GroupReader, ReadPath, Side};

/// At most this many iterations are stored by per-iteration mode, all
/// samples together (unless `sample_count` alone is larger: then one
/// iteration per sample). `d`, the iterations per sample, is lowered to fit,
/// even if the run then takes less than [`Config::measurement`]. At a few
/// dozen bytes per iteration this bounds memory to a few megabytes.
pub const MAX_STORED_ITERATIONS: u64 = 100_000;

/// What one iteration of the routine counted, in per-iteration mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterationCounts {
    /// Wall time of the routine alone, in nanoseconds.
    pub wall_ns: u64,
    /// The difference of the two inline reads around the routine, one per
    /// event in the group's order. It includes the cost of one read (the
    /// tail of the first and the head of the second) and of two clock
    /// reads: see [`calibrate_per_iter`].
    pub values: Vec<u64>,
    /// Nanoseconds the group was enabled between the two reads.
    pub time_enabled: u64,
    /// Nanoseconds it was on the PMU between them: less than
    /// `time_enabled` means the kernel multiplexed it during this iteration,
    /// which may then have counted only part of the routine.
    pub time_running: u64,
    /// A user-space read in this iteration was retried, or fell back to
    /// `read()`, because the kernel had just rescheduled the counters: the
    /// reads then cost other than calibrated, even if the group stayed on
    /// the PMU.
    pub rescheduled: bool,
}

impl IterationCounts {
    /// Whether the kernel multiplexed the group during this iteration or
    /// rescheduled it (a read was retried or fell back).
    pub fn disturbed(&self) -> bool {
        self.time_running < self.time_enabled || self.rescheduled
    }
}

/// Everything one benchmark's per-iteration measurement produced.
#[derive(Clone, Debug, PartialEq)]
pub struct PerIterMeasurement {
    /// Every iteration, in the order run: `sample_count` samples of
    /// `iterations_per_sample` each (see [`PerIterMeasurement::samples`]).
    pub per_iteration: Vec<IterationCounts>,
    /// Iterations per sample (`d`).
    pub iterations_per_sample: u64,
    /// How the counters were read around each iteration.
    pub read_path: ReadPath,
    /// The throughput the benchmark declared, if any.
    pub throughput: Option<Throughput>,
    /// Reads on the `rdpmc` path that found a counter off its hardware
    /// counter and used one group `read()` instead.
    pub fallback_reads: u64,
    /// The method that measured it.
    pub method: Method,
}

impl PerIterMeasurement {
    /// The iterations as one-iteration samples, so that the statistics,
    /// stored results and comparisons of batch mode apply unchanged: the
    /// per-iteration values are then the iterations' own counts.
    pub fn as_measurement(&self) -> Measurement {
        Measurement {
            samples: self
                .per_iteration
                .iter()
                .map(|it| Sample {
                    iterations: 1,
                    wall_ns: it.wall_ns,
                    counts: Counts {
                        time_enabled: 0,
                        time_running: 0,
                        values: it.values.clone(),
                    },
                })
                .collect(),
            throughput: self.throughput,
        }
    }

    /// Iterations during which the kernel multiplexed the group (it was not
    /// on the PMU all the time it was enabled, so the iteration may have
    /// counted only part of the routine) or rescheduled it (a read was
    /// retried). Flagged, never scaled.
    pub fn multiplexed(&self) -> usize {
        self.per_iteration
            .iter()
            .filter(|it| it.disturbed())
            .count()
    }

    /// The same measurement without the iterations the kernel disturbed
    /// ([`multiplexed`](Self::multiplexed)), unless it disturbed them all,
    /// and how many were left out. A disturbed iteration counted the
    /// kernel's doing as well as the routine's: a retried read's own
    /// instructions, or nothing at all while the group was off the PMU.
    pub fn without_disturbed(mut self) -> (PerIterMeasurement, usize) {
        let left_out = super::leave_out_disturbed(&mut self.per_iteration, |it| it.disturbed());
        (self, left_out)
    }

    /// The iterations, sample by sample.
    pub fn samples(&self) -> std::slice::Chunks<'_, IterationCounts> {
        let d = usize::try_from(self.iterations_per_sample.max(1)).unwrap_or(usize::MAX);
        self.per_iteration.chunks(d)
    }
}

/// The inline reads around one iteration, and where their deltas go.
pub(super) struct Bracket<'g> {
    reader: GroupReader<'g>,
    before: Vec<u64>,
    after: Vec<u64>,
    /// Store iterations (not during warm-up).
    record: bool,
    /// The reader's retries and fallbacks as of the last iteration.
    detours: u64,
    iterations: Vec<IterationCounts>,
}

impl Bracket<'_> {
    /// Runs `routine` between two inline reads, inside two clock reads, and
    /// stores the difference. Nothing allocates between the reads; storing
    /// happens after the second one. The clock stays outside the counted
    /// bracket: a clock read may retry its seqlock, and those instructions
    /// would make one iteration count more than the others. So the wall
    /// time includes the counter reads, whose cost calibration measures.
    #[inline]
    pub(super) fn bracket<T>(&mut self, routine: impl FnOnce() -> T) -> io::Result<T> {
        let start = Instant::now();
        let (enabled_before, running_before) =
            self.reader.read_into(&mut self.before, Side::Before)?;
        let output = routine();
        let (enabled_after, running_after) = self.reader.read_into(&mut self.after, Side::After)?;
        let wall = start.elapsed();
        let detours = self.reader.retries() + self.reader.fallbacks();
        let rescheduled = std::mem::replace(&mut self.detours, detours) != detours;
        if self.record {
            self.iterations.push(IterationCounts {
                wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
                values: self
                    .after
                    .iter()
                    .zip(&self.before)
                    .map(|(now, then)| now.wrapping_sub(*then))
                    .collect(),
                // Saturating, not checked: the two reads may take their
                // times from different sources (the page, carried forward
                // with the timestamp counter, or `read()`), which can
                // disagree by a few nanoseconds.
                time_enabled: enabled_after.saturating_sub(enabled_before),
                time_running: running_after.saturating_sub(running_before),
                rescheduled,
            });
        }
        Ok(output)
    }

    /// [`Bracket::bracket`] around `body`, called through this one
    /// non-inlined, non-generic function: the same machine code around
    /// every routine, so that calibration on an empty body measures it.
    #[inline(never)]
    pub(super) fn bracket_body(&mut self, body: &mut dyn FnMut()) -> io::Result<()> {
        self.bracket(body)
    }

    /// [`Bracket::bracket`] around a routine that times itself: its wall
    /// time is the one the routine returns (`iter_custom`).
    pub(super) fn bracket_timed(&mut self, routine: impl FnOnce() -> Duration) -> io::Result<()> {
        let took = self.bracket(routine)?;
        if let (true, Some(last)) = (self.record, self.iterations.last_mut()) {
            last.wall_ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        }
        Ok(())
    }

    /// Enables the group, runs `n` iterations through `one`, and disables it
    /// again (also on error).
    fn run_enabled<F>(&mut self, n: u64, one: &mut F) -> io::Result<()>
    where
        F: FnMut(&mut Bracket<'_>) -> io::Result<()>,
    {
        self.reader.group().enable()?;
        let run = (0..n).try_for_each(|_| one(self));
        let stopped = self.reader.group().disable();
        run?;
        stopped
    }
}

/// Per-iteration mode: warm-up as in batch mode (doubling batches until
/// `warm_up` is spent, which also gives the cost of one iteration), then
/// `sample_count` samples of `d` iterations each, the group enabled for the
/// whole sample and every iteration bracketed by inline reads.
pub(super) fn sample_per_iter<F>(
    config: &Config,
    group: &mut CounterGroup,
    one: &mut F,
) -> io::Result<PerIterMeasurement>
where
    F: FnMut(&mut Bracket<'_>) -> io::Result<()>,
{
    let events = group.events().len();
    let reader = group.reader();
    let mut b = Bracket {
        reader,
        before: vec![0; events],
        after: vec![0; events],
        record: false,
        detours: 0,
        iterations: Vec::new(),
    };

    let warm = warm_up(config.warm_up, |n| b.run_enabled(n, one))?;
    let ns_per_iter = warm.ns_per_iter(warm.elapsed);

    let count = config.sample_count.max(1);
    // The rounds of a run share the store.
    let cap = (MAX_STORED_ITERATIONS / count / config.rounds.max(1)).max(1);
    let d = (config.measurement.as_nanos() as f64 / (ns_per_iter * count as f64)).ceil();
    let d = (d as u64).clamp(1, cap);

    b.record = true;
    b.iterations
        .reserve_exact(usize::try_from(count * d).unwrap_or(0));
    let fallbacks_before = b.reader.fallbacks();
    for _ in 0..count {
        b.run_enabled(d, one)?;
    }
    Ok(PerIterMeasurement {
        read_path: b.reader.path(),
        fallback_reads: b.reader.fallbacks() - fallbacks_before,
        per_iteration: b.iterations,
        iterations_per_sample: d,
        throughput: None,
        method: Method::Iter,
    })
}

/// Measures the benchmark `bench` with the counters of `group`, each
/// iteration on its own: the group stays enabled for a whole sample and
/// every iteration is bracketed by inline reads, with `rdpmc` where every
/// counter's page allows it and one group `read()` otherwise (see
/// [`PerIterMeasurement::read_path`]). `iter_batched` makes each input just
/// before its iteration, outside the bracket.
///
/// At most [`MAX_STORED_ITERATIONS`] iterations are kept.
pub fn measure_per_iter(
    config: &Config,
    group: &mut CounterGroup,
    bench: impl FnOnce(&mut Bencher<'_>),
) -> Result<PerIterMeasurement, MeasureError> {
    let mut b = Bencher::new(Task::PerIter(config, group));
    bench(&mut b);
    let mut m = match b.outcome.unwrap_or(Err(MeasureError::NeverIterated))? {
        Outcome::PerIter(m) => m,
        _ => unreachable!("a per-iteration task gives iterations"),
    };
    m.throughput = b.throughput;
    m.method = b.method;
    Ok(m)
}

/// Measures an empty routine through `method` in per-iteration mode: what
/// each iteration's counts and wall time include of the measurement itself
/// (inline reads, clock reads, the method's own code), to report and
/// subtract.
pub fn calibrate_per_iter(
    config: &Config,
    group: &mut CounterGroup,
    method: Method,
) -> Result<PerIterMeasurement, MeasureError> {
    measure_per_iter(config, group, |b| method.run_empty(b))
}
