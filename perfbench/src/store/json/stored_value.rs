//! The checks of a stored value as serde runs them (`deserialize_with`,
//! `serialize_with`), for domain types derived straight from their file:
//! each names its field in its one-line error. A document is read through
//! a `Value` first, so that an error carries no position (the field names
//! the place) and only an object is read as a record.

use serde::de::{DeserializeOwned, Deserializer, Error};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::decode_error::{bad, bad_because, DecodeError};
use super::loose_field::{record, statistic, text, threads_of, Loose, MAX_COUNT};
use super::shared_fields::ThroughputRecord;
use super::shared_fields::{group_json, membership_of, read_path_of, throughput_of};
use super::summary_file::{comparison_in, comparison_json, estimate_of, sample_count, unit_of};
use crate::analysis::comparison::Comparison;
use crate::analysis::standings::Membership;
use crate::counter::event::Unit;
use crate::counter::group::ReadPath;
use crate::measure::environment::{is_commit_id, Environment};
use crate::measure::Throughput;
use crate::stats::Estimate;
use crate::store::history::MAX_HISTORY_RUNS;

/// The record `T` that `text` holds, or the one-line error naming the
/// field that is not as `T`'s checks want it.
pub(crate) fn record_from<T: DeserializeOwned>(text: &str) -> Result<T, DecodeError> {
    record_in(serde_json::from_str(text).map_err(|e| DecodeError::NotJson(e.to_string()))?)
}

/// The record `T` of the object `v`.
pub(crate) fn record_in<T: DeserializeOwned>(v: Value) -> Result<T, DecodeError> {
    object_record(v, "").ok_or(DecodeError::NotObject)?
}

/// The records `T` of the array `v` in the field `what`, each an object.
pub(crate) fn records_in<T: DeserializeOwned>(
    v: Option<&Value>,
    what: &str,
) -> Result<Vec<T>, DecodeError> {
    let items = v.and_then(Value::as_array).ok_or_else(|| bad(what))?;
    let prefix = format!("{what}.");
    items
        .iter()
        .map(|item| object_record(item.clone(), &prefix).ok_or_else(|| bad(what))?)
        .collect()
}

/// `v` as the record `T` (`None` unless an object: serde also reads a
/// struct from an array of its fields, which no stored file holds), or the
/// error naming its field, after `prefix`.
fn object_record<T: DeserializeOwned>(v: Value, prefix: &str) -> Option<Result<T, DecodeError>> {
    if !v.is_object() {
        return None;
    }
    Some(T::deserialize(v).map_err(|e| DecodeError::of_serde(&e, prefix)))
}

/// The field as read, of any shape, for the checks shared with the
/// [`Loose`] readers.
fn loose<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Loose<T>, D::Error> {
    serde::Deserialize::deserialize(d)
}

