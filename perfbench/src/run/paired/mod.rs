//! A paired run (`--paired-with PATH`, `--paired-with-rev REV`): this
//! bench binary (the candidate) and a baseline build of the same bench
//! target measure each benchmark in alternating rounds, in one run on one
//! machine, so that what the machine does to both in the same seconds
//! cancels in their differences. Both are served by processes of their
//! own, fresh for every block of four rounds, while the process the user
//! started drives the run. Rounds go candidate, baseline, baseline,
//! candidate ([`baseline_turn`]), so that drift linear over a block of four
//! cancels too; each metric is judged from the blocks
//! ([`crate::analysis::comparison::paired`]).

pub mod child;
pub mod driver;
pub mod protocol;
pub mod revision;

mod cargo_build;
pub(in crate::run) mod git_tree;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::analysis::{metric_names, Recording};
use crate::measure::SamplingPlan;
use crate::output::format::printable;
use crate::run::bench::{recording_of, Job, Rounds};
use crate::run::cli::{Pairing, RunOptions};
use crate::run::plan::Plan;
use crate::run::registry::Entry;
use crate::run::say;
use driver::ServingBuild;
use revision::BenchTarget;

/// Whether turn `turn` (from 0) of a paired run is the baseline build's:
/// the middle two of every four.
pub fn baseline_turn(turn: u64) -> bool {
    matches!(turn % 4, 1 | 2)
}

/// The baseline build's bench binary a paired run asks for, built first
/// where it names a revision; `None` for a run that is not paired.
pub fn baseline_binary(
    options: &RunOptions,
    target: &BenchTarget,
) -> Result<Option<PathBuf>, String> {
    let Some(pairing) = &options.paired_with else {
        return Ok(None);
    };
    if options.baseline.is_some() {
        return Err(
            "--baseline and --paired-with exclude each other: a run compares with one \
                    of them"
                .into(),
        );
    }
    match pairing {
        Pairing::Binary(path) => Ok(Some(path.clone())),
        Pairing::Revision(rev) => revision::bench_binary_at(rev, target).map(Some),
    }
}

/// The two builds of a paired run, each served by a process of its own
/// (this build's too, so that neither side is measured in the process
/// that drives the run), and the rounds the baseline build measured of
/// each benchmark.
pub struct Pair {
    candidate: ServingBuild,
    baseline: ServingBuild,
    /// Per entry of the run: the baseline build's rounds so far, or why it
    /// has none.
    rounds: Vec<Result<Option<Recording>, String>>,
}

impl Pair {
    /// Starts this build and the baseline build `path` for the run of
    /// `entries`, and names the benchmarks only one of the builds has,
    /// which are not judged.
    pub fn start(path: &Path, entries: &[Entry]) -> Result<Pair, String> {
        let own = std::env::current_exe()
            .map_err(|e| format!("paired run: cannot tell this bench binary's path: {e}"))?;
        let candidate = ServingBuild::start(&own, "this build")?;
        let baseline = ServingBuild::start(path, "the baseline build")?;
        let theirs: BTreeSet<&str> = baseline.ids.iter().map(String::as_str).collect();
        let ours: BTreeSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        let rounds = entries
            .iter()
            .map(|e| match theirs.contains(e.id.as_str()) {
                true => Ok(None),
                false => Err("not in the baseline build".to_string()),
            })
            .collect();
        say_one_sided(&ours, &theirs);
        Ok(Pair {
            candidate,
            baseline,
            rounds,
        })
    }

    /// Measures turn `turn` (from 0) of entry `i`, `job`: a round of this
    /// build into `so_far` (`Err`: why it failed), or a round of the
    /// baseline build with the sampling plan this build's first round
    /// chose (a failure is warned of, and the benchmark left unjudged).
    /// Each block of four turns is measured by fresh processes.
    pub fn measure(
        &mut self,
        (turn, i): (u64, usize),
        (plan, job): (&Plan, &Job<'_>),
        so_far: &mut Rounds,
    ) -> Result<(), String> {
        if turn % 4 == 0 && i == 0 && turn > 0 {
            self.candidate.restart();
            self.baseline.restart();
        }
        if baseline_turn(turn) {
            self.measure_baseline(i, (plan, job), so_far.plan);
            return Ok(());
        }
        let started = Instant::now();
        let metrics = metrics_of(plan, job);
        let measured =
            (self.candidate).measure(job.id, so_far.measured(), so_far.plan, &metrics)?;
        let sampling = measured.plan;
        let setup = plan.setup_of(&job.want);
        let round = recording_of(setup, job.id, measured, plan.environment.clone());
        so_far.took += started.elapsed();
        so_far.add(round, sampling);
        Ok(())
    }

    /// A round of entry `i` in the baseline build.
    fn measure_baseline(
        &mut self,
        i: usize,
        (plan, job): (&Plan, &Job<'_>),
        sampling: Option<SamplingPlan>,
    ) {
        let Ok(done) = &mut self.rounds[i] else {
            return;
        };
        let round = done.as_ref().map_or(0, Recording::round_count) as u64;
        let metrics = metrics_of(plan, job);
        match self.baseline.measure(job.id, round, sampling, &metrics) {
            Ok(measured) => {
                let setup = plan.setup_of(&job.want);
                let r = recording_of(setup, job.id, measured, plan.environment.clone());
                match done {
                    Some(recording) => recording.append_round(r),
                    None => *done = Some(r),
                }
            }
            Err(why) => {
                say::warning(&format!(
                    "benchmark `{}`{why}; its change is not judged",
                    printable(job.id)
                ));
                self.rounds[i] = Err("the baseline build failed to measure it".into());
            }
        }
    }

    /// The baseline build's rounds of entry `i`, for a run like `like`'s
    /// (threads and group), or why there are none.
    pub fn take(&mut self, i: usize, like: &Recording) -> Result<Recording, String> {
        let taken = std::mem::replace(&mut self.rounds[i], Ok(None));
        let mut recording = taken?.ok_or("the baseline build measured no round of it")?;
        recording.threads = like.threads;
        recording.membership = like.membership.clone();
        Ok(recording)
    }
}

/// The names of the metrics `job` is measured with here: what each build
/// must have measured.
fn metrics_of(plan: &Plan, job: &Job<'_>) -> Vec<String> {
    let setup = plan.setup_of(&job.want);
    metric_names(&setup.events)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// Names, on stderr, the benchmarks of one build only.
fn say_one_sided(ours: &BTreeSet<&str>, theirs: &BTreeSet<&str>) {
    let list = |ids: Vec<&&str>| {
        ids.iter()
            .map(|id| format!("`{}`", printable(id)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let only_ours: Vec<_> = ours.difference(theirs).collect();
    if !only_ours.is_empty() {
        say::note(&format!(
            "paired run: only in this build, measured but not judged: {}",
            list(only_ours)
        ));
    }
    let only_theirs: Vec<_> = theirs.difference(ours).collect();
    if !only_theirs.is_empty() {
        say::note(&format!(
            "paired run: only in the baseline build, not measured: {}",
            list(only_theirs)
        ));
    }
}
