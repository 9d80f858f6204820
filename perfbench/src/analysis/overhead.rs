//! The measurement's own cost: calibrated on an empty routine, recorded
//! with every result, and subtracted where asked.

use super::BenchResult;

/// What `--subtract-overhead` took off one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Overhead {
    /// The metric.
    pub metric: String,
    /// The calibrated cost per iteration.
    pub per_iteration: f64,
    /// The estimate before the subtraction.
    pub raw_estimate: f64,
}

/// The measurement's own cost per iteration of each metric, and whether to
/// take it off the figures (`--subtract-overhead`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Calibration {
    /// The cost per iteration, per metric.
    pub per_iteration: Vec<(String, f64)>,
    /// Whether to take it off every location statistic.
    pub subtract: bool,
}

/// The measurement's own cost per iteration, per metric, from the analysis
/// of a run of an empty routine: the slope in batch mode (what an empty
/// iteration costs; the per-sample cost is already in the intercept), the
/// median in per-iteration mode (the cost of one bracket of reads).
pub fn per_iteration(empty: &BenchResult) -> Vec<(String, f64)> {
    empty
        .metrics
        .iter()
        .map(|m| {
            let per_iteration = match empty.read_path {
                Some(_) => m.stats.median.point,
                None => m.stats.slope.point,
            };
            (m.name.clone(), per_iteration.max(0.0))
        })
        .collect()
}

/// Records the calibrated cost with `result` so that outputs show it, and
/// where asked takes it off every location statistic (never below zero),
/// keeping the raw estimate.
pub(crate) fn apply(result: &mut BenchResult, calibration: &Calibration) {
    for m in &mut result.metrics {
        let cost = calibration.per_iteration.iter().find(|(n, _)| *n == m.name);
        let Some(&(_, o)) = cost else {
            continue;
        };
        result.overhead.push(Overhead {
            metric: m.name.clone(),
            per_iteration: o,
            raw_estimate: m.stats.slope.point,
        });
        if !calibration.subtract {
            continue;
        }
        let s = &mut m.stats;
        let less = |v: f64| (v - o).max(0.0);
        for e in [&mut s.slope, &mut s.mean, &mut s.median] {
            e.point = less(e.point);
            e.ci.low = less(e.ci.low);
            e.ci.high = less(e.ci.high);
        }
        s.min = less(s.min);
        s.max = less(s.max);
        s.quartiles = (less(s.quartiles.0), less(s.quartiles.1));
    }
}
