//! A benchmark's summary for the HTML report: what the index row and a
//! group page show of its latest run (its estimates, the change its run
//! found, where it belongs), and apart from it a bounded sample of its
//! per-iteration values for a group page's distributions. A run writes the
//! summaries of its benchmarks, so that a later run lists them without
//! loading and analysing their samples.

use serde_json::{json, Value};

use super::json::{membership_json, membership_of};
use crate::analysis::compare::{Comparison, MetricChange, Target, Verdict};
use crate::analysis::group::{Membership, Standee};
use crate::analysis::{Analysed, WALL_TIME};
use crate::counter::event::Unit;
use crate::counter::group::ReadPath;
use crate::measure::environment::Environment;
use crate::measure::Throughput;
use crate::stats::{Change, Estimate, Interval};

/// The schema tag of a summary file.
pub const SUMMARY_SCHEMA: &str = "perfbench/summary/v1";

/// The schema tag of a file of sampled values.
pub const VALUES_SCHEMA: &str = "perfbench/values/v1";

/// Most per-iteration values a summary keeps of each metric: enough to
/// draw its distribution, bounded however many samples the run took.
pub const MAX_VALUES: usize = 256;

/// One metric's headline.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricSummary {
    /// Its name ([`WALL_TIME`] or an event).
    pub name: String,
    /// Its unit.
    pub unit: Unit,
    /// The headline per iteration with its interval (`Metric::estimate`).
    pub estimate: Estimate,
}

/// What the report's index and group pages show of a benchmark's run.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The benchmark's id.
    pub id: String,
    /// Where it ran.
    pub environment: Environment,
    /// Its group, member and argument, where it has a group.
    pub membership: Option<Membership>,
    /// The threads it ran on at once.
    pub threads: usize,
    /// The throughput it declared.
    pub throughput: Option<Throughput>,
    /// In per-iteration mode, how the counters were read.
    pub read_path: Option<ReadPath>,
    /// How many samples its run took.
    pub samples: usize,
    /// Its metrics, wall time first.
    pub metrics: Vec<MetricSummary>,
    /// The change its run found, against what that run compared with.
    pub comparison: Option<Comparison>,
}

/// A metric's per-iteration values: at most [`MAX_VALUES`] of them, at
/// evenly spaced ranks, with how many there were.
#[derive(Clone, Debug, PartialEq)]
pub struct Values {
    /// The metric.
    pub name: String,
    /// How many samples the run took.
    pub samples: usize,
    /// The values at evenly spaced ranks, lowest first, both ends kept.
    pub values: Vec<f64>,
}

impl Summary {
    /// The summary of an analysed run.
    pub fn of(a: &Analysed) -> Summary {
        Summary {
            id: a.recording.id.clone(),
            environment: a.recording.environment.clone(),
            membership: a.result.membership.clone(),
            threads: a.result.threads,
            throughput: a.result.throughput,
            read_path: a.result.read_path,
            samples: a.recording.iterations.len(),
            metrics: a
                .result
                .metrics
                .iter()
                .map(|m| MetricSummary {
                    name: m.name.clone(),
                    unit: m.unit,
                    estimate: *m.estimate(),
                })
                .collect(),
            comparison: a.comparison.clone(),
        }
    }

    /// The metric named `name`.
    pub fn metric(&self, name: &str) -> Option<&MetricSummary> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// The wall-time headline.
    pub fn wall_time(&self) -> Option<&Estimate> {
        self.metric(WALL_TIME).map(|m| &m.estimate)
    }
}

impl Standee for Summary {
    fn membership(&self) -> Option<&Membership> {
        self.membership.as_ref()
    }

    fn headline(&self, name: &str) -> Option<Estimate> {
        self.metric(name).map(|m| m.estimate)
    }

    fn metric_names(&self) -> Vec<&str> {
        self.metrics.iter().map(|m| m.name.as_str()).collect()
    }
}

