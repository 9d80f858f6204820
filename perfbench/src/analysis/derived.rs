//! Metrics derived from others: IPC, miss rates, and figures per byte or
//! element of declared throughput.

use super::{BenchResult, Metric, Recording, WALL_TIME};
use crate::counter::event::Event;
use crate::kernel::sys;
use crate::measure::Throughput;
use crate::stats::{Estimate, Interval};

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
    if let Some((unit, amount)) = recording.throughput.and_then(work) {
        for m in metrics {
            out.push((
                format!("{}/{unit}", m.name),
                m.estimate().point / amount as f64,
            ));
        }
    }
    out
}

/// What a declared throughput counts, in the singular (`byte`, `element`),
/// and how many per iteration; `None` for none.
pub fn work(t: Throughput) -> Option<(&'static str, u64)> {
    let (unit, amount) = match t {
        Throughput::Bytes(n) => ("byte", n),
        Throughput::Elements(n) => ("element", n),
    };
    (amount > 0).then_some((unit, amount))
}

/// A declared throughput per second of wall time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// What is counted, in the singular: `byte` or `element`.
    pub per: &'static str,
    /// Bytes or elements per second, with the interval the wall-time
    /// estimate's interval maps to; its high end is infinite where that
    /// interval reaches down to zero.
    pub per_second: Estimate,
}

/// The declared throughput of `result` per second: the work per iteration
/// over the wall-time estimate. `None` without a throughput, or where the
/// estimate is not above zero.
pub fn rate(result: &BenchResult) -> Option<Rate> {
    let (per, amount) = result.throughput.and_then(work)?;
    let wall = result.metrics.iter().find(|m| m.name == WALL_TIME)?;
    let ns = wall.estimate();
    // Not above zero, or not a number: no rate.
    if ns.point.is_nan() || ns.point <= 0.0 {
        return None;
    }
    // Per second from per nanosecond; a shorter time is a higher rate, so
    // the interval's ends swap.
    let per_second = |ns: f64| amount as f64 * 1e9 / ns;
    let high = if ns.ci.low > 0.0 {
        per_second(ns.ci.low)
    } else {
        f64::INFINITY
    };
    Some(Rate {
        per,
        per_second: Estimate {
            point: per_second(ns.point),
            ci: Interval {
                low: per_second(ns.ci.high),
                high,
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::exact_result;
    use crate::counter::event::Unit;

    #[test]
    fn the_rate_is_the_work_over_the_wall_time_with_its_interval_reversed() {
        let mut r = exact_result("x", &[(WALL_TIME, Unit::Nanoseconds, 250.0)]);
        assert_eq!(rate(&r), None, "no throughput declared");
        r.throughput = Some(Throughput::Bytes(1000));
        r.metrics[0].stats.slope = Estimate {
            point: 250.0,
            ci: Interval {
                low: 200.0,
                high: 500.0,
            },
        };
        let got = rate(&r).unwrap();
        assert_eq!(got.per, "byte");
        assert_eq!(got.per_second.point, 4e9);
        assert_eq!(
            got.per_second.ci,
            Interval {
                low: 2e9,
                high: 5e9
            }
        );

        // An interval reaching zero time bounds the rate from below only.
        r.throughput = Some(Throughput::Elements(3));
        r.metrics[0].stats.slope.ci.low = -10.0;
        let got = rate(&r).unwrap();
        assert_eq!(got.per, "element");
        assert_eq!(got.per_second.ci.low, 6e6);
        assert_eq!(got.per_second.ci.high, f64::INFINITY);

        r.throughput = Some(Throughput::Bytes(0));
        assert_eq!(rate(&r), None, "no work");
        r.throughput = Some(Throughput::Bytes(8));
        r.metrics[0].stats.slope.point = 0.0;
        assert_eq!(rate(&r), None, "no time");
    }
}
