//! From a measurement's samples to per-iteration figures per metric.

use crate::event::{Event, Unit};
use crate::measure::{Measurement, Throughput};
use crate::stats::{summarize, Summary};
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
    /// Per-iteration figures.
    pub summary: Summary,
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
    /// Instructions per cycle, where both were counted.
    pub ipc: Option<f64>,
    /// Samples in which the kernel multiplexed the group (`time_running <
    /// time_enabled`); their counts are not scaled.
    pub multiplexed_samples: usize,
    /// The throughput the benchmark declared.
    pub throughput: Option<Throughput>,
}

/// Analyses `m`, whose counts are in the order of `events`.
pub fn analyze(id: &str, events: &[Event], m: &Measurement) -> BenchResult {
    let x: Vec<u64> = m.samples.iter().map(|s| s.iterations).collect();
    let wall: Vec<u64> = m.samples.iter().map(|s| s.wall_ns).collect();
    let mut metrics = vec![Metric {
        name: WALL_TIME.to_string(),
        unit: Unit::Nanoseconds,
        summary: summarize(&x, &wall),
    }];
    for (i, event) in events.iter().enumerate() {
        let y: Vec<u64> = m.samples.iter().map(|s| s.counts.values[i]).collect();
        metrics.push(Metric {
            name: event.name.clone(),
            unit: event.unit,
            summary: summarize(&x, &y),
        });
    }
    BenchResult {
        id: id.to_string(),
        samples: m.samples.len(),
        iterations: x.iter().sum(),
        ipc: ipc(events, &metrics[1..]),
        metrics,
        multiplexed_samples: m
            .samples
            .iter()
            .filter(|s| s.counts.time_running < s.counts.time_enabled)
            .count(),
        throughput: m.throughput,
    }
}

/// The positions of the cycles and instructions events an IPC is computed
/// from: the first of each, if they count the same privilege levels.
pub fn ipc_events(events: &[Event]) -> Option<(usize, usize)> {
    let find = |config: u64| {
        events
            .iter()
            .position(|e| e.attr.kind == sys::TYPE_HARDWARE && e.attr.config == config)
    };
    let (c, i) = (find(0)?, find(1)?);
    let levels = |e: &Event| {
        (
            e.attr.exclude_user,
            e.attr.exclude_kernel,
            e.attr.exclude_hv,
        )
    };
    (levels(&events[c]) == levels(&events[i])).then_some((c, i))
}

/// Instructions per cycle, where [`ipc_events`] finds both.
fn ipc(events: &[Event], metrics: &[Metric]) -> Option<f64> {
    let (c, i) = ipc_events(events)?;
    let cycles = metrics[c].summary.estimate;
    (cycles > 0.0).then(|| metrics[i].summary.estimate / cycles)
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
        assert_eq!(r.metrics[1].summary.estimate, 30.0);
        assert_eq!(r.ipc, Some(1.5));
        assert_eq!(r.iterations, 3);
        assert_eq!(r.multiplexed_samples, 1);
    }

    #[test]
    fn no_ipc_without_both_events_or_across_privilege_levels() {
        let m = Measurement {
            samples: vec![sample(1, 10, vec![30, 20], 100)],
            throughput: None,
        };
        let r = analyze("x", &parse_list("instructions:u,cycles:uk").unwrap(), &m);
        assert_eq!(r.ipc, None);
        let r = analyze("x", &parse_list("instructions,branches").unwrap(), &m);
        assert_eq!(r.ipc, None);
    }
}
