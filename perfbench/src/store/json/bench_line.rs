//! One benchmark as a line of JSON (`--output-format json`, schema
//! [`SCHEMA`]); values are per iteration. Fields are declared in the order
//! of their names, the order perfbench has always written them in.

use std::collections::BTreeMap;

use serde::Serialize;

use super::estimates::{estimates, ChangeLine, MetricEstimates};
use super::stored_value::{method_json, GroupRecord, ThroughputRecord};
use crate::analysis::comparison::{self, Comparison, Target};
use crate::analysis::derived::rate;
use crate::analysis::{BenchResult, ResultView};
use crate::measure::environment::Environment;

/// The schema tag of every JSON line (`--output-format json`).
pub const SCHEMA: &str = "perfbench/v1";

/// A JSON line.
#[derive(Serialize)]
struct BenchLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<BaselineLine<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    batch_size: Option<String>,
    cpu: Option<usize>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    derived: BTreeMap<&'a str, f64>,
    environment: &'a Environment,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<GroupRecord>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    groups: &'a [Vec<String>],
    id: &'a str,
    iterations: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    left_out_iterations: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    left_out_samples: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<String>,
    metrics: BTreeMap<String, MetricEstimates<'a>>,
    mode: &'static str,
    multiplexed_samples: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    off_cpu_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_path: Option<&'static str>,
    samples: usize,
    schema: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    throughput: Option<ThroughputRecord>,
}

/// What the line was compared with.
#[derive(Serialize)]
struct BaselineLine<'a> {
    name: &'a str,
    new: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    not_compared: Option<&'a str>,
    /// A build measured in turn with this one (`--paired-with`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    paired: bool,
    /// In a paired run, what moved ([`comparison::why`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
}

/// One benchmark as a line of JSON (schema [`SCHEMA`]); values are per
/// iteration.
pub fn bench_line(
    r: ResultView<'_>,
    environment: &Environment,
    comparison: Option<&Comparison>,
) -> String {
    let (method, batch_size) = method_json(r.recording.method);
    let line = BenchLine {
        baseline: comparison.map(|c| BaselineLine {
            name: c.against.json_name(),
            new: c.changes.is_none(),
            not_compared: c.unfair.as_deref(),
            paired: matches!(c.against, Target::Paired(_)),
            why: comparison::why(c, &r).filter(|_| matches!(c.against, Target::Paired(_))),
        }),
        batch_size,
        cpu: environment.cpu,
        derived: r.derived.iter().map(|(n, v)| (n.as_str(), *v)).collect(),
        environment,
        group: r.recording.membership.as_ref().map(GroupRecord::from),
        groups: &r.recording.groups,
        id: &r.recording.id,
        iterations: r.recording.total_iterations(),
        // How per-iteration mode read the counters and how many iterations
        // it left out, or in batch mode how many samples, where it left
        // some out.
        left_out_iterations: r.recording.read_path.map(|_| r.recording.left_out),
        left_out_samples: (r.recording.read_path.is_none() && r.recording.left_out > 0)
            .then_some(r.recording.left_out),
        method,
        metrics: metrics(r.result, comparison),
        mode: if r.recording.read_path.is_some() {
            "per-iter"
        } else {
            "batch"
        },
        multiplexed_samples: r.recording.multiplexed_samples,
        off_cpu_ratio: r.off_cpu_ratio,
        read_path: r.recording.read_path.map(|p| p.name()),
        samples: r.recording.samples(),
        schema: SCHEMA,
        threads: (r.recording.threads > 1).then_some(r.recording.threads),
        throughput: r.recording.throughput.map(|t| throughput(r, t.into())),
    };
    serde_json::to_string(&line).expect("JSON lines serialise")
}

/// The estimates of `r`'s metrics with the change `comparison` found and
/// the cost of measuring each.
fn metrics<'a>(
    r: &'a BenchResult,
    comparison: Option<&'a Comparison>,
) -> BTreeMap<String, MetricEstimates<'a>> {
    let mut metrics = estimates(r);
    for (name, m) in metrics.iter_mut() {
        m.change = comparison.and_then(|c| c.change(name)).map(|c| ChangeLine {
            ci: c.change.ci.map(|ci| [ci.low, ci.high]),
            p: c.change.p_value,
            relative: c.change.relative,
            runs: c.change.runs,
            verdict: c.verdict.as_str(),
        });
    }
    for o in &r.overhead {
        if let Some(m) = metrics.get_mut(&o.metric) {
            m.overhead = Some(o.per_iteration);
            m.raw_estimate = Some(o.raw_estimate);
        }
    }
    metrics
}

/// The declared throughput `t` of `r` with its rate per second.
fn throughput(r: ResultView<'_>, mut t: ThroughputRecord) -> ThroughputRecord {
    if let Some(rate) = rate(r) {
        let e = rate.per_second;
        // An interval open above (wall time down to 0) has no finite end.
        let high = e.ci.high.is_finite().then_some(e.ci.high);
        t.per_second = Some(e.point);
        t.per_second_ci = Some((e.ci.low, high));
    }
    t
}
