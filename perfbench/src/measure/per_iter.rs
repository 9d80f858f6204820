//! Per-iteration mode: the counters stay enabled and each iteration is
//! bracketed by inline reads (rdpmc where the kernel allows, else `read()`).

use std::io;
use std::time::Duration;

use super::batch_mode::warm_up;
use super::bencher::{Bencher, Outcome, Task};
use super::method::Method;
use super::{Config, MeasureError, Measurement, Sample, Throughput};
use crate::counter::event::{Event, Source, Unit};
use crate::counter::group::{CounterGroup, Counts, GroupReader, ReadPath, Side};
use crate::kernel::ticks::Ticks;

/// At most this many iterations are stored by per-iteration mode, all
/// samples together (unless `sample_count` alone is larger: then one
/// iteration per sample). `d`, the iterations per sample, is lowered to fit,
/// even if the run then takes less than [`Config::measurement`]. At a few
/// dozen bytes per iteration this bounds memory to a few megabytes.
pub const MAX_STORED_ITERATIONS: u64 = 100_000;

/// The events per-iteration mode can measure, and the note naming those it
/// leaves out, if any: the software clocks (`task-clock`, `cpu-clock`).
/// A clock is read by a `read()` system call, and counts the part of that
/// call before it takes the time and the part after the last: some 400 ns
/// per iteration on the VM this was measured on, varying from run to run
/// (400 to 427 ns over four runs), and left biased with that cost taken
/// off. There the clock of a 250 ns routine read 241 to 260 ns against
/// batch mode's 229 to 252 ns, with intervals that did not hold batch
/// mode's figure. Batch mode, which reads it once per sample, measures it.
pub fn measurable_per_iteration(mut events: Vec<Event>) -> (Vec<Event>, Option<String>) {
    let clock = |e: &Event| e.unit == Unit::Nanoseconds;
    let clocks: Vec<String> = events
        .iter()
        .filter(|e| clock(e))
        .map(|e| e.name.clone())
        .collect();
    events.retain(|e| !clock(e));
    let note = (!clocks.is_empty()).then(|| {
        format!(
            "per-iteration mode leaves out {}: the kernel's clock counts part of each read() \
             system call around an iteration, by more than a short routine takes and never \
             the same; batch mode measures it",
            clocks.join(", ")
        )
    });
    (events, note)
}

/// The events per-iteration mode can measure where its counters are read
/// with `read()`, and the note naming those it leaves out, if any: CPU
/// events counting the kernel (`instructions:uk`, `cycles:k`). Each read
/// is a system call whose kernel half they count with the routine, by
/// more than a short routine takes and never the same: on the emulated
/// arm64 PMU, `instructions:uk` of a 2,010-instruction routine had 2,426
/// taken off as the calibrated cost and still read 2,000 in [1,270, 2,730],
/// its iterations from 2,010 to 8,069, where `instructions:u` read 2,010
/// exactly and batch mode 2,011 in [2,005, 2,018]. Counting user space
/// only, a read's cost is the same few instructions every time and is
/// taken off exactly; the kernel's software counts (page faults, context
/// switches) count nothing of a read.
pub fn measurable_by_read(mut events: Vec<Event>) -> (Vec<Event>, Option<String>) {
    let kernel = |e: &Event| e.source == Source::Hardware && !e.attr.exclude_kernel;
    let left_out: Vec<String> = (events.iter().filter(|e| kernel(e)))
        .map(|e| e.name.clone())
        .collect();
    events.retain(|e| !kernel(e));
    let note = (!left_out.is_empty()).then(|| {
        format!(
            "per-iteration mode leaves out {}: counted with the kernel and read with read(), \
             they count the system call's kernel half around each iteration, by more than a \
             short routine takes and never the same; batch mode measures them, and `:u` \
             counts user space alone",
            left_out.join(", ")
        )
    });
    (events, note)
}

/// What one iteration of the routine counted, in per-iteration mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterationCounts {
    /// Wall time of the routine and of the two timestamp reads around it,
    /// inside the counter reads, in nanoseconds.
    pub wall_ns: u64,
    /// The difference of the two inline reads around the routine, one per
    /// event in the group's order. It includes the cost of one read (the
    /// tail of the first and the head of the second) and of two timestamp
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
    /// The clock read around the routine, inside the counter reads.
    ticks: Ticks,
    /// Its rate, calibrated during the warm-up.
    ns_per_tick: f64,
    iterations: Vec<IterationCounts>,
}

