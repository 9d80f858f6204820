//! The limits of a stored value and its checks as serde runs them
//! (`deserialize_with`, `serialize_with`), one a field, each naming its
//! field in its one-line error. A field is read as a JSON value and then
//! checked, so that a value of the wrong shape is named, not serde's
//! position in the text; a field left out is serde's `default` where a
//! file may leave it out, and named (`missing field`) where not.

use serde::de::DeserializeOwned;
use serde::ser::Serializer;
use serde::Serialize;
use serde_json::Value;

use super::decode_error::{bad, bad_because, DecodeError};
use super::summary_file::ComparisonFile;
use crate::analysis::comparison::Comparison;
use crate::analysis::standings::Membership;
use crate::counter::event::Unit;
use crate::counter::group::ReadPath;
use crate::measure::environment::{is_commit_id, Environment};
use crate::measure::{BatchSize, Method, Throughput};
use crate::stats::{Estimate, Interval};
use crate::store::bench_summary::{MetricSummary, RecentChange};
use crate::store::history::MAX_HISTORY_RUNS;

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
pub(crate) fn records_in<T: DeserializeOwned>(v: &Value, what: &str) -> Checked<Vec<T>> {
    let items = v.as_array().ok_or_else(|| bad(what))?;
    let prefix = format!("{what}.");
    let record = |item: &Value| object_record(item.clone(), &prefix).ok_or_else(|| bad(what))?;
    items.iter().map(record).collect()
}

/// `v` as the record `T` (`None` unless an object: serde also reads a
/// struct from an array of its fields, which no stored file holds), or the
/// error naming its field, after `prefix`.
fn object_record<T: DeserializeOwned>(v: Value, prefix: &str) -> Option<Checked<T>> {
    let record = |v| T::deserialize(v).map_err(|e| DecodeError::of_serde(&e, prefix));
    v.is_object().then(|| record(v))
}

/// A value checked, or the error naming its field.
pub(crate) type Checked<T> = Result<T, DecodeError>;

/// `None` for `null`, else what `check` makes of `v`.
pub(crate) fn or_null<T>(v: Value, check: impl FnOnce(&Value) -> Checked<T>) -> Checked<Option<T>> {
    (!v.is_null()).then(|| check(&v)).transpose()
}

/// `deserialize_with` functions, one a field: each reads the field as a
/// JSON value `v` and checks it, its error naming the field.
macro_rules! checks {
    ($($name:ident -> $t:ty = |$v:ident| $check:expr;)*) => {$(
        pub(crate) fn $name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
            use serde::de::Error;
            fn check($v: serde_json::Value) -> $crate::store::json::stored_value::Checked<$t> {
                $check
            }
            check(serde::Deserialize::deserialize(d)?).map_err(D::Error::custom)
        }
    )*};
}
pub(crate) use checks;

/// `serialize_with` functions, one a field: each writes what `$write`
/// makes of the field `$v`.
macro_rules! writes {
    ($($name:ident($v:ident: $t:ty) = $write:expr;)*) => {$(
        pub(crate) fn $name<S: Serializer>($v: &$t, s: S) -> Result<S::Ok, S::Error> {
            $write.serialize(s)
        }
    )*};
}

/// A string, in the field `what`.
pub(crate) fn text(v: &Value, what: &str) -> Checked<String> {
    v.as_str().map(str::to_string).ok_or_else(|| bad(what))
}

/// A boolean, in the field `what`.
pub(crate) fn boolean(v: &Value, what: &str) -> Checked<bool> {
    v.as_bool().ok_or_else(|| bad(what))
}

/// A string that `is`, in the field `what`, refused as `why` says (where
/// it says something).
pub(crate) fn text_that(
    v: &Value,
    is: impl Fn(&str) -> bool,
    what: &str,
    why: &str,
) -> Checked<String> {
    let text = v.as_str().filter(|t| is(t)).map(str::to_string);
    text.ok_or_else(|| bad_because(what, why))
}

/// A short text a person reads (a branch, a time, a host id, a metric):
/// at most 200 characters, none a control character (a line stays one).
pub(crate) fn is_label(t: &str) -> bool {
    !t.is_empty() && t.chars().count() <= 200 && !t.chars().any(char::is_control)
}

/// A unit by its symbol, in the field `what`.
pub(crate) fn unit_in(v: &Value, what: &str) -> Checked<Unit> {
    let mut units = [Unit::Nanoseconds, Unit::Count].into_iter();
    units
        .find(|u| Some(u.symbol()) == v.as_str())
        .ok_or_else(|| bad(what))
}

