//! From a measurement's samples to per-iteration figures per metric.

pub mod compare;

use crate::counter::event::{Event, Scale, Unit};
use crate::counter::group::ReadPath;
use crate::kernel::sys;
use crate::measure::{Measurement, Throughput};
use crate::stats::{analyze_metric, Bootstrap, Statistics};

/// The key and unit of the wall-time metric, which every run has.
pub const WALL_TIME: &str = "wall-time";

/// One metric of one benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    /// The event as the user wrote it, or [`WALL_TIME`].
    pub name: String,
    /// The unit of the values.
    pub unit: Unit,
    /// Per-iteration figures with their confidence intervals.
    pub stats: Statistics,
    /// The PMU's `.scale` and `.unit` for the event, applied where the
    /// figures are shown; the statistics stay in raw counts.
    pub scale: Option<Scale>,
}

/// The analysed result of one benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// The benchmark's id.
    pub id: String,
    /// Number of samples.
    pub samples: usize,
    /// Iterations over all samples.
    pub iterations: u64,
    /// Wall time first, then one metric per event in the order given.
    pub metrics: Vec<Metric>,
    /// Ratios of metrics where their inputs were measured: `IPC`,
    /// `branch-miss rate`, `cache-miss rate`, and each metric per byte or per
    /// element (`wall-time/byte`) where the benchmark declared a throughput.
    pub derived: Vec<(String, f64)>,
    /// Samples in which the kernel multiplexed the group (`time_running <
    /// time_enabled`); their counts are not scaled.
    pub multiplexed_samples: usize,
    /// The throughput the benchmark declared.
    pub throughput: Option<Throughput>,
    /// In per-iteration mode, how the counters were read around each
    /// iteration; `None` in batch mode.
    pub read_path: Option<ReadPath>,
    /// The events measured together, one pass per group, where they did not
    /// fit one group; empty otherwise.
    pub groups: Vec<Vec<String>>,
    /// The measurement's own cost per iteration and the raw estimate, per
    /// metric; with `--subtract-overhead` it was taken off `metrics`.
    pub overhead: Vec<Overhead>,
}

/// Analyses `m`, whose counts are in the order of `events`.
pub fn analyze(id: &str, events: &[Event], m: &Measurement) -> BenchResult {
    let bootstrap = Bootstrap::default();
    let x: Vec<u64> = m.samples.iter().map(|s| s.iterations).collect();
    let wall: Vec<u64> = m.samples.iter().map(|s| s.wall_ns).collect();
    let mut metrics = vec![Metric {
        name: WALL_TIME.to_string(),
        unit: Unit::Nanoseconds,
        stats: analyze_metric(&x, &wall, &bootstrap),
        scale: None,
    }];
    for (i, event) in events.iter().enumerate() {
        let y: Vec<u64> = m.samples.iter().map(|s| s.counts.values[i]).collect();
        metrics.push(Metric {
            name: event.name.clone(),
            unit: event.unit,
            stats: analyze_metric(&x, &y, &bootstrap),
            scale: event.scale.clone(),
        });
    }
    BenchResult {
        id: id.to_string(),
        samples: m.samples.len(),
        iterations: x.iter().sum(),
        derived: derived(events, &metrics, m.throughput),
        metrics,
        multiplexed_samples: m
            .samples
            .iter()
            .filter(|s| s.counts.time_running < s.counts.time_enabled)
            .count(),
        throughput: m.throughput,
        read_path: None,
        groups: Vec::new(),
        overhead: Vec::new(),
    }
}

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

/// The measurement's own cost per iteration, per metric, from a
/// calibration run on an empty routine: the slope in batch mode (what an
/// empty iteration costs; the per-sample cost is already in the intercept),
/// the median in per-iteration mode (the cost of one bracket of reads).
pub fn overhead(calibration: &BenchResult) -> Vec<(String, f64)> {
    calibration
        .metrics
        .iter()
        .map(|m| {
            let per_iteration = match calibration.read_path {
                Some(_) => m.stats.median.point,
                None => m.stats.slope.point,
            };
            (m.name.clone(), per_iteration.max(0.0))
        })
        .collect()
}