impl Bracket<'_> {
    /// Runs `routine` between two inline reads, and inside them between
    /// two reads of the timestamp counter ([`Ticks`]), and stores the
    /// difference. Nothing allocates between the reads; storing happens
    /// after the second one. The wall time is the routine's and the two
    /// timestamp reads' (calibration measures them, and they are taken off
    /// by default); the counts hold those reads too, a fixed sequence of
    /// instructions the same every time, so that an iteration of a
    /// deterministic routine counts the same every time. Where the counter
    /// cannot serve, `Instant` does, and a count may then carry a clock
    /// read's seqlock retries.
    #[inline]
    pub(super) fn bracket<T>(&mut self, routine: impl FnOnce() -> T) -> io::Result<T> {
        let opened = self.open()?;
        let output = routine();
        self.close(opened)?;
        Ok(output)
    }

    /// The first half of [`Bracket::bracket`]: the inline read before the
    /// routine, then the timestamp.
    #[inline]
    pub(super) fn open(&mut self) -> io::Result<OpenBracket> {
        let (enabled, running) = self.reader.read_into(&mut self.before, Side::Before)?;
        Ok(OpenBracket {
            enabled,
            running,
            start: self.ticks.now(),
        })
    }

    /// The second half of [`Bracket::bracket`]: the timestamp, the inline
    /// read after the routine, then the difference stored.
    #[inline]
    pub(super) fn close(&mut self, opened: OpenBracket) -> io::Result<()> {
        let end = self.ticks.now();
        let (enabled_after, running_after) = self.reader.read_into(&mut self.after, Side::After)?;
        let detours = self.reader.retries() + self.reader.fallbacks();
        let rescheduled = std::mem::replace(&mut self.detours, detours) != detours;
        if self.record {
            self.iterations.push(IterationCounts {
                wall_ns: (end.wrapping_sub(opened.start) as f64 * self.ns_per_tick).round() as u64,
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
                time_enabled: enabled_after.saturating_sub(opened.enabled),
                time_running: running_after.saturating_sub(opened.running),
                rescheduled,
            });
        }
        Ok(())
    }

    /// [`Bracket::bracket`] around `body`, called through this one
    /// non-inlined, non-generic function: the same machine code around
    /// every routine, so that calibration on an empty body measures it.
    #[inline(never)]
    pub(super) fn bracket_body(&mut self, body: &mut dyn FnMut()) -> io::Result<()> {
        self.bracket(body)
    }

    /// [`Bracket::bracket_body`] around a routine with an input or an
    /// output (`iter_batched`, `iter_custom`): the reads are the same
    /// non-inlined code around every routine, as calibration measures
    /// them; only moving the routine's input and output in and out is the
    /// routine's own. (Inlined per routine, the code around the reads
    /// depended on what the compiler chose for each: one routine counted
    /// 2,130 instructions an iteration in one binary and 2,098 in another.)
    pub(super) fn bracket_once<T>(&mut self, routine: impl FnOnce() -> T) -> io::Result<T> {
        let (mut routine, mut output) = (Some(routine), None);
        self.bracket_body(&mut || output = routine.take().map(|r| r()))?;
        Ok(output.expect("the bracketed body ran once"))
    }

    /// [`Bracket::bracket_once`] around a routine that times itself: its
    /// wall time is the one the routine returns (`iter_custom`).
    pub(super) fn bracket_timed(&mut self, routine: impl FnOnce() -> Duration) -> io::Result<()> {
        let took = self.bracket_once(routine)?;
        self.timed(took);
        Ok(())
    }

    /// Gives the iteration just stored the wall time `took`, which its
    /// routine measured itself.
    pub(super) fn timed(&mut self, took: Duration) {
        if let (true, Some(last)) = (self.record, self.iterations.last_mut()) {
            last.wall_ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        }
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

/// What [`Bracket::open`] read, for [`Bracket::close`].
pub(super) struct OpenBracket {
    /// The group's time enabled at the first read.
    enabled: u64,
    /// Its time running at the first read.
    running: u64,
    /// The timestamp after it.
    start: u64,
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
        ticks: Ticks::new(),
        ns_per_tick: 1.0,
        iterations: Vec::new(),
    };

    // The warm-up is the span the timestamp counter's rate is calibrated
    // over (where the hardware does not state it): see `Ticks::ns_per_tick`.
    let since = b.ticks.mark();
    let warm = warm_up(config.warm_up, |n| b.run_enabled(n, one))?;
    b.ns_per_tick = b.ticks.ns_per_tick(since);
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
/// (inline reads, timestamp reads, the method's own code), to report and
/// subtract (the wall time's by default).
pub fn calibrate_per_iter(
    config: &Config,
    group: &mut CounterGroup,
    method: Method,
) -> Result<PerIterMeasurement, MeasureError> {
    measure_per_iter(config, group, |b| method.run_empty(b))
}
