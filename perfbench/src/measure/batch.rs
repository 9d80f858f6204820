//! Batch mode: warm-up, then linear sampling, each sample one enable, `n`
//! iterations, one disable and one group read.

use std::io;
use std::time::{Duration, Instant};

use super::bencher::{Bencher, Outcome, Target};
use super::{Config, MeasureError, Measurement, Sample};
use crate::counter::group::CounterGroup;

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

/// Warm-up: runs `run(n)` in doubling batches until the warm-up time is
/// spent, and returns how long one iteration took, all costs included.
pub(super) fn warm_up(
    config: &Config,
    mut run: impl FnMut(u64) -> io::Result<()>,
) -> io::Result<f64> {
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

/// Warm-up, then linear sampling: sample `i` runs `i · d` iterations, `d`
/// chosen from the warm-up to fill the measurement time (at least
/// `min_step`), or `step`.
pub(super) fn sample_linearly<F>(
    config: &Config,
    group: &mut CounterGroup,
    step: Option<u64>,
    min_step: u64,
    run: &mut F,
) -> io::Result<Vec<Sample>>
where
    F: FnMut(u64, Option<&CounterGroup>) -> io::Result<Duration>,
{
    let ns_per_iter = warm_up(config, |n| run(n, Some(group)).map(drop))?;

    let count = config.sample_count.max(1);
    let triangle = (count * (count + 1) / 2) as f64;
    let d = (config.measurement.as_nanos() as f64 / (ns_per_iter * triangle)).ceil();
    let d = step.unwrap_or((d as u64).max(min_step)).max(1);

    let mut samples = Vec::with_capacity(count as usize);
    let mut last = group.read()?;
    for i in 1..=count {
        let iterations = i * d;
        let wall = run(iterations, Some(group))?;
        let now = group.read()?;
        samples.push(Sample {
            iterations,
            wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
            counts: now.since(&last)?,
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
