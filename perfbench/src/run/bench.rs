//! One benchmark's step of a run: measure, record, analyse, compare with the
//! stored run, and store.

use std::time::{Duration, Instant};

use crate::analysis::comparison::{self, carry_earlier, Comparison, Verdict};
use crate::analysis::notes::count;
use crate::analysis::standings::Membership;
use crate::analysis::{Analysed, Recording};
use crate::counter::event::Unit;
use crate::counter::group::{self, Groups};
use crate::measure::environment::Environment;
use crate::measure::{self, Bencher, Costs, MeasureError, Planning, SamplingPlan, Shape};
use crate::output::format::{format_value, printable};
use crate::run::bench_failure::BenchFailure;
use crate::run::cli::RunOptions;
use crate::run::panics::caught;
use crate::run::preparation::Preparation;
use crate::run::setup::{Setup, SetupId};
use crate::run::stderr;
use crate::run::stored_runs::{compared_profile, left_as_is, StoredRuns};
use crate::store::history::HistoryRun;
use crate::store::Slot;

/// What one benchmark's step produced.
pub struct Step {
    /// The benchmark, analysed and compared.
    pub analysed: Analysed,
    /// How long measuring it took, all rounds together.
    pub took: Duration,
    /// Stored files that could not be read or written, each named.
    pub store_errors: Vec<String>,
    /// Why the stored run it was compared with may not be comparable.
    pub mismatch: Option<String>,
}

impl Step {
    /// Whether a metric of it was judged a regression.
    pub fn regressed(&self) -> bool {
        let changes = self
            .analysed
            .comparison
            .as_ref()
            .and_then(|c| c.changes.as_ref());
        changes.is_some_and(|c| c.iter().any(|c| c.verdict == Verdict::Regressed))
    }
}

/// Stores the profile `step` took after its conclusion
/// (`--profile=regressed`) as the latest and, where the step saved its run
/// to a baseline, there too, and gives the run it was compared with its
/// stored profile ([`compared_profile`]).
pub fn keep_profile(prep: &Preparation, step: &mut Step) {
    let a = &mut step.analysed;
    let Some(profile) = &a.recording.profile else {
        return;
    };
    let id = &a.recording.id;
    let unreadable = a
        .compared_with
        .as_mut()
        .and_then(|base| compared_profile(&prep.store, &prep.target, base).err());
    let mut errors = Vec::new();
    let target = Slot::from(&prep.target);
    if !left_as_is(&Slot::Latest, &target, unreadable.is_some()) {
        if let Err(e) = prep.store.save_profile(id, profile) {
            errors.push(e.to_string());
        }
    }
    if let Some(Err(e)) = prep.saving.as_ref().map(|s| s.save_profile(id, profile)) {
        errors.push(e.to_string());
    }
    step.store_errors.extend(unreadable.map(|e| e.to_string()));
    step.store_errors.extend(errors);
}

/// A benchmark being measured round by round.
#[derive(Default)]
pub struct Rounds {
    /// The rounds measured so far, as one recording.
    pub recording: Option<Recording>,
    /// How long they took.
    pub took: Duration,
    /// The sampling plan its first round chose, in batch mode.
    pub plan: Option<SamplingPlan>,
}

impl Rounds {
    /// Adds a round measured with the sampling plan `sampling` (which the
    /// first round chose, in batch mode).
    pub fn add(&mut self, round: Recording, sampling: Option<SamplingPlan>) {
        self.plan = self.plan.or(sampling);
        match &mut self.recording {
            Some(recording) => recording.append_round(round),
            None => self.recording = Some(round),
        }
    }

    /// The rounds measured so far.
    pub fn measured(&self) -> u64 {
        self.recording.as_ref().map_or(0, Recording::round_count) as u64
    }

    /// The rounds the benchmark of `config` takes: as its plan says, once
    /// the first round chose one.
    pub fn count(&self, config: &measure::Config) -> u64 {
        self.plan.map_or_else(|| config.rounds(), |p| p.rounds)
    }
}

/// The routine of a benchmark: runs it with a bencher.
pub type Routine<'a> = &'a dyn Fn(&mut Bencher<'_>);

/// One benchmark as the run measures it; its routine is handed over by
/// its suite for each round ([`crate::run::suite::Suite::visit`]).
pub struct Job<'a> {
    /// Its id.
    pub id: &'a str,
    /// How long and how often, all rounds together
    /// ([`RunOptions::config_for`]).
    pub config: measure::Config,
    /// The setup of the preparation it is measured with, the one its settings ask
    /// for ([`RunOptions::wanted_setup`]).
    pub setup: SetupId,
}