/// The sampled per-iteration values of every metric of `a`'s run.
pub fn values_of(a: &Analysed) -> Vec<Values> {
    let run = &a.recording;
    run.series
        .iter()
        .map(|s| {
            let mut all: Vec<f64> = run
                .iterations
                .iter()
                .zip(&s.totals)
                .map(|(&x, &y)| y as f64 / x as f64)
                .collect();
            all.sort_unstable_by(f64::total_cmp);
            Values {
                name: s.name.clone(),
                samples: all.len(),
                values: evenly(&all, MAX_VALUES),
            }
        })
        .collect()
}

/// At most `max` of `items`, evenly spaced among them with the first and
/// last kept (of sorted values: those at evenly spaced ranks); all of them
/// where they are no more.
pub fn evenly<T: Copy>(items: &[T], max: usize) -> Vec<T> {
    if items.len() <= max || max < 2 {
        return items.iter().copied().take(max).collect();
    }
    let last = items.len() - 1;
    (0..max).map(|k| items[k * last / (max - 1)]).collect()
}

/// A number, or `null` where it is not finite (JSON has no such numbers).
fn number(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

/// A number [`number`] wrote: `null` is NaN.
fn number_of(v: &Value) -> Option<f64> {
    match v {
        Value::Null => Some(f64::NAN),
        v => v.as_f64(),
    }
}

fn estimate_json(e: &Estimate) -> Value {
    json!([number(e.point), number(e.ci.low), number(e.ci.high)])
}

fn estimate_of(v: &Value) -> Option<Estimate> {
    let a = v.as_array().filter(|a| a.len() == 3)?;
    Some(Estimate {
        point: number_of(&a[0])?,
        ci: Interval {
            low: number_of(&a[1])?,
            high: number_of(&a[2])?,
        },
    })
}

fn target_json(t: &Target) -> Value {
    match t {
        Target::PreviousRun => Value::Null,
        Target::Baseline(name) => json!(name),
    }
}

fn change_json(c: &MetricChange) -> Value {
    let ch = &c.change;
    json!({
        "name": c.name,
        "verdict": c.verdict.as_str(),
        "relative": ch.relative.map_or(Value::Null, number),
        "difference": number(ch.difference),
        "ci": ch.ci.map_or(Value::Null, |i| json!([number(i.low), number(i.high)])),
        "p": number(ch.p_value),
        "runs": ch.runs,
    })
}

fn change_of(v: &Value) -> Option<MetricChange> {
    let verdict = [
        Verdict::Improved,
        Verdict::Regressed,
        Verdict::WithinNoise,
        Verdict::NoChange,
    ]
    .into_iter()
    .find(|k| Some(k.as_str()) == v["verdict"].as_str())?;
    let ci = match &v["ci"] {
        Value::Null => None,
        ci => Some(Interval {
            low: number_of(ci.get(0)?)?,
            high: number_of(ci.get(1)?)?,
        }),
    };
    Some(MetricChange {
        name: v["name"].as_str()?.to_string(),
        change: Change {
            relative: v.get("relative")?.as_f64(),
            difference: number_of(&v["difference"])?,
            ci,
            p_value: number_of(&v["p"])?,
            runs: usize::try_from(v["runs"].as_u64()?).ok()?,
        },
        verdict,
    })
}

fn comparison_json(c: &Comparison) -> Value {
    json!({
        "against": target_json(&c.against),
        "changes": c.changes.as_ref().map(|cs| cs.iter().map(change_json).collect::<Vec<_>>()),
        "unfair": c.unfair,
    })
}

fn comparison_of(v: &Value) -> Option<Comparison> {
    Some(Comparison {
        against: match &v["against"] {
            Value::Null => Target::PreviousRun,
            name => Target::Baseline(name.as_str()?.to_string()),
        },
        changes: match &v["changes"] {
            Value::Null => None,
            cs => Some(
                cs.as_array()?
                    .iter()
                    .map(change_of)
                    .collect::<Option<_>>()?,
            ),
        },
        unfair: match &v["unfair"] {
            Value::Null => None,
            why => Some(why.as_str()?.to_string()),
        },
    })
}

fn throughput_json(t: Option<Throughput>) -> Value {
    match t {
        None => Value::Null,
        Some(Throughput::Bytes(n)) => json!({ "bytes": n }),
        Some(Throughput::Elements(n)) => json!({ "elements": n }),
    }
}

fn throughput_of(v: &Value) -> Option<Option<Throughput>> {
    if v.is_null() {
        return Some(None);
    }
    match (v["bytes"].as_u64(), v["elements"].as_u64()) {
        (Some(n), None) => Some(Some(Throughput::Bytes(n))),
        (None, Some(n)) => Some(Some(Throughput::Elements(n))),
        _ => None,
    }
}

fn unit_of(v: &Value) -> Option<Unit> {
    [Unit::Nanoseconds, Unit::Count]
        .into_iter()
        .find(|u| Some(u.symbol()) == v.as_str())
}

/// A summary file's text.
pub fn encode_summary(s: &Summary) -> String {
    let metrics: Vec<Value> = s
        .metrics
        .iter()
        .map(|m| json!({ "name": m.name, "unit": m.unit.symbol(), "estimate": estimate_json(&m.estimate) }))
        .collect();
    let doc = json!({
        "schema": SUMMARY_SCHEMA,
        "id": s.id,
        "environment": s.environment.to_json(),
        "group": s.membership.as_ref().map(membership_json),
        "threads": s.threads,
        "throughput": throughput_json(s.throughput),
        "read_path": s.read_path.map(ReadPath::name),
        "samples": s.samples,
        "metrics": metrics,
        "comparison": s.comparison.as_ref().map(comparison_json),
    });
    serde_json::to_string(&doc).expect("JSON values serialise")
}

/// The summary [`encode_summary`] wrote, or what is wrong with the text.
pub fn decode_summary(text: &str) -> Result<Summary, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
    if doc["schema"].as_str() != Some(SUMMARY_SCHEMA) {
        return Err(format!("not a summary of schema `{SUMMARY_SCHEMA}`"));
    }
    summary_of(&doc).ok_or_else(|| "a malformed summary".to_string())
}

