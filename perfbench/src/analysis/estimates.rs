//! The per-iteration estimates of each metric as every JSON writer writes
//! them, stored result files (`store/json/result_file.rs`) and JSON lines
//! (`output/json_lines.rs`, which add a metric's change and the cost of
//! measuring it): one object per metric, keyed by its name, a view of the
//! result borrowed from it. Written, never read back. Fields are declared
//! in the order of their names, the order perfbench has always written
//! them in.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{BenchResult, Fit, Metric};
use crate::stats::Estimate;

/// An interval as JSON: `[low, high]`.
type Pair = [f64; 2];

/// One metric's estimates.
#[derive(Clone, Debug, Serialize)]
pub struct MetricEstimates<'a> {
    ci: Pair,
    estimate: f64,
    estimator: &'static str,
    intercept: f64,
    mad: f64,
    mad_ci: Pair,
    max: f64,
    mean: f64,
    mean_ci: Pair,
    median: f64,
    median_ci: Pair,
    min: f64,
    outliers: BTreeMap<&'static str, usize>,
    p25: f64,
    p75: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    poor_fit: Option<String>,
    r_squared: f64,
    rounds: &'a [f64],
    #[serde(skip_serializing_if = "Option::is_none")]
    scaled: Option<Scaled<'a>>,
    slope: f64,
    slope_ci: Pair,
    std_dev: f64,
    std_dev_ci: Pair,
    unit: &'static str,
}

/// A metric's figures in a PMU's own unit (`.scale`, `.unit`).
#[derive(Clone, Debug, Serialize)]
struct Scaled<'a> {
    ci: Pair,
    estimate: f64,
    factor: f64,
    max: f64,
    median: f64,
    min: f64,
    unit: &'a str,
}

/// The estimates of every metric of `result`, keyed by name.
pub fn estimates(result: &BenchResult) -> BTreeMap<String, MetricEstimates<'_>> {
    result
        .metrics
        .iter()
        .map(|m| (m.name.clone(), metric_record(m)))
        .collect()
}

/// `[low, high]` of an estimate's interval.
fn ci(e: &Estimate) -> Pair {
    [e.ci.low, e.ci.high]
}

/// One metric's estimates.
fn metric_record(m: &Metric) -> MetricEstimates<'_> {
    let s = &m.stats;
    let e = m.estimate();
    let o = &s.outliers;
    MetricEstimates {
        ci: ci(e),
        estimate: e.point,
        estimator: m.estimator(),
        intercept: s.intercept,
        mad: s.mad.point,
        mad_ci: ci(&s.mad),
        max: s.max,
        mean: s.mean.point,
        mean_ci: ci(&s.mean),
        median: s.median.point,
        median_ci: ci(&s.median),
        min: s.min,
        outliers: BTreeMap::from([
            ("high_mild", o.high_mild),
            ("high_severe", o.high_severe),
            ("low_mild", o.low_mild),
            ("low_severe", o.low_severe),
        ]),
        p25: s.quartiles.0,
        p75: s.quartiles.1,
        poor_fit: match &m.fit {
            Fit::Good | Fit::Rare { .. } | Fit::Median { .. } => None,
            Fit::Poor { why, .. } => Some(why.describe()),
        },
        r_squared: s.r_squared,
        rounds: &m.rounds.rounds,
        scaled: m.scale.as_ref().map(|sc| Scaled {
            ci: [e.ci.low * sc.factor, e.ci.high * sc.factor],
            estimate: e.point * sc.factor,
            factor: sc.factor,
            max: s.max * sc.factor,
            median: s.median.point * sc.factor,
            min: s.min * sc.factor,
            unit: &sc.unit,
        }),
        slope: s.slope.point,
        slope_ci: ci(&s.slope),
        std_dev: s.std_dev.point,
        std_dev_ci: ci(&s.std_dev),
        unit: m.unit.symbol(),
    }
}
