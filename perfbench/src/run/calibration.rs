//! The measurement's own cost: an empty routine measured with a setup's
//! counter groups, in its mode, through each `Bencher` method the benchmarks use
//! ([`Calibration`]), subtracted from their results where asked.

use std::time::Duration;

use crate::analysis::{self, overhead, Calibration, Recording};
use crate::counter::event::Event;
use crate::counter::group::{CounterGroup, Groups};
use crate::measure::environment::Environment;
use crate::measure::{self, Method};
use crate::run::cli::RunOptions;
use crate::run::setup::Setup;
use crate::run::setup_error::CalibrationError;
use crate::stats::Statistics;

/// Measures the cost of measuring with `setup` through `iter`
/// (`calibrate`) into it.
pub fn calibrate_setup(options: &RunOptions, setup: &mut Setup) -> Result<(), CalibrationError> {
    let per_iter = (setup.per_iter, Method::Iter);
    setup.calibration = calibrate(options, per_iter, &mut setup.counter_groups, &setup.events)?;
    Ok(())
}

/// Measures the cost of measuring with `setup` through `method` into it,
/// unless it holds it already. Only methods that selected benchmarks use
/// are calibrated, once each: most use `iter` alone, and then the run
/// costs no more.
pub fn calibrate_method(
    options: &RunOptions,
    setup: &mut Setup,
    method: Method,
) -> Result<(), CalibrationError> {
    if method == Method::Iter || setup.methods.iter().any(|c| c.method == method) {
        return Ok(());
    }
    let how = (setup.per_iter, method);
    let calibration = calibrate(options, how, &mut setup.counter_groups, &setup.events)?;
    setup.methods.push(calibration);
    Ok(())
}

/// The measurement's own cost, from an empty routine measured in the same
/// mode (per iteration or not) through the same method, with the same
/// counter groups.
fn calibrate(
    options: &RunOptions,
    (per_iter, method): (bool, Method),
    counter_groups: &mut Groups,
    events: &[Event],
) -> Result<Calibration, CalibrationError> {
    let config = measure::Config {
        warm_up: options.config.warm_up.min(Duration::from_millis(50)),
        measurement: options.config.measurement.min(Duration::from_millis(100)),
        sample_count: options.config.sample_count,
        rounds: 1,
    };
    let mut calibration = Calibration {
        per_iter,
        subtract: options.subtract_overhead,
        method,
        ..Calibration::default()
    };
    for (pass, (group, range)) in counter_groups.iter_mut().enumerate() {
        let events = &events[range.clone()];
        // Wall time is the first pass's, as in the measurement.
        let first = usize::from(pass > 0);
        if per_iter {
            // Iterations the kernel disturbed measure the kernel, not the
            // reads: one retried read in 9,000 moved the mean bracket by
            // 0.0002 instructions on the emulated PMU.
            let (pm, _) = measure::calibrate_per_iter(&config, group, method)?.without_disturbed();
            let mut r = empty_recording(events, &pm.as_measurement());
            r.read_path = Some(pm.read_path);
            calibration
                .empty
                .extend(statistics(&r).into_iter().skip(first));
            continue;
        }
        let (empty, per_sample) = batch_pass(&config, group, events, method)?;
        calibration
            .per_sample
            .extend(per_sample.into_iter().skip(first));
        calibration.empty.extend(empty.into_iter().skip(first));
    }
    Ok(calibration)
}

/// One pass of a batch-mode calibration through `method` with `group`
/// counting `events`: the statistics of the empty routine's loop, and the
/// cost per sample.
fn batch_pass(
    config: &measure::Config,
    group: &mut CounterGroup,
    events: &[Event],
    method: Method,
) -> Result<PassCosts, CalibrationError> {
    let r = empty_recording(events, &measure::calibrate(config, group, method)?);
    let empty = statistics(&r);
    // Samples of one, two, … empty iterations show the cost per sample
    // undisturbed by long runs of the loop; the loop run just before
    // warmed everything up.
    // No measurement time makes the step 1; the millisecond of warm-up
    // is the budget that lets the plan keep them linear.
    let short = measure::Config {
        warm_up: Duration::from_millis(1),
        measurement: Duration::ZERO,
        ..config.clone()
    };
    let r = empty_recording(events, &measure::calibrate(&short, group, method)?);
    let per_sample = overhead::per_sample(&r, &empty);
    Ok((empty, per_sample))
}

/// A batch-mode pass's empty-routine statistics and cost per sample, per
/// metric.
type PassCosts = (Vec<(String, Statistics)>, Vec<(String, f64)>);

/// The statistics of each metric of an empty routine's recording, its
/// slope the fit's headline: where a preempted sample made the fit poor,
/// the robust slope, as for every benchmark (on a busy machine one such
/// sample gave an empty `iter_batched` loop a least-squares slope of
/// 644 ns, and every benchmark of that method lost it).
fn statistics(r: &Recording) -> Vec<(String, Statistics)> {
    let result = analysis::analyze(r, &Calibration::default());
    result
        .metrics
        .into_iter()
        .map(|m| {
            let mut stats = m.stats.clone();
            stats.slope = *m.estimate();
            (m.name, stats)
        })
        .collect()
}

/// The recording of the empty routine's measurement.
fn empty_recording(events: &[Event], m: &measure::Measurement) -> Recording {
    Recording::new("(empty)", events, m, Environment::default())
}
