//! A stored result file (schema [`RESULT_SCHEMA`]): the recording's
//! samples and environment, with the estimates derived from them for
//! convenience, written whole and read back with every limit a stored file
//! has (a restored CI cache may hold anything). Fields are declared in the
//! order of their names, the order perfbench has always written them in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::decode_error::{bad, bad_because, DecodeError};
use super::estimates::{estimates, MetricEstimates};
use super::loose_field::{has_duplicates, loose_list, numbers, records};
use super::loose_field::{statistic, text, threads_of, Loose, MAX_COUNT, MAX_SAMPLES};
use super::shared_fields::{method_json, method_of};
use super::stored_value::{self as checked, record_in};
use crate::analysis::recording::MAX_EARLIER_RUNS;
use crate::analysis::standings::Membership;
use crate::analysis::{BenchResult, Recording, Series};
use crate::counter::event::Unit;
use crate::counter::group::ReadPath;
use crate::measure::environment::Environment;

/// The schema tag of a stored result file.
pub const RESULT_SCHEMA: &str = "perfbench/result/v1";

/// A stored result file as written, and as read: the fields that stand
/// alone checked as serde reads them (`stored_value.rs`), those checked
/// against each other ([`Loose`]) after.
#[derive(Serialize, Deserialize)]
struct ResultRecord<'a> {
    #[serde(default, skip_serializing_if = "Loose::is_missing")]
    batch_size: Loose<String>,
    #[serde(deserialize_with = "checked::environment")]
    environment: Environment,
    /// Written for convenience; never read.
    #[serde(skip_deserializing)]
    estimates: BTreeMap<String, MetricEstimates<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(
        serialize_with = "checked::write_group",
        deserialize_with = "checked::group"
    )]
    group: Option<Membership>,
    #[serde(deserialize_with = "checked::id")]
    id: String,
    #[serde(default)]
    iterations: Loose<Vec<Loose<u64>>>,
    #[serde(default, skip_serializing_if = "Loose::is_missing")]
    method: Loose<Option<String>>,
    #[serde(default, serialize_with = "checked::write_read_path")]
    #[serde(deserialize_with = "checked::read_path")]
    read_path: Option<ReadPath>,
    #[serde(default)]
    rounds: Loose<Vec<Loose<u64>>>,
    #[serde(skip_deserializing)]
    schema: &'static str,
    #[serde(default, deserialize_with = "records")]
    series: Loose<Vec<Loose<SeriesRecord>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::settings")]
    settings: Option<String>,
    #[serde(default, skip_serializing_if = "Loose::is_missing")]
    threads: Loose<Option<u64>>,
}

/// One series of a stored result: an event's (or wall time's) total of
/// each sample.
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct SeriesRecord {
    /// The headlines of earlier runs, where it keeps some.
    #[serde(skip_serializing_if = "Loose::is_missing")]
    earlier: Loose<Option<Vec<Loose<f64>>>>,
    name: Loose<String>,
    totals: Loose<Vec<Loose<u64>>>,
    unit: Loose<String>,
    #[serde(skip_serializing_if = "Loose::is_missing")]
    user_only: Loose<Option<bool>>,
}

/// A stored result file: the recording's samples and environment, with the
/// estimates derived from them for convenience.
pub fn encode_recording(run: &Recording, result: &BenchResult) -> String {
    let (method, batch_size) = method_json(run.method);
    let rounds: Vec<u64> = run.rounds.iter().map(|&r| u64::from(r)).collect();
    let doc = ResultRecord {
        batch_size,
        environment: run.environment.clone(),
        estimates: estimates(result),
        group: run.membership.clone(),
        id: run.id.clone(),
        iterations: loose_list(&run.iterations),
        method,
        read_path: run.read_path,
        rounds: loose_list(&rounds),
        schema: RESULT_SCHEMA,
        series: Loose::Is(run.series.iter().map(series_record).collect()),
        settings: run.settings.clone(),
        threads: if run.threads > 1 {
            Loose::Is(Some(run.threads as u64))
        } else {
            Loose::Missing
        },
    };
    serde_json::to_string_pretty(&doc).expect("result files serialise")
}

/// A series as a result file holds it.
fn series_record(s: &Series) -> Loose<SeriesRecord> {
    Loose::Is(SeriesRecord {
        earlier: if s.earlier.is_empty() {
            Loose::Missing
        } else {
            Loose::Is(loose_list(&s.earlier).ok())
        },
        name: Loose::Is(s.name.clone()),
        totals: loose_list(&s.totals),
        unit: Loose::Is(s.unit.symbol().to_string()),
        user_only: s.user_only.map_or(Loose::Missing, |u| Loose::Is(Some(u))),
    })
}

