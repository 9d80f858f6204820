//! The round scheduler: every benchmark's round 1, then every benchmark's
//! round 2, and so on, each from a [`RoundSource`]; a benchmark is
//! concluded after its last round and fed to every sink.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};

use crate::analysis::notes;
use crate::output::format::printable;
use crate::output::Sink;
use crate::run::bench::{self, Underway};
use crate::run::bench_failure::BenchFailure;
use crate::run::calibration;
use crate::run::cli::RunOptions;
use crate::run::end_of_run::RunTally;
use crate::run::preparation::Preparation;
use crate::run::profiling::Profiler;
use crate::run::round_source::RoundSource;
use crate::run::{failed, mismatch_warning, stderr};

/// Measures `benches` in rounds from `source`, each round going through
/// all of them in turn, so that a slow spell of the machine is shared
/// among them rather than spoiling one; after its last round (its sample
/// count may give it fewer than the others) a benchmark is concluded and
/// fed to every sink. In a paired run each round is two turns, the
/// paired build measuring in every other pair of them
/// ([`crate::run::paired::paired_turn`]). Failures and stored files that
/// could not be used are named on stderr.
pub fn run_steps(
    options: &RunOptions,
    prep: &mut Preparation,
    benches: &mut [Underway<'_>],
    sinks: &mut [Sink],
    source: &mut dyn RoundSource,
) -> RunTally {
    let rounds = (benches.iter()).map(|b| b.job.config.rounds()).max();
    let rounds = rounds.unwrap_or(1);
    let sides = source.turns_per_round();
    let n = benches.len();
    let mut tally = RunTally::default();
    let mut warned = BTreeSet::new();
    let mut profiler = options.profile.as_ref().map(Profiler::new);
    for turn in 0..rounds * sides {
        for bench in benches.iter_mut() {
            if bench.rounds.is_none() {
                continue;
            }
            let progress = Progress::show(turn / sides + 1, rounds, bench.index, n, bench.job.id);
            let measured = source.measure(turn, prep, bench);
            drop(progress);
            if let Err(why) = measured {
                failed(bench.job.id, &why, &mut tally);
                bench.rounds = None;
                continue;
            }
            let so_far = bench.rounds.as_ref().expect("measured above");
            if turn + 1 == so_far.count(&bench.job.config) * sides {
                match conclude(options, prep, bench, source, profiler.as_mut()) {
                    Ok(step) => report_step(options, step, (&mut warned, &mut tally), sinks),
                    Err(why) => failed(bench.job.id, &why, &mut tally),
                }
            }
        }
    }
    tally
}

/// Concludes `bench` after its last round: stamps its recording with what
/// the rounds do not know, calibrates the `Bencher` method it used if no
/// benchmark before it did, profiles its routine where `--profile` asks,
/// and takes its step ([`bench::conclude`]).
fn conclude(
    options: &RunOptions,
    prep: &mut Preparation,
    bench: &mut Underway<'_>,
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
        source.profile(profiler, bench, &mut recording, partner);
    }
    let measured = (recording, so_far.took);
    let mut step = bench::conclude(options, bench.job.setup, prep, measured, base);
    if let Some(profiler) = profiler.filter(|p| p.regressed_only && step.regressed()) {
        let a = &mut step.analysed;
        let partner = a.compared_with.as_mut();
        source.profile(profiler, bench, &mut a.recording, partner);
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
