//! The report's data files: a benchmark's summary (schema
//! [`SUMMARY_SCHEMA`]) and its sampled values (schema [`VALUES_SCHEMA`]),
//! written by the run that measured it and read back by later reports with
//! every limit a stored file has: derived on `BenchSummary` and
//! `SampledValues` (checked field by field in `stored_value.rs`), the
//! comparison through [`ComparisonFile`], its fields checked as serde reads
//! them and against each other in one place after. Keys are written in the
//! order of their names, the order perfbench has always written them in.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::decode_error::{bad, bad_because, DecodeError};
use super::stored_value::{boolean, statistic, statistics, text, whole, Checked};
use super::stored_value::{checks, named_once, or_null, record_in, records_in};
use crate::analysis::comparison::{Comparison, MetricChange, Target, Verdict};
use crate::analysis::recording::MAX_EARLIER_RUNS;
use crate::stats::{Change, Interval};
use crate::store::bench_summary::{BenchSummary, SampledValues, MAX_VALUES};

/// The schema tag of a summary file.
pub const SUMMARY_SCHEMA: &str = "perfbench/summary/v1";

/// The schema tag of a file of sampled values.
pub const VALUES_SCHEMA: &str = "perfbench/values/v1";

/// The change a run found, against what it compared with (`null`: its
/// previous run; `paired`: a build measured in turn with this one).
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
pub(super) struct ComparisonFile {
    #[serde(deserialize_with = "against")]
    against: Option<String>,
    #[serde(deserialize_with = "changes")]
    changes: Option<Vec<ChangeFile>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[serde(deserialize_with = "paired")]
    paired: bool,
    #[serde(deserialize_with = "unfair")]
    unfair: Option<String>,
}

/// One metric's change: its relative change with its interval, where the
/// baseline is not 0.
#[derive(Serialize, Deserialize)]
pub(super) struct ChangeFile {
    #[serde(default, deserialize_with = "change_ci")]
    ci: Option<[f64; 2]>,
    #[serde(deserialize_with = "difference")]
    difference: f64,
    #[serde(deserialize_with = "change_name")]
    name: String,
    #[serde(deserialize_with = "p")]
    p: f64,
    #[serde(default, deserialize_with = "relative")]
    relative: Option<f64>,
    #[serde(deserialize_with = "runs")]
    runs: usize,
    #[serde(deserialize_with = "verdict")]
    verdict: String,
}

/// The verdicts, each by its name.
const VERDICTS: [Verdict; 4] = [
    Verdict::Improved,
    Verdict::Regressed,
    Verdict::WithinNoise,
    Verdict::NoChange,
];

checks! {
    // What a run compared with: `null` for its previous run.
    against -> Option<String> = |v| or_null(v, |v| text(v, "comparison.against"));
    unfair -> Option<String> = |v| or_null(v, |v| text(v, "comparison.unfair"));
    paired -> bool = |v| boolean(&v, "comparison.paired");
    // `null` for a new benchmark.
    changes -> Option<Vec<ChangeFile>> = |v| or_null(v, |v| records_in(v, "changes"));
    change_ci -> Option<[f64; 2]> = |v| or_null(v, |v| statistics(v, "changes.ci"));
    difference -> f64 = |v| statistic(&v, "changes.difference");
    change_name -> String = |v| text(&v, "changes.name");
    p -> f64 = |v| {
        let p = v.as_f64().filter(|p| (0.0..=1.0).contains(p));
        p.ok_or_else(|| bad_because("changes.p", "not from 0 to 1"))
    };
    // `null` where the baseline is 0.
    relative -> Option<f64> = |v| or_null(v, |v| statistic(v, "changes.relative"));
    // One run and the earlier ones it keeps.
    runs -> usize = |v| {
        let bounds = (1, MAX_EARLIER_RUNS as u64 + 1);
        whole(&v, bounds, "changes.runs", "not from 1 to 10").map(|n| n as usize)
    };
    verdict -> String = |v| text(&v, "changes.verdict");
}

impl From<&Comparison> for ComparisonFile {
    fn from(c: &Comparison) -> ComparisonFile {
        let change = |c: &MetricChange| ChangeFile {
            ci: c.change.ci.map(|i| [i.low, i.high]),
            difference: c.change.difference,
            name: c.name.clone(),
            p: c.change.p_value,
            relative: c.change.relative,
            runs: c.change.runs,
            verdict: c.verdict.as_str().to_string(),
        };
        ComparisonFile {
            against: match &c.against {
                Target::PreviousRun => None,
                Target::Baseline(name) | Target::Paired(name) => Some(name.clone()),
            },
            changes: c.changes.as_ref().map(|cs| cs.iter().map(change).collect()),
            paired: matches!(c.against, Target::Paired(_)),
            unfair: c.unfair.clone(),
        }
    }
}