/// `deserialize_with` functions, one a field: each reads the field as
/// [`Loose`] and checks it, its error naming the field.
macro_rules! checks {
    ($($(#[$doc:meta])* $name:ident -> $t:ty = |$v:ident: $loose:ty| $check:expr;)*) => {$(
        $(#[$doc])*
        pub(crate) fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
            let $v: $loose = loose(d)?;
            let checked: Result<$t, DecodeError> = $check;
            checked.map_err(D::Error::custom)
        }
    )*};
}

/// A short text a person reads (a branch, a time, a host id): at most 200
/// characters, none of them a control character.
fn is_label(t: &str) -> bool {
    !t.is_empty() && t.chars().count() <= 200 && !t.chars().any(char::is_control)
}

/// An optional text that is there an [`is_label`] one, in the field `what`.
fn label(v: Loose<String>, what: &str) -> Result<Option<String>, DecodeError> {
    let t = v.ok().filter(|t| is_label(t));
    t.map(Some)
        .ok_or_else(|| bad_because(what, "not a short line of text"))
}

/// A unit by its symbol, in the field `what`.
fn unit_in(v: Loose<String>, what: &str) -> Result<Unit, DecodeError> {
    unit_of(v.ok()).ok_or_else(|| bad(what))
}

/// A commit id: 7 to 64 hex digits.
fn commit_id(v: Loose<String>) -> Option<Option<String>> {
    v.ok().filter(|c| is_commit_id(c)).map(Some)
}

/// A boolean, in the field `what`.
fn boolean(v: Loose<bool>, what: &str) -> Result<bool, DecodeError> {
    v.ok().ok_or_else(|| bad(what))
}

// A line of a benchmark's history (`HistoryRun`).
checks! {
    /// The branch a run measured, where known.
    branch -> Option<String> = |v: Loose<String>| label(v, "branch");
    /// The machine's anonymous id, where known.
    host -> Option<String> = |v: Loose<String>| label(v, "host");
    /// When a run started, where known.
    started -> Option<String> = |v: Loose<String>| label(v, "started");
    /// The commit a run measured, where known.
    commit -> Option<String> = |v: Loose<String>|
        commit_id(v).ok_or_else(|| bad_because("commit", "not 7 to 64 hex digits"));
    /// Whether the working tree differed from the commit, where known.
    dirty -> Option<bool> = |v: Loose<bool>| boolean(v, "dirty").map(Some);
    /// Whether a run was `--quick`.
    quick -> bool = |v: Loose<bool>| boolean(v, "quick");
    /// The headline metric's name: an [`is_label`] text.
    metric -> String = |v: Loose<String>| v.ok().filter(|t| is_label(t)).ok_or_else(|| bad("metric"));
    /// The headline, `[point, low, high]`: the interval around its point.
    estimate -> Estimate = |v: Loose<Vec<Loose<f64>>>| estimate_of(v, "estimate");
    /// The samples a run took: from 1 to the most a stored run holds.
    samples -> usize = |v: Loose<u64>| sample_count(v, "samples");
    /// The headline's unit.
    unit -> Unit = |v: Loose<String>| unit_in(v, "unit");
}

// A metric's entry of a values file (`SampledValues`).
checks! {
    /// A sampled metric's name.
    values_name -> String = |v: Loose<String>| text(v, "metrics.name");
    /// The samples a sampled metric's run took.
    values_samples -> usize = |v: Loose<u64>| sample_count(v, "metrics.samples");
    /// A metric's sampled values: totals over iterations (from 0 to
    /// [`MAX_COUNT`]), lowest first.
    values -> Vec<f64> = |v: Loose<Vec<Loose<f64>>>| sampled_values(v, "metrics.values");
}

// A summary's metric (`MetricSummary`) and change point (`RecentChange`).
checks! {
    /// A metric's name.
    metrics_name -> String = |v: Loose<String>| text(v, "metrics.name");
    /// A metric's unit.
    metrics_unit -> Unit = |v: Loose<String>| unit_in(v, "metrics.unit");
    /// A metric's headline, `[point, low, high]`.
    metrics_estimate -> Estimate = |v: Loose<Vec<Loose<f64>>>| estimate_of(v, "metrics.estimate");
    /// Runs since a change point: fewer than a history keeps.
    changed_runs_ago -> usize = |v: Loose<u64>| v.ok().filter(|&n| n < MAX_HISTORY_RUNS as u64)
        .map(|n| n as usize).ok_or_else(|| bad_because("changed.runs_ago", "not from 0 to 999"));
    /// The metric a change point is of.
    changed_metric -> String = |v: Loose<String>| text(v, "changed.metric");
    /// Its unit.
    changed_unit -> Unit = |v: Loose<String>| unit_in(v, "changed.unit");
    /// The level before a change point.
    changed_before -> f64 = |v: Loose<f64>| statistic(v, "changed.before");
    /// The level after it.
    changed_after -> f64 = |v: Loose<f64>| statistic(v, "changed.after");
    /// The commit of the first run at the new level.
    changed_commit -> Option<String> = |v: Loose<String>| commit_id(v).ok_or_else(|| bad("changed.commit"));
    /// Whether that run's tree was dirty.
    changed_dirty -> Option<bool> = |v: Loose<bool>| boolean(v, "changed.dirty").map(Some);
}

/// Sampled values in the field `what`: totals over iterations (from 0 to
/// [`MAX_COUNT`]), lowest first.
fn sampled_values(v: Loose<Vec<Loose<f64>>>, what: &str) -> Result<Vec<f64>, DecodeError> {
    let in_bounds = |x: &f64| (0.0..=MAX_COUNT as f64).contains(x);
    let values = v
        .ok()
        .ok_or_else(|| bad(what))?
        .into_iter()
        .map(|x| x.ok().filter(in_bounds))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| bad_because(what, "not numbers from 0 to 10^15"))?;
    if values.windows(2).any(|w| w[0] > w[1]) {
        return Err(bad_because(what, "not lowest first"));
    }
    Ok(values)
}

