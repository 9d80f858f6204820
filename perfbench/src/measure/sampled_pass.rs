//! A profiling pass: the routine run as it is measured, in windows the
//! counter group opens and closes, with a sampler in the group so that it
//! samples inside the windows only; the samples are drained between
//! windows, where the ring buffer (`perf_event_mlock_kb`, 512 KiB by
//! default) has room again, and handed over one by one.

use std::io;
use std::time::{Duration, Instant};

use super::batch_mode::{warm_up, Ran};
use super::bencher::{Bencher, Outcome, RunSample, Task};
use super::MeasureError;
use crate::counter::event::Event;
use crate::counter::group::{CounterGroup, OpenError};
use crate::kernel::sampling::UNWIND_REGS;
use crate::kernel::sampling::{SampleRate, Sampler, SamplingError, SamplingSpec, ThreadSample};

/// Bytes of the user stack each sample copies for the unwinder: the
/// routine's frames up to the harness's, which are a few KiB deep.
pub const STACK_BYTES: u32 = 16 * 1024;

/// The longest a window runs, unless one iteration takes longer.
const WINDOW: Duration = Duration::from_millis(1);

/// Most samples a window should take: 16 of [`STACK_BYTES`] fill half of
/// the smallest ring a profiling pass maps (512 KiB).
const SAMPLES_PER_WINDOW: u64 = 16;

/// The event that leads the sampled windows' group.
const WINDOW_LEADER: &str = "cpu-clock";

/// Most samples a second the pass asks for.
pub const MAX_FREQUENCY: u64 = 4_000;

/// What a profiling pass runs in: its group, with the sampler in it, and
/// how long.
pub(super) struct SampledWindows<'a> {
    /// The group the routine's windows toggle.
    pub group: &'a mut CounterGroup,
    /// How long the windows take in all.
    pub time: Duration,
    /// Called between windows, never in one: drains the sampler.
    pub between: &'a mut dyn FnMut() -> io::Result<()>,
}

/// Why a profiling pass could not run.
#[derive(Debug)]
pub enum ProfilingError {
    /// The sampling event could not be opened or read.
    Sampling(SamplingError),
    /// The counter that opens and closes the windows could not be opened.
    Group(OpenError),
    /// The routine failed as it would measuring.
    Measure(MeasureError),
}

