//! The profiling pass (`--profile[=EVENT]`): after a benchmark's last
//! round, its routine runs once more for [`PASS_TIME`] as it was measured,
//! sampled inside its windows ([`measure::sample_routine`]); each sample's
//! stack is resolved to the routine's frames as it is drained. The event
//! is settled at the first pass: the one asked for, or `cycles`, and
//! `cpu-clock` where no PMU counts cycles. Where sampling cannot open, one
//! note says why and the run goes on without profiles.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::analysis::Recording;
use crate::counter::event::{parse_list, Event};
use crate::kernel::sampling::ThreadSample;
use crate::measure::{self, ProfilingError};
use crate::output::format::printable;
use crate::profile::{Profile, StackResolver};
use crate::run::bench::{Job, Routine};
use crate::run::cli::ProfileEvent;
use crate::run::paired::PairedError;
use crate::run::panics::catch;
use crate::run::stderr;

/// How long a profiling pass samples a routine.
pub const PASS_TIME: Duration = Duration::from_millis(500);

/// The frame a sample stands under whose stack could not be placed in
/// the routine (deeper than the stack a sample copies, or taken as a
/// window opened or closed): counted, so that the shares hold.
pub const UNPLACED: &str = "[not placed in the routine]";

/// The profiling passes of a run.
pub struct Profiler {
    /// The events to try, in order, until one opens: the one asked for, or
    /// `cycles` then `cpu-clock`.
    events: Vec<Event>,
    /// Made at the first pass.
    resolver: Option<StackResolver>,
    /// Sampling was refused: no more passes.
    off: bool,
    /// Only benchmarks judged regressed are profiled, once they are.
    pub regressed_only: bool,
    /// The reasons for no profile a serving build sent, each said once.
    said: BTreeSet<String>,
    /// Whether a profile mostly [`UNPLACED`] was named.
    told_unplaced: bool,
}

/// The share of a profile's events [`UNPLACED`] past which a note says
/// that its shares stand on few of its samples.
const MOSTLY_UNPLACED: f64 = 0.5;

impl Profiler {
    /// The passes `asked` for.
    pub fn new(asked: &ProfileEvent) -> Profiler {
        let events = match asked {
            ProfileEvent::Given(asked) => asked.events.clone(),
            ProfileEvent::Default | ProfileEvent::Regressed => {
                parse_list("cycles,cpu-clock").expect("known events")
            }
        };
        Profiler {
            regressed_only: *asked == ProfileEvent::Regressed,
            events,
            resolver: None,
            off: false,
            said: BTreeSet::new(),
            told_unplaced: false,
        }
    }

    /// The profile of `job`'s routine, measured as `recording`, taken in
    /// this process; `None` where the pass could not run (a note says why,
    /// once where sampling is refused).
    pub fn profile_here(
        &mut self,
        (job, routine): (&Job<'_>, Routine<'_>),
        recording: &Recording,
    ) -> Option<Profile> {
        let profiled = self.profile((job, routine), wall_ns_per_iteration(recording));
        let profile = profiled.map_err(|why| self.say(job.id, &why)).ok()?;
        self.tell_unplaced(job.id, &profile);
        Some(profile)
    }

    /// Names, once a run, a profile most of whose events fell outside the
    /// routine's code: where the sampling interrupt comes late (a skid of
    /// a window, as in an emulated PMU), or stacks cannot be unwound.
    fn tell_unplaced(&mut self, id: &str, profile: &Profile) {
        let share = unplaced_share(profile);
        if self.told_unplaced || share <= MOSTLY_UNPLACED {
            return;
        }
        self.told_unplaced = true;
        stderr::note(&format!(
            "--profile: {:.0} % of the `{}` samples of {} fell outside the routine's code \
             (the sampling interrupt came late on this machine, or the stacks could not be \
             unwound); they are counted under `{UNPLACED}`",
            100.0 * share,
            printable(&profile.event),
            printable(id)
        ));
    }

    /// The profile a serving build of a paired run sent for `id`, or
    /// `None` where it sent why it has none: said once per reason.
    pub fn heard(&mut self, id: &str, sent: Result<Profile, PairedError>) -> Option<Profile> {
        let e = match sent {
            Ok(profile) => return Some(profile),
            Err(e) => e,
        };
        if self.said.insert(e.to_string()) {
            stderr::note(&format!(
                "no profile of `{}`{}{e}",
                printable(id),
                e.after_id()
            ));
        }
        None
    }

