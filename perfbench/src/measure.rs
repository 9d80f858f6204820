//! The measurement loop: warm-up, linear sampling, and the [`Bencher`] a
//! benchmark drives it with.
//!
//! In batch mode each sample enables the counter group, runs the routine `n`
//! times, disables the group and reads it once. Sample `i` runs `i · d`
//! iterations, so the slope of total against iterations is the per-iteration
//! cost and the fixed cost of toggling and reading lands in the intercept.

use std::hint::black_box;
use std::io;
use std::time::{Duration, Instant};

use crate::group::{CounterGroup, Counts};
use crate::sys::{self, CpuSet};

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
    outcome: Option<Result<Vec<Sample>, MeasureError>>,
}

enum Target<'a> {
    /// Run the routine once, as a test.
    Once,
    /// Measure it with these counters.
    Counters(&'a Config, &'a mut CounterGroup),
}

impl Bencher<'_> {
    /// Measures `routine`; its return value is passed through [`black_box`]
    /// and dropped inside the measurement.
    pub fn iter<O, R: FnMut() -> O>(&mut self, mut routine: R) {
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
            Target::Counters(config, group) => sample_linearly(config, group, &mut run),
        };
        self.outcome = Some(outcome.map_err(MeasureError::Counters));
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

fn sample_linearly<F>(
    config: &Config,
    group: &mut CounterGroup,
    run: &mut F,
) -> io::Result<Vec<Sample>>
where
    F: FnMut(u64, Option<&CounterGroup>) -> io::Result<Duration>,
{
    // Warm-up: doubling batches until the time is spent; it also tells how
    // long one iteration takes, all costs included.
    let warm_start = Instant::now();
    let (mut n, mut done) = (1u64, 0u64);
    loop {
        run(n, Some(group))?;
        done += n;
        if warm_start.elapsed() >= config.warm_up {
            break;
        }
        n = n.saturating_mul(2);
    }
    let ns_per_iter = (warm_start.elapsed().as_nanos() as f64 / done as f64).max(1e-3);

    let count = config.sample_count.max(1);
    let triangle = (count * (count + 1) / 2) as f64;
    let d = (config.measurement.as_nanos() as f64 / (ns_per_iter * triangle)).ceil();
    let d = (d as u64).max(1);

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
    let mut b = Bencher {
        target: Target::Counters(config, group),
        throughput: None,
        outcome: None,
    };
    bench(&mut b);
    let samples = b.outcome.unwrap_or(Err(MeasureError::NeverIterated))?;
    Ok(Measurement {
        samples,
        throughput: b.throughput,
    })
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
    use crate::event::parse_list;
    use crate::stats::{analyze_metric, Bootstrap};
    use crate::sys::touch_fresh_pages;

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