fn summary_of(doc: &Value) -> Option<Summary> {
    let metrics = doc["metrics"]
        .as_array()?
        .iter()
        .map(|m| {
            Some(MetricSummary {
                name: m["name"].as_str()?.to_string(),
                unit: unit_of(&m["unit"])?,
                estimate: estimate_of(&m["estimate"])?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Summary {
        id: doc["id"].as_str()?.to_string(),
        environment: Environment::from_json(&doc["environment"])?,
        membership: match &doc["group"] {
            Value::Null => None,
            g => Some(membership_of(g)?),
        },
        threads: usize::try_from(doc["threads"].as_u64().filter(|&n| n >= 1)?).ok()?,
        throughput: throughput_of(&doc["throughput"])?,
        read_path: match doc["read_path"].as_str() {
            None => None,
            Some(name) => Some(ReadPath::ALL.into_iter().find(|p| p.name() == name)?),
        },
        samples: usize::try_from(doc["samples"].as_u64()?).ok()?,
        metrics,
        comparison: match &doc["comparison"] {
            Value::Null => None,
            c => Some(comparison_of(c)?),
        },
    })
}

/// A file of sampled values' text.
pub fn encode_values(values: &[Values]) -> String {
    let metrics: Vec<Value> = values
        .iter()
        .map(|v| {
            let numbers: Vec<Value> = v.values.iter().map(|&x| number(x)).collect();
            json!({ "name": v.name, "samples": v.samples, "values": numbers })
        })
        .collect();
    serde_json::to_string(&json!({ "schema": VALUES_SCHEMA, "metrics": metrics }))
        .expect("JSON values serialise")
}

/// The sampled values [`encode_values`] wrote, or what is wrong with them.
pub fn decode_values(text: &str) -> Result<Vec<Values>, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
    if doc["schema"].as_str() != Some(VALUES_SCHEMA) {
        return Err(format!("not sampled values of schema `{VALUES_SCHEMA}`"));
    }
    let metrics = doc["metrics"].as_array().ok_or("no metrics")?;
    metrics
        .iter()
        .map(|m| {
            Some(Values {
                name: m["name"].as_str()?.to_string(),
                samples: usize::try_from(m["samples"].as_u64()?).ok()?,
                values: m["values"]
                    .as_array()?
                    .iter()
                    .map(number_of)
                    .collect::<Option<_>>()?,
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| "malformed sampled values".to_string())
}
