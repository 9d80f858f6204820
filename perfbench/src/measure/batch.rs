//! Batch mode: warm-up, then linear sampling, each sample one enable, `n`
//! iterations, one disable and one group read.

use std::io;
use std::time::{Duration, Instant};

use super::bencher::{Bencher, Outcome, Target};
use super::{Config, MeasureError, Measurement, Sample};
use crate::counter::group::{CounterGroup, Counts};

/// Enables the group, if there is one.
#[inline]
pub(super) fn start_counting(group: Option<&CounterGroup>) -> io::Result<()> {
    group.map_or(Ok(()), CounterGroup::enable)
}

/// Disables the group, if there is one.
#[inline]
pub(super) fn stop_counting(group: Option<&CounterGroup>) -> io::Result<()> {
    group.map_or(Ok(()), CounterGroup::disable)
}

/// What one call of a benchmark's runner measured.
pub(super) struct Measured {
    /// Wall time of the counted windows.
    pub wall: Duration,
    /// What the group counted in them, where the runner read the group
    /// around its windows itself (`iter_batched`); otherwise the sample's
    /// counts are the group's progress since the last sample.
    pub counts: Option<Counts>,
}

impl From<Duration> for Measured {
    fn from(wall: Duration) -> Self {
        Measured { wall, counts: None }
    }
}

/// What a run of the routine without sampling did (the warm-up, or a
/// `--profile-time` run): how many iterations, in how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ran {
    /// Iterations run.
    pub iterations: u64,
    /// Time taken, all costs included.
    pub elapsed: Duration,
}

impl Ran {
    /// Nanoseconds per iteration of `time`, never zero.
    pub fn ns_per_iter(&self, time: Duration) -> f64 {
        (time.as_nanos() as f64 / self.iterations as f64).max(1e-3)
    }
}

/// Warm-up: runs `run(n)` in doubling batches until `time` is spent.
pub(super) fn warm_up(
    time: Duration,
    mut run: impl FnMut(u64) -> io::Result<()>,
) -> io::Result<Ran> {
    let start = Instant::now();
    let (mut n, mut done) = (1u64, 0u64);
    loop {
        run(n)?;
        done += n;
        if start.elapsed() >= time {
            break;
        }
        n = n.saturating_mul(2);
    }
    Ok(Ran {
        iterations: done,
        elapsed: start.elapsed(),
    })
}

/// Runs `run(n)` for about `time`, as Criterion's profiling does: a
/// warm-up of half of it gives the pace (its doubling batches may take up
/// to all of it), then one batch fills what is left.
pub(super) fn run_for(
    time: Duration,
    mut run: impl FnMut(u64) -> io::Result<()>,
) -> io::Result<Ran> {
    let warm = warm_up(time / 2, &mut run)?;
    let left = time.saturating_sub(warm.elapsed);
    let n = (left.as_nanos() as f64 / warm.ns_per_iter(warm.elapsed)) as u64;
    let start = Instant::now();
    if n > 0 {
        run(n)?;
    }
    Ok(Ran {
        iterations: warm.iterations + n,
        elapsed: warm.elapsed + start.elapsed(),
    })
}

/// Warm-up, then linear sampling: sample `i` runs `i · d` iterations, `d`
/// chosen from the warm-up to fill the measurement time ([`step_for`]), or
/// `step`.
pub(super) fn sample_linearly<F>(
    config: &Config,
    group: &mut CounterGroup,
    step: Option<u64>,
    run: &mut F,
) -> io::Result<Vec<Sample>>
where
    F: FnMut(u64, u64, Option<&mut CounterGroup>) -> io::Result<Measured>,
{
    let mut counted = Duration::ZERO;
    let warm = warm_up(config.warm_up, |n| {
        counted += run(n, n, Some(&mut *group))?.wall;
        Ok(())
    })?;
    let count = config.sample_count.max(1);
    let d = step.unwrap_or_else(|| step_for(config, &warm, counted));

    let mut samples = Vec::with_capacity(count as usize);
    let mut last = group.read()?;
    for i in 1..=count {
        let iterations = i * d;
        let measured = run(iterations, count * d, Some(&mut *group))?;
        // A runner that read the group around its windows itself needs no
        // read here.
        let counts = match measured.counts {
            Some(counts) => counts,
            None => {
                let now = group.read()?;
                let counts = now.since(&last)?;
                last = now;
                counts
            }
        };
        samples.push(Sample {
            iterations,
            wall_ns: u64::try_from(measured.wall.as_nanos()).unwrap_or(u64::MAX),
            counts,
        });
    }
    Ok(samples)
}

/// The step `d` that fills the measurement time. Sample `i` spends
/// `i · d` iterations' time inside its counted windows, while what runs
/// outside them is made in full for every sample (the inputs of
/// `iter_batched`, about `count · d` of them; next to nothing for `iter`):
/// so `d · (count(count+1)/2 · inside + count² · outside)` in all.
fn step_for(config: &Config, warm: &Ran, counted: Duration) -> u64 {
    let count = config.sample_count.max(1) as f64;
    let inside = warm.ns_per_iter(counted.min(warm.elapsed));
    let outside = (warm.ns_per_iter(warm.elapsed) - inside).max(0.0);
    let per_step = count * (count + 1.0) / 2.0 * inside + count * count * outside;
    ((config.measurement.as_nanos() as f64 / per_step).ceil() as u64).max(1)
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
    let mut b = Bencher::new(Target::Counters(config, group, step));
    bench(&mut b);
    let throughput = b.total_throughput();
    let samples = match b.outcome.unwrap_or(Err(MeasureError::NeverIterated))? {
        Outcome::Batch(samples) => samples,
        _ => unreachable!("a batch target gives batch samples"),
    };
    Ok(Measurement {
        samples,
        throughput,
    })
}

/// Measures an empty routine in batch mode: the intercept of the
/// regression of its counts on iterations is the measurement's own cost per
/// sample (enable, disable, read), the slope the cost of the loop around
/// the routine. Samples run as many iterations as `config`'s measurement
/// time allows, so that the slope is known to a fraction of a nanosecond
/// rather than drowned in the per-sample cost's noise.
pub fn calibrate(config: &Config, group: &mut CounterGroup) -> Result<Measurement, MeasureError> {
    measure(config, group, |b| b.iter(|| ()))
}
