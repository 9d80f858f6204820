//! The report's data files: a benchmark's summary (schema
//! [`SUMMARY_SCHEMA`]) and its sampled values (schema [`VALUES_SCHEMA`]),
//! written by the run that measured it and read back by later reports with
//! every limit a stored file has: derived on `BenchSummary` and
//! `SampledValues` (checked field by field in `stored_value.rs`), the
//! comparison through its wire type here. Keys are written in the order of
//! their names, the order perfbench has always written them in.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::decode_error::{bad, bad_because, DecodeError};
use super::loose_field::MAX_SAMPLES;
use super::loose_field::{has_duplicates, records, statistic, text, Loose};
use super::stored_value::{record_in, records_in};
use crate::analysis::comparison::{Comparison, MetricChange, Target, Verdict};
use crate::analysis::recording::MAX_EARLIER_RUNS;
use crate::counter::event::Unit;
use crate::stats::{Change, Estimate, Interval};
use crate::store::bench_summary::{BenchSummary, MetricSummary, SampledValues, MAX_VALUES};

/// The schema tag of a summary file.
pub const SUMMARY_SCHEMA: &str = "perfbench/summary/v1";

/// The schema tag of a file of sampled values.
pub const VALUES_SCHEMA: &str = "perfbench/values/v1";

/// Statistics as a file holds them: each a number, `null` where it is not
/// finite (JSON has no such numbers).
type Numbers = Loose<Vec<Loose<f64>>>;

/// The change a run found, against what it compared with (`null`: its
/// previous run).
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
pub(super) struct ComparisonRecord {
    against: Loose<Option<String>>,
    #[serde(deserialize_with = "records")]
    changes: Loose<Vec<Loose<ChangeRecord>>>,
    /// Whether `against` is a build measured in turn with this one.
    #[serde(skip_serializing_if = "Loose::is_missing")]
    paired: Loose<bool>,
    unfair: Loose<Option<String>>,
}

/// One metric's change.
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct ChangeRecord {
    ci: Loose<Option<Vec<Loose<f64>>>>,
    difference: Loose<f64>,
    name: Loose<String>,
    p: Loose<f64>,
    relative: Loose<Option<f64>>,
    runs: Loose<u64>,
    verdict: Loose<String>,
}

/// A summary file's text: the [`BenchSummary`] with its schema, keys in
/// the order of their names (the order of every stored type's fields).
pub fn encode_summary(s: &BenchSummary) -> String {
    let mut doc = serde_json::to_value(s).expect("summaries serialise");
    doc["schema"] = SUMMARY_SCHEMA.into();
    doc.to_string()
}

/// A comparison as a summary file holds it.
pub(super) fn comparison_json(c: &Comparison) -> Loose<ComparisonRecord> {
    let change = |c: &MetricChange| {
        let ch = &c.change;
        Loose::Is(ChangeRecord {
            ci: Loose::Is(ch.ci.map(|i| vec![Loose::Is(i.low), Loose::Is(i.high)])),
            difference: Loose::Is(ch.difference),
            name: Loose::Is(c.name.clone()),
            p: Loose::Is(ch.p_value),
            relative: Loose::Is(ch.relative),
            runs: Loose::Is(ch.runs as u64),
            verdict: Loose::Is(c.verdict.as_str().to_string()),
        })
    };
    Loose::Is(ComparisonRecord {
        against: Loose::Is(match &c.against {
            Target::PreviousRun => None,
            Target::Baseline(name) | Target::Paired(name) => Some(name.clone()),
        }),
        paired: match c.against {
            Target::Paired(_) => Loose::Is(true),
            _ => Loose::Missing,
        },
        changes: c.changes.as_ref().map_or(Loose::Missing, |cs| {
            Loose::Is(cs.iter().map(change).collect())
        }),
        unfair: Loose::Is(c.unfair.clone()),
    })
}

