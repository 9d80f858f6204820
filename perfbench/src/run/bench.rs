//! One benchmark's step of a run: measure, record, analyse, compare with the
//! stored run, and store.

use std::time::{Duration, Instant};

use crate::analysis::compare::{compare_runs, Comparison};
use crate::analysis::{analyze, Analysed, Recording};
use crate::counter::group::{self, Groups};
use crate::measure::{self, Bencher, MeasureError};
use crate::run::cli::Options;
use crate::run::panics::catch;
use crate::run::plan::Plan;
use crate::stats::Bootstrap;
use crate::store::Slot;

/// What one benchmark's step produced.
pub struct Step {
    /// The benchmark, analysed and compared.
    pub analysed: Analysed,
    /// How long measuring it took.
    pub took: Duration,
    /// Stored files that could not be read or written, each named.
    pub store_errors: Vec<String>,
    /// Why the stored run it was compared with may not be comparable.
    pub mismatch: Option<String>,
}

/// Runs one benchmark's step; `Err` says why it failed (a panic, or a
/// measurement error).
pub fn step(
    options: &Options,
    plan: &mut Plan,
    id: &str,
    bench: fn(&mut Bencher<'_>),
) -> Result<Step, String> {
    let started = Instant::now();
    let recording = record(options, plan, id, bench)?;
    let took = started.elapsed();
    let result = analyze(&recording, &plan.calibration);
    let mut step = Step {
        analysed: Analysed {
            recording,
            result,
            comparison: None,
            baseline: None,
        },
        took,
        store_errors: Vec::new(),
        mismatch: None,
    };
    compare(options, plan, &mut step);
    store(options, plan, &mut step);
    Ok(step)
}

/// Measures the benchmark, one pass per counter group, and records it.
fn record(
    options: &Options,
    plan: &mut Plan,
    id: &str,
    bench: fn(&mut Bencher<'_>),
) -> Result<Recording, String> {
    let outcome = catch(|| measure_passes(options, &mut plan.groups, bench));
    // A panic may have left a group running.
    for (group, _) in &plan.groups {
        let _ = group.disable();
    }
    let (m, per_iter) = match outcome {
        Ok(Ok(measured)) => measured,
        Ok(Err(err)) => return Err(format!(": {err}")),
        Err(panic) => return Err(format!(" {panic}")),
    };
    let mut recording = Recording::new(id, &plan.events, &m, plan.environment.clone());
    if plan.groups.len() > 1 {
        recording.groups = group::names(&plan.groups, &plan.events);
    }
    if let Some((path, multiplexed)) = per_iter {
        recording.read_path = Some(path);
        recording.multiplexed_samples = multiplexed;
    }
    Ok(recording)
}

/// How per-iteration mode read the counters, and in how many samples the
/// group was multiplexed.
type PerIterFacts = Option<(group::ReadPath, usize)>;

/// Measures one benchmark in the mode asked for, one pass per group.
fn measure_passes(
    options: &Options,
    groups: &mut Groups,
    bench: fn(&mut Bencher<'_>),
) -> Result<(measure::Measurement, PerIterFacts), MeasureError> {
    if options.per_iter {
        let pm = measure::measure_per_iter(&options.config, &mut groups[0].0, bench)?;
        let facts = (pm.read_path, pm.multiplexed as usize);
        return Ok((pm.as_measurement(), Some(facts)));
    }
    let mut passes = groups.iter_mut();
    let (first, _) = passes.next().expect("at least one group");
    let mut m = measure::measure(&options.config, first, bench)?;
    // Later passes take the first pass's step, so their samples line up.
    let step = m.samples.first().map(|s| s.iterations);
    for (group, _) in passes {
        m.merge_pass(&measure::measure_with_step(
            &options.config,
            group,
            step,
            bench,
        )?);
    }
    Ok((m, None))
}

/// Compares the step's recording with the stored run the plan targets.
fn compare(options: &Options, plan: &Plan, step: &mut Step) {
    let a = &mut step.analysed;
    let base = match plan.store.load(&a.recording.id, &Slot::from(&plan.target)) {
        Ok(base) => base,
        Err(err) => {
            step.store_errors.push(err.to_string());
            return;
        }
    };
    let changes = base.as_ref().map(|base| {
        step.mismatch = plan.environment.mismatch(&base.environment);
        compare_runs(
            base,
            &a.recording,
            &options.thresholds,
            &Bootstrap::default(),
        )
    });
    a.comparison = Some(Comparison {
        against: plan.target.clone(),
        changes,
    });
    a.baseline = base;
}

/// Stores the recording as the latest run and, where asked, as a baseline;
/// a stored run that could not be read is left as it is.
fn store(options: &Options, plan: &Plan, step: &mut Step) {
    let a = &step.analysed;
    let mut slots = vec![Slot::Latest];
    if a.comparison.is_none() {
        slots.retain(|s| *s != Slot::from(&plan.target));
    }
    if let Some(name) = &options.save_baseline {
        slots.push(Slot::Baseline(name.clone()));
    }
    for slot in &slots {
        if let Err(err) = plan.store.save(&a.recording, slot, &a.result) {
            step.store_errors.push(err.to_string());
        }
    }
}
