//! A stored result file (schema [`RESULT_SCHEMA`]): the recording's
//! samples and environment, with the estimates derived from them for
//! convenience, written whole and read back with every limit a stored file
//! has (a restored CI cache may hold anything). Derived on [`ResultFile`]
//! and [`SeriesFile`], each field checked as serde reads it
//! (`stored_value.rs`), the fields checked against each other in one place
//! after ([`recording_of`]). Fields are declared in the order of their
//! names, the order perfbench has always written them in.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::decode_error::{bad, bad_because, DecodeError};
use super::stored_value::{self as checked, checks, named_once, numbers, or_null, record_in};
use super::stored_value::{boolean, text_that, threads_in, MAX_SAMPLES};
use super::stored_value::{method_json, method_of, records_in, statistic, Checked, MAX_COUNT};
use crate::analysis::estimates::{estimates, MetricEstimates};
use crate::analysis::recording::MAX_EARLIER_RUNS;
use crate::analysis::standings::Membership;
use crate::analysis::{BenchResult, Recording, Series};
use crate::counter::event::Unit;
use crate::counter::group::ReadPath;
use crate::measure::environment::Environment;

/// The schema tag of a stored result file.
pub const RESULT_SCHEMA: &str = "perfbench/result/v1";

/// A stored result file as written and as read.
#[derive(Serialize, Deserialize)]
struct ResultFile<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "batch_size")]
    batch_size: Option<String>,
    #[serde(deserialize_with = "checked::environment")]
    environment: Environment,
    /// Written for convenience; never read.
    #[serde(skip_deserializing)]
    estimates: BTreeMap<String, MetricEstimates<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::group")]
    group: Option<Membership>,
    #[serde(deserialize_with = "checked::id")]
    id: String,
    /// Checked with the rounds, against the samples they hold.
    iterations: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "method")]
    method: Option<String>,
    #[serde(default, serialize_with = "checked::write_read_path")]
    #[serde(deserialize_with = "checked::read_path")]
    read_path: Option<ReadPath>,
    #[serde(default, deserialize_with = "present")]
    rounds: Option<Value>,
    #[serde(skip_deserializing)]
    schema: &'static str,
    #[serde(deserialize_with = "series")]
    series: Vec<SeriesFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "settings")]
    settings: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "threads")]
    threads: Option<usize>,
}

/// One series of a stored result: an event's (or wall time's) total of
/// each sample, checked against the samples after.
#[derive(Serialize, Deserialize)]
pub(super) struct SeriesFile {
    /// The headlines of earlier runs, where it keeps some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[serde(deserialize_with = "earlier")]
    earlier: Vec<f64>,
    #[serde(deserialize_with = "series_name")]
    name: String,
    #[serde(deserialize_with = "totals")]
    totals: Vec<u64>,
    #[serde(serialize_with = "checked::write_unit")]
    #[serde(deserialize_with = "series_unit")]
    unit: Unit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "user_only")]
    user_only: Option<bool>,
}

/// A field that is there, `null` too, for a check after.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

checks! {
    // Files from before settings were recorded have none.
    settings -> Option<String> = |v| or_null(v, |v| {
        let is_key = |k: &str| k.chars().count() <= 200 && !k.chars().any(char::is_control);
        text_that(v, is_key, "settings", "")
    });
    // Left out for one thread (and in files from before `threads`).
    threads -> Option<usize> = |v| or_null(v, threads_in);
    // The method, checked against the threads after.
    method -> Option<String> = |v| or_null(v, |v| checked::text(v, "method"));
    batch_size -> Option<String> = |v| checked::text(&v, "batch_size").map(Some);
    series -> Vec<SeriesFile> = |v| match records_in(&v, "series")? {
        series if series.is_empty() => Err(bad("series")),
        series => Ok(series),
    };
    series_name -> String = |v| checked::text(&v, "series.name");
    totals -> Vec<u64> = |v| numbers(&v, "series.totals", MAX_COUNT);
    series_unit -> Unit = |v| checked::unit_in(&v, "series.unit");
    user_only -> Option<bool> = |v| or_null(v, |v| boolean(v, "series.user_only"));
    // At most `MAX_EARLIER_RUNS` headlines of earlier runs; none for `null`.
    earlier -> Vec<f64> = |v| Ok(or_null(v, |v| {
        let runs = v.as_array().ok_or_else(|| bad("series.earlier"))?;
        if runs.len() > MAX_EARLIER_RUNS {
            let why = format!("more than {MAX_EARLIER_RUNS} runs");
            return Err(bad_because("series.earlier", &why));
        }
        runs.iter().map(|n| statistic(n, "series.earlier")).collect()
    })?.unwrap_or_default());
}

