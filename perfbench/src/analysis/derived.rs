//! Metrics derived from others: IPC, miss rates, figures per byte or
//! element of declared throughput, and that throughput per second.

use super::{Metric, MetricKey, Recording, ResultView, WALL_TIME};
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

/// The ratios of generalized hardware events perfbench derives: key,
/// numerator, denominator.
fn ratios() -> [(MetricKey, u64, u64); 3] {
    let other = |name: &str| MetricKey::Other(name.to_string());
    [
        (MetricKey::Ipc, INSTRUCTIONS, CYCLES),
        (other("branch-miss rate"), BRANCH_MISSES, BRANCHES),
        (other("cache-miss rate"), CACHE_MISSES, CACHE_REFERENCES),
    ]
}

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

/// The derived metrics of [`super::BenchResult::derived`]: ratios of the events
/// of `recording`, and every metric per byte or element where it declared
/// a throughput. `metrics` holds the statistics of its series, in order.
pub(crate) fn derived(recording: &Recording, metrics: &[Metric]) -> Vec<(String, f64)> {
    // The series of events follow wall time, the first.
    let events = recording.events();
    let mut out = Vec::new();
    for (key, numerator, denominator) in ratios() {
        if let Some((n, d)) = ratio_pair(&events, numerator, denominator) {
            let below = metrics[d + 1].estimate().point;
            if below > 0.0 {
                out.push((key.to_string(), metrics[n + 1].estimate().point / below));
            }
        }
    }
    if let Some(work) = declared_work(recording.throughput) {
        for m in metrics {
            out.push((
                per_unit_name(&m.name, work),
                m.estimate().point / work.amount() as f64,
            ));
        }
    }
    out
}

/// The work a benchmark declared, where it is some.
pub fn declared_work(throughput: Option<Throughput>) -> Option<Throughput> {
    throughput.filter(|t| t.amount() > 0)
}

/// The name of a metric per byte or element of `work`:
/// `instructions/byte`.
pub fn per_unit_name(metric: &str, work: Throughput) -> String {
    MetricKey::per_unit(MetricKey::named(metric), work.noun()).to_string()
}

/// The declared work done per second at the headline wall time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// The work of one iteration, as declared.
    pub work: Throughput,
    /// Bytes or elements per second, with the interval of wall time's
    /// headline turned over: its slow end is the rate's low end.
    pub per_second: Estimate,
}

/// The rate of `r`'s declared work, where it declared some and its wall
/// time is above zero (`--subtract-overhead` can take it to zero or
/// below); an interval that reaches zero time has no upper bound.
pub fn rate(r: ResultView<'_>) -> Option<Rate> {
    let wall = r.metrics.iter().find(|m| m.name == WALL_TIME)?.estimate();
    rate_of(r.recording.throughput, wall)
}

/// The rate of the declared work `throughput` at the wall-time headline
/// `wall`, as [`rate`] gives it.
pub fn rate_of(throughput: Option<Throughput>, wall: &Estimate) -> Option<Rate> {
    let work = declared_work(throughput)?;
    let per_second = |ns: f64| match ns {
        ns if ns > 0.0 => work.amount() as f64 * 1e9 / ns,
        _ => f64::INFINITY,
    };
    (wall.point > 0.0).then(|| Rate {
        work,
        per_second: Estimate {
            point: per_second(wall.point),
            ci: Interval {
                low: per_second(wall.ci.high),
                high: per_second(wall.ci.low),
            },
        },
    })
}
