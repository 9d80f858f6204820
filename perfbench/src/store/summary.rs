//! A benchmark's summary for the HTML report: what the index row and a
//! group page show of its latest run (its estimates, the change its run
//! found, where it belongs), and apart from it a bounded sample of its
//! per-iteration values for a group page's distributions. A run writes the
//! summaries of its benchmarks, so that a later run lists them without
//! loading and analysing their samples.

use serde_json::{json, Value};

use super::json::{
    bad, bad_because, has_duplicates, membership_json, membership_of, read_path_of, statistic,
    threads_of, MAX_COUNT, MAX_SAMPLES,
};
use crate::analysis::comparison::{Comparison, MetricChange, Target, Verdict};
use crate::analysis::recording::MAX_EARLIER_RUNS;
use crate::analysis::standings::{Membership, Standee};
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

fn estimate_json(e: &Estimate) -> Value {
    json!([number(e.point), number(e.ci.low), number(e.ci.high)])
}

/// An estimate [`estimate_json`] wrote: finite statistics, its interval
/// around its point.
fn estimate_of(v: &Value) -> Result<Estimate, String> {
    let what = "metrics.estimate";
    let [point, low, high] = statistics(v, what)?;
    let e = Estimate {
        point,
        ci: Interval { low, high },
    };
    if !(e.ci.low <= e.point && e.point <= e.ci.high) {
        return Err(bad_because(
            what,
            "an interval that does not hold its point",
        ));
    }
    Ok(e)
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

/// A change [`change_json`] wrote: an interval (ordered, holding the
/// relative change) exactly where there is a relative change, a p-value
/// from 0 to 1 and the runs one run and its earlier ones make.
fn change_of(v: &Value) -> Result<MetricChange, String> {
    let verdict = [
        Verdict::Improved,
        Verdict::Regressed,
        Verdict::WithinNoise,
        Verdict::NoChange,
    ]
    .into_iter()
    .find(|k| Some(k.as_str()) == v["verdict"].as_str())
    .ok_or_else(|| bad("changes.verdict"))?;
    let relative = match &v["relative"] {
        Value::Null => None,
        r => Some(statistic(r, "changes.relative")?),
    };
    let ci = change_interval(&v["ci"], relative)?;
    let p_value = v["p"].as_f64().filter(|p| (0.0..=1.0).contains(p));
    let runs = v["runs"].as_u64().filter(|n| (1..=MAX_RUNS).contains(n));
    Ok(MetricChange {
        name: text(&v["name"], "changes.name")?,
        change: Change {
            relative,
            difference: statistic(&v["difference"], "changes.difference")?,
            ci,
            p_value: p_value.ok_or_else(|| bad_because("changes.p", "not from 0 to 1"))?,
            runs: runs.ok_or_else(|| bad_because("changes.runs", "not from 1 to 10"))? as usize,
        },
        verdict,
    })
}

/// Most runs a change takes in: one and the earlier runs it keeps.
const MAX_RUNS: u64 = MAX_EARLIER_RUNS as u64 + 1;

/// The interval of a change whose relative change is `relative`.
fn change_interval(v: &Value, relative: Option<f64>) -> Result<Option<Interval>, String> {
    let what = "changes.ci";
    let (v, relative) = match (v, relative) {
        (Value::Null, None) => return Ok(None),
        (Value::Null, Some(_)) | (_, None) => {
            return Err(bad_because(what, "not there exactly where `relative` is"))
        }
        (v, Some(r)) => (v, r),
    };
    let [low, high] = statistics(v, what)?;
    let ci = Interval { low, high };
    if !(ci.low <= relative && relative <= ci.high) {
        return Err(bad_because(
            what,
            "an interval that does not hold its change",
        ));
    }
    Ok(Some(ci))
}

/// An array of exactly `N` statistics, or the error naming the field
/// `what`.
fn statistics<const N: usize>(v: &Value, what: &str) -> Result<[f64; N], String> {
    let a = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| bad(what))?;
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = statistic(x, what)?;
    }
    Ok(out)
}