impl std::fmt::Display for ProfilingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfilingError::Sampling(e) => write!(f, "{e}"),
            ProfilingError::Group(e) => write!(f, "{e}"),
            ProfilingError::Measure(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ProfilingError {}

/// The sampling spec of a pass over `event` at `rate`: user registers and
/// stack for an unwinder.
pub fn pass_spec(event: &Event, rate: SampleRate) -> SamplingSpec {
    SamplingSpec {
        regs_user: UNWIND_REGS,
        stack_user: STACK_BYTES,
        ..SamplingSpec::new(event.attr, rate)
    }
}

/// How long the windows run that measure the event's rate before the
/// sampled ones.
const RATE_TIME: Duration = Duration::from_millis(20);

/// The samples a second a pass over a routine of about `ns_per_iter` an
/// iteration asks for: [`MAX_FREQUENCY`], fewer where one iteration is
/// longer than a window, so that a window's samples fit the ring.
fn frequency(ns_per_iter: f64) -> u64 {
    let window = (ns_per_iter.max(WINDOW.as_nanos() as f64)) / 1e9;
    let fits = (SAMPLES_PER_WINDOW as f64 / window) as u64;
    fits.clamp(1, MAX_FREQUENCY.min(max_sample_rate()))
}

/// `perf_event_max_sample_rate`: the most samples a second the kernel
/// takes (it lowers it when sampling takes too long); the default, 100000,
/// where unreadable.
fn max_sample_rate() -> u64 {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_max_sample_rate")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100_000)
}

/// Runs `bench`'s routine for about `time` in windows, sampling `event` in
/// them, and hands each sample to `take` between windows; returns what ran
/// in the windows and the samples the kernel dropped. The event is sampled
/// every so many of it (a fixed period, so that each sample stands for as
/// many events, whatever the event): the period is set from the rate the
/// event counts at in the routine's windows, measured first, for
/// up to [`MAX_FREQUENCY`] samples a second. (A frequency the kernel keeps instead
/// starts at a period of 1, and on the emulated arm64 PMU stayed there.)
pub fn sample_routine(
    event: &Event,
    ns_per_iter: f64,
    time: Duration,
    take: &mut dyn FnMut(&ThreadSample),
    bench: &dyn Fn(&mut Bencher<'_>),
) -> Result<(Ran, u64), ProfilingError> {
    let (per_second, per_iteration) = event_rate(&mut counting_group(event)?, bench)?;
    let period = unaliased(per_second / frequency(ns_per_iter) as f64, per_iteration);
    let spec = pass_spec(event, SampleRate::Period(period));
    sample_in(&mut window_group()?, &spec, time, take, bench)
}

/// As [`sample_routine`], sampling as `spec` says.
pub fn sample_routine_as(
    spec: &SamplingSpec,
    time: Duration,
    take: &mut dyn FnMut(&ThreadSample),
    bench: &dyn Fn(&mut Bencher<'_>),
) -> Result<(Ran, u64), ProfilingError> {
    sample_in(&mut window_group()?, spec, time, take, bench)
}

/// `event` in user space alone, as the sampler counts, so that
/// `perf_event_paranoid` 2 allows it too.
fn counting_group(event: &Event) -> Result<CounterGroup, ProfilingError> {
    let mut counted = event.clone();
    counted.attr.exclude_kernel = true;
    CounterGroup::open(std::slice::from_ref(&counted)).map_err(ProfilingError::Group)
}

/// The group that opens and closes the sampled windows. Its leader is a
/// software clock, so that the sampler gets whichever hardware counter
/// suits its event best: a hardware leader of the same event would take
/// it (the cycle counter on arm64), and leave the sampler a general one.
fn window_group() -> Result<CounterGroup, ProfilingError> {
    let clock = crate::counter::event::parse(WINDOW_LEADER).expect("a software event");
    counting_group(&clock)
}

/// A period of at least `period` events whose phase in an iteration of
/// `per_iteration` events moves on by the golden ratio's fraction of an
/// iteration at each sample: a fixed period that is near a simple fraction
/// of a deterministic routine's iteration samples the same few places of
/// it over and over (the emulated PMU's `split` read 69.6 % / 29.9 % for
/// 75 % / 25 % so), where this spreads the samples evenly over it.
fn unaliased(period: f64, per_iteration: f64) -> u64 {
    const GOLDEN_FRACTION: f64 = 0.618_033_988_749_895;
    if !(per_iteration >= 1.0 && period >= per_iteration) {
        return period.round().max(1.0) as u64;
    }
    let whole = (period / per_iteration - GOLDEN_FRACTION).ceil();
    ((whole + GOLDEN_FRACTION) * per_iteration).round() as u64
}

/// The events a second `group`'s event counts in `bench`'s windows, and
/// an iteration.
fn event_rate(
    group: &mut CounterGroup,
    bench: &dyn Fn(&mut Bencher<'_>),
) -> Result<(f64, f64), ProfilingError> {
    let counters = |e| ProfilingError::Measure(MeasureError::Counters(e));
    let before = group.read().map_err(counters)?;
    let mut between = || Ok(());
    let windows = SampledWindows {
        group,
        time: RATE_TIME,
        between: &mut between,
    };
    let ran = run_task(Task::Sampled(windows), bench)?;
    let counted = group.read().and_then(|now| now.since(&before));
    let counted = counted.map_err(counters)?;
    let events = counted.values[0] as f64;
    let per_iteration = events / ran.iterations.max(1) as f64;
    Ok((events / ran.elapsed.as_secs_f64().max(1e-9), per_iteration))
}

/// What `bench` ran as `task`, which only runs the routine.
fn run_task(task: Task<'_>, bench: &dyn Fn(&mut Bencher<'_>)) -> Result<Ran, ProfilingError> {
    let mut b = Bencher::new(task);
    bench(&mut b);
    match b.outcome.unwrap_or(Err(MeasureError::NeverIterated)) {
        Ok(Outcome::Ran(ran)) => Ok(ran),
        Ok(_) => unreachable!("a sampled task only runs"),
        Err(e) => Err(ProfilingError::Measure(e)),
    }
}

/// The sampled windows of a pass, in `group`, with a sampler of `spec`.
fn sample_in(
    group: &mut CounterGroup,
    spec: &SamplingSpec,
    time: Duration,
    take: &mut dyn FnMut(&ThreadSample),
    bench: &dyn Fn(&mut Bencher<'_>),
) -> Result<(Ran, u64), ProfilingError> {
    let sampler = group.open_sampler(spec);
    let mut sampler: Sampler = sampler
        .expect("a kernel event opens a kernel counter")
        .map_err(ProfilingError::Sampling)?;
    let mut failed = None;
    let mut samples = Vec::new();
    let mut between = || {
        samples.clear();
        let drained = sampler.drain(&mut samples);
        samples.iter().for_each(&mut *take);
        drained.map_err(|e| {
            let text = e.to_string();
            failed = Some(e);
            io::Error::other(text)
        })
    };
    let windows = SampledWindows {
        group,
        time,
        between: &mut between,
    };
    let ran = run_task(Task::Sampled(windows), bench);
    let lost = sampler.lost();
    match (ran, failed) {
        (_, Some(e)) => Err(ProfilingError::Sampling(e)),
        (ran, None) => ran.map(|ran| (ran, lost)),
    }
}

/// The windows of a profiling pass: a short warm-up outside them gives the
/// pace, then windows of about [`WINDOW`] (one iteration at least) until
/// `time` is spent, the sampler drained after each.
pub(super) fn run_windows(w: &mut SampledWindows<'_>, run: &mut RunSample<'_>) -> io::Result<Ran> {
    let pace = warm_up(WINDOW * 10, |n| run(n, n, None).map(drop))?;
    let n = ((WINDOW.as_nanos() as f64 / pace.ns_per_iter(pace.elapsed)) as u64).max(1);
    let start = Instant::now();
    let mut iterations = 0u64;
    while start.elapsed() < w.time {
        run(n, n, Some(&mut *w.group))?;
        (w.between)()?;
        iterations = iterations.saturating_add(n);
    }
    Ok(Ran {
        iterations,
        elapsed: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::unaliased;

    #[test]
    fn a_period_moves_on_by_the_golden_fraction_of_an_iteration() {
        // 248,320 is 61.69 iterations of 4,025: the next period at least as
        // long that is a whole number of them and 0.618 more.
        let p = unaliased(248_320.0, 4_025.0);
        assert_eq!(p, 252_038);
        let phase = (p as f64 / 4_025.0).fract();
        assert!((phase - 0.618).abs() < 0.001, "{phase}");
        // Shorter than an iteration, or an iteration unknown: as asked.
        assert_eq!(unaliased(100.4, 4_025.0), 100);
        assert_eq!(unaliased(5.0, 0.0), 5);
        assert_eq!(unaliased(0.2, 0.0), 1);
    }
}
