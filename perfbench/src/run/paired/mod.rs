//! A paired run (`--paired-with PATH`, `--paired-with-rev REV`): this
//! bench binary (the candidate) and the paired build (the same bench target
//! built from other code) measure each benchmark in alternating rounds, in one run on one
//! machine, so that what the machine does to both in the same seconds
//! cancels in their differences. Both are served by processes of their
//! own, fresh for every block of four rounds, while the process the user
//! started drives the run. Rounds go candidate, paired, paired,
//! candidate ([`paired_turn`]), so that drift linear over a block of four
//! cancels too; each metric is judged from the blocks
//! ([`crate::analysis::comparison::paired`]).

pub mod child;
pub mod driver;
pub mod protocol;
pub mod reply;
pub mod revision;
pub mod waits;
pub mod wire_profile;

mod cargo_build;
pub(in crate::run) mod git_tree;
mod line_reader;
mod paired_build_error;
mod paired_error;

pub use paired_build_error::PairedBuildError;
pub use paired_error::{PairedError, SpawnError};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::analysis::{metric_names, Recording};
use crate::measure::SamplingPlan;
use crate::output::format::printable;
use crate::output::format::quoted;
use crate::run::bench::{recording_of, Job, Rounds, Routine, Underway};
use crate::run::bench_failure::BenchFailure;
use crate::run::cli::{Pairing, RunOptions};
use crate::run::preparation::Preparation;
use crate::run::profiling::{wall_ns_per_iteration, Profiler, PASS_TIME};
use crate::run::registry::Entry;
use crate::run::round_source::RoundSource;
use crate::run::stderr;
use driver::ServingBuild;
use reply::{most_samples, Asked};
use revision::BenchTarget;
use waits::Waits;

/// Whether turn `turn` (from 0) of a paired run is the paired build's:
/// the middle two of every four.
pub fn paired_turn(turn: u64) -> bool {
    matches!(turn % 4, 1 | 2)
}

/// The paired build a paired run asks for: its bench binary, and how
/// long the run waits for the builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairedBuild {
    /// The bench binary.
    pub path: PathBuf,
    /// `--paired-timeout`'s waits.
    pub waits: Waits,
}

/// The paired build a paired run asks for, its binary built first where
/// it names a revision; `None` for a run that is not paired.
pub fn paired_build(
    options: &RunOptions,
    target: &BenchTarget,
) -> Result<Option<PairedBuild>, PairedBuildError> {
    let Some(pairing) = &options.paired_with else {
        return Ok(None);
    };
    if options.baseline.is_some() {
        return Err(PairedBuildError::WithBaseline);
    }
    let path = match pairing {
        Pairing::Binary(path) => path.clone(),
        Pairing::Revision(rev) => revision::bench_binary_at(rev, target)?,
    };
    let waits = Waits {
        given: options.paired_timeout,
    };
    Ok(Some(PairedBuild { path, waits }))
}

/// The two builds of a paired run, each served by a process of its own
/// (this build's too, so that neither side is measured in the process
/// that drives the run), and the rounds the paired build measured of
/// each benchmark.
pub struct PairedBuilds {
    candidate: ServingBuild,
    paired: ServingBuild,
    /// How long the builds are waited for.
    waits: Waits,
    /// The benchmarks the paired build has.
    theirs: BTreeSet<String>,
    /// The block of turns the serving processes were started for.
    block: Block,
}

/// The block of four turns ([`paired_turn`]) the serving processes of a
/// paired run were started for: each block is measured by fresh ones.
#[derive(Debug, Default)]
struct Block(u64);

impl Block {
    /// Whether turn `turn` is the first asked of a block after this one,
    /// which then becomes this one. Any benchmark's turn counts (not only
    /// the first benchmark's, which may have failed or finished early).
    fn enters(&mut self, turn: u64) -> bool {
        let block = turn / 4;
        let later = block > self.0;
        self.0 = self.0.max(block);
        later
    }
}