/// A string, or the error naming the field `what`.
fn text(v: &Value, what: &str) -> Result<String, String> {
    v.as_str().map(str::to_string).ok_or_else(|| bad(what))
}

fn comparison_json(c: &Comparison) -> Value {
    json!({
        "against": target_json(&c.against),
        "changes": c.changes.as_ref().map(|cs| cs.iter().map(change_json).collect::<Vec<_>>()),
        "unfair": c.unfair,
    })
}

fn comparison_of(v: &Value) -> Result<Comparison, String> {
    let changes = match &v["changes"] {
        Value::Null => None,
        cs => {
            let cs = cs.as_array().ok_or_else(|| bad("changes"))?;
            let cs = cs.iter().map(change_of).collect::<Result<Vec<_>, _>>()?;
            let names: Vec<&str> = cs.iter().map(|c| c.name.as_str()).collect();
            if has_duplicates(&names) {
                return Err(bad_because("changes.name", "a name twice"));
            }
            Some(cs)
        }
    };
    Ok(Comparison {
        against: match &v["against"] {
            Value::Null => Target::PreviousRun,
            name => Target::Baseline(text(name, "comparison.against")?),
        },
        changes,
        unfair: match &v["unfair"] {
            Value::Null => None,
            why => Some(text(why, "comparison.unfair")?),
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

/// The throughput [`throughput_json`] wrote: of at most [`MAX_COUNT`]
/// bytes or elements an iteration.
fn throughput_of(v: &Value) -> Result<Option<Throughput>, String> {
    if v.is_null() {
        return Ok(None);
    }
    let amount = |n: &Value| n.as_u64().filter(|&n| n <= MAX_COUNT);
    match (amount(&v["bytes"]), amount(&v["elements"])) {
        (Some(n), None) => Ok(Some(Throughput::Bytes(n))),
        (None, Some(n)) => Ok(Some(Throughput::Elements(n))),
        _ => Err(bad_because(
            "throughput",
            "not bytes or elements from 0 to 10^15",
        )),
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
    summary_of(&doc)
}

fn summary_of(doc: &Value) -> Result<Summary, String> {
    Ok(Summary {
        id: text(&doc["id"], "id")?,
        environment: Environment::from_json(&doc["environment"])
            .ok_or_else(|| bad("environment"))?,
        membership: match &doc["group"] {
            Value::Null => None,
            g => Some(membership_of(g).ok_or_else(|| bad("group"))?),
        },
        // Unlike a result file's, a summary's thread count is always there.
        threads: match &doc["threads"] {
            Value::Null => return Err(bad("threads")),
            n => threads_of(n)?,
        },
        throughput: throughput_of(&doc["throughput"])?,
        read_path: read_path_of(&doc["read_path"]).ok_or_else(|| bad("read_path"))?,
        samples: sample_count(&doc["samples"], "samples")?,
        metrics: metrics_of(&doc["metrics"])?,
        comparison: match &doc["comparison"] {
            Value::Null => None,
            c => Some(comparison_of(c)?),
        },
    })
}

/// A count of samples: from 1 to [`MAX_SAMPLES`].
fn sample_count(v: &Value, what: &str) -> Result<usize, String> {
    v.as_u64()
        .filter(|n| (1..=MAX_SAMPLES as u64).contains(n))
        .map(|n| n as usize)
        .ok_or_else(|| bad_because(what, "not from 1 to 1000000"))
}

/// A summary's metrics: one at least, none named twice.
fn metrics_of(v: &Value) -> Result<Vec<MetricSummary>, String> {
    let list = v.as_array().filter(|a| !a.is_empty());
    let metrics = list
        .ok_or_else(|| bad("metrics"))?
        .iter()
        .map(|m| {
            Ok(MetricSummary {
                name: text(&m["name"], "metrics.name")?,
                unit: unit_of(&m["unit"]).ok_or_else(|| bad("metrics.unit"))?,
                estimate: estimate_of(&m["estimate"])?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let names: Vec<&str> = metrics.iter().map(|m| m.name.as_str()).collect();
    if has_duplicates(&names) {
        return Err(bad_because("metrics.name", "a name twice"));
    }
    Ok(metrics)
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
    let metrics = doc["metrics"].as_array().ok_or_else(|| bad("metrics"))?;
    let values = metrics
        .iter()
        .map(values_of_metric)
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<&str> = values.iter().map(|v| v.name.as_str()).collect();
    if has_duplicates(&names) {
        return Err(bad_because("metrics.name", "a name twice"));
    }
    Ok(values)
}

/// One metric's values as [`values_of`] makes them: as many as the samples
/// up to [`MAX_VALUES`], lowest first, each a total over iterations (from
/// 0 to [`MAX_COUNT`]).
fn values_of_metric(m: &Value) -> Result<Values, String> {
    let samples = sample_count(&m["samples"], "metrics.samples")?;
    let list = m["values"]
        .as_array()
        .ok_or_else(|| bad("metrics.values"))?;
    if list.len() != samples.min(MAX_VALUES) {
        let why = format!("not one per sample, up to {MAX_VALUES}");
        return Err(bad_because("metrics.values", &why));
    }
    let in_bounds = |x: &f64| (0.0..=MAX_COUNT as f64).contains(x);
    let values = list
        .iter()
        .map(|x| x.as_f64().filter(in_bounds))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| bad_because("metrics.values", "not numbers from 0 to 10^15"))?;
    if values.windows(2).any(|w| w[0] > w[1]) {
        return Err(bad_because("metrics.values", "not lowest first"));
    }
    Ok(Values {
        name: text(&m["name"], "metrics.name")?,
        samples,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A summary of one metric with one change, as JSON to spoil.
    fn stored() -> Value {
        let estimate = Estimate {
            point: 10.0,
            ci: Interval {
                low: 9.0,
                high: 11.0,
            },
        };
        let change = Change {
            relative: Some(0.25),
            difference: 2.0,
            ci: Some(Interval {
                low: 0.1,
                high: 0.4,
            }),
            p_value: 0.01,
            runs: 2,
        };
        let s = Summary {
            id: "x/1".into(),
            environment: Environment::default(),
            membership: None,
            threads: 1,
            throughput: Some(Throughput::Bytes(64)),
            read_path: None,
            samples: 3,
            metrics: vec![MetricSummary {
                name: WALL_TIME.into(),
                unit: Unit::Nanoseconds,
                estimate,
            }],
            comparison: Some(Comparison {
                against: Target::PreviousRun,
                changes: Some(vec![MetricChange {
                    name: WALL_TIME.into(),
                    change,
                    verdict: Verdict::Regressed,
                }]),
                unfair: None,
            }),
        };
        assert_eq!(decode_summary(&encode_summary(&s)), Ok(s.clone()));
        serde_json::from_str(&encode_summary(&s)).unwrap()
    }

    /// What decoding `stored()` changed by `spoil` says.
    fn spoiled(spoil: impl FnOnce(&mut Value)) -> String {
        let mut doc = stored();
        spoil(&mut doc);
        let e = decode_summary(&doc.to_string()).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
        e
    }

    /// The error of a malformed `field` for reason `why`.
    fn bad(field: &str, why: &str) -> String {
        format!("malformed `{field}` ({why}); remove or restore it")
    }

    #[test]
    fn estimates_are_finite_and_hold_their_point() {
        let huge = bad("metrics.estimate", "not a number from -1e100 to 1e100");
        let estimate = |d: &mut Value, e: Value| d["metrics"][0]["estimate"] = e;
        assert_eq!(spoiled(|d| estimate(d, json!([0.0, -1e308, 1e308]))), huge);
        assert_eq!(spoiled(|d| estimate(d, json!([1e308, 1e308, 1e308]))), huge);
        assert_eq!(spoiled(|d| estimate(d, json!([null, 1.0, 2.0]))), huge);
        let inverted = bad(
            "metrics.estimate",
            "an interval that does not hold its point",
        );
        assert_eq!(spoiled(|d| estimate(d, json!([10.0, 11.0, 9.0]))), inverted);
        assert_eq!(spoiled(|d| estimate(d, json!([12.0, 9.0, 11.0]))), inverted);
    }

    #[test]
    fn changes_are_consistent() {
        let change = |d: &mut Value, k: &str, v: Value| {
            d["comparison"]["changes"][0][k] = v;
        };
        let e = spoiled(|d| change(d, "p", json!(1.5)));
        assert_eq!(e, bad("changes.p", "not from 0 to 1"));
        let e = spoiled(|d| change(d, "runs", json!(0)));
        assert_eq!(e, bad("changes.runs", "not from 1 to 10"));
        let e = spoiled(|d| change(d, "ci", json!([0.3, 0.1])));
        let outside = bad("changes.ci", "an interval that does not hold its change");
        assert_eq!(e, outside);
        assert_eq!(spoiled(|d| change(d, "relative", json!(0.5))), outside);
        let e = spoiled(|d| change(d, "relative", Value::Null));
        assert_eq!(
            e,
            bad("changes.ci", "not there exactly where `relative` is")
        );
        let e = spoiled(|d| change(d, "difference", json!(-1e300)));
        assert_eq!(
            e,
            bad("changes.difference", "not a number from -1e100 to 1e100")
        );
    }

    #[test]
    fn counts_of_a_summary_are_within_bounds() {
        let e = spoiled(|d| d["samples"] = json!(0));
        assert_eq!(e, bad("samples", "not from 1 to 1000000"));
        assert_eq!(spoiled(|d| d["samples"] = json!(-3)), e);
        let e = spoiled(|d| d["threads"] = json!(u64::MAX));
        assert_eq!(e, bad("threads", "not a whole number from 1 to 2^22"));
        let e = spoiled(|d| d["throughput"] = json!({ "bytes": -1 }));
        assert_eq!(
            e,
            bad("throughput", "not bytes or elements from 0 to 10^15")
        );
        let e = spoiled(|d| d["metrics"] = json!([]));
        assert_eq!(e, "malformed `metrics`; remove or restore it");
    }

    /// What decoding values of `samples` samples, `values`, says.
    fn values_error(samples: Value, values: Value) -> String {
        let doc = json!({
            "schema": VALUES_SCHEMA,
            "metrics": [{ "name": "wall-time", "samples": samples, "values": values }],
        });
        let e = decode_values(&doc.to_string()).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
        e
    }

    #[test]
    fn sampled_values_match_their_count_and_bounds() {
        let ok = Values {
            name: "wall-time".into(),
            samples: 1000,
            values: (0..MAX_VALUES).map(|v| v as f64).collect(),
        };
        let text = encode_values(std::slice::from_ref(&ok));
        assert_eq!(decode_values(&text), Ok(vec![ok]));
        let count = bad("metrics.values", "not one per sample, up to 256");
        assert_eq!(values_error(json!(300), json!([1.0, 2.0, 3.0])), count);
        assert_eq!(values_error(json!(2), json!([1.0, 2.0, 3.0])), count);
        let bounds = bad("metrics.values", "not numbers from 0 to 10^15");
        assert_eq!(values_error(json!(3), json!([1.0, 2.0, 1e308])), bounds);
        assert_eq!(values_error(json!(3), json!([-1e308, 2.0, 3.0])), bounds);
        assert_eq!(values_error(json!(3), json!([null, 2.0, 3.0])), bounds);
        let order = bad("metrics.values", "not lowest first");
        assert_eq!(values_error(json!(3), json!([3.0, 2.0, 1.0])), order);
        let samples = bad("metrics.samples", "not from 1 to 1000000");
        assert_eq!(values_error(json!(1u64 << 40), json!([])), samples);
    }
}
