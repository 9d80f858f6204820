//! Metrics derived from others: IPC, miss rates, and figures per byte or
//! element of declared throughput.

use super::{Metric, Recording};
use crate::counter::event::Event;
use crate::kernel::sys;
use crate::measure::Throughput;

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

/// The derived metrics of [`BenchResult::derived`]: ratios of the events
/// of `recording`, and every metric per byte or element where it declared
/// a throughput. `metrics` holds the statistics of its series, in order.
pub(crate) fn derived(recording: &Recording, metrics: &[Metric]) -> Vec<(String, f64)> {
    // The series of events follow wall time, the first.
    let events = recording.events();
    let mut out = Vec::new();
    for &(name, numerator, denominator) in RATIOS {
        if let Some((n, d)) = ratio_pair(&events, numerator, denominator) {
            let below = metrics[d + 1].estimate().point;
            if below > 0.0 {
                out.push((name.to_string(), metrics[n + 1].estimate().point / below));
            }
        }
    }
    let per = match recording.throughput {
        Some(Throughput::Bytes(n)) => Some(("byte", n)),
        Some(Throughput::Elements(n)) => Some(("element", n)),
        None => None,
    };
    if let Some((unit, amount)) = per.filter(|&(_, n)| n > 0) {
        for m in metrics {
            out.push((
                format!("{}/{unit}", m.name),
                m.estimate().point / amount as f64,
            ));
        }
    }
    out
}