/// Records `overhead` with `result` so that reports show it, and with
/// `subtract` takes it off every location statistic (never below zero),
/// keeping the raw estimate.
pub fn apply_overhead(result: &mut BenchResult, overhead: &[(String, f64)], subtract: bool) {
    for m in &mut result.metrics {
        let Some(&(_, o)) = overhead.iter().find(|(n, _)| *n == m.name) else {
            continue;
        };
        result.overhead.push(Overhead {
            metric: m.name.clone(),
            per_iteration: o,
            raw_estimate: m.stats.slope.point,
        });
        if !subtract {
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

const CYCLES: u64 = 0;
const INSTRUCTIONS: u64 = 1;
const CACHE_REFERENCES: u64 = 2;
const CACHE_MISSES: u64 = 3;
const BRANCHES: u64 = 4;
const BRANCH_MISSES: u64 = 5;

/// The ratios of generalized hardware events perfbench derives: name,
/// numerator, denominator.
const RATIOS: &[(&str, u64, u64)] = &[
    ("IPC", INSTRUCTIONS, CYCLES),
    ("branch-miss rate", BRANCH_MISSES, BRANCHES),
    ("cache-miss rate", CACHE_MISSES, CACHE_REFERENCES),
];

/// The positions of the first generalized hardware events `numerator` and
/// `denominator` in `events`, if both are there and count the same
/// privilege levels.
pub fn ratio_pair(events: &[Event], numerator: u64, denominator: u64) -> Option<(usize, usize)> {
    let find = |config: u64| {
        events
            .iter()
            .position(|e| e.attr.kind == sys::TYPE_HARDWARE && e.attr.config == config)
    };
    let (n, d) = (find(numerator)?, find(denominator)?);
    let levels = |e: &Event| {
        (
            e.attr.exclude_user,
            e.attr.exclude_kernel,
            e.attr.exclude_hv,
        )
    };
    (levels(&events[n]) == levels(&events[d])).then_some((n, d))
}

/// Whether `events` yield an IPC.
pub fn has_ipc(events: &[Event]) -> bool {
    ratio_pair(events, INSTRUCTIONS, CYCLES).is_some()
}

/// The derived metrics of [`BenchResult::derived`]; `metrics` holds wall
/// time first, then one metric per event.
fn derived(
    events: &[Event],
    metrics: &[Metric],
    throughput: Option<Throughput>,
) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for &(name, numerator, denominator) in RATIOS {
        if let Some((n, d)) = ratio_pair(events, numerator, denominator) {
            let below = metrics[d + 1].stats.slope.point;
            if below > 0.0 {
                out.push((name.to_string(), metrics[n + 1].stats.slope.point / below));
            }
        }
    }
    let per = match throughput {
        Some(Throughput::Bytes(n)) => Some(("byte", n)),
        Some(Throughput::Elements(n)) => Some(("element", n)),
        None => None,
    };
    if let Some((unit, amount)) = per.filter(|&(_, n)| n > 0) {
        for m in metrics {
            out.push((
                format!("{}/{unit}", m.name),
                m.stats.slope.point / amount as f64,
            ));
        }
    }
    out
}

/// A derived metric by name.
pub fn derived_value(result: &BenchResult, name: &str) -> Option<f64> {
    result
        .derived
        .iter()
        .find(|(n, _)| n == name)
        .map(|&(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::event::parse_list;
    use crate::counter::group::Counts;
    use crate::measure::Sample;

    fn sample(iterations: u64, wall_ns: u64, values: Vec<u64>, running: u64) -> Sample {
        Sample {
            iterations,
            wall_ns,
            counts: Counts {
                time_enabled: 100,
                time_running: running,
                values,
            },
        }
    }

    #[test]
    fn metrics_follow_the_events_and_ipc_divides_instructions_by_cycles() {
        let events = parse_list("instructions,cycles").unwrap();
        let m = Measurement {
            samples: vec![
                sample(1, 10, vec![30, 20], 100),
                sample(2, 20, vec![60, 40], 90),
            ],
            throughput: None,
        };
        let r = analyze("x", &events, &m);
        let names: Vec<_> = r.metrics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["wall-time", "instructions", "cycles"]);
        assert_eq!(r.metrics[1].stats.slope.point, 30.0);
        assert_eq!(derived_value(&r, "IPC"), Some(1.5));
        assert_eq!(r.iterations, 3);
        assert_eq!(r.multiplexed_samples, 1);
    }

    #[test]
    fn overhead_is_subtracted_never_below_zero_and_the_raw_value_kept() {
        let events = parse_list("page-faults").unwrap();
        let m = Measurement {
            samples: vec![
                sample(1, 10, vec![2], 100),
                sample(2, 20, vec![4], 100),
                sample(3, 30, vec![6], 100),
            ],
            throughput: None,
        };
        let mut r = analyze("x", &events, &m);
        let empty = analyze("empty", &events, &m);
        assert_eq!(
            overhead(&empty),
            [
                ("wall-time".to_string(), 10.0),
                ("page-faults".to_string(), 2.0)
            ]
        );
        let mut untouched = r.clone();
        apply_overhead(&mut untouched, &[("wall-time".into(), 4.0)], false);
        assert_eq!(untouched.metrics, r.metrics);
        assert_eq!(untouched.overhead[0].per_iteration, 4.0);
        apply_overhead(
            &mut r,
            &[("wall-time".into(), 4.0), ("page-faults".into(), 5.0)],
            true,
        );
        assert_eq!(r.metrics[0].stats.slope.point, 6.0);
        assert_eq!(r.metrics[0].stats.min, 6.0);
        assert_eq!(r.metrics[1].stats.slope.point, 0.0, "never below zero");
        assert_eq!(
            r.overhead[1],
            Overhead {
                metric: "page-faults".into(),
                per_iteration: 5.0,
                raw_estimate: 2.0
            }
        );
    }

    #[test]
    fn miss_rates_and_per_byte_figures() {
        let events = parse_list("branches,branch-misses,cache-references,cache-misses").unwrap();
        let m = Measurement {
            samples: vec![
                sample(1, 40, vec![200, 10, 50, 5], 100),
                sample(2, 80, vec![400, 20, 100, 10], 100),
            ],
            throughput: Some(Throughput::Bytes(8)),
        };
        let r = analyze("x", &events, &m);
        assert_eq!(derived_value(&r, "branch-miss rate"), Some(0.05));
        assert_eq!(derived_value(&r, "cache-miss rate"), Some(0.1));
        assert_eq!(derived_value(&r, "IPC"), None);
        assert_eq!(derived_value(&r, "wall-time/byte"), Some(5.0));
        assert_eq!(derived_value(&r, "branches/byte"), Some(25.0));
    }

    #[test]
    fn no_ipc_without_both_events_or_across_privilege_levels() {
        let m = Measurement {
            samples: vec![sample(1, 10, vec![30, 20], 100)],
            throughput: None,
        };
        let r = analyze("x", &parse_list("instructions:u,cycles:uk").unwrap(), &m);
        assert_eq!(derived_value(&r, "IPC"), None);
        let r = analyze("x", &parse_list("instructions,branches").unwrap(), &m);
        assert!(r.derived.is_empty());
    }
}