/// A statistic: a finite number no larger than [`MAX_STATISTIC`], in the
/// field `what`.
pub(crate) fn statistic(v: &Value, what: &str) -> Checked<f64> {
    let x = v.as_f64().filter(|x| x.abs() <= MAX_STATISTIC);
    x.ok_or_else(|| bad_because(what, "not a number from -1e100 to 1e100"))
}

/// An array of exactly `N` statistics, in the field `what`.
pub(crate) fn statistics<const N: usize>(v: &Value, what: &str) -> Checked<[f64; N]> {
    let a = v.as_array().filter(|a| a.len() == N);
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a.ok_or_else(|| bad(what))?) {
        *o = statistic(x, what)?;
    }
    Ok(out)
}

/// A whole number from `low` to `high` (`why` says so), in the field
/// `what`.
pub(crate) fn whole(v: &Value, (low, high): (u64, u64), what: &str, why: &str) -> Checked<u64> {
    let n = v.as_u64().filter(|n| (low..=high).contains(n));
    n.ok_or_else(|| bad_because(what, why))
}

/// An array of whole numbers from 0 to `max`, in the field `what`.
pub(crate) fn numbers(v: &Value, what: &str, max: u64) -> Checked<Vec<u64>> {
    let why = format!("not a whole number from 0 to {max}");
    let list = v.as_array().ok_or_else(|| bad(what))?;
    list.iter()
        .map(|n| whole(n, (0, max), what, &why))
        .collect()
}

/// An estimate, `[point, low, high]`, in the field `what`: finite
/// statistics, its interval around its point.
fn estimate_in(v: &Value, what: &str) -> Checked<Estimate> {
    let [point, low, high] = statistics(v, what)?;
    let why = "an interval that does not hold its point";
    if !(low <= point && point <= high) {
        return Err(bad_because(what, why));
    }
    let ci = Interval { low, high };
    Ok(Estimate { point, ci })
}

/// A count of samples, from 1 to [`MAX_SAMPLES`], in the field `what`.
fn samples_in(v: &Value, what: &str) -> Checked<usize> {
    let n = whole(v, (1, MAX_SAMPLES as u64), what, "not from 1 to 1000000");
    n.map(|n| n as usize)
}

/// A count of threads, from 1 to [`MAX_THREADS`], in the field `threads`.
pub(crate) fn threads_in(v: &Value) -> Checked<usize> {
    let why = "not a whole number from 1 to 2^22";
    whole(v, (1, MAX_THREADS), "threads", why).map(|n| n as usize)
}

/// Sampled values in the field `what`: totals over iterations (from 0 to
/// [`MAX_COUNT`]), lowest first.
fn sampled_values(v: &Value, what: &str) -> Checked<Vec<f64>> {
    let in_bounds = |x: &f64| (0.0..=MAX_COUNT as f64).contains(x);
    let values = v.as_array().ok_or_else(|| bad(what))?.iter();
    let values: Option<Vec<f64>> = values.map(|x| x.as_f64().filter(in_bounds)).collect();
    let values = values.ok_or_else(|| bad_because(what, "not numbers from 0 to 10^15"))?;
    if values.windows(2).any(|w| w[0] > w[1]) {
        return Err(bad_because(what, "not lowest first"));
    }
    Ok(values)
}

/// `v` as the plain record `T` (an object with its fields), in the field
/// `what`.
fn plain_record<T: DeserializeOwned>(v: &Value, what: &str) -> Checked<T> {
    object_record(v.clone(), "")
        .and_then(Result::ok)
        .ok_or_else(|| bad(what))
}

/// Why a commit id is refused: 7 to 64 hex digits.
const COMMIT: &str = "not 7 to 64 hex digits";

/// Why a label is refused.
const LABEL: &str = "not a short line of text";

// A line of a benchmark's history (`HistoryRun`).
checks! {
    branch -> Option<String> = |v| text_that(&v, is_label, "branch", LABEL).map(Some);
    host -> Option<String> = |v| text_that(&v, is_label, "host", LABEL).map(Some);
    started -> Option<String> = |v| text_that(&v, is_label, "started", LABEL).map(Some);
    commit -> Option<String> = |v| text_that(&v, is_commit_id, "commit", COMMIT).map(Some);
    dirty -> Option<bool> = |v| boolean(&v, "dirty").map(Some);
    quick -> bool = |v| boolean(&v, "quick");
    metric -> String = |v| text_that(&v, is_label, "metric", "");
    estimate -> Estimate = |v| estimate_in(&v, "estimate");
    samples -> usize = |v| samples_in(&v, "samples");
    unit -> Unit = |v| unit_in(&v, "unit");
}