/// One benchmark through the run: how it is measured, the rounds measured
/// so far, and in a paired run the paired build's. The scheduler holds
/// one per benchmark, whatever suite declared it.
pub struct Underway<'a> {
    /// Its place in the run, from 0.
    pub index: usize,
    /// Its id, settings and setup.
    pub job: Job<'a>,
    /// Its group and name in it, stamped on its recording.
    pub membership: Option<Membership>,
    /// The threads its routine runs on at once.
    pub threads: usize,
    /// Its rounds so far; `None` once it failed or was concluded.
    pub rounds: Option<Rounds>,
    /// In a paired run, the paired build's rounds of it so far, or why
    /// it has none ([`crate::run::paired::PairedBuilds`]).
    pub partner: Result<Option<Recording>, String>,
}

/// Measures the next round of `job` (its share of the time and samples of
/// its sampling plan, which the first round chooses) into `so_far`; `Err`
/// says why it failed (a panic, or a measurement error).
pub fn measure_round(
    prep: &mut Preparation,
    (job, routine): (&Job<'_>, Routine<'_>),
    so_far: &mut Rounds,
) -> Result<(), BenchFailure> {
    let started = Instant::now();
    let index = so_far.measured();
    // Later rounds take the first round's plan, so that rounds of as many
    // samples run the same iterations: then the slope of all samples is
    // the mean of the rounds' slopes.
    let planned = so_far.plan.map(|p| (p, index));
    let environment = prep.environment.clone();
    let setup = prep.setup_mut(job.setup);
    let (round, sampling) = record(setup, (job, routine), planned, environment)?;
    so_far.took += started.elapsed();
    so_far.add(round, sampling);
    Ok(())
}

/// The warning, before measuring, for a benchmark whose plan takes fewer
/// samples than `config` asks: more than a benchmark keeps, or more than
/// fit its budget even at one iteration each. It says what one iteration
/// costs, what the plan does and how long it takes, and what would fit
/// them all.
pub fn fewer_samples_warning(
    id: &str,
    config: &measure::Config,
    plan: &SamplingPlan,
    costs: &Costs,
) -> Option<String> {
    if !plan.fewer_than(config) {
        return None;
    }
    let time = |ns: f64| format_value(ns, Unit::Nanoseconds);
    let asked = count(config.sample_count as usize, "sample");
    let (why, remedy) = if plan.samples == measure::MAX_SAMPLES {
        let why = format!(
            "{asked} are more than the {} a benchmark keeps",
            plan.samples
        );
        (why, String::new())
    } else {
        let budget = (config.warm_up + config.measurement).as_nanos() as f64;
        let one_each = config.sample_count.min(measure::MAX_SAMPLES) as f64
            * (costs.inside + costs.outside + costs.per_sample);
        let why = format!(
            "{asked} of one iteration do not fit its budget of {} (warm-up and measurement time)",
            time(budget)
        );
        let needed = (one_each / 1e9).max(config.measurement.as_secs_f64());
        (
            why,
            format!("; --measurement-time {needed:.1} fits them all"),
        )
    };
    // Linear samples run 1, 2, 3, … steps: "of 1 iteration" would say
    // flat.
    let iterations = match plan.shape {
        Shape::Flat => format!("of {}", count(plan.step as usize, "iteration")),
        Shape::Linear => format!("growing by {}", count(plan.step as usize, "iteration")),
    };
    Some(format!(
        "perfbench: warning: `{}` takes about {} an iteration, and {why}: measuring {} {iterations} \
         in {} instead, about {}{remedy}",
        printable(id),
        time(costs.inside),
        count(plan.samples as usize, "sample"),
        count(plan.rounds as usize, "round"),
        time(plan.duration(costs).as_nanos() as f64),
    ))
}

