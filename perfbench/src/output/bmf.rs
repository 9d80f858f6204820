//! Bencher Metric Format (`--output-format bmf`): one JSON object for the
//! run, read by `bencher run --adapter json`. Each key is a benchmark id
//! and each of its keys a Bencher measure, so the format holds no run
//! metadata (the commit and branch go to `bencher run --hash --branch`).
//!
//! Measures: `latency` (Bencher's own, nanoseconds) for the wall time per
//! iteration; every event under its perf name (`instructions`,
//! `page-faults`, `allocs`) per iteration; the derived ratios under their
//! names in kebab case (`ipc`, `branch-miss-rate`); and a declared
//! throughput as `bytes-per-second` or `elements-per-second` (Bencher's
//! `throughput` is operations per second). Bencher makes a measure the
//! first time a report names it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::destination::Destination;
use crate::analysis::derived::{declared_work, rate};
use crate::analysis::{Analysed, MetricKey, ResultView, WALL_TIME};
use crate::measure::Throughput;
use crate::stats::Estimate;
use crate::store::StoreError;

/// Bencher's measure of time per iteration, in nanoseconds.
pub const LATENCY: &str = "latency";

/// One measure of one benchmark: its value and, where known, the 95 %
/// interval around it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BmfMetric {
    /// The headline figure.
    pub value: f64,
    /// The interval's low end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_value: Option<f64>,
    /// The interval's high end (none where it is open).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper_value: Option<f64>,
}

impl BmfMetric {
    /// An estimate as a metric, its interval stretched to hold the value
    /// (a headline over all samples may lie just outside its rounds'
    /// interval) and an infinite end left out; `None` for no finite value.
    fn of(e: &Estimate) -> Option<BmfMetric> {
        let finite = |v: f64| Some(v).filter(|v| v.is_finite());
        finite(e.point).map(|value| BmfMetric {
            value,
            lower_value: finite(e.ci.low.min(value)),
            upper_value: finite(e.ci.high.max(value)),
        })
    }
}

/// The slug of a declared throughput's measure: `bytes-per-second`,
/// `elements-per-second`.
pub fn throughput_measure(work: Throughput) -> String {
    format!("{}s-per-second", work.noun())
}

/// Every measure of one benchmark, by name.
pub fn measures(r: ResultView<'_>) -> BTreeMap<String, BmfMetric> {
    let mut out = BTreeMap::new();
    for m in &r.metrics {
        let name = if m.name == WALL_TIME {
            LATENCY
        } else {
            &m.name
        };
        if let Some(metric) = BmfMetric::of(m.estimate()) {
            out.insert(name.to_string(), metric);
        }
    }
    // Per byte or element is each metric over a constant: no news.
    let work = declared_work(r.recording.throughput);
    let per_unit = |name: &str| {
        work.is_some_and(|w| {
            matches!(MetricKey::named(name), MetricKey::PerUnit { noun, .. } if noun == w.noun())
        })
    };
    for (name, value) in r.derived.iter().filter(|(n, _)| !per_unit(n)) {
        if value.is_finite() {
            let metric = BmfMetric {
                value: *value,
                lower_value: None,
                upper_value: None,
            };
            out.insert(name.to_lowercase().replace(' ', "-"), metric);
        }
    }
    if let Some(rate) = rate(r) {
        if let Some(metric) = BmfMetric::of(&rate.per_second) {
            out.insert(throughput_measure(rate.work), metric);
        }
    }
    out
}

/// The run's BMF object, printed or written when the run ends.
pub struct BmfSink {
    out: Destination,
    benchmarks: BTreeMap<String, BTreeMap<String, BmfMetric>>,
}

impl BmfSink {
    /// An empty object bound for `out`.
    pub fn new(out: Destination) -> BmfSink {
        BmfSink {
            out,
            benchmarks: BTreeMap::new(),
        }
    }

    /// Adds one benchmark's measures.
    pub fn benchmark(&mut self, a: &Analysed) {
        self.benchmarks
            .insert(a.recording.id.clone(), measures(a.view()));
    }

    /// Prints or writes the object.
    pub fn finish(mut self) -> Result<(), StoreError> {
        self.out.line(&render(&self.benchmarks));
        self.out.finish()
    }
}

/// The object as indented JSON.
fn render(benchmarks: &BTreeMap<String, BTreeMap<String, BmfMetric>>) -> String {
    // A map of strings to numbers: serde_json has nothing to refuse.
    serde_json::to_string_pretty(benchmarks).expect("a map of numbers serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::exact_result;
    use crate::counter::event::Unit;

    #[test]
    fn every_metric_becomes_a_measure_with_its_interval() {
        let mut r = exact_result(
            "copy/64",
            &[
                ("wall-time", Unit::Nanoseconds, 32.0),
                ("instructions", Unit::Count, 100.0),
                ("cycles", Unit::Count, 40.0),
            ],
        );
        r.recording.throughput = Some(Throughput::Bytes(64));
        r.result.derived = vec![
            ("IPC".into(), 2.5),
            ("wall-time/byte".into(), 0.5),
            ("instructions/byte".into(), 1.5625),
        ];
        let text = render(&BTreeMap::from([(
            "copy/64".to_string(),
            measures(r.view()),
        )]));
        let expected = r#"{
  "copy/64": {
    "bytes-per-second": {
      "value": 2000000000.0,
      "lower_value": 2000000000.0,
      "upper_value": 2000000000.0
    },
    "cycles": {
      "value": 40.0,
      "lower_value": 40.0,
      "upper_value": 40.0
    },
    "instructions": {
      "value": 100.0,
      "lower_value": 100.0,
      "upper_value": 100.0
    },
    "ipc": {
      "value": 2.5
    },
    "latency": {
      "value": 32.0,
      "lower_value": 32.0,
      "upper_value": 32.0
    }
  }
}"#;
        assert_eq!(text, expected);
    }

    #[test]
    fn an_open_end_is_left_out_and_the_value_stays_inside_its_bounds() {
        let mut e = Estimate {
            point: 5.0,
            ci: crate::stats::Interval {
                low: 5.5,
                high: f64::INFINITY,
            },
        };
        let m = BmfMetric::of(&e).unwrap();
        assert_eq!((m.lower_value, m.upper_value), (Some(5.0), None));
        e.point = f64::NAN;
        assert_eq!(BmfMetric::of(&e), None);
    }
}
