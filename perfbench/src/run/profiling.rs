//! The profiling pass (`--profile[=EVENT]`): after a benchmark's last
//! round, its routine runs once more for [`PASS_TIME`] as it was measured,
//! sampled inside its windows ([`measure::sample_routine`]); each sample's
//! stack is resolved to the routine's frames as it is drained. The event
//! is settled at the first pass: the one asked for, or `cycles`, and
//! `cpu-clock` where no PMU counts cycles. Where sampling cannot open, one
//! note says why and the run goes on without profiles.

use std::time::Duration;

use crate::analysis::Recording;
use crate::counter::event::{parse_list, Event};
use crate::kernel::sampling::ThreadSample;
use crate::measure::{self, pass_spec, ProfilingError};
use crate::profile::Profile;
use crate::run::bench::Job;
use crate::run::cli::ProfileEvent;
use crate::run::panics::catch;
use crate::run::stderr;

/// How long a profiling pass samples a routine.
pub const PASS_TIME: Duration = Duration::from_millis(500);

/// Resolves a sample to its stack, outermost first, from the frame named
/// by the benchmark's id.
type ResolveStack = Box<dyn FnMut(&ThreadSample, &str) -> Vec<String>>;

/// The profiling passes of a run.
pub struct Profiler {
    /// The events to try, in order, until one opens: the one asked for, or
    /// `cycles` then `cpu-clock`.
    events: Vec<Event>,
    /// Made at the first pass.
    resolve: Option<ResolveStack>,
    /// Sampling was refused: no more passes.
    off: bool,
}

impl Profiler {
    /// The passes `asked` for.
    pub fn new(asked: &ProfileEvent) -> Profiler {
        let events = match asked {
            ProfileEvent::Given(asked) => asked.events.clone(),
            ProfileEvent::Default => parse_list("cycles,cpu-clock").expect("known events"),
        };
        Profiler {
            events,
            resolve: None,
            off: false,
        }
    }

    /// The profile of `job`'s routine, measured as `recording`; `None`
    /// where the pass could not run (a note says why).
    pub fn profile(&mut self, job: &Job<'_>, recording: &Recording) -> Option<Profile> {
        if self.off {
            return None;
        }
        let resolve = self.resolve.get_or_insert_with(stack_resolver);
        let ns_per_iter = wall_ns_per_iteration(recording);
        while let Some(event) = self.events.first() {
            let mut profile = Profile::new(&event.name);
            let spec = pass_spec(event, ns_per_iter);
            let mut take = |s: &ThreadSample| profile.add(resolve(s, job.id), s.period.max(1));
            let pass = catch(|| {
                measure::sample_routine(event, &spec, PASS_TIME, &mut take, |b| (job.routine)(b))
            });
            match pass {
                Ok(Ok((ran, lost))) => {
                    profile.iterations = ran.iterations;
                    profile.lost = lost;
                    return Some(profile);
                }
                Ok(Err(e)) if self.events.len() > 1 && no_pmu(&e) => {
                    self.events.remove(0);
                }
                Ok(Err(ProfilingError::Measure(_))) | Err(_) => {
                    // The measured rounds failed the same way, or passed:
                    // the benchmark is reported as measured, unprofiled.
                    stderr::note(&format!("no profile of {}: its routine failed", job.id));
                    return None;
                }
                Ok(Err(e)) => {
                    stderr::note(&format!("--profile: {e}; no benchmark is profiled"));
                    self.off = true;
                    return None;
                }
            }
        }
        None
    }
}

/// Whether the pass failed for want of a PMU counting its event.
fn no_pmu(e: &ProfilingError) -> bool {
    use crate::counter::group::OpenError;
    use crate::kernel::sampling::SamplingError;
    matches!(
        e,
        ProfilingError::Sampling(SamplingError::NoPmu(_))
            | ProfilingError::Group(OpenError::Unsupported { .. })
    )
}

/// Wall time per iteration of `recording`'s samples, in nanoseconds.
fn wall_ns_per_iteration(recording: &Recording) -> f64 {
    let wall = recording
        .series
        .iter()
        .find(|s| s.name == crate::analysis::WALL_TIME);
    let total: u64 = wall.map_or(0, |s| s.totals.iter().sum());
    total as f64 / recording.total_iterations().max(1) as f64
}

/// The resolver of this process's stacks.
fn stack_resolver() -> ResolveStack {
    Box::new(|s: &ThreadSample, root: &str| vec![root.to_string(), format!("{:#x}", s.ip)])
}