impl TryFrom<ComparisonFile> for Comparison {
    type Error = DecodeError;

    /// The comparison a summary holds: its changes none named twice.
    fn try_from(c: ComparisonFile) -> Checked<Comparison> {
        let changes = c.changes.map(|cs| cs.into_iter().map(change_of).collect());
        let changes: Option<Vec<MetricChange>> = changes.transpose()?;
        let all = changes.as_deref().unwrap_or_default();
        named_once(all, |c| &c.name, "changes.name")?;
        let against = match (c.against, c.paired) {
            (None, _) => Target::PreviousRun,
            (Some(name), true) => Target::Paired(name),
            (Some(name), false) => Target::Baseline(name),
        };
        let unfair = c.unfair;
        Ok(Comparison {
            against,
            changes,
            unfair,
        })
    }
}

/// A change: an interval (holding the relative change) exactly where
/// there is a relative change.
fn change_of(c: ChangeFile) -> Checked<MetricChange> {
    let why = match (c.ci, c.relative) {
        (Some([low, high]), Some(r)) if !(low <= r && r <= high) => {
            "an interval that does not hold its change"
        }
        (Some(_), None) | (None, Some(_)) => "not there exactly where `relative` is",
        _ => "",
    };
    if !why.is_empty() {
        return Err(bad_because("changes.ci", why));
    }
    let ci = c.ci.map(|[low, high]| Interval { low, high });
    let verdict = VERDICTS.into_iter().find(|k| k.as_str() == c.verdict);
    Ok(MetricChange {
        name: c.name,
        change: Change {
            relative: c.relative,
            difference: c.difference,
            ci,
            p_value: c.p,
            runs: c.runs,
        },
        verdict: verdict.ok_or_else(|| bad("changes.verdict"))?,
    })
}

/// A summary file's text: the [`BenchSummary`] with its schema, keys in
/// the order of their names (the order of every stored type's fields).
pub fn encode_summary(s: &BenchSummary) -> String {
    with_schema(s, SUMMARY_SCHEMA)
}

/// `record`'s text with its `schema`, keys in the order of their names.
pub(super) fn with_schema<T: Serialize>(record: &T, schema: &str) -> String {
    let mut doc = serde_json::to_value(record).expect("stored records serialise");
    doc["schema"] = schema.into();
    doc.to_string()
}

/// The document in `text` of the schema `schema`, a file of `what`.
pub(super) fn document(text: &str, what: &'static str, schema: &'static str) -> Checked<Value> {
    let doc: Value = serde_json::from_str(text).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    if doc.get("schema").and_then(Value::as_str) != Some(schema) {
        return Err(DecodeError::NotOf(what, schema));
    }
    Ok(doc)
}

/// The summary [`encode_summary`] wrote, or what is wrong with the text:
/// one metric at least, none named twice.
pub fn decode_summary(text: &str) -> Checked<BenchSummary> {
    let summary: BenchSummary = record_in(document(text, "a summary", SUMMARY_SCHEMA)?)?;
    if summary.metrics.is_empty() {
        return Err(bad("metrics"));
    }
    named_once(&summary.metrics, |m| &m.name, "metrics.name")?;
    Ok(summary)
}

/// A file of sampled values' text: `{"metrics": [...], "schema"}`, each
/// entry a [`SampledValues`] (keys in the order of their names).
pub fn encode_values(values: &[SampledValues]) -> String {
    let doc = serde_json::json!({ "metrics": values, "schema": VALUES_SCHEMA });
    serde_json::to_string(&doc).expect("sampled values serialise")
}

/// The sampled values [`encode_values`] wrote, or what is wrong with them:
/// as many values as the samples up to [`MAX_VALUES`], no metric twice.
pub fn decode_values(text: &str) -> Checked<Vec<SampledValues>> {
    let doc = document(text, "sampled values", VALUES_SCHEMA)?;
    let values: Vec<SampledValues> = records_in(&doc["metrics"], "metrics")?;
    if values
        .iter()
        .any(|v| v.values.len() != v.samples.min(MAX_VALUES))
    {
        let why = format!("not one per sample, up to {MAX_VALUES}");
        return Err(bad_because("metrics.values", &why));
    }
    named_once(&values, |v| &v.name, "metrics.name")?;
    Ok(values)
}