// A metric's entry of a values file (`SampledValues`), a summary's metric
// (`MetricSummary`) and change point (`RecentChange`).
checks! {
    values_samples -> usize = |v| samples_in(&v, "metrics.samples");
    values -> Vec<f64> = |v| sampled_values(&v, "metrics.values");
    metrics_name -> String = |v| text(&v, "metrics.name");
    metrics_unit -> Unit = |v| unit_in(&v, "metrics.unit");
    metrics_estimate -> Estimate = |v| estimate_in(&v, "metrics.estimate");
    changed_runs_ago -> usize = |v| {
        let bounds = (0, MAX_HISTORY_RUNS as u64 - 1);
        whole(&v, bounds, "changed.runs_ago", "not from 0 to 999").map(|n| n as usize)
    };
    changed_metric -> String = |v| text(&v, "changed.metric");
    changed_unit -> Unit = |v| unit_in(&v, "changed.unit");
    changed_before -> f64 = |v| statistic(&v, "changed.before");
    changed_after -> f64 = |v| statistic(&v, "changed.after");
    changed_commit -> Option<String> =
        |v| text_that(&v, is_commit_id, "changed.commit", "").map(Some);
    changed_dirty -> Option<bool> = |v| boolean(&v, "changed.dirty").map(Some);
}
pub(crate) use metrics_name as values_name;

// The fields of a summary (`BenchSummary`) and of a result file; each
// that may be `null` is none there.
checks! {
    id -> String = |v| text(&v, "id");
    read_path -> Option<ReadPath> = |v| or_null(v, |v| {
        let path = ReadPath::ALL.into_iter().find(|p| Some(p.name()) == v.as_str());
        path.ok_or_else(|| bad("read_path"))
    });
    // A summary's threads are always there.
    threads -> usize = |v| threads_in(&v);
    environment -> Environment = |v| plain_record(&v, "environment");
    group -> Option<Membership> = |v| or_null(v, |v| plain_record(v, "group"));
    throughput -> Option<Throughput> = |v| or_null(v, |v| {
        let amount = |k| v.get(k).and_then(Value::as_u64).filter(|&n| n <= MAX_COUNT);
        match (amount("bytes"), amount("elements")) {
            (Some(n), None) => Ok(Throughput::Bytes(n)),
            (None, Some(n)) => Ok(Throughput::Elements(n)),
            _ => Err(bad_because("throughput", "not bytes or elements from 0 to 10^15")),
        }
    });
    // Anything but an object is a comparison without fields.
    comparison -> Option<Comparison> = |v| or_null(v, |v| {
        let c = object_record::<ComparisonFile>(v.clone(), "comparison.");
        c.unwrap_or_else(|| Ok(ComparisonFile::default()))?.try_into()
    });
    // None for `null`.
    changed -> Vec<RecentChange> =
        |v| Ok(or_null(v, |v| records_in(v, "changed"))?.unwrap_or_default());
    // One at least: the summary checks.
    metrics -> Vec<MetricSummary> = |v| records_in(&v, "metrics");
}

writes! {
    write_read_path(p: Option<ReadPath>) = p.map(ReadPath::name);
    write_comparison(c: Option<Comparison>) = c.as_ref().map(ComparisonFile::from);
    write_estimate(e: Estimate) = [e.point, e.ci.low, e.ci.high];
    write_unit(u: Unit) = u.symbol();
}

/// Which `Bencher` method measured a result, as JSON lines and result
/// files write it, `(method, batch_size)`: nothing for `iter` (as results
/// from before methods were recorded), else `method`, and `batch_size` for
/// the `iter_batched` forms, whose every batch is counted in a window the
/// group is read around (`measure::windows`).
pub(crate) fn method_json(method: Method) -> (Option<String>, Option<String>) {
    if method == Method::Iter {
        return (None, None);
    }
    let size = method.batch_size().map(BatchSize::name);
    (Some(method.name().to_string()), size)
}

/// The method of a stored result on `threads`: `iter` where none is given
/// (files from before methods were recorded).
pub(crate) fn method_of(
    name: Option<String>,
    size: Option<String>,
    threads: usize,
) -> Checked<Method> {
    let size = size.map(|s| BatchSize::from_name(&s).ok_or_else(|| bad("batch_size")));
    let size = size.transpose()?;
    if name.is_none() && size.is_none() {
        return Ok(Method::Iter);
    }
    let method = name.and_then(|name| Method::from_parts(&name, size, threads));
    method.ok_or_else(|| bad("method"))
}

/// `items`, each named by `name` in the field `what`, refused where a name
/// is there twice.
pub(crate) fn named_once<T>(items: &[T], name: impl Fn(&T) -> &str, what: &str) -> Checked<()> {
    let mut sorted: Vec<&str> = items.iter().map(name).collect();
    sorted.sort_unstable();
    match sorted.windows(2).any(|w| w[0] == w[1]) {
        true => Err(bad_because(what, "a name twice")),
        false => Ok(()),
    }
}