/// The summary [`encode_summary`] wrote, or what is wrong with the text.
pub fn decode_summary(text: &str) -> Result<BenchSummary, DecodeError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    if doc.get("schema").and_then(Value::as_str) != Some(SUMMARY_SCHEMA) {
        return Err(DecodeError::NotOf {
            what: "a summary",
            schema: SUMMARY_SCHEMA,
        });
    }
    let summary: BenchSummary = record_in(doc)?;
    unique_metrics(&summary.metrics)?;
    Ok(summary)
}

/// A count of samples: from 1 to [`MAX_SAMPLES`].
pub(super) fn sample_count(v: Loose<u64>, what: &str) -> Result<usize, DecodeError> {
    v.ok()
        .filter(|n| (1..=MAX_SAMPLES as u64).contains(n))
        .map(|n| n as usize)
        .ok_or_else(|| bad_because(what, "not from 1 to 1000000"))
}

/// An array of exactly `N` statistics, or the error naming the field
/// `what`.
fn statistics<const N: usize>(v: Numbers, what: &str) -> Result<[f64; N], DecodeError> {
    let a = v.ok().filter(|a| a.len() == N).ok_or_else(|| bad(what))?;
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = statistic(x, what)?;
    }
    Ok(out)
}

/// An estimate as [`encode_summary`] writes one, `[point, low, high]`, in
/// the field `what`: finite statistics, its interval around its point.
pub(super) fn estimate_of(v: Numbers, what: &str) -> Result<Estimate, DecodeError> {
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

/// The unit named `name`.
pub(super) fn unit_of(name: Option<String>) -> Option<Unit> {
    [Unit::Nanoseconds, Unit::Count]
        .into_iter()
        .find(|u| Some(u.symbol()) == name.as_deref())
}

/// A summary's metrics: one at least, none named twice.
fn unique_metrics(metrics: &[MetricSummary]) -> Result<(), DecodeError> {
    if metrics.is_empty() {
        return Err(bad("metrics"));
    }
    let names: Vec<&str> = metrics.iter().map(|m| m.name.as_str()).collect();
    if has_duplicates(&names) {
        return Err(bad_because("metrics.name", "a name twice"));
    }
    Ok(())
}

/// The comparison a summary holds, where it holds one (anything but an
/// object is a comparison without fields).
pub(super) fn comparison_in(v: Loose<ComparisonRecord>) -> Result<Option<Comparison>, DecodeError> {
    match v {
        Loose::Missing => Ok(None),
        c => comparison_of(c.ok().unwrap_or_default()).map(Some),
    }
}

/// The comparison a summary holds: its changes none named twice.
fn comparison_of(v: ComparisonRecord) -> Result<Comparison, DecodeError> {
    let changes = match v.changes {
        Loose::Missing => None,
        cs => {
            let cs = cs.ok().ok_or_else(|| bad("changes"))?;
            let cs = cs
                .into_iter()
                .map(|c| change_of(c.ok().unwrap_or_default()))
                .collect::<Result<Vec<_>, _>>()?;
            let names: Vec<&str> = cs.iter().map(|c| c.name.as_str()).collect();
            if has_duplicates(&names) {
                return Err(bad_because("changes.name", "a name twice"));
            }
            Some(cs)
        }
    };
    Ok(Comparison {
        against: match (optional_text(v.against, "comparison.against")?, v.paired) {
            (None, _) => Target::PreviousRun,
            (Some(name), Loose::Is(true)) => Target::Paired(name),
            (Some(name), Loose::Missing | Loose::Is(false)) => Target::Baseline(name),
            (Some(_), Loose::Wrong) => return Err(bad("comparison.paired")),
        },
        changes,
        unfair: optional_text(v.unfair, "comparison.unfair")?,
    })
}

/// A string or `null`, or the error naming the field `what`.
fn optional_text(v: Loose<Option<String>>, what: &str) -> Result<Option<String>, DecodeError> {
    match v {
        Loose::Missing | Loose::Is(None) => Ok(None),
        v => v.ok().flatten().map(Some).ok_or_else(|| bad(what)),
    }
}

/// Most runs a change takes in: one and the earlier runs it keeps.
const MAX_RUNS: u64 = MAX_EARLIER_RUNS as u64 + 1;

/// A change [`encode_summary`] wrote: an interval (ordered, holding the
/// relative change) exactly where there is a relative change, a p-value
/// from 0 to 1 and the runs one run and its earlier ones make.
fn change_of(v: ChangeRecord) -> Result<MetricChange, DecodeError> {
    let verdict = [
        Verdict::Improved,
        Verdict::Regressed,
        Verdict::WithinNoise,
        Verdict::NoChange,
    ]
    .into_iter()
    .find(|k| Some(k.as_str()) == v.verdict.clone().ok().as_deref())
    .ok_or_else(|| bad("changes.verdict"))?;
    let relative = match v.relative {
        Loose::Missing | Loose::Is(None) => None,
        r => {
            let r = r.ok().flatten().map_or(Loose::Wrong, Loose::Is);
            Some(statistic(r, "changes.relative")?)
        }
    };
    let ci = change_interval(v.ci, relative)?;
    let p_value = v.p.ok().filter(|p| (0.0..=1.0).contains(p));
    let runs = v.runs.ok().filter(|n| (1..=MAX_RUNS).contains(n));
    Ok(MetricChange {
        name: text(v.name, "changes.name")?,
        change: Change {
            relative,
            difference: statistic(v.difference, "changes.difference")?,
            ci,
            p_value: p_value.ok_or_else(|| bad_because("changes.p", "not from 0 to 1"))?,
            runs: runs.ok_or_else(|| bad_because("changes.runs", "not from 1 to 10"))? as usize,
        },
        verdict,
    })
}

/// The interval of a change whose relative change is `relative`.
fn change_interval(
    v: Loose<Option<Vec<Loose<f64>>>>,
    relative: Option<f64>,
) -> Result<Option<Interval>, DecodeError> {
    let what = "changes.ci";
    let null = matches!(v, Loose::Missing | Loose::Is(None));
    let relative = match (null, relative) {
        (true, None) => return Ok(None),
        (true, Some(_)) | (false, None) => {
            return Err(bad_because(what, "not there exactly where `relative` is"))
        }
        (false, Some(r)) => r,
    };
    // Anything but an array of numbers is malformed, as `null` inside is.
    let v = match v {
        Loose::Is(list) => Loose::from(list.unwrap_or_default()),
        _ => Loose::Wrong,
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

/// A file of sampled values' text: `{"metrics": [...], "schema"}`, each
/// entry a [`SampledValues`] (keys in the order of their names).
pub fn encode_values(values: &[SampledValues]) -> String {
    let doc = serde_json::json!({ "metrics": values, "schema": VALUES_SCHEMA });
    serde_json::to_string(&doc).expect("sampled values serialise")
}

/// The sampled values [`encode_values`] wrote, or what is wrong with them:
/// as many values as the samples up to [`MAX_VALUES`], no metric twice.
pub fn decode_values(text: &str) -> Result<Vec<SampledValues>, DecodeError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    if doc.get("schema").and_then(Value::as_str) != Some(VALUES_SCHEMA) {
        return Err(DecodeError::NotOf {
            what: "sampled values",
            schema: VALUES_SCHEMA,
        });
    }
    let values: Vec<SampledValues> = records_in(doc.get("metrics"), "metrics")?;
    for v in &values {
        if v.values.len() != v.samples.min(MAX_VALUES) {
            let why = format!("not one per sample, up to {MAX_VALUES}");
            return Err(bad_because("metrics.values", &why));
        }
    }
    let names: Vec<&str> = values.iter().map(|v| v.name.as_str()).collect();
    if has_duplicates(&names) {
        return Err(bad_because("metrics.name", "a name twice"));
    }
    Ok(values)
}
