//! A paired run (`--paired-with PATH`, `--paired-with-rev REV`): this
//! bench binary (the candidate, driving the run) and a baseline build of
//! the same bench target measure each benchmark in alternating rounds, in
//! one run on one machine, so that what the machine does to both in the
//! same seconds cancels in their differences. Rounds go candidate,
//! baseline, baseline, candidate ([`baseline_turn`]), so that drift linear
//! over a block of four cancels too; each metric is judged from the
//! blocks ([`crate::analysis::comparison::paired`]).

pub mod child;
pub mod driver;
pub mod protocol;
pub mod revision;

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::analysis::Recording;
use crate::output::format::printable;
use crate::run::bench::Rounds;
use crate::run::cli::{Pairing, RunOptions};
use crate::run::registry::Entry;
use crate::run::say;
use driver::BaselineBuild;
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

/// The baseline build of a run and the rounds it measured of each
/// benchmark.
pub struct Pair {
    build: BaselineBuild,
    /// Per entry of the run: its rounds so far, or why it has none.
    rounds: Vec<Result<Option<Recording>, String>>,
}

impl Pair {
    /// Starts the baseline build `path` for the run of `entries`, and
    /// names the benchmarks only one of the builds has, which are not
    /// judged.
    pub fn start(path: &std::path::Path, entries: &[Entry]) -> Result<Pair, String> {
        let build = BaselineBuild::start(path)?;
        let theirs: BTreeSet<&str> = build.ids.iter().map(String::as_str).collect();
        let ours: BTreeSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        let rounds = entries
            .iter()
            .map(|e| match theirs.contains(e.id.as_str()) {
                true => Ok(None),
                false => Err("not in the baseline build".to_string()),
            })
            .collect();
        say_one_sided(&ours, &theirs);
        Ok(Pair { build, rounds })
    }

    /// Measures the next round of entry `i` (`id`) in the baseline build,
    /// with the sampling plan the candidate's first round chose
    /// (`so_far`); a failure is warned of, and the benchmark left unjudged.
    pub fn measure(&mut self, i: usize, id: &str, so_far: &Rounds) {
        let Ok(done) = &mut self.rounds[i] else {
            return;
        };
        let round = done.as_ref().map_or(0, Recording::round_count) as u64;
        match self.build.measure(id, round, so_far.plan) {
            Ok(r) => match done {
                Some(recording) => recording.append_round(r),
                None => *done = Some(r),
            },
            Err(why) => {
                say::warning(&format!(
                    "benchmark `{}`{why}; its change is not judged",
                    printable(id)
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