/// A summary's change points: none where left out or `null`.
pub(crate) fn changed<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    match Value::deserialize(d)? {
        Value::Null => Ok(Vec::new()),
        v => records_in(Some(&v), "changed").map_err(D::Error::custom),
    }
}

/// A summary's metrics (one at least: the summary checks).
pub(crate) fn metrics<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let v = Value::deserialize(d)?;
    records_in(Some(&v), "metrics").map_err(D::Error::custom)
}

// A summary's own fields (`BenchSummary`).
checks! {
    /// A benchmark's id.
    id -> String = |v: Loose<String>| text(v, "id");
    /// The settings a stored run was measured with (none in files from
    /// before they were recorded): a line of at most 200 characters
    /// without control characters.
    settings -> Option<String> = |v: Loose<Option<String>>| match v.ok() {
        Some(Some(key)) if key.chars().count() > 200 || key.chars().any(char::is_control) => {
            Err(bad("settings"))
        }
        Some(key) => Ok(key),
        None => Err(bad("settings")),
    };
    /// How the counters were read, where known.
    read_path -> Option<ReadPath> = |v: Loose<Option<String>>| read_path_of(v);
    /// The threads a summary's run ran on: always there, unlike a result
    /// file's.
    threads -> usize = |v: Loose<Option<u64>>| match v {
        Loose::Is(None) => Err(bad("threads")),
        n => threads_of(n),
    };
}

/// The environment a summary's run had: an object.
pub(crate) fn environment<'de, D: Deserializer<'de>>(d: D) -> Result<Environment, D::Error> {
    let env = record::<D, Environment>(d)?.ok();
    env.ok_or_else(|| D::Error::custom(bad("environment")))
}

/// A summary's group, where it has one.
pub(crate) fn group<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Membership>, D::Error> {
    membership_of(record(d)?).map_err(D::Error::custom)
}

/// A summary's declared throughput, where it has one.
pub(crate) fn throughput<'de, D>(d: D) -> Result<Option<Throughput>, D::Error>
where
    D: Deserializer<'de>,
{
    throughput_of(record(d)?).map_err(D::Error::custom)
}

/// The change a summary's run found, where it compared.
pub(crate) fn comparison<'de, D>(d: D) -> Result<Option<Comparison>, D::Error>
where
    D: Deserializer<'de>,
{
    comparison_in(record(d)?).map_err(D::Error::custom)
}

/// A group written as `{"arg", "member", "name"}`, `null` for none.
pub(crate) fn write_group<S>(m: &Option<Membership>, s: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
{
    group_json(m.as_ref()).serialize(s)
}

/// A throughput written as `{"bytes": n}` or `{"elements": n}`, `null`
/// for none.
pub(crate) fn write_throughput<S>(t: &Option<Throughput>, s: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
{
    t.map(ThroughputRecord::from).serialize(s)
}

/// A read path written as its name, `null` for none.
pub(crate) fn write_read_path<S>(p: &Option<ReadPath>, s: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
{
    p.map(ReadPath::name).serialize(s)
}

/// A comparison written as [`comparison`] reads it, `null` for none.
pub(crate) fn write_comparison<S>(c: &Option<Comparison>, s: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
{
    c.as_ref()
        .map_or(Loose::Missing, comparison_json)
        .serialize(s)
}

/// An estimate written as `[point, low, high]`.
pub(crate) fn write_estimate<S: Serializer>(e: &Estimate, s: S) -> Result<S::Ok, S::Error> {
    [e.point, e.ci.low, e.ci.high].serialize(s)
}

/// A unit written as its symbol.
pub(crate) fn write_unit<S: Serializer>(u: &Unit, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(u.symbol())
}
