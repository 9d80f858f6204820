//! Batch mode: warm-up, then the samples of the sampling plan, each sample
//! one enable, `n` iterations, one disable and one group read.

use std::io;
use std::time::{Duration, Instant};

use super::bencher::{Bencher, Outcome, Task};
use super::method::Method;
use super::sampling::{Costs, SamplingPlan};
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

/// Warm-up: runs `run(n)` in doubling batches until `time` is spent (at
/// least one iteration, however long it takes), the last batch no larger
/// than what is left of `time` at the pace so far.
pub(super) fn warm_up(
    time: Duration,
    mut run: impl FnMut(u64) -> io::Result<()>,
) -> io::Result<Ran> {
    let start = Instant::now();
    let (mut n, mut done) = (1u64, 0u64);
    loop {
        run(n)?;
        done += n;
        let elapsed = start.elapsed();
        if elapsed >= time {
            break;
        }
        n = next_batch(n, done, elapsed, time);
    }
    Ok(Ran {
        iterations: done,
        elapsed: start.elapsed(),
    })
}

/// The warm-up's batch after one of `n` iterations, `done` in all in
/// `elapsed` of `time`: twice as many, but no more than fill what is left
/// at the pace so far, and at least one. Doubling alone overshoots: its
/// last batch takes as long as all before it, so the warm-up took up to
/// twice its time, and 1.25 times it on average over 100 benchmarks.
fn next_batch(n: u64, done: u64, elapsed: Duration, time: Duration) -> u64 {
    let pace = elapsed.as_nanos() as f64 / done as f64;
    let left = time.saturating_sub(elapsed).as_nanos() as f64;
    let fills = (left / pace.max(1e-3)).ceil() as u64;
    n.saturating_mul(2).min(fills).max(1)
}

/// Runs `run(n)` for about `time`, as Criterion's profiling does: a
/// warm-up of half of it gives the pace, then one batch fills what is
/// left.
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

/// How a measurement gets its [`SamplingPlan`].
pub enum Planning<'a> {
    /// Choose it from the warm-up of the first round of the benchmark
    /// (whose whole config the measurement is given), and show it to the
    /// callback before the first sample.
    Choose(&'a mut dyn FnMut(&SamplingPlan, &Costs)),
    /// Measure round `index` (from 0) of this plan: later rounds and later
    /// passes take the first's plan, so that their samples line up.
    Round(SamplingPlan, u64),
}

impl Planning<'_> {
    /// The round this measures.
    fn index(&self) -> u64 {
        match self {
            Planning::Choose(_) => 0,
            Planning::Round(_, index) => *index,
        }
    }
}

/// Warm-up, then the samples of one round of the plan: chosen from the
/// warm-up, or given.
pub(super) fn sample_planned<F>(
    config: &Config,
    group: &mut CounterGroup,
    planning: &mut Planning<'_>,
    run: &mut F,
) -> io::Result<(Vec<Sample>, SamplingPlan)>
where
    F: FnMut(u64, u64, Option<&mut CounterGroup>) -> io::Result<Measured>,
{
    let time = match planning {
        Planning::Choose(_) => config.round(0).warm_up,
        Planning::Round(plan, index) => plan.round(config, *index).warm_up,
    };
    let mut counted = Duration::ZERO;
    let warm = warm_up(time, |n| {
        counted += run(n, n, Some(&mut *group))?.wall;
        Ok(())
    })?;
    let index = planning.index();
    let plan = match planning {
        Planning::Round(plan, _) => *plan,
        Planning::Choose(announce) => {
            let costs = costs_of(&warm, counted, group)?;
            let plan = SamplingPlan::choose(config, &costs);
            announce(&plan, &costs);
            plan
        }
    };
    let count = plan.round_samples(index);
    let largest = plan.iterations(count);
    let mut samples = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut last = group.read()?;
    for i in 1..=count {
        let iterations = plan.iterations(i);
        let measured = run(iterations, largest, Some(&mut *group))?;
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
    Ok((samples, plan))
}

/// What the warm-up found a sample to cost: inside the counted windows per
/// iteration, outside them per iteration (inputs made for them), and per
/// sample, which a few toggles and reads of the group time.
fn costs_of(warm: &Ran, counted: Duration, group: &mut CounterGroup) -> io::Result<Costs> {
    let inside = warm.ns_per_iter(counted.min(warm.elapsed));
    let outside = (warm.ns_per_iter(warm.elapsed) - inside).max(0.0);
    // The fastest of a few: a toggle that waited for the CPU says nothing
    // of what the samples cost.
    let mut per_sample = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        group.enable()?;
        group.disable()?;
        group.read()?;
        per_sample = per_sample.min(start.elapsed().as_nanos() as f64);
    }
    Ok(Costs {
        inside,
        outside,
        per_sample,
    })
}