impl PairedBuilds {
    /// Starts this build and the `paired` build for the run of
    /// `entries`, and names the benchmarks only one of the builds has,
    /// which are not judged.
    pub fn start(paired: &PairedBuild, entries: &[Entry]) -> Result<PairedBuilds, PairedError> {
        let waits = paired.waits;
        let own = std::env::current_exe().map_err(PairedError::OwnPath)?;
        let this = ("this build", "this build".to_string());
        let candidate = ServingBuild::start(&own, this, waits)?;
        let path: &Path = &paired.path;
        let named = format!("--paired-with `{}`", quoted(&path.display().to_string()));
        let paired = ServingBuild::start(path, ("the baseline build", named), waits)?;
        let theirs: BTreeSet<String> = paired.ids.iter().cloned().collect();
        let ours: BTreeSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        say_one_sided(&ours, &theirs.iter().map(String::as_str).collect());
        Ok(PairedBuilds {
            waits,
            candidate,
            paired,
            theirs,
            block: Block::default(),
        })
    }

    /// How long a round of `job` is waited for, whose rounds in this build
    /// took `so_far.took`.
    fn wait(&self, prep: &Preparation, job: &Job<'_>, so_far: &Rounds) -> Duration {
        let passes = prep.setup(job.setup).counter_groups.len();
        self.waits.round(&job.config, passes, so_far.took)
    }

    /// A round of `bench` in this build, into its rounds.
    fn measure_candidate(
        &mut self,
        prep: &Preparation,
        bench: &mut Underway<'_>,
    ) -> Result<(), PairedError> {
        let (job, so_far) = (&bench.job, bench.rounds.as_mut().expect("underway"));
        let started = Instant::now();
        let metrics = metrics_of(prep, job);
        let asked = asked(prep, job, (&metrics, so_far.measured(), so_far.plan));
        let wait = self.wait(prep, job, so_far);
        let measured = (self.candidate).measure(job.id, &asked, wait)?;
        let sampling = measured.plan;
        let setup = prep.setup(job.setup);
        let round = recording_of(setup, job.id, measured, prep.environment.clone());
        so_far.took += started.elapsed();
        so_far.add(round, sampling);
        Ok(())
    }

    /// A round of `bench` in the paired build, with the sampling plan
    /// this build chose, into its partner's rounds (a failure is warned
    /// of, and the benchmark left unjudged).
    fn measure_paired(&mut self, prep: &Preparation, bench: &mut Underway<'_>) {
        let (job, so_far) = (&bench.job, bench.rounds.as_ref().expect("underway"));
        let (sampling, wait) = (so_far.plan, self.wait(prep, job, so_far));
        if !self.theirs.contains(job.id) {
            return;
        }
        let Ok(done) = &mut bench.partner else {
            return;
        };
        let round = done.as_ref().map_or(0, Recording::round_count) as u64;
        let metrics = metrics_of(prep, job);
        let asked = asked(prep, job, (&metrics, round, sampling));
        match self.paired.measure(job.id, &asked, wait) {
            Ok(measured) => {
                let setup = prep.setup(job.setup);
                let r = recording_of(setup, job.id, measured, prep.environment.clone());
                match done {
                    Some(recording) => recording.append_round(r),
                    None => *done = Some(r),
                }
            }
            Err(why) => {
                stderr::warning(&format!(
                    "benchmark `{}`{}{why}; its change is not judged",
                    printable(job.id),
                    why.after_id()
                ));
                bench.partner = Err("the baseline build failed to measure it".into());
            }
        }
    }
}

impl RoundSource for PairedBuilds {
    fn turns_per_round(&self) -> u64 {
        2
    }

    /// A round of this build into `bench`'s rounds (`Err`: why it failed),
    /// or of the paired build into its partner's, with the sampling plan
    /// this build's first round chose. Each block of four turns is
    /// measured by fresh processes.
    fn measure(
        &mut self,
        turn: u64,
        prep: &mut Preparation,
        (bench, _measured_there): (&mut Underway<'_>, Routine<'_>),
    ) -> Result<(), BenchFailure> {
        if self.block.enters(turn) {
            self.candidate.restart();
            self.paired.restart();
        }
        if paired_turn(turn) {
            self.measure_paired(prep, bench);
            return Ok(());
        }
        // The scheduler prints the error after the benchmark's id.
        (self.measure_candidate(prep, bench)).map_err(BenchFailure::Paired)
    }

