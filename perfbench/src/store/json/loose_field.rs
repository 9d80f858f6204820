//! A field of a stored file as read, and the checks its readers share. A
//! stored file may be hostile (a restored CI cache), so a wire type does
//! not fail on a field of the wrong shape: [`Loose`] keeps what it found,
//! and the step from the wire type to the domain type names the field in
//! one line, with the limits every stored number has.

use serde::de::{DeserializeOwned, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::decode_error::{bad, bad_because, DecodeError};

/// The largest count a stored sample may hold: its iterations, or its
/// total of an event or of nanoseconds. A sample of a whole day counts
/// 4.3·10^14 cycles at 5 GHz and 8.6·10^13 ns, so 10^15 leaves room for
/// anything measured; it is below 2^53, so the counts stay exact as the
/// `f64` the analysis makes of them, and its sums of a million samples stay
/// far from overflow.
pub const MAX_COUNT: u64 = 1_000_000_000_000_000;

/// The largest magnitude of a statistic a stored file may hold (headlines
/// with their intervals, earlier runs' headlines, changes). A statistic can
/// reach far beyond any sample's value (a slope extrapolated over close
/// iteration counts, Student's t on two rounds, a change from a baseline
/// near 0), so no measured bound fits; this one leaves the square of a
/// statistic, and a sum of a million such squares, finite.
pub const MAX_STATISTIC: f64 = 1e100;

/// Most samples a stored run may hold, and so the most `--sample-count`
/// allows (`run::cli::MAX_SAMPLE_COUNT` is this limit).
pub const MAX_SAMPLES: usize = 1_000_000;

/// Most threads a stored run may have run on at once: Linux's
/// `PID_MAX_LIMIT`, the most tasks it ever holds.
pub const MAX_THREADS: u64 = 1 << 22;

/// A field of a stored file: `Is` where it has the shape `T`, `Wrong` where
/// it holds something else (`null` included, unless `T` takes it), and
/// `Missing` where the file leaves it out. Written, `Is` is `T` and the
/// others `null` (a writer leaves out a `Missing` field it may omit).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Loose<T> {
    /// Not in the file.
    #[default]
    Missing,
    /// In the file, but not of the shape `T`.
    Wrong,
    /// In the file, of the shape `T`.
    Is(T),
}

impl<T> Loose<T> {
    /// Whether the file leaves the field out: a writer then leaves it out
    /// too (`skip_serializing_if`).
    pub fn is_missing(&self) -> bool {
        matches!(self, Loose::Missing)
    }

    /// The value, where it has the shape `T`.
    pub fn ok(self) -> Option<T> {
        match self {
            Loose::Is(t) => Some(t),
            Loose::Missing | Loose::Wrong => None,
        }
    }
}

impl<T> From<T> for Loose<T> {
    fn from(t: T) -> Loose<T> {
        Loose::Is(t)
    }
}

impl<T: Serialize> Serialize for Loose<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Loose::Is(t) => t.serialize(s),
            Loose::Missing | Loose::Wrong => s.serialize_none(),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // The file was valid JSON already: whatever the field holds is a
        // value, and only its shape is in question.
        Ok(shaped(Value::deserialize(d)?))
    }
}

/// `v` as a `T`, or `Wrong`.
fn shaped<T: DeserializeOwned>(v: Value) -> Loose<T> {
    T::deserialize(v).map_or(Loose::Wrong, Loose::Is)
}

/// `v` as a record `T`: only from a JSON object, since serde also reads a
/// struct from an array of its fields, which no stored file holds; `null`
/// as none (`Missing`).
fn record_of<T: DeserializeOwned>(v: Value) -> Loose<T> {
    match v {
        Value::Null => Loose::Missing,
        Value::Object(_) => shaped(v),
        _ => Loose::Wrong,
    }
}

/// A field holding a record (`deserialize_with`): `Missing` where it is
/// `null`, `Wrong` unless it is a JSON object with `T`'s fields.
pub fn record<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Loose<T>, D::Error> {
    Ok(record_of(Value::deserialize(d)?))
}

/// A field holding an array of records (`deserialize_with`), each as
/// [`record`] reads one; `null` as none (`Missing`).
pub fn records<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    d: D,
) -> Result<Loose<Vec<Loose<T>>>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Null => Loose::Missing,
        Value::Array(items) => Loose::Is(items.into_iter().map(record_of).collect()),
        _ => Loose::Wrong,
    })
}

/// Whether `names` holds one twice.
pub(crate) fn has_duplicates(names: &[&str]) -> bool {
    let mut sorted = names.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).any(|w| w[0] == w[1])
}

/// A stored array of whole numbers from 0 to `max`, or the error naming
/// the field `what`.
pub(crate) fn numbers(
    v: Loose<Vec<Loose<u64>>>,
    what: &str,
    max: u64,
) -> Result<Vec<u64>, DecodeError> {
    let out_of_bounds = || bad_because(what, &format!("not a whole number from 0 to {max}"));
    v.ok()
        .ok_or_else(|| bad(what))?
        .into_iter()
        .map(|n| n.ok().filter(|&n| n <= max).ok_or_else(out_of_bounds))
        .collect()
}

/// A list of numbers as a file holds it.
pub(crate) fn loose_list<T: Copy>(v: &[T]) -> Loose<Vec<Loose<T>>> {
    Loose::Is(v.iter().map(|&n| Loose::Is(n)).collect())
}

/// A stored statistic: a finite number no larger than [`MAX_STATISTIC`],
/// or the error naming the field `what`.
pub(crate) fn statistic(v: Loose<f64>, what: &str) -> Result<f64, DecodeError> {
    v.ok()
        .filter(|x| x.abs() <= MAX_STATISTIC)
        .ok_or_else(|| bad_because(what, "not a number from -1e100 to 1e100"))
}

/// The thread count of a stored run: 1 where none is given (files of one
/// thread, and those from before `threads`).
pub(crate) fn threads_of(v: Loose<Option<u64>>) -> Result<usize, DecodeError> {
    match v {
        Loose::Missing | Loose::Is(None) => Ok(1),
        v => v
            .ok()
            .flatten()
            .filter(|n| (1..=MAX_THREADS).contains(n))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| bad_because("threads", "not a whole number from 1 to 2^22")),
    }
}

/// A string, or the error naming the field `what`.
pub(crate) fn text(v: Loose<String>, what: &str) -> Result<String, DecodeError> {
    v.ok().ok_or_else(|| bad(what))
}
