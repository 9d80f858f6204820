//! The checks of a stored value as serde runs them (`deserialize_with`,
//! `serialize_with`), for domain types derived straight from their file:
//! each names its field in its one-line error. A document is read through
//! a `Value` first, so that an error carries no position (the field names
//! the place) and only an object is read as a record.

use serde::de::{DeserializeOwned, Deserializer, Error};
use serde::ser::Serializer;
use serde::Serialize;
use serde_json::Value;

use super::loose_field::{bad, bad_because, text, Loose, MAX_COUNT};
use super::summary_file::{estimate_of, sample_count, unit_of};
use crate::counter::event::Unit;
use crate::measure::environment::is_commit_id;
use crate::stats::Estimate;

/// The record `T` that `text` holds, or the one-line error naming the
/// field that is not as `T`'s checks want it.
pub(crate) fn record_from<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
    record(doc, "").ok_or_else(|| "not a JSON object; remove or restore it".to_string())?
}

/// The records `T` of the array `v` in the field `what`, each an object.
pub(crate) fn records_in<T: DeserializeOwned>(
    v: Option<&Value>,
    what: &str,
) -> Result<Vec<T>, String> {
    let items = v.and_then(Value::as_array).ok_or_else(|| bad(what))?;
    let prefix = format!("{what}.");
    items
        .iter()
        .map(|item| record(item.clone(), &prefix).ok_or_else(|| bad(what))?)
        .collect()
}

/// `v` as the record `T` (`None` unless an object: serde also reads a
/// struct from an array of its fields, which no stored file holds), or the
/// error naming its field, after `prefix`.
fn record<T: DeserializeOwned>(v: Value, prefix: &str) -> Option<Result<T, String>> {
    if !v.is_object() {
        return None;
    }
    Some(T::deserialize(v).map_err(|e| {
        let e = e.to_string();
        // serde's word for a field left out, in this file's words.
        match e.strip_prefix("missing field `") {
            Some(name) => bad(&format!("{prefix}{}", name.trim_end_matches('`'))),
            None => e,
        }
    }))
}

/// The field as read, of any shape, for the checks shared with the
/// [`Loose`] readers.
fn loose<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Loose<T>, D::Error> {
    serde::Deserialize::deserialize(d)
}

/// A short text a person reads (a branch, a time, a host id): at most 200
/// characters, none of them a control character.
fn is_label(t: &str) -> bool {
    !t.is_empty() && t.chars().count() <= 200 && !t.chars().any(char::is_control)
}

/// The headline metric's name: a [`is_label`] text.
pub(crate) fn metric<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let name = loose::<D, String>(d)?.ok().filter(|t| is_label(t));
    name.ok_or_else(|| D::Error::custom(bad("metric")))
}

/// An optional text that is there a [`is_label`] one, in the field
/// `what`.
fn label<'de, D: Deserializer<'de>>(d: D, what: &str) -> Result<Option<String>, D::Error> {
    match loose::<D, String>(d)?.ok() {
        Some(t) if is_label(&t) => Ok(Some(t)),
        _ => Err(D::Error::custom(bad_because(
            what,
            "not a short line of text",
        ))),
    }
}

/// The branch a run measured, where known: a [`label`].
pub(crate) fn branch<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    label(d, "branch")
}

/// The machine's anonymous id, where known: a [`label`].
pub(crate) fn host<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    label(d, "host")
}

/// When a run started, where known: a [`label`].
pub(crate) fn started<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    label(d, "started")
}

/// An optional commit id that is there: 7 to 64 hex digits.
pub(crate) fn commit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match loose::<D, String>(d)?.ok() {
        Some(c) if is_commit_id(&c) => Ok(Some(c)),
        _ => Err(D::Error::custom(bad_because(
            "commit",
            "not 7 to 64 hex digits",
        ))),
    }
}

/// Whether the working tree differed from the commit, where known.
pub(crate) fn dirty<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let dirty = loose::<D, bool>(d)?.ok();
    dirty
        .map(Some)
        .ok_or_else(|| D::Error::custom(bad("dirty")))
}

/// Whether a run was `--quick`.
pub(crate) fn quick<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    loose(d)?.ok().ok_or_else(|| D::Error::custom(bad("quick")))
}

/// An estimate, `[point, low, high]`: finite statistics, the interval
/// around its point.
pub(crate) fn estimate<'de, D: Deserializer<'de>>(d: D) -> Result<Estimate, D::Error> {
    estimate_of(loose(d)?, "estimate").map_err(D::Error::custom)
}

/// An estimate as [`estimate`] reads it.
pub(crate) fn write_estimate<S: Serializer>(e: &Estimate, s: S) -> Result<S::Ok, S::Error> {
    [e.point, e.ci.low, e.ci.high].serialize(s)
}

/// A count of samples: from 1 to the most a stored run holds.
pub(crate) fn samples<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    sample_count(loose(d)?, "samples").map_err(D::Error::custom)
}

/// A unit by its symbol.
pub(crate) fn unit<'de, D: Deserializer<'de>>(d: D) -> Result<Unit, D::Error> {
    unit_of(loose::<D, String>(d)?.ok()).ok_or_else(|| D::Error::custom(bad("unit")))
}

/// A unit as [`unit`] reads it.
pub(crate) fn write_unit<S: Serializer>(u: &Unit, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(u.symbol())
}

/// A sampled metric's name.
pub(crate) fn values_name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    text(loose(d)?, "metrics.name").map_err(D::Error::custom)
}

/// The samples a sampled metric's run took.
pub(crate) fn values_samples<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    sample_count(loose(d)?, "metrics.samples").map_err(D::Error::custom)
}

/// A metric's sampled values: totals over iterations (from 0 to
/// [`MAX_COUNT`]), lowest first.
pub(crate) fn values<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    let what = "metrics.values";
    let list = loose::<D, Vec<Loose<f64>>>(d)?.ok();
    let list = list.ok_or_else(|| D::Error::custom(bad(what)))?;
    let in_bounds = |x: &f64| (0.0..=MAX_COUNT as f64).contains(x);
    let values = list
        .into_iter()
        .map(|x| x.ok().filter(in_bounds))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| D::Error::custom(bad_because(what, "not numbers from 0 to 10^15")))?;
    if values.windows(2).any(|w| w[0] > w[1]) {
        return Err(D::Error::custom(bad_because(what, "not lowest first")));
    }
    Ok(values)
}
