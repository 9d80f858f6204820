//! Where a benchmark's rounds come from: this process measuring them
//! ([`Local`]), or the two builds of a paired run
//! ([`crate::run::paired::PairedBuilds`]). The scheduler
//! ([`crate::run::scheduler`]) asks a source for each turn of each
//! benchmark and, once one is concluded, for what it is compared with.

use crate::analysis::Recording;
use crate::run::bench::{self, Routine, Underway};
use crate::run::bench_failure::BenchFailure;
use crate::run::preparation::Preparation;
use crate::run::profiling::Profiler;

/// A source of rounds.
pub trait RoundSource {
    /// The turns a round takes: one where this process measures, two in a
    /// paired run (this build's and the paired build's).
    fn turns_per_round(&self) -> u64;

    /// Measures turn `turn` (from 0) of `bench`, whose routine is
    /// `routine`, into it; `Err` says why it failed.
    fn measure(
        &mut self,
        turn: u64,
        prep: &mut Preparation,
        measured: (&mut Underway<'_>, Routine<'_>),
    ) -> Result<(), BenchFailure>;

    /// What `bench`, concluded as `recording`, is compared with instead of
    /// its stored run (`Err`: why it has nothing); `None` where it is
    /// compared with the stored run.
    fn compared_with(
        &mut self,
        bench: &mut Underway<'_>,
        recording: &Recording,
    ) -> Option<Result<Recording, String>>;

    /// Profiles `bench`'s routine, concluded as `recording` (`--profile`),
    /// where its rounds were measured; and the routine of what it is
    /// compared with (`partner`), where the source measured that too.
    fn profile(
        &mut self,
        profiler: &mut Profiler,
        profiled: (&Underway<'_>, Routine<'_>),
        recording: &mut Recording,
        partner: Option<&mut Recording>,
    );
}

/// Rounds this process measures itself, compared with the stored run.
pub struct Local;

impl RoundSource for Local {
    fn turns_per_round(&self) -> u64 {
        1
    }

    fn measure(
        &mut self,
        _turn: u64,
        prep: &mut Preparation,
        (bench, routine): (&mut Underway<'_>, Routine<'_>),
    ) -> Result<(), BenchFailure> {
        let so_far = bench.rounds.as_mut().expect("measured while underway");
        bench::measure_round(prep, (&bench.job, routine), so_far)
    }

    fn compared_with(
        &mut self,
        _bench: &mut Underway<'_>,
        _recording: &Recording,
    ) -> Option<Result<Recording, String>> {
        None
    }

    /// Profiles the routine in this process; the stored run compared with
    /// brings its own profile.
    fn profile(
        &mut self,
        profiler: &mut Profiler,
        (bench, routine): (&Underway<'_>, Routine<'_>),
        recording: &mut Recording,
        _partner: Option<&mut Recording>,
    ) {
        recording.profile = profiler.profile_here((&bench.job, routine), recording);
    }
}