/// Measures the benchmark `bench` with the counters of `group`: the first
/// round of `config` (all of it where [`Config::rounds`] is 1), with a
/// sampling plan chosen from the warm-up.
pub fn measure(
    config: &Config,
    group: &mut CounterGroup,
    bench: impl FnOnce(&mut Bencher<'_>),
) -> Result<Measurement, MeasureError> {
    let mut quiet = |_: &SamplingPlan, _: &Costs| {};
    measure_pass(config, group, Planning::Choose(&mut quiet), bench).map(|(m, ..)| m)
}

/// Measures one pass of the benchmark `bench` (a round takes a pass per
/// counter group), whose whole config is `config`, with the counters of
/// `group`, as `planning` says; returns the samples, the plan they
/// followed and the method that measured them.
pub fn measure_pass<'a>(
    config: &'a Config,
    group: &'a mut CounterGroup,
    planning: Planning<'a>,
    bench: impl FnOnce(&mut Bencher<'_>),
) -> Result<(Measurement, SamplingPlan, Method), MeasureError> {
    let mut b = Bencher::new(Task::Counters(config, group, planning));
    bench(&mut b);
    let throughput = b.total_throughput();
    let (samples, plan) = match b.outcome.unwrap_or(Err(MeasureError::NeverIterated))? {
        Outcome::Batch(samples, plan) => (samples, plan),
        _ => unreachable!("a batch task gives batch samples"),
    };
    let m = Measurement {
        samples,
        throughput,
    };
    Ok((m, plan, b.method))
}

/// Measures an empty routine through `method` in batch mode: the intercept
/// of the regression of its counts on iterations is the measurement's own
/// cost per sample (enable, disable, read), the slope the cost of the
/// method's loop around the routine. Samples run as many iterations as
/// `config`'s measurement time allows, so that the slope is known to a
/// fraction of a nanosecond rather than drowned in the per-sample cost's
/// noise.
pub fn calibrate(
    config: &Config,
    group: &mut CounterGroup,
    method: Method,
) -> Result<Measurement, MeasureError> {
    measure(config, group, |b| method.run_empty(b))
}

#[cfg(test)]
mod tests {
    use super::next_batch;
    use std::time::Duration;

    #[test]
    fn the_warm_up_doubles_until_the_time_left_holds_less_than_twice_the_batch() {
        let ms = Duration::from_millis;
        // 7 iterations in 7 ms of 100: 1 ms each, 93 left; 8 fit.
        assert_eq!(next_batch(4, 7, ms(7), ms(100)), 8);
        // 63 in 63 ms: 37 left hold 37, fewer than 64.
        assert_eq!(next_batch(32, 63, ms(63), ms(100)), 37);
        // A fraction of an iteration left: one more, not none.
        assert_eq!(
            next_batch(37, 100, Duration::from_micros(99_900), ms(100)),
            1
        );
        // Slow batches (2 ms an iteration): 6 left of 10 hold 3, not 4.
        assert_eq!(next_batch(2, 2, ms(4), ms(10)), 3);
    }
}