    /// The paired build's rounds of `bench`, for a run like `like`'s
    /// (threads and group), or why there are none.
    fn compared_with(
        &mut self,
        bench: &mut Underway<'_>,
        like: &Recording,
    ) -> Option<Result<Recording, String>> {
        if !self.theirs.contains(bench.job.id) {
            return Some(Err("not in the baseline build".to_string()));
        }
        let taken = std::mem::replace(&mut bench.partner, Ok(None));
        let taken =
            taken.and_then(|r| r.ok_or("the baseline build measured no round of it".into()));
        Some(taken.map(|mut recording| {
            recording.threads = like.threads;
            recording.membership = like.membership.clone();
            recording
        }))
    }

    /// Each build profiles its own routine, in its own process, the way
    /// this one would ([`Profiler::profile`]).
    fn profile(
        &mut self,
        profiler: &mut Profiler,
        (bench, _profiled_there): (&Underway<'_>, Routine<'_>),
        recording: &mut Recording,
        partner: Option<&mut Recording>,
    ) {
        let (id, wait) = (
            bench.job.id,
            self.waits.round(&bench.job.config, 1, PASS_TIME),
        );
        let ns = wall_ns_per_iteration(recording);
        recording.profile = profiler.heard(id, self.candidate.profile(id, ns, wait));
        if let Some(partner) = partner {
            let ns = wall_ns_per_iteration(partner);
            partner.profile = profiler.heard(id, self.paired.profile(id, ns, wait));
        }
    }
}

/// What a round `round` of `job`, measured with `metrics` and `sampling`,
/// asks of a build.
fn asked<'a>(
    prep: &Preparation,
    job: &Job<'_>,
    (metrics, round, sampling): (&'a [String], u64, Option<SamplingPlan>),
) -> Asked<'a> {
    Asked {
        metrics,
        round,
        plan: sampling,
        per_iter: prep.setup(job.setup).per_iter,
        samples: most_samples(&job.config, round, sampling),
    }
}

/// The names of the metrics `job` is measured with here: what each build
/// must have measured.
fn metrics_of(prep: &Preparation, job: &Job<'_>) -> Vec<String> {
    let setup = prep.setup(job.setup);
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
        stderr::note(&format!(
            "paired run: only in this build, measured but not judged: {}",
            list(only_ours)
        ));
    }
    let only_theirs: Vec<_> = theirs.difference(ours).collect();
    if !only_theirs.is_empty() {
        stderr::note(&format!(
            "paired run: only in the baseline build, not measured: {}",
            list(only_theirs)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The turns at which the serving processes are restarted, for the
    /// scheduler asking `turns` of the benchmarks `indexes` still measured.
    fn restarts(turns: u64, indexes: &[usize]) -> Vec<u64> {
        let mut block = Block::default();
        let mut restarted = Vec::new();
        for turn in 0..turns {
            for _index in indexes {
                if block.enters(turn) {
                    restarted.push(turn);
                }
            }
        }
        restarted
    }

    #[test]
    fn each_block_of_four_turns_after_the_first_starts_with_fresh_processes() {
        assert_eq!(restarts(12, &[0, 1, 2]), vec![4, 8]);
    }

    #[test]
    fn blocks_start_fresh_processes_after_the_first_benchmark_is_gone() {
        // Benchmark 0 failed (or finished) and is asked no more turns: the
        // scheduler asks only benchmarks 1 and 2.
        assert_eq!(restarts(12, &[1, 2]), vec![4, 8]);
    }

    #[test]
    fn a_block_is_entered_once_though_many_benchmarks_ask_its_turns() {
        let mut block = Block::default();
        assert!(!block.enters(0));
        assert!(!block.enters(3));
        assert!(block.enters(4));
        assert!(!block.enters(4));
        assert!(!block.enters(7));
        assert!(block.enters(9));
    }
}