/// The step after the last round of a benchmark measured with the setup
/// `setup`: learn from the runs before it, analyse, compare with the stored
/// run (or in a paired run with the paired build's rounds, `paired`:
/// `Err` says why there are none), and store.
pub fn conclude(
    options: &RunOptions,
    setup: SetupId,
    prep: &Preparation,
    (mut recording, took): (Recording, Duration),
    paired: Option<Result<Recording, String>>,
) -> Step {
    let mut stored = StoredRuns::load(&prep.store, &recording, &prep.target);
    carry_earlier(stored.earlier.as_ref(), &mut recording, &options.thresholds);
    let calibration = prep.setup(setup).calibration_for(recording.method);
    let mut step = Step {
        analysed: Analysed::of(recording, calibration),
        took,
        store_errors: (stored.unreadable.iter().chain(&stored.unreadable_profile))
            .map(|e| e.to_string())
            .collect(),
        mismatch: None,
    };
    match (paired, &stored.unreadable) {
        (Some(paired), _) => compare_paired(options, prep, &mut step, paired),
        (None, None) => compare(options, prep, &mut step, stored.base.take()),
        (None, Some(_)) => {}
    }
    store(options, prep, &mut step, &stored);
    step
}

/// Compares `step` with the paired build's rounds (`Err`: why there
/// are none).
fn compare_paired(
    options: &RunOptions,
    prep: &Preparation,
    step: &mut Step,
    paired: Result<Recording, String>,
) {
    let a = &mut step.analysed;
    let compared = paired.as_ref().map_err(Clone::clone);
    a.comparison = Some(comparison::paired(
        &prep.target,
        compared,
        &a.recording,
        &options.thresholds,
    ));
    a.compared_with = paired.ok();
}

/// Measures one round of the benchmark, one pass per counter group, and
/// records it; returns the sampling plan too, in batch mode.
fn record(
    setup: &mut Setup,
    (job, routine): (&Job<'_>, Routine<'_>),
    planned: Option<(SamplingPlan, u64)>,
    environment: Environment,
) -> Result<(Recording, Option<SamplingPlan>), BenchFailure> {
    let measured = measure_raw(setup, (job, routine), planned)?;
    let sampling = measured.plan;
    Ok((recording_of(setup, job.id, measured, environment), sampling))
}

/// Measures one round of the benchmark, one pass per counter group,
/// following `planned` (the sampling plan and the round's index) where a
/// first round chose it; `Err` says why it failed, worded to follow its
/// id. What a paired run's builds send the driving build.
pub fn measure_raw(
    setup: &mut Setup,
    (job, routine): (&Job<'_>, Routine<'_>),
    planned: Option<(SamplingPlan, u64)>,
) -> Result<RoundMeasured, BenchFailure> {
    let per_iter = setup.per_iter;
    let groups = (&mut setup.counter_groups, per_iter);
    let outcome = caught(|| measure_passes((job, routine), groups, planned));
    // A panic may have left a counter group running.
    for (group, _) in &setup.counter_groups {
        let _ = group.disable();
    }
    outcome
}

/// The recording of benchmark `id`'s round `measured` with `setup`.
pub fn recording_of(
    setup: &Setup,
    id: &str,
    measured: RoundMeasured,
    environment: Environment,
) -> Recording {
    let mut recording = Recording::new(id, &setup.events, &measured.measurement, environment);
    recording.method = measured.method;
    recording.passes = setup.pass_names();
    if let Some(facts) = measured.per_iter {
        recording.read_path = Some(facts.read_path);
        recording.multiplexed_samples = facts.multiplexed;
        recording.left_out = facts.left_out;
    }
    recording
}

/// How per-iteration mode read the counters, and what the kernel disturbed.
#[derive(Clone, Debug, PartialEq)]
pub struct PerIterFacts {
    /// The read path.
    pub read_path: group::ReadPath,
    /// Disturbed iterations kept, because the kernel disturbed them all.
    pub multiplexed: usize,
    /// Disturbed iterations left out of the samples.
    pub left_out: usize,
}

/// What one round measured.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundMeasured {
    /// The samples.
    pub measurement: measure::Measurement,
    /// How per-iteration mode read them.
    pub per_iter: Option<PerIterFacts>,
    /// The sampling plan, in batch mode.
    pub plan: Option<SamplingPlan>,
    /// The `Bencher` method.
    pub method: measure::Method,
}

