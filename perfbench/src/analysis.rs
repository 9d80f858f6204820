//! From a measurement's samples to per-iteration figures per metric.

use crate::event::{Event, Unit};
use crate::measure::{Measurement, Throughput};
use crate::stats::{analyze_metric, Bootstrap, Statistics};
use crate::sys;

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
    }];
    for (i, event) in events.iter().enumerate() {
        let y: Vec<u64> = m.samples.iter().map(|s| s.counts.values[i]).collect();
        metrics.push(Metric {
            name: event.name.clone(),
            unit: event.unit,
            stats: analyze_metric(&x, &y, &bootstrap),
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
    use crate::event::parse_list;
    use crate::group::Counts;
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