/// A stored result file: the recording's samples and environment, with the
/// estimates derived from them for convenience.
pub fn encode_recording(run: &Recording, result: &BenchResult) -> String {
    let (method, batch_size) = method_json(run.method);
    let series = run.series.iter().map(|s| SeriesFile {
        earlier: s.earlier.clone(),
        name: s.name.clone(),
        totals: s.totals.clone(),
        unit: s.unit,
        user_only: s.user_only,
    });
    let doc = ResultFile {
        batch_size,
        environment: run.environment.clone(),
        estimates: estimates(result),
        group: run.membership.clone(),
        id: run.id.clone(),
        iterations: run.iterations.clone().into(),
        method,
        read_path: run.read_path,
        rounds: Some(run.rounds.clone().into()),
        schema: RESULT_SCHEMA,
        series: series.collect(),
        settings: run.settings.clone(),
        threads: (run.threads > 1).then_some(run.threads),
    };
    // Keys in the order of their names, as a `Value`'s (a group's too).
    let doc = serde_json::to_value(&doc).expect("result files serialise");
    serde_json::to_string_pretty(&doc).expect("result files serialise")
}

/// A recording from a stored result file, or what is wrong with the file.
pub fn decode_recording(json: &str) -> Checked<Recording> {
    let doc: Value = serde_json::from_str(json).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let schema = doc.get("schema").and_then(Value::as_str).unwrap_or("none");
    if schema != RESULT_SCHEMA {
        // Cut short, then escaped (never inside an escape): the file's
        // text is to make one short line.
        let cut: String = schema.chars().take(64).collect();
        return Err(DecodeError::OtherSchema(cut.escape_debug().to_string()));
    }
    recording_of(record_in(doc)?)
}

/// The recording a result file holds: its samples, its series of a total
/// each, none named twice, its method as its threads allow.
fn recording_of(doc: ResultFile) -> Checked<Recording> {
    let samples = samples_of(doc.iterations, doc.rounds)?;
    let mut series = Vec::with_capacity(doc.series.len());
    for s in doc.series {
        if s.totals.len() != samples.0.len() {
            return Err(bad_because("series.totals", "not one per sample"));
        }
        let (name, unit, totals, user_only, earlier) =
            (s.name, s.unit, s.totals, s.user_only, s.earlier);
        series.push(Series {
            name,
            unit,
            totals,
            event: None,
            user_only,
            earlier,
        });
    }
    named_once(&series, |s| &s.name, "series.name")?;
    let mut recording = Recording::stored(doc.id, doc.environment, samples, series);
    recording.read_path = doc.read_path;
    recording.membership = doc.group;
    recording.threads = doc.threads.unwrap_or(1);
    recording.method = method_of(doc.method, doc.batch_size, recording.threads)?;
    recording.settings = doc.settings;
    Ok(recording)
}

/// The iterations of a stored result's samples and the round of each.
fn samples_of(iterations: Value, rounds: Option<Value>) -> Checked<(Vec<u64>, Vec<u32>)> {
    let iterations = numbers(&iterations, "iterations", MAX_COUNT)?;
    if iterations.is_empty() || iterations.len() > MAX_SAMPLES {
        let why = format!("not 1 to {MAX_SAMPLES} samples");
        return Err(bad_because("iterations", &why));
    }
    if iterations.contains(&0) {
        return Err(bad_because("iterations", "a sample of 0"));
    }
    let total = iterations.iter().try_fold(0u64, |a, &n| a.checked_add(n));
    if total.is_none() {
        return Err(bad_because("iterations", "their total overflows"));
    }
    let rounds = match rounds {
        // Files from before rounds were measured in one.
        None => vec![0; iterations.len()],
        // Each round took a sample: round numbers are below the samples',
        // so within `u32` (at most a million samples).
        Some(v) => numbers(&v, "rounds", iterations.len() as u64 - 1)?
            .into_iter()
            .map(|r| r as u32)
            .collect(),
    };
    if rounds.len() != iterations.len() {
        return Err(bad_because("rounds", "not one per sample"));
    }
    Ok((iterations, rounds))
}
