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

/// The sampling spec of a pass over `event` for a routine taking about
/// `ns_per_iter` an iteration: user registers and stack for an unwinder,
/// at a rate that keeps a window's samples within the ring.
pub fn pass_spec(event: &Event, ns_per_iter: f64) -> SamplingSpec {
    let window = (ns_per_iter.max(WINDOW.as_nanos() as f64)) / 1e9;
    let fits = (SAMPLES_PER_WINDOW as f64 / window) as u64;
    let rate = SampleRate::Frequency(fits.clamp(1, MAX_FREQUENCY.min(max_sample_rate())));
    SamplingSpec {
        regs_user: UNWIND_REGS,
        stack_user: STACK_BYTES,
        ..SamplingSpec::new(event.attr, rate)
    }
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

/// Runs `bench`'s routine for about `time` in windows with `event`
/// counting and sampled as `spec` says, handing each sample to `take`
/// between windows; returns what ran in the windows and the samples the
/// kernel dropped.
pub fn sample_routine(
    event: &Event,
    spec: &SamplingSpec,
    time: Duration,
    take: &mut dyn FnMut(&ThreadSample),
    bench: impl FnOnce(&mut Bencher<'_>),
) -> Result<(Ran, u64), ProfilingError> {
    // The leader only opens and closes the windows: user space alone, as
    // the sampler, so that `perf_event_paranoid` 2 allows it too.
    let mut leader = event.clone();
    leader.attr.exclude_kernel = true;
    let mut group =
        CounterGroup::open(std::slice::from_ref(&leader)).map_err(ProfilingError::Group)?;
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
        group: &mut group,
        time,
        between: &mut between,
    };
    let mut b = Bencher::new(Task::Sampled(windows));
    bench(&mut b);
    let outcome = b.outcome.unwrap_or(Err(MeasureError::NeverIterated));
    let lost = sampler.lost();
    match (outcome, failed) {
        (_, Some(e)) => Err(ProfilingError::Sampling(e)),
        (Ok(Outcome::Ran(ran)), None) => Ok((ran, lost)),
        (Ok(_), None) => unreachable!("a sampled task only runs"),
        (Err(e), None) => Err(ProfilingError::Measure(e)),
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