/// Measures one round of `job` in the mode asked for, one pass per counter
/// group.
/// In batch mode the first pass of the first round chooses the plan (and
/// warns before sampling where it takes fewer samples than asked); the
/// others follow it, `planned` with the round to measure.
fn measure_passes(
    (job, routine): (&Job<'_>, Routine<'_>),
    (counter_groups, per_iter): (&mut Groups, bool),
    planned: Option<(SamplingPlan, u64)>,
) -> Result<RoundMeasured, MeasureError> {
    let config = &job.config;
    if per_iter {
        let index = planned.map_or(0, |(_, index)| index);
        let round = config.round(index);
        let measured = measure::measure_per_iter(&round, &mut counter_groups[0].0, routine)?;
        let (pm, left_out) = measured.without_disturbed();
        let facts = PerIterFacts {
            read_path: pm.read_path,
            multiplexed: pm.multiplexed(),
            left_out,
        };
        return Ok(RoundMeasured {
            measurement: pm.as_measurement(),
            per_iter: Some(facts),
            plan: None,
            method: pm.method,
        });
    }
    let mut warn = |plan: &SamplingPlan, costs: &Costs| {
        if let Some(warning) = fewer_samples_warning(job.id, config, plan, costs) {
            eprintln!("{warning}");
        }
    };
    let planning = match planned {
        Some((plan, index)) => Planning::Round(plan, index),
        None => Planning::Choose(&mut warn),
    };
    let mut passes = counter_groups.iter_mut();
    let (first, _) = passes.next().expect("at least one group");
    let (mut m, plan, method) = measure::measure_pass(config, first, planning, routine)?;
    let index = planned.map_or(0, |(_, index)| index);
    // Later passes take the first pass's plan, so their samples line up.
    for (group, _) in passes {
        let planning = Planning::Round(plan, index);
        m.merge_pass(&measure::measure_pass(config, group, planning, routine)?.0);
    }
    Ok(RoundMeasured {
        measurement: m,
        per_iter: None,
        plan: Some(plan),
        method,
    })
}

/// Compares the step's recording with `base`, the stored run the preparation
/// targets, if there is one.
fn compare(options: &RunOptions, prep: &Preparation, step: &mut Step, base: Option<Recording>) {
    let a = &mut step.analysed;
    if let Some(base) = &base {
        step.mismatch = prep.environment.mismatch(&base.environment);
    }
    a.comparison = Some(Comparison::of(
        &prep.target,
        base.as_ref(),
        &a.recording,
        &options.thresholds,
    ));
    a.compared_with = base;
}

/// Stores the recording as the latest run (with the earlier runs it
/// learned from) and, where asked, as a baseline (with that baseline's
/// earlier runs, [`carry_earlier`]); a slot `stored` keeps (the target's,
/// unreadable: [`StoredRuns::keeps`]) is left as it is.
fn store(options: &RunOptions, prep: &Preparation, step: &mut Step, stored: &StoredRuns) {
    append_history(options, prep, step);
    let a = &step.analysed;
    if !stored.keeps(&Slot::Latest) {
        if let Err(err) = prep.store.save(&a.recording, &Slot::Latest, &a.result) {
            step.store_errors.push(err.to_string());
        }
        // A stored profile that could not be read is left as it is.
        let profile = a.recording.profile.as_ref();
        let profile = profile.filter(|_| !stored.keeps_profile(&Slot::Latest));
        let saved = profile.map(|p| prep.store.save_profile(&a.recording.id, p));
        if let Some(Err(err)) = saved {
            step.store_errors.push(err.to_string());
        }
    }
    let Some(name) = &options.save_baseline else {
        return;
    };
    let slot = Slot::Baseline(name.clone());
    if stored.keeps(&slot) {
        return;
    }
    // The target's run was read already: the step was compared with it.
    let prior = match slot == stored.target {
        true => a.compared_with.clone(),
        false => prep.store.load(&a.recording.id, &slot).ok().flatten(),
    };
    let mut recording = a.recording.clone();
    carry_earlier(prior.as_ref(), &mut recording, &options.thresholds);
    // With its profile, where the run took one: a new version of the
    // baseline never holds the profile of the run it replaces.
    let saved = match &prep.saving {
        Some(saving) => saving.save(&recording, &a.result).and_then(|()| {
            let profile = a.recording.profile.as_ref();
            profile.map_or(Ok(()), |p| saving.save_profile(&a.recording.id, p))
        }),
        None => prep.store.save(&recording, &slot, &a.result).map(drop),
    };
    if let Err(err) = saved {
        step.store_errors.push(err.to_string());
    }
}

