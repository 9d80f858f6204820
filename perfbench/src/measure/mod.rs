//! The measurement loop: warm-up, linear sampling, and the [`Bencher`] a
//! benchmark drives it with.
//!
//! In batch mode each sample enables the counter group, runs the routine `n`
//! times, disables the group and reads it once. Sample `i` runs `i · d`
//! iterations, so the slope of total against iterations is the per-iteration
//! cost and the fixed cost of toggling and reading lands in the intercept.

pub mod environment;

use std::hint::black_box;
use std::io;
use std::time::{Duration, Instant};

use crate::counter::group::{CounterGroup, Counts, GroupReader, ReadPath};
use crate::kernel::sys::{self, CpuSet};

/// How long and how often to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Time spent running the routine before sampling starts.
    pub warm_up: Duration,
    /// Target time for all samples together.
    pub measurement: Duration,
    /// Number of samples; sample `i` runs `i · d` iterations.
    pub sample_count: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            warm_up: Duration::from_millis(150),
            measurement: Duration::from_millis(700),
            sample_count: 50,
        }
    }
}

/// Work done per iteration, to turn counts into per-byte or per-element
/// figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Throughput {
    /// Bytes processed per iteration.
    Bytes(u64),
    /// Elements processed per iteration.
    Elements(u64),
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
        }
    }
}

impl std::error::Error for MeasureError {}

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
    target: Target<'a>,
    throughput: Option<Throughput>,
    outcome: Option<Result<Outcome, MeasureError>>,
}

enum Target<'a> {
    /// Run the routine once, as a test.
    Once,
    /// Measure it with these counters; with a step, sample `i` runs
    /// `i · step` iterations instead of a step chosen from the warm-up.
    Counters(&'a Config, &'a mut CounterGroup, Option<u64>),
    /// Measure each iteration on its own with these counters.
    PerIter(&'a Config, &'a mut CounterGroup),
}

/// What an `iter` method produced, by mode.
enum Outcome {
    Batch(Vec<Sample>),
    PerIter(PerIterMeasurement),
}