    /// Says why `id` has no profile: a failed routine each time, a refusal
    /// once, after which no benchmark is profiled.
    pub fn say(&mut self, id: &str, why: &Unprofiled) {
        match why {
            Unprofiled::Off => {}
            Unprofiled::Failed(why) => stderr::note(&format!(
                "no profile of {}: {}",
                printable(id),
                printable(why)
            )),
            Unprofiled::Refused(why) => {
                stderr::note(&format!(
                    "--profile: {}; no benchmark is profiled",
                    printable(why)
                ));
                self.off = true;
            }
        }
    }

    /// The profile of `job`'s routine, about `ns_per_iter` an iteration,
    /// taken in this process, or why not.
    pub fn profile(
        &mut self,
        (job, routine): (&Job<'_>, Routine<'_>),
        ns_per_iter: f64,
    ) -> Result<Profile, Unprofiled> {
        if self.off {
            return Err(Unprofiled::Off);
        }
        if self.resolver.is_none() {
            let made = StackResolver::new().map_err(|e| Unprofiled::Refused(e.to_string()));
            self.resolver = Some(made.inspect_err(|_| self.off = true)?);
        }
        let resolver = self.resolver.as_mut().expect("made above");
        while let Some(event) = self.events.first() {
            let mut profile = Profile::new(&event.name);
            let mut take = |s: &ThreadSample| {
                let stack = resolver.stack(s, job.id);
                let unplaced = || vec![job.id.to_string(), UNPLACED.to_string()];
                profile.add(stack.unwrap_or_else(unplaced), s.period.max(1));
            };
            let pass = catch(|| {
                measure::sample_routine(event, ns_per_iter, PASS_TIME, &mut take, routine)
            });
            match pass {
                Ok(Ok((ran, lost))) => {
                    profile.iterations = ran.iterations;
                    profile.lost = lost;
                    return Ok(profile);
                }
                Ok(Err(e)) if self.events.len() > 1 && no_pmu(&e) => {
                    self.events.remove(0);
                }
                Ok(Err(ProfilingError::Measure(e))) => {
                    return Err(Unprofiled::Failed(e.to_string()));
                }
                Err(panic) => return Err(Unprofiled::Failed(panic.to_string())),
                Ok(Err(e)) => {
                    self.off = true;
                    return Err(Unprofiled::Refused(e.to_string()));
                }
            }
        }
        Err(Unprofiled::Off)
    }
}

/// Why a benchmark has no profile.
#[derive(Clone, Debug, PartialEq)]
pub enum Unprofiled {
    /// Profiling stopped at an earlier refusal.
    Off,
    /// The routine failed in the pass: why.
    Failed(String),
    /// Sampling was refused here: why. No more passes are tried.
    Refused(String),
}

impl std::fmt::Display for Unprofiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unprofiled::Off => write!(f, "sampling was refused for an earlier benchmark"),
            Unprofiled::Failed(why) | Unprofiled::Refused(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for Unprofiled {}

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

/// The share of `profile`'s events whose stacks end [`UNPLACED`].
fn unplaced_share(profile: &Profile) -> f64 {
    let unplaced = profile
        .stacks
        .iter()
        .filter(|(stack, _)| stack.last().is_some_and(|f| f == UNPLACED));
    let unplaced: u64 = unplaced.map(|(_, &n)| n).sum();
    unplaced as f64 / profile.events().max(1) as f64
}

/// Wall time per iteration of `recording`'s samples, in nanoseconds.
pub fn wall_ns_per_iteration(recording: &Recording) -> f64 {
    let wall = recording
        .series
        .iter()
        .find(|s| s.name == crate::analysis::WALL_TIME);
    let total: u64 = wall.map_or(0, |s| s.totals.iter().sum());
    total as f64 / recording.total_iterations().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::folded_profile;

    #[test]
    fn the_unplaced_share_counts_events_of_stacks_ending_unplaced() {
        let p = folded_profile(
            10,
            &[
                ("b;[not placed in the routine]", 30),
                ("b;f", 60),
                ("b;[not placed in the routine];f", 10),
            ],
        );
        assert_eq!(unplaced_share(&p), 0.3);
        assert_eq!(unplaced_share(&Profile::new("cycles")), 0.0);
    }
}