/// Appends the run to the benchmark's history: every run that measured
/// it, paired runs too (they measure this build), whatever it compared with.
fn append_history(options: &RunOptions, prep: &Preparation, step: &mut Step) {
    let a = &step.analysed;
    let Some(run) = HistoryRun::of(a, options.given.quick) else {
        return;
    };
    match prep.store.append_history(&a.recording.id, &run) {
        Ok(0) => {}
        Ok(skipped) => stderr::warning(&format!(
            "{}: {} that {} no run of a history left out",
            prep.store.history_path(&a.recording.id).display(),
            count(skipped, "line"),
            if skipped == 1 { "was" } else { "were" }
        )),
        Err(err) => step.store_errors.push(err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comparison::{Target, Verdict};
    use crate::fixtures::touch_fresh_pages;
    use crate::run::cli::tests::parse_args as options;

    fn prep(root: &std::path::Path) -> Preparation {
        crate::run::preparation::tests::page_faults(root)
    }

    /// A fresh output folder for one test.
    fn temp_root(name: &str) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("perfbench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        root
    }

    /// Every round of one benchmark, then its conclusion.
    fn step(
        options: &RunOptions,
        prep: &mut Preparation,
        id: &str,
        bench: Routine<'_>,
    ) -> Result<Step, BenchFailure> {
        let job = Job {
            id,
            config: options.config.clone(),
            setup: SetupId::RUN,
        };
        let mut so_far = Rounds::default();
        measure_round(prep, (&job, bench), &mut so_far)?;
        while so_far.recording.as_ref().unwrap().round_count() < so_far.count(&job.config) as usize
        {
            measure_round(prep, (&job, bench), &mut so_far)?;
        }
        let mut recording = so_far.recording.expect("rounds were measured");
        recording.settings = Some(job.config.key());
        Ok(conclude(
            options,
            job.setup,
            prep,
            (recording, so_far.took),
            None,
        ))
    }

    fn touch_3(b: &mut Bencher<'_>) {
        b.iter(|| touch_fresh_pages(3));
    }

    fn touch_4(b: &mut Bencher<'_>) {
        b.iter(|| touch_fresh_pages(4));
    }

    #[test]
    fn a_step_records_analyses_compares_with_the_previous_run_and_stores() {
        let root = temp_root("step");
        let options = options(&["--bench", "--quick", "--sample-count", "10"]);
        let mut prep = prep(&root);

        let first = step(&options, &mut prep, "touch", &touch_3).unwrap();
        let a = &first.analysed;
        let faults = a.recording.series("page-faults").unwrap();
        let exact: Vec<u64> = a.recording.iterations.iter().map(|n| 3 * n).collect();
        assert_eq!(faults.totals, exact, "3 faults in every iteration");
        assert_eq!(a.result.metrics[1].stats.slope.point, 3.0);
        let comparison = a.comparison.as_ref().unwrap();
        assert_eq!(comparison.against, Target::PreviousRun);
        assert_eq!(comparison.changes, None, "nothing stored before");
        assert!(first.store_errors.is_empty());
        assert!(prep.store.path("touch", &Slot::Latest).is_file());

        let second = step(&options, &mut prep, "touch", &touch_4).unwrap();
        let a = &second.analysed;
        let change = a
            .comparison
            .as_ref()
            .unwrap()
            .change("page-faults")
            .unwrap();
        assert_eq!(change.change.relative, Some(1.0 / 3.0));
        assert_eq!(change.verdict, Verdict::Regressed);
        assert_eq!(a.compared_with.as_ref().unwrap().id, "touch");
        // Each run appended its headline (wall time: no instructions here)
        // to the history, as a --quick run.
        let history = prep.store.history("touch").unwrap();
        assert_eq!(history.runs.len(), 2);
        let last = &history.runs[1];
        assert_eq!(last.metric, "wall-time");
        // serde_json reads a float back within an ulp, not always to it.
        let (stored, measured) = (last.estimate, *a.result.metrics[0].estimate());
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * y.abs();
        assert!(
            close(stored.point, measured.point),
            "{stored:?} {measured:?}"
        );
        assert!(close(stored.ci.low, measured.ci.low) && close(stored.ci.high, measured.ci.high));
        assert_eq!((last.samples, last.quick), (a.recording.samples(), true));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_run_of_other_settings_in_between_neither_teaches_nor_breaks_the_spread() {
        let root = temp_root("settings");
        let options = options(&["--bench", "--quick", "--sample-count", "10"]);
        let mut prep = prep(&root);
        let first = step(&options, &mut prep, "touch", &touch_3).unwrap();
        let run = first.analysed.recording;
        assert_eq!(run.settings, Some(options.config.key()));
        let stored = prep.store.load("touch", &Slot::Latest).unwrap().unwrap();
        assert_eq!(stored.settings, run.settings, "stored with its settings");
        // A try-out of other settings is stored as the latest run, the run
        // before it kept as the previous one.
        let mut try_out = run.clone();
        try_out.settings = Some("10 samples in 2 rounds, warm-up 50 ms, measurement 1 ms".into());
        try_out.series[0].earlier = vec![1.0, 2.0];
        let result = crate::analysis::analyze(&try_out, &crate::analysis::Calibration::default());
        prep.store.save(&try_out, &Slot::Latest, &result).unwrap();
        // The same samples again with the first run's settings: they learn
        // from the first run, not from the try-out.
        let again = conclude(
            &options,
            SetupId::RUN,
            &prep,
            (run.clone(), Duration::ZERO),
            None,
        );
        let walls = &again.analysed.recording.series[0];
        assert_eq!(walls.earlier.len(), 1, "{walls:?}");
        let first_wall = first.analysed.result.metrics[0].estimate().point;
        assert_eq!(walls.earlier[0].to_bits(), first_wall.to_bits());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn fewer_samples_than_asked_are_warned_of_with_the_plan_and_the_remedy() {
        let config = measure::Config {
            warm_up: Duration::from_millis(50),
            measurement: Duration::from_millis(200),
            ..measure::Config::default()
        };
        let plan = |samples, step, rounds| SamplingPlan {
            shape: Shape::Flat,
            step,
            samples,
            rounds,
        };
        let costs = |inside, per_sample| Costs {
            inside,
            outside: 0.0,
            per_sample,
        };
        let slow = costs(300e6, 0.0);
        assert_eq!(
            fewer_samples_warning("x", &config, &plan(50, 1, 10), &slow),
            None
        );
        assert_eq!(
            fewer_samples_warning("x", &config, &plan(3, 1, 1), &slow).unwrap(),
            "perfbench: warning: `x` takes about 300.0 ms an iteration, and 50 samples of one \
             iteration do not fit its budget of 250.0 ms (warm-up and measurement time): \
             measuring 3 samples of 1 iteration in 1 round instead, about 900.0 ms; \
             --measurement-time 15.0 fits them all"
        );
        let huge = measure::Config {
            sample_count: 1_000_000,
            ..config
        };
        assert_eq!(
            fewer_samples_warning("x", &huge, &plan(100_000, 20, 10), &costs(5.0, 2000.0)).unwrap(),
            "perfbench: warning: `x` takes about 5.000 ns an iteration, and 1000000 samples are \
             more than the 100000 a benchmark keeps: measuring 100000 samples of 20 iterations \
             in 10 rounds instead, about 210.0 ms"
        );
        let linear = SamplingPlan {
            shape: Shape::Linear,
            ..plan(100_000, 1, 10)
        };
        let said = fewer_samples_warning("x", &huge, &linear, &costs(1.6, 0.0)).unwrap();
        assert!(
            said.contains(": measuring 100000 samples growing by 1 iteration in 10 rounds instead"),
            "{said}"
        );
    }

    #[test]
    fn a_damaged_stored_run_is_named_and_left_as_it_is() {
        let root = temp_root("damaged");
        let options = options(&["--bench", "--quick", "--sample-count", "3"]);
        let mut prep = prep(&root);
        let latest = prep.store.path("touch", &Slot::Latest);
        std::fs::create_dir_all(latest.parent().unwrap()).unwrap();
        std::fs::write(&latest, "{ not json").unwrap();

        let s = step(&options, &mut prep, "touch", &touch_3).unwrap();
        assert_eq!(s.analysed.comparison, None);
        assert_eq!(s.store_errors.len(), 1);
        assert!(
            s.store_errors[0].contains("latest.json"),
            "{:?}",
            s.store_errors
        );
        assert_eq!(std::fs::read_to_string(&latest).unwrap(), "{ not json");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_panicking_benchmark_is_an_error_and_leaves_no_group_running() {
        let root = temp_root("panics");
        let options = options(&["--bench", "--quick"]);
        let mut prep = prep(&root);
        let why = step(&options, &mut prep, "boom", &|b| {
            b.iter(|| -> u64 { panic!("deliberate") })
        })
        .err()
        .unwrap();
        let BenchFailure::Panicked(panic) = &why else {
            panic!("{why:?}");
        };
        assert!(panic.0.contains("deliberate"), "{why}");
        let before = prep.setup_mut(SetupId::RUN).counter_groups[0]
            .0
            .read()
            .unwrap()
            .values[0];
        touch_fresh_pages(2);
        assert_eq!(
            prep.setup_mut(SetupId::RUN).counter_groups[0]
                .0
                .read()
                .unwrap()
                .values[0],
            before
        );
        assert!(!root.exists(), "nothing stored for a failed benchmark");
    }
}