impl Bencher<'_> {
    /// Measures `routine`; its return value is passed through [`black_box`]
    /// and dropped inside the measurement.
    pub fn iter<O, R: FnMut() -> O>(&mut self, mut routine: R) {
        if let Target::PerIter(..) = self.target {
            self.drive_per_iter(|b| {
                b.bracket(|| {
                    black_box(routine());
                })
            });
            return;
        }
        self.drive(|iterations, group| {
            start(group)?;
            let start = Instant::now();
            for _ in 0..iterations {
                black_box(routine());
            }
            let wall = start.elapsed();
            stop(group)?;
            Ok(wall)
        });
    }

    /// Measures `routine` on inputs made by `setup`, which runs outside the
    /// measurement, as does dropping the outputs. A sample's inputs are made
    /// up to a tenth of the sample at a time, so they should be small.
    pub fn iter_batched<I, O, S, R>(&mut self, mut setup: S, mut routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        if let Target::PerIter(..) = self.target {
            // One input at a time, made and dropped outside the bracket.
            self.drive_per_iter(|b| {
                let input = setup();
                let output = b.bracket(|| routine(black_box(input)))?;
                drop(black_box(output));
                Ok(())
            });
            return;
        }
        self.drive(|iterations, group| {
            let mut wall = Duration::ZERO;
            let mut left = iterations;
            // Ten batches per sample keep the toggling cost a constant per
            // sample (it lands in the intercept) and memory bounded.
            let batch = iterations.div_ceil(10).max(1);
            while left > 0 {
                let n = batch.min(left);
                left -= n;
                let inputs: Vec<I> = (0..n).map(|_| setup()).collect();
                let mut outputs = Vec::with_capacity(inputs.len());
                start(group)?;
                let start = Instant::now();
                for input in inputs {
                    outputs.push(routine(black_box(input)));
                }
                wall += start.elapsed();
                stop(group)?;
                drop(black_box(outputs));
            }
            Ok(wall)
        });
    }

    /// Declares the work one iteration does, for per-byte or per-element
    /// figures.
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.throughput = Some(throughput);
        self
    }

    /// Runs warm-up and sampling through `run`, which runs the routine `n`
    /// times between an enable and a disable of the group and returns the
    /// wall time of the runs.
    fn drive<F>(&mut self, mut run: F)
    where
        F: FnMut(u64, Option<&CounterGroup>) -> io::Result<Duration>,
    {
        if self.outcome.is_some() {
            self.outcome = Some(Err(MeasureError::IteratedTwice));
            return;
        }
        let outcome = match &mut self.target {
            Target::Once => run(1, None).map(|_| Vec::new()),
            Target::Counters(config, group, step) => {
                sample_linearly(config, group, *step, &mut run)
            }
            Target::PerIter(..) => unreachable!("per-iteration targets use drive_per_iter"),
        };
        self.outcome = Some(outcome.map(Outcome::Batch).map_err(MeasureError::Counters));
    }

    /// Per-iteration mode: runs warm-up and sampling through `one`, which
    /// runs one iteration, its routine inside [`Bracket::bracket`].
    fn drive_per_iter<F>(&mut self, mut one: F)
    where
        F: FnMut(&mut Bracket<'_>) -> io::Result<()>,
    {
        if self.outcome.is_some() {
            self.outcome = Some(Err(MeasureError::IteratedTwice));
            return;
        }
        let Target::PerIter(config, group) = &mut self.target else {
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

#[inline]
fn start(group: Option<&CounterGroup>) -> io::Result<()> {
    group.map_or(Ok(()), CounterGroup::enable)
}

#[inline]
fn stop(group: Option<&CounterGroup>) -> io::Result<()> {
    group.map_or(Ok(()), CounterGroup::disable)
}

/// Warm-up: runs `run(n)` in doubling batches until the warm-up time is
/// spent, and returns how long one iteration took, all costs included.
fn warm_up(config: &Config, mut run: impl FnMut(u64) -> io::Result<()>) -> io::Result<f64> {
    let start = Instant::now();
    let (mut n, mut done) = (1u64, 0u64);
    loop {
        run(n)?;
        done += n;
        if start.elapsed() >= config.warm_up {
            break;
        }
        n = n.saturating_mul(2);
    }
    Ok((start.elapsed().as_nanos() as f64 / done as f64).max(1e-3))
}

fn sample_linearly<F>(
    config: &Config,
    group: &mut CounterGroup,
    step: Option<u64>,
    run: &mut F,
) -> io::Result<Vec<Sample>>
where
    F: FnMut(u64, Option<&CounterGroup>) -> io::Result<Duration>,
{
    let ns_per_iter = warm_up(config, |n| run(n, Some(group)).map(drop))?;

    let count = config.sample_count.max(1);
    let triangle = (count * (count + 1) / 2) as f64;
    let d = (config.measurement.as_nanos() as f64 / (ns_per_iter * triangle)).ceil();
    let d = step.unwrap_or(d as u64).max(1);

    let mut samples = Vec::with_capacity(count as usize);
    let mut last = group.read()?;
    for i in 1..=count {
        let iterations = i * d;
        let wall = run(iterations, Some(group))?;
        let now = group.read()?;
        samples.push(Sample {
            iterations,
            wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
            counts: now.since(&last),
        });
        last = now;
    }
    Ok(samples)
}

/// Measures the benchmark `bench` with the counters of `group`.
pub fn measure(
    config: &Config,
    group: &mut CounterGroup,
    bench: impl FnOnce(&mut Bencher<'_>),
) -> Result<Measurement, MeasureError> {
    measure_with_step(config, group, None, bench)
}

/// [`measure`] with the sampling step fixed: sample `i` runs `i · step`
/// iterations. Passes over the same benchmark with other counter groups use
/// the first pass's step, so that their samples line up one to one.
pub fn measure_with_step(
    config: &Config,
    group: &mut CounterGroup,
    step: Option<u64>,
    bench: impl FnOnce(&mut Bencher<'_>),
) -> Result<Measurement, MeasureError> {
    let mut b = Bencher {
        target: Target::Counters(config, group, step),
        throughput: None,
        outcome: None,
    };
    bench(&mut b);
    let samples = match b.outcome.unwrap_or(Err(MeasureError::NeverIterated))? {
        Outcome::Batch(samples) => samples,
        Outcome::PerIter(_) => unreachable!("a batch target gives batch samples"),
    };
    Ok(Measurement {
        samples,
        throughput: b.throughput,
    })
}

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
    /// Samples during which the group was not on the PMU all the time it
    /// was enabled (`time_running < time_enabled`): multiplexed, so some
    /// iterations may have counted nothing. Flagged, never scaled.
    pub multiplexed: u64,
    /// Reads on the `rdpmc` path that found a counter off its hardware
    /// counter and used one group `read()` instead.
    pub fallback_reads: u64,
}

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

    /// The iterations, sample by sample.
    pub fn samples(&self) -> std::slice::Chunks<'_, IterationCounts> {
        let d = usize::try_from(self.iterations_per_sample.max(1)).unwrap_or(usize::MAX);
        self.per_iteration.chunks(d)
    }
}

/// The inline reads around one iteration, and where their deltas go.
struct Bracket<'g> {
    reader: GroupReader<'g>,
    before: Vec<u64>,
    after: Vec<u64>,
    /// Store iterations (not during warm-up).
    record: bool,
    iterations: Vec<IterationCounts>,
}

impl Bracket<'_> {
    /// Runs `routine` between two inline reads and a wall clock, and stores
    /// the difference. Nothing allocates between the reads; storing happens
    /// after the second one.
    #[inline]
    fn bracket<T>(&mut self, routine: impl FnOnce() -> T) -> io::Result<T> {
        self.reader.read_into(&mut self.before)?;
        let start = Instant::now();
        let output = routine();
        let wall = start.elapsed();
        self.reader.read_into(&mut self.after)?;
        if self.record {
            self.iterations.push(IterationCounts {
                wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
                values: self
                    .after
                    .iter()
                    .zip(&self.before)
                    .map(|(now, then)| now.wrapping_sub(*then))
                    .collect(),
            });
        }
        Ok(output)
    }

    /// Enables the group, runs `n` iterations through `one`, and disables it
    /// again (also on error); returns the group's reads at start and end.
    fn run_enabled<F>(&mut self, n: u64, one: &mut F) -> io::Result<(Counts, Counts)>
    where
        F: FnMut(&mut Bracket<'_>) -> io::Result<()>,
    {
        self.reader.group().enable()?;
        let run = self.run(n, one);
        let stopped = self.reader.group().disable();
        let counts = run?;
        stopped?;
        Ok(counts)
    }

    fn run<F>(&mut self, n: u64, one: &mut F) -> io::Result<(Counts, Counts)>
    where
        F: FnMut(&mut Bracket<'_>) -> io::Result<()>,
    {
        let start = self.reader.group().read()?;
        for _ in 0..n {
            one(self)?;
        }
        let end = self.reader.group().read()?;
        Ok((start, end))
    }
}

/// Per-iteration mode: warm-up as in batch mode (doubling batches until
/// `warm_up` is spent, which also gives the cost of one iteration), then
/// `sample_count` samples of `d` iterations each, the group enabled for the
/// whole sample and every iteration bracketed by inline reads.
fn sample_per_iter<F>(
    config: &Config,
    group: &mut CounterGroup,
    one: &mut F,
) -> io::Result<PerIterMeasurement>
where
    F: FnMut(&mut Bracket<'_>) -> io::Result<()>,
{
    let events = group.events().len();
    // The path is chosen while the counters run: only then does the page of
    // a counter on a hardware counter show its index.
    group.enable()?;
    let reader = group.reader();
    let mut b = Bracket {
        reader,
        before: vec![0; events],
        after: vec![0; events],
        record: false,
        iterations: Vec::new(),
    };
    b.reader.group().disable()?;

    let ns_per_iter = warm_up(config, |n| b.run_enabled(n, one).map(drop))?;

    let count = config.sample_count.max(1);
    let cap = (MAX_STORED_ITERATIONS / count).max(1);
    let d = (config.measurement.as_nanos() as f64 / (ns_per_iter * count as f64)).ceil();
    let d = (d as u64).clamp(1, cap);

    b.record = true;
    b.iterations
        .reserve_exact(usize::try_from(count * d).unwrap_or(0));
    let fallbacks_before = b.reader.fallbacks();
    let mut multiplexed = 0;
    for _ in 0..count {
        let (start, end) = b.run_enabled(d, one)?;
        let delta = end.since(&start);
        if delta.time_running < delta.time_enabled {
            multiplexed += 1;
        }
    }
    Ok(PerIterMeasurement {
        read_path: b.reader.path(),
        fallback_reads: b.reader.fallbacks() - fallbacks_before,
        per_iteration: b.iterations,
        iterations_per_sample: d,
        throughput: None,
        multiplexed,
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
    let mut b = Bencher {
        target: Target::PerIter(config, group),
        throughput: None,
        outcome: None,
    };
    bench(&mut b);
    let mut m = match b.outcome.unwrap_or(Err(MeasureError::NeverIterated))? {
        Outcome::PerIter(m) => m,
        Outcome::Batch(_) => unreachable!("a per-iteration target gives iterations"),
    };
    m.throughput = b.throughput;
    Ok(m)
}

/// Measures an empty routine in per-iteration mode: what each iteration's
/// counts and wall time include of the measurement itself (inline reads,
/// clock reads), to report and subtract.
pub fn calibrate_per_iter(
    config: &Config,
    group: &mut CounterGroup,
) -> Result<PerIterMeasurement, MeasureError> {
    measure_per_iter(config, group, |b| b.iter(|| ()))
}

/// Measures an empty routine in batch mode with no measurement time, so that
/// sample `i` runs exactly `i` iterations: the intercept of the regression
/// of its counts on iterations is the measurement's own cost per sample
/// (enable, disable, read), the slope the cost of the empty loop.
pub fn calibrate(config: &Config, group: &mut CounterGroup) -> Result<Measurement, MeasureError> {
    let config = Config {
        measurement: Duration::ZERO,
        ..config.clone()
    };
    measure(&config, group, |b| b.iter(|| ()))
}

/// Runs the routine of `bench` once, without counters: test mode.
pub fn run_once(bench: impl FnOnce(&mut Bencher<'_>)) -> Result<(), MeasureError> {
    let mut b = Bencher {
        target: Target::Once,
        throughput: None,
        outcome: None,
    };
    bench(&mut b);
    b.outcome
        .unwrap_or(Err(MeasureError::NeverIterated))
        .map(drop)
}

/// Keeps the calling thread on one CPU while it lives, restoring the
/// previous affinity when dropped.
pub struct ThreadPin {
    cpu: usize,
    previous: CpuSet,
}

impl ThreadPin {
    /// Pins to `cpu`, or to the CPU the thread is on now.
    pub fn new(cpu: Option<usize>) -> Result<ThreadPin, String> {
        let previous =
            sys::thread_affinity().map_err(|e| format!("cannot read the CPU affinity: {e}"))?;
        let cpu = match cpu {
            Some(cpu) => cpu,
            None => sys::current_cpu().map_err(|e| format!("cannot tell the current CPU: {e}"))?,
        };
        if !previous.contains(cpu) {
            return Err(format!(
                "cannot pin to CPU {cpu}: this process may run on CPUs {:?} only",
                previous.cpus()
            ));
        }
        let set = CpuSet::single(cpu).ok_or_else(|| format!("CPU {cpu} is out of range"))?;
        sys::set_thread_affinity(&set).map_err(|e| format!("cannot pin to CPU {cpu}: {e}"))?;
        Ok(ThreadPin { cpu, previous })
    }

    /// The CPU the thread is pinned to.
    pub fn cpu(&self) -> usize {
        self.cpu
    }
}

impl Drop for ThreadPin {
    fn drop(&mut self) {
        let _ = sys::set_thread_affinity(&self.previous);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::event::parse_list;
    use crate::kernel::sys::touch_fresh_pages;
    use crate::stats::{analyze_metric, Bootstrap};

    fn quick() -> Config {
        Config {
            warm_up: Duration::from_millis(20),
            measurement: Duration::from_millis(60),
            sample_count: 10,
        }
    }

    #[test]
    fn batch_mode_counts_exact_page_faults_per_iteration() {
        for spec in ["task-clock,page-faults", "page-faults,task-clock"] {
            let events = parse_list(spec).unwrap();
            let faults = events.iter().position(|e| e.name == "page-faults").unwrap();
            let mut group = CounterGroup::open(&events).unwrap();
            let m = measure(&quick(), &mut group, |b| b.iter(|| touch_fresh_pages(16))).unwrap();
            assert_eq!(m.samples.len(), 10);
            let d = m.samples[0].iterations;
            for (i, s) in m.samples.iter().enumerate() {
                assert_eq!(s.iterations, (i as u64 + 1) * d);
                assert_eq!(s.counts.values[faults], 16 * s.iterations, "{spec}: {s:?}");
            }
            let x: Vec<u64> = m.samples.iter().map(|s| s.iterations).collect();
            let y: Vec<u64> = m.samples.iter().map(|s| s.counts.values[faults]).collect();
            let stats = analyze_metric(&x, &y, &Bootstrap::default());
            assert_eq!(
                (stats.slope.point, stats.min, stats.max),
                (16.0, 16.0, 16.0)
            );
        }
    }

    #[test]
    fn passes_with_a_shared_step_merge_sample_by_sample() {
        let mut first = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
        let mut second =
            CounterGroup::open(&parse_list("minor-faults,task-clock").unwrap()).unwrap();
        let bench = |b: &mut Bencher<'_>| b.iter(|| touch_fresh_pages(4));
        let mut m = measure(&quick(), &mut first, bench).unwrap();
        let step = m.samples[0].iterations;
        let later = measure_with_step(&quick(), &mut second, Some(step), bench).unwrap();
        assert_eq!(
            later
                .samples
                .iter()
                .map(|s| s.iterations)
                .collect::<Vec<_>>(),
            m.samples.iter().map(|s| s.iterations).collect::<Vec<_>>()
        );
        m.merge_pass(&later);
        for s in &m.samples {
            assert_eq!(s.counts.values.len(), 3);
            assert_eq!(
                s.counts.values[0],
                4 * s.iterations,
                "page-faults from the first pass"
            );
            assert_eq!(
                s.counts.values[1],
                4 * s.iterations,
                "minor-faults from the second"
            );
            assert!(s.counts.values[2] > 0, "task-clock from the second");
        }
    }

    #[test]
    fn iter_batched_keeps_setup_out_of_the_counts() {
        let mut group = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
        let m = measure(&quick(), &mut group, |b| {
            b.iter_batched(|| touch_fresh_pages(5), |x| x + touch_fresh_pages(3))
        })
        .unwrap();
        for s in &m.samples {
            assert_eq!(s.counts.values[0], 3 * s.iterations, "{s:?}");
        }
    }

    #[test]
    fn misuse_of_the_bencher_is_reported() {
        let mut group = CounterGroup::open(&parse_list("task-clock").unwrap()).unwrap();
        let e = measure(&quick(), &mut group, |_| {}).unwrap_err();
        assert!(matches!(e, MeasureError::NeverIterated));
        let e = run_once(|b| {
            b.iter(|| 1);
            b.iter(|| 2);
        })
        .unwrap_err();
        assert!(matches!(e, MeasureError::IteratedTwice));
    }

    #[test]
    fn run_once_runs_the_routine_exactly_once() {
        let mut runs = 0;
        run_once(|b| b.iter(|| runs += 1)).unwrap();
        assert_eq!(runs, 1);
    }

    #[test]
    fn throughput_is_carried_to_the_measurement() {
        let mut group = CounterGroup::open(&parse_list("task-clock").unwrap()).unwrap();
        let m = measure(&quick(), &mut group, |b| {
            b.throughput(Throughput::Bytes(64)).iter(|| 0u8);
        })
        .unwrap();
        assert_eq!(m.throughput, Some(Throughput::Bytes(64)));
    }

    #[test]
    fn per_iter_mode_counts_exact_page_faults_on_every_iteration() {
        for spec in ["task-clock,page-faults", "page-faults,task-clock"] {
            let events = parse_list(spec).unwrap();
            let faults = events.iter().position(|e| e.name == "page-faults").unwrap();
            let clock = 1 - faults;
            let mut group = CounterGroup::open(&events).unwrap();
            let m = measure_per_iter(&quick(), &mut group, |b| b.iter(|| touch_fresh_pages(16)))
                .unwrap();
            assert_eq!(m.read_path, ReadPath::Syscall, "software events");
            assert_eq!((m.multiplexed, m.fallback_reads), (0, 0));
            let d = m.iterations_per_sample;
            assert!(d >= 1);
            assert_eq!(m.per_iteration.len() as u64, 10 * d);
            assert_eq!(m.samples().count(), 10);
            for (i, it) in m.per_iteration.iter().enumerate() {
                assert_eq!(it.values[faults], 16, "{spec}, iteration {i}: {it:?}");
                assert!(it.values[clock] > 0, "{spec}, iteration {i}: {it:?}");
                assert!(it.wall_ns > 0, "{spec}, iteration {i}: {it:?}");
            }
        }
    }

    #[test]
    fn per_iter_iter_batched_keeps_setup_out_of_every_iteration() {
        let events = parse_list("task-clock,page-faults").unwrap();
        let mut group = CounterGroup::open(&events).unwrap();
        let m = measure_per_iter(&quick(), &mut group, |b| {
            b.iter_batched(|| touch_fresh_pages(5), |x| x + touch_fresh_pages(3))
        })
        .unwrap();
        assert_eq!(m.read_path, ReadPath::Syscall);
        assert!(!m.per_iteration.is_empty());
        for it in &m.per_iteration {
            assert_eq!(it.values[1], 3, "{it:?}");
        }
    }

    #[test]
    fn per_iter_calibration_sees_only_the_reads() {
        let events = parse_list("page-faults,task-clock").unwrap();
        let mut group = CounterGroup::open(&events).unwrap();
        let m = calibrate_per_iter(&quick(), &mut group).unwrap();
        assert_eq!(m.per_iteration.len() as u64, 10 * m.iterations_per_sample);
        for it in &m.per_iteration {
            assert_eq!(it.values[0], 0, "an empty routine faults nothing: {it:?}");
            // One read() lies inside each bracket: task-clock sees it.
            assert!(it.values[1] > 0, "{it:?}");
        }
    }

    #[test]
    fn per_iter_storage_is_capped() {
        let mut group = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
        let config = Config {
            warm_up: Duration::from_millis(5),
            measurement: Duration::from_secs(3600),
            sample_count: 7,
        };
        let m = calibrate_per_iter(&config, &mut group).unwrap();
        assert_eq!(m.iterations_per_sample, MAX_STORED_ITERATIONS / 7);
        assert_eq!(
            m.per_iteration.len() as u64,
            7 * (MAX_STORED_ITERATIONS / 7)
        );
        assert!(m.per_iteration.iter().all(|it| it.values == [0]));
    }

    #[test]
    fn per_iter_misuse_and_throughput() {
        let mut group = CounterGroup::open(&parse_list("task-clock").unwrap()).unwrap();
        let e = measure_per_iter(&quick(), &mut group, |_| {}).unwrap_err();
        assert!(matches!(e, MeasureError::NeverIterated));
        let e = measure_per_iter(&quick(), &mut group, |b| {
            b.iter(|| 1);
            b.iter(|| 2);
        })
        .unwrap_err();
        assert!(matches!(e, MeasureError::IteratedTwice));
        let m = measure_per_iter(&quick(), &mut group, |b| {
            b.throughput(Throughput::Elements(3)).iter(|| 0u8);
        })
        .unwrap();
        assert_eq!(m.throughput, Some(Throughput::Elements(3)));
    }

    #[test]
    fn batch_calibration_runs_i_iterations_in_sample_i() {
        let events = parse_list("task-clock,page-faults").unwrap();
        let mut group = CounterGroup::open(&events).unwrap();
        let m = calibrate(&quick(), &mut group).unwrap();
        assert_eq!(m.samples.len(), 10);
        for (i, s) in m.samples.iter().enumerate() {
            assert_eq!(s.iterations, i as u64 + 1);
            assert_eq!(s.counts.values[1], 0, "{s:?}");
        }
    }

    #[test]
    #[ignore = "needs a hardware PMU"]
    fn rdpmc_path_counts_plausible_instructions_per_iteration() {
        let events = parse_list("cycles,instructions").unwrap();
        let mut group = CounterGroup::open(&events).unwrap();
        let m = measure_per_iter(&quick(), &mut group, |b| {
            b.iter(|| (0..black_box(1000u64)).fold(0u64, |a, x| black_box(a ^ x)))
        })
        .unwrap();
        assert_eq!(m.read_path, ReadPath::Rdpmc);
        let calib = calibrate_per_iter(&quick(), &mut group).unwrap();
        assert_eq!(calib.read_path, ReadPath::Rdpmc);
        let median = |m: &PerIterMeasurement, k: usize| {
            let mut v: Vec<u64> = m.per_iteration.iter().map(|it| it.values[k]).collect();
            v.sort_unstable();
            v[v.len() / 2]
        };
        let (cycles, instructions) = (median(&m, 0), median(&m, 1));
        let (c0, i0) = (median(&calib, 0), median(&calib, 1));
        // 1000 rounds of at least three instructions, well under 100 each.
        assert!(instructions >= i0 + 3000, "{instructions} vs overhead {i0}");
        assert!(
            instructions < i0 + 100_000,
            "{instructions} vs overhead {i0}"
        );
        assert!(cycles > c0 && cycles < c0 + 1_000_000, "{cycles} vs {c0}");
        // rdpmc needs no syscall: the overhead is far below a read()'s.
        assert!(i0 < 2_000, "rdpmc bracket costs {i0} instructions");
        assert!(m.fallback_reads * 100 <= m.per_iteration.len() as u64);
    }

    #[test]
    fn pinning_is_undone_on_drop() {
        let before = sys::thread_affinity().unwrap().cpus();
        let cpu = *before.last().unwrap();
        {
            let pin = ThreadPin::new(Some(cpu)).unwrap();
            assert_eq!(pin.cpu(), cpu);
            assert_eq!(sys::thread_affinity().unwrap().cpus(), vec![cpu]);
        }
        assert_eq!(sys::thread_affinity().unwrap().cpus(), before);
        let Err(e) = ThreadPin::new(Some(100_000)) else {
            panic!("pinned to a CPU that does not exist")
        };
        assert!(e.contains("CPU 100000"), "{e}");
    }
}