/// A recording from a stored result file, or what is wrong with the file.
pub fn decode_recording(json: &str) -> Result<Recording, DecodeError> {
    let doc: Value = serde_json::from_str(json).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let schema = doc.get("schema").and_then(Value::as_str).unwrap_or("none");
    if schema != RESULT_SCHEMA {
        // Cut short, then escaped (never inside an escape): the file's
        // text is to make one short line.
        let schema: String = schema
            .chars()
            .take(64)
            .collect::<String>()
            .escape_debug()
            .collect();
        return Err(DecodeError::OtherSchema(schema));
    }
    let doc: ResultRecord = record_in(doc)?;
    let samples = samples_of(doc.iterations, doc.rounds)?;
    let series = series_of(doc.series, samples.0.len())?;
    let mut recording = Recording::stored(doc.id, doc.environment, samples, series);
    recording.read_path = doc.read_path;
    recording.membership = doc.group;
    recording.threads = threads_of(doc.threads)?;
    recording.method = method_of(doc.method, doc.batch_size, recording.threads)?;
    recording.settings = doc.settings;
    Ok(recording)
}

/// The iterations of a stored result's samples and the round of each.
fn samples_of(
    iterations: Loose<Vec<Loose<u64>>>,
    rounds: Loose<Vec<Loose<u64>>>,
) -> Result<(Vec<u64>, Vec<u32>), DecodeError> {
    let iterations = numbers(iterations, "iterations", MAX_COUNT)?;
    if iterations.is_empty() || iterations.len() > MAX_SAMPLES {
        let why = format!("not 1 to {MAX_SAMPLES} samples");
        return Err(bad_because("iterations", &why));
    }
    if iterations.contains(&0) {
        return Err(bad_because("iterations", "a sample of 0"));
    }
    if iterations
        .iter()
        .try_fold(0u64, |a, &n| a.checked_add(n))
        .is_none()
    {
        return Err(bad_because("iterations", "their total overflows"));
    }
    let rounds = match rounds {
        // Files from before rounds were measured in one.
        Loose::Missing => vec![0; iterations.len()],
        // Each round took a sample: round numbers are below the samples'.
        v => numbers(v, "rounds", iterations.len() as u64 - 1)?
            .into_iter()
            .map(|r| u32::try_from(r).map_err(|_| bad("rounds")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    if rounds.len() != iterations.len() {
        return Err(bad_because("rounds", "not one per sample"));
    }
    Ok((iterations, rounds))
}

/// The series of a stored result, each of `samples` totals, none named
/// twice.
fn series_of(
    v: Loose<Vec<Loose<SeriesRecord>>>,
    samples: usize,
) -> Result<Vec<Series>, DecodeError> {
    let list = v.ok().filter(|a| !a.is_empty());
    let series = list
        .ok_or_else(|| bad("series"))?
        .into_iter()
        // Anything but an object is a series without fields.
        .map(|s| one_series(s.ok().unwrap_or_default(), samples))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    if has_duplicates(&names) {
        return Err(bad_because("series.name", "a name twice"));
    }
    Ok(series)
}

/// One stored series of `samples` totals.
fn one_series(s: SeriesRecord, samples: usize) -> Result<Series, DecodeError> {
    let unit = match s.unit.ok().as_deref() {
        Some("ns") => Unit::Nanoseconds,
        Some("count") => Unit::Count,
        _ => return Err(bad("series.unit")),
    };
    let totals = numbers(s.totals, "series.totals", MAX_COUNT)?;
    if totals.len() != samples {
        return Err(bad_because("series.totals", "not one per sample"));
    }
    let user_only = match s.user_only {
        Loose::Missing | Loose::Is(None) => None,
        v => Some(v.ok().flatten().ok_or_else(|| bad("series.user_only"))?),
    };
    Ok(Series {
        name: text(s.name, "series.name")?,
        unit,
        totals,
        event: None,
        user_only,
        earlier: earlier_runs(s.earlier)?,
    })
}

/// The headlines of earlier runs a stored series keeps, at most
/// [`MAX_EARLIER_RUNS`]: none where the file has none (stored before them).
fn earlier_runs(v: Loose<Option<Vec<Loose<f64>>>>) -> Result<Vec<f64>, DecodeError> {
    let runs = match v {
        Loose::Missing | Loose::Is(None) => return Ok(Vec::new()),
        v => v.ok().flatten().ok_or_else(|| bad("series.earlier"))?,
    };
    if runs.len() > MAX_EARLIER_RUNS {
        let why = format!("more than {MAX_EARLIER_RUNS} runs");
        return Err(bad_because("series.earlier", &why));
    }
    runs.into_iter()
        .map(|n| statistic(n, "series.earlier"))
        .collect()
}
