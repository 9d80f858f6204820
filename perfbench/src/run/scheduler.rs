//! The round scheduler: every benchmark's round 1, then every benchmark's
//! round 2, and so on, each from a [`RoundSource`]; a benchmark is
//! concluded after its last round and fed to every sink.

use std::collections::{BTreeSet, HashMap};
use std::io::{IsTerminal, Write};

use crate::analysis::notes;
use crate::output::format::printable;
use crate::output::Sink;
use crate::run::bench::{self, Routine, Underway};
use crate::run::bench_failure::BenchFailure;
use crate::run::calibration;
use crate::run::cli::RunOptions;
use crate::run::end_of_run::RunTally;
use crate::run::preparation::Preparation;
use crate::run::profiling::Profiler;
use crate::run::round_source::RoundSource;
use crate::run::suite::Suite;
use crate::run::{failed, mismatch_warning, stderr};

/// Measures `benches` in rounds from `source`, each round going through
/// all of them in turn, so that a slow spell of the machine is shared
/// among them rather than spoiling one; after its last round (its sample
/// count may give it fewer than the others) a benchmark is concluded and
/// fed to every sink. Each turn is one visit of `suite`, which hands over
/// the routines ([`Suite::visit`]). In a paired run each round is two
/// turns, the paired build measuring in every other pair of them
/// ([`crate::run::paired::paired_turn`]). Failures and stored files that
/// could not be used are named on stderr.
pub fn run_steps(
    options: &RunOptions,
    prep: &mut Preparation,
    (suite, benches): (&dyn Suite, &mut [Underway<'_>]),
    sinks: &mut [Sink],
    source: &mut dyn RoundSource,
) -> RunTally {
    let rounds = (benches.iter()).map(|b| b.job.config.rounds()).max();
    let rounds = rounds.unwrap_or(1);
    let sides = source.turns_per_round();
    let at: HashMap<&str, usize> = (benches.iter().enumerate())
        .map(|(i, b)| (b.job.id, i))
        .collect();
    let mut run = Turns {
        options,
        prep,
        sinks,
        source,
        rounds,
        count: benches.len(),
        tally: RunTally::default(),
        warned: BTreeSet::new(),
        profiler: options.profile.as_ref().map(Profiler::new),
    };
    for turn in 0..rounds * sides {
        let mut reached = vec![false; benches.len()];
        suite.visit(&mut |entry, routine| {
            let Some(&i) = at.get(entry.id.as_str()) else {
                return;
            };
            // A suite that reaches a benchmark twice in one visit: once.
            if !std::mem::replace(&mut reached[i], true) {
                run.take(turn, (&mut benches[i], routine));
            }
        });
        let missed = benches.iter_mut().zip(reached).filter(|(_, r)| !r);
        for (bench, _) in missed.filter(|(b, _)| b.rounds.is_some()) {
            let why = BenchFailure::NotReached(turn / sides + 1);
            failed(bench.job.id, &why, &mut run.tally);
            bench.rounds = None;
        }
    }
    run.tally
}

/// A run's turns: what each needs besides the benchmark and its routine.
struct Turns<'r, 'p> {
    options: &'r RunOptions,
    prep: &'r mut Preparation,
    sinks: &'r mut [Sink],
    source: &'r mut (dyn RoundSource + 'p),
    rounds: u64,
    count: usize,
    tally: RunTally,
    warned: BTreeSet<String>,
    profiler: Option<Profiler>,
}

impl Turns<'_, '_> {
    /// Measures turn `turn` of `bench` with its `routine`, and concludes it
    /// after its last.
    fn take(&mut self, turn: u64, (bench, routine): (&mut Underway<'_>, Routine<'_>)) {
        if bench.rounds.is_none() {
            return;
        }
        let sides = self.source.turns_per_round();
        let (round, n) = (turn / sides + 1, self.count);
        let progress = Progress::show(round, self.rounds, bench.index, n, bench.job.id);
        let measured = self.source.measure(turn, self.prep, (bench, routine));
        drop(progress);
        if let Err(why) = measured {
            failed(bench.job.id, &why, &mut self.tally);
            bench.rounds = None;
            return;
        }
        let so_far = bench.rounds.as_ref().expect("measured above");
        if turn + 1 != so_far.count(&bench.job.config) * sides {
            return;
        }
        let (options, prep, source) = (self.options, &mut *self.prep, &mut *self.source);
        match conclude(
            options,
            prep,
            (bench, routine),
            source,
            self.profiler.as_mut(),
        ) {
            Ok(step) => report_step(
                options,
                step,
                (&mut self.warned, &mut self.tally),
                self.sinks,
            ),
            Err(why) => failed(bench.job.id, &why, &mut self.tally),
        }
    }
}

/// Concludes `bench` after its last round: stamps its recording with what
/// the rounds do not know, calibrates the `Bencher` method it used if no
/// benchmark before it did, profiles its routine where `--profile` asks,
/// and takes its step ([`bench::conclude`]).
fn conclude(
    options: &RunOptions,
    prep: &mut Preparation,
    (bench, routine): (&mut Underway<'_>, Routine<'_>),
    source: &mut dyn RoundSource,
    profiler: Option<&mut Profiler>,
) -> Result<bench::Step, BenchFailure> {
    let so_far = bench.rounds.take().expect("measured above");
    let mut recording = so_far.recording.expect("a round was recorded");
    recording.membership = bench.membership.clone();
    recording.threads = bench.threads;
    recording.settings = Some(bench.job.config.key());
    let setup = prep.setup_mut(bench.job.setup);
    calibration::calibrate_method(options, setup, recording.method)?;
    let mut base = source.compared_with(bench, &recording);
    let mut profiler = profiler;
    if let Some(profiler) = profiler.as_deref_mut().filter(|p| !p.regressed_only) {
        let partner = base.as_mut().and_then(|b| b.as_mut().ok());
        source.profile(profiler, (bench, routine), &mut recording, partner);
    }
    let measured = (recording, so_far.took);
    let mut step = bench::conclude(options, bench.job.setup, prep, measured, base);
    if let Some(profiler) = profiler.filter(|p| p.regressed_only && step.regressed()) {
        let a = &mut step.analysed;
        let partner = a.compared_with.as_mut();
        source.profile(profiler, (bench, routine), &mut a.recording, partner);
        bench::keep_profile(prep, &mut step);
    }
    Ok(step)
}

/// The `[round r/R] [i/n] id ...` line on a terminal, cleared when dropped.
struct Progress(bool);

impl Progress {
    fn show(round: u64, rounds: u64, i: usize, n: usize, id: &str) -> Progress {
        let shown = std::io::stderr().is_terminal();
        if shown {
            let of_rounds = if rounds > 1 {
                format!("[round {round}/{rounds}] ")
            } else {
                String::new()
            };
            eprint!("\r\x1b[K{of_rounds}[{}/{n}] {} ...", i + 1, printable(id));
            let _ = std::io::stderr().flush();
        }
        Progress(shown)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.0 {
            eprint!("\r\x1b[K");
        }
    }
}

/// Warns of what a concluded benchmark's step found, counts it in the
/// tally and feeds it to every sink.
fn report_step(
    options: &RunOptions,
    step: bench::Step,
    (warned, tally): (&mut BTreeSet<String>, &mut RunTally),
    sinks: &mut [Sink],
) {
    if let Some(why) = step.mismatch.filter(|why| warned.insert(why.clone())) {
        stderr::warning(&mismatch_warning(&why));
    }
    if let Some(warning) = notes::multiplexed_warning(&step.analysed.recording) {
        stderr::warning(&warning);
    }
    for err in &step.store_errors {
        stderr::error(&err.to_string());
    }
    tally.store_errors += step.store_errors.len();
    tally.measured(&step.analysed, options.gate);
    for sink in sinks.iter_mut() {
        sink.benchmark(&step.analysed);
    }
}
