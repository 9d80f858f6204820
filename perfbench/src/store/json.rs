//! All JSON perfbench writes and reads: the lines of `--output-format
//! json`, stored result files and their schema tags.

use serde_json::{json, Map, Value};

use crate::analysis::comparison::Comparison;
use crate::analysis::derived::rate;
use crate::analysis::recording::MAX_EARLIER_RUNS;
use crate::analysis::standings::Membership;
use crate::analysis::{BenchResult, Fit, Recording, Series};
use crate::counter::event::Unit;
use crate::counter::group::ReadPath;
use crate::measure::environment::Environment;
use crate::measure::{BatchSize, Method, Throughput};
use crate::stats::Estimate;

/// The schema tag of every JSON line (`--output-format json`).
pub const SCHEMA: &str = "perfbench/v1";

/// The schema tag of a stored result file.
pub const RESULT_SCHEMA: &str = "perfbench/result/v1";

/// Per-iteration estimates of each metric, as JSON lines and stored results
/// write them.
pub fn estimates_json(result: &BenchResult) -> Map<String, Value> {
    let mut metrics = Map::new();
    for m in &result.metrics {
        let s = &m.stats;
        let e = m.estimate();
        let scaled = m.scale.as_ref().map(|sc| {
            json!({
                "unit": sc.unit,
                "factor": sc.factor,
                "estimate": e.point * sc.factor,
                "ci": [e.ci.low * sc.factor, e.ci.high * sc.factor],
                "median": s.median.point * sc.factor,
                "min": s.min * sc.factor,
                "max": s.max * sc.factor,
            })
        });
        let ci = |e: &Estimate| [e.ci.low, e.ci.high];
        metrics.insert(
            m.name.clone(),
            json!({
                "unit": m.unit.symbol(),
                "estimate": e.point,
                "ci": ci(e),
                "estimator": m.estimator(),
                "rounds": m.rounds.rounds,
                "slope": s.slope.point,
                "slope_ci": ci(&s.slope),
                "intercept": s.intercept,
                "r_squared": s.r_squared,
                "mean": s.mean.point,
                "mean_ci": ci(&s.mean),
                "median": s.median.point,
                "median_ci": ci(&s.median),
                "std_dev": s.std_dev.point,
                "std_dev_ci": ci(&s.std_dev),
                "mad": s.mad.point,
                "mad_ci": ci(&s.mad),
                "min": s.min,
                "p25": s.quartiles.0,
                "p75": s.quartiles.1,
                "max": s.max,
                "outliers": {
                    "low_severe": s.outliers.low_severe,
                    "low_mild": s.outliers.low_mild,
                    "high_mild": s.outliers.high_mild,
                    "high_severe": s.outliers.high_severe,
                },
            }),
        );
        if let Some(scaled) = scaled {
            metrics[&m.name]["scaled"] = scaled;
        }
        if let Some(why) = poor_fit_json(&m.fit) {
            metrics[&m.name]["poor_fit"] = why;
        }
    }
    metrics
}

/// How per-iteration mode read the counters and how many iterations it
/// left out, or in batch mode how many samples, where it left some out.
fn read_path_json(obj: &mut Value, r: &BenchResult) {
    match r.read_path {
        Some(path) => {
            obj["read_path"] = json!(path.name());
            obj["left_out_iterations"] = json!(r.left_out);
        }
        None if r.left_out > 0 => obj["left_out_samples"] = json!(r.left_out),
        None => {}
    }
}

/// A stored result file: the recording's samples and environment, with the
/// estimates derived from them for convenience.
pub fn encode_recording(run: &Recording, result: &BenchResult) -> String {
    let series: Vec<Value> = run
        .series
        .iter()
        .map(|s| {
            let mut series = json!({ "name": s.name, "unit": s.unit.symbol(), "totals": s.totals });
            if let Some(user_only) = s.user_only {
                series["user_only"] = json!(user_only);
            }
            if !s.earlier.is_empty() {
                series["earlier"] = json!(s.earlier);
            }
            series
        })
        .collect();
    let mut doc = json!({
        "schema": RESULT_SCHEMA,
        "id": run.id,
        "environment": run.environment.to_json(),
        "iterations": run.iterations,
        "rounds": run.rounds,
        "read_path": run.read_path.map(ReadPath::name),
        "series": series,
        "estimates": estimates_json(result),
    });
    if let Some(m) = &run.membership {
        doc["group"] = membership_json(m);
    }
    if run.threads > 1 {
        doc["threads"] = json!(run.threads);
    }
    put_method(&mut doc, run.method);
    serde_json::to_string_pretty(&doc).expect("JSON values serialise")
}

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

/// Most samples a stored run may hold: what `--sample-count` allows
/// (`run::cli::MAX_SAMPLE_COUNT`).
pub const MAX_SAMPLES: usize = 1_000_000;

/// Most threads a stored run may have run on at once: Linux's
/// `PID_MAX_LIMIT`, the most tasks it ever holds.
pub const MAX_THREADS: u64 = 1 << 22;

/// A recording from a stored result file, or what is wrong with the file.
pub fn decode_recording(text: &str) -> Result<Recording, String> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| format!("not valid JSON ({e}); remove or restore it"))?;
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
        return Err(format!(
            "has schema `{schema}`, this perfbench reads `{RESULT_SCHEMA}`; remove it or use a matching perfbench"
        ));
    }
    let samples = samples_of(&doc)?;
    let series = series_of(&doc["series"], samples.0.len())?;
    let mut recording = Recording::stored(
        doc["id"].as_str().ok_or_else(|| bad("id"))?.to_string(),
        Environment::from_json(&doc["environment"]).ok_or_else(|| bad("environment"))?,
        samples,
        series,
    );
    recording.read_path = read_path_of(&doc["read_path"]).ok_or_else(|| bad("read_path"))?;
    recording.membership = match &doc["group"] {
        Value::Null => None,
        v => Some(membership_of(v).ok_or_else(|| bad("group"))?),
    };
    recording.threads = threads_of(&doc["threads"])?;
    recording.method = method_of(&doc, recording.threads)?;
    Ok(recording)
}

/// Writes which `Bencher` method measured a result into `doc`, unless it
/// is `iter` (as results from before methods were recorded): `method`, and
/// `batch_size` for the `iter_batched` forms, whose every batch is counted
/// in a window the group is read around (`measure::windows`).
fn put_method(doc: &mut Value, method: Method) {
    if method == Method::Iter {
        return;
    }
    doc["method"] = json!(method.name());
    if let Some(size) = method.batch_size() {
        doc["batch_size"] = json!(size.name());
    }
}

/// The method of a stored result on `threads`: `iter` where none is given
/// (files from before methods were recorded).
fn method_of(doc: &Value, threads: usize) -> Result<Method, String> {
    let size = match doc.get("batch_size") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .and_then(BatchSize::from_name)
                .ok_or_else(|| bad("batch_size"))?,
        ),
    };
    let name = doc.get("method").unwrap_or(&Value::Null);
    if name.is_null() && size.is_none() {
        return Ok(Method::Iter);
    }
    name.as_str()
        .and_then(|name| Method::from_parts(name, size, threads))
        .ok_or_else(|| bad("method"))
}

/// The iterations of a stored result's samples and the round of each.
fn samples_of(doc: &Value) -> Result<(Vec<u64>, Vec<u32>), String> {
    let iterations = numbers(&doc["iterations"], "iterations", MAX_COUNT)?;
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
    // Files from before rounds were measured in one.
    let rounds = match doc.get("rounds") {
        None => vec![0; iterations.len()],
        // Each round took a sample: round numbers are below the samples'.
        Some(v) => numbers(v, "rounds", iterations.len() as u64 - 1)?
            .into_iter()
            .map(|r| u32::try_from(r).map_err(|_| bad("rounds")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    if rounds.len() != iterations.len() {
        return Err(bad_because("rounds", "not one per sample"));
    }
    Ok((iterations, rounds))
}

/// The read path named `v`, `None` for none, or `None` outside where it
/// names none known.
pub(crate) fn read_path_of(v: &Value) -> Option<Option<ReadPath>> {
    match v {
        Value::Null => Some(None),
        v => ReadPath::ALL
            .into_iter()
            .find(|p| Some(p.name()) == v.as_str())
            .map(Some),
    }
}

/// The thread count of a stored run: 1 where none is given (files of one
/// thread, and those from before `threads`).
pub(crate) fn threads_of(v: &Value) -> Result<usize, String> {
    if v.is_null() {
        return Ok(1);
    }
    v.as_u64()
        .filter(|n| (1..=MAX_THREADS).contains(n))
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| bad_because("threads", "not a whole number from 1 to 2^22"))
}

/// The series of a stored result, each of `samples` totals, none named
/// twice.
fn series_of(v: &Value, samples: usize) -> Result<Vec<Series>, String> {
    let list = v.as_array().filter(|a| !a.is_empty());
    let series = list
        .ok_or_else(|| bad("series"))?
        .iter()
        .map(|s| one_series(s, samples))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    if has_duplicates(&names) {
        return Err(bad_because("series.name", "a name twice"));
    }
    Ok(series)
}

/// One stored series of `samples` totals.
fn one_series(s: &Value, samples: usize) -> Result<Series, String> {
    let unit = match s["unit"].as_str() {
        Some("ns") => Unit::Nanoseconds,
        Some("count") => Unit::Count,
        _ => return Err(bad("series.unit")),
    };
    let totals = numbers(&s["totals"], "series.totals", MAX_COUNT)?;
    if totals.len() != samples {
        return Err(bad_because("series.totals", "not one per sample"));
    }
    let user_only = match &s["user_only"] {
        Value::Null => None,
        v => Some(v.as_bool().ok_or_else(|| bad("series.user_only"))?),
    };
    Ok(Series {
        name: s["name"]
            .as_str()
            .ok_or_else(|| bad("series.name"))?
            .to_string(),
        unit,
        totals,
        event: None,
        user_only,
        earlier: earlier_runs(&s["earlier"])?,
    })
}

/// Whether `names` holds one twice.
pub(crate) fn has_duplicates(names: &[&str]) -> bool {
    let mut sorted = names.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).any(|w| w[0] == w[1])
}

/// The error for a stored file's malformed field `what`.
pub(crate) fn bad(what: &str) -> String {
    format!("malformed `{what}`; remove or restore it")
}

/// The error for a stored file's field `what`, malformed as `why` says.
pub(crate) fn bad_because(what: &str, why: &str) -> String {
    format!("malformed `{what}` ({why}); remove or restore it")
}

/// A stored array of whole numbers from 0 to `max`, or the error naming
/// the field `what`.
fn numbers(v: &Value, what: &str, max: u64) -> Result<Vec<u64>, String> {
    let out_of_bounds = || bad_because(what, &format!("not a whole number from 0 to {max}"));
    v.as_array()
        .ok_or_else(|| bad(what))?
        .iter()
        .map(|n| n.as_u64().filter(|&n| n <= max).ok_or_else(out_of_bounds))
        .collect()
}

/// A stored statistic: a finite number no larger than [`MAX_STATISTIC`],
/// or the error naming the field `what`.
pub(crate) fn statistic(v: &Value, what: &str) -> Result<f64, String> {
    v.as_f64()
        .filter(|x| x.abs() <= MAX_STATISTIC)
        .ok_or_else(|| bad_because(what, "not a number from -1e100 to 1e100"))
}

/// A benchmark's group as JSON: `{"name", "member", "arg"}`.
pub(crate) fn membership_json(m: &Membership) -> Value {
    json!({ "name": m.group, "member": m.member, "arg": m.arg })
}

/// The group [`membership_json`] wrote.
pub(crate) fn membership_of(v: &Value) -> Option<Membership> {
    let text = |key: &str| v[key].as_str().map(str::to_string);
    Some(Membership {
        group: text("name")?,
        member: text("member")?,
        arg: match &v["arg"] {
            Value::Null => None,
            _ => Some(text("arg")?),
        },
    })
}

/// The headlines of earlier runs a stored series keeps, at most
/// [`MAX_EARLIER_RUNS`]: none where the file has none (stored before them).
fn earlier_runs(v: &Value) -> Result<Vec<f64>, String> {
    if v.is_null() {
        return Ok(Vec::new());
    }
    let runs = v.as_array().ok_or_else(|| bad("series.earlier"))?;
    if runs.len() > MAX_EARLIER_RUNS {
        let why = format!("more than {MAX_EARLIER_RUNS} runs");
        return Err(bad_because("series.earlier", &why));
    }
    runs.iter()
        .map(|n| statistic(n, "series.earlier"))
        .collect()
}

/// Why the line fitted poorly, where it did.
fn poor_fit_json(fit: &Fit) -> Option<Value> {
    match fit {
        Fit::Good | Fit::Rare { .. } => None,
        Fit::Poor { why, .. } => Some(json!(why.describe())),
    }
}

/// One benchmark as a line of JSON (schema [`SCHEMA`]); values are per
/// iteration.
pub fn bench_line(
    r: &BenchResult,
    environment: &Environment,
    comparison: Option<&Comparison>,
) -> String {
    let mut metrics = estimates_json(r);
    if let Some(comparison) = comparison {
        for (name, value) in metrics.iter_mut() {
            if let Some(c) = comparison.change(name) {
                value["change"] = json!({
                    "relative": c.change.relative,
                    "ci": c.change.ci.map(|ci| [ci.low, ci.high]),
                    "p": c.change.p_value,
                    "verdict": c.verdict.as_str(),
                    "runs": c.change.runs,
                });
            }
        }
    }
    let mut obj = json!({
        "schema": SCHEMA,
        "id": r.id,
        "mode": if r.read_path.is_some() { "per-iter" } else { "batch" },
        "samples": r.samples,
        "iterations": r.iterations,
        "cpu": environment.cpu,
        "environment": environment.to_json(),
        "multiplexed_samples": r.multiplexed_samples,
        "metrics": metrics,
    });
    if let Some(ratio) = r.off_cpu_ratio {
        obj["off_cpu_ratio"] = json!(ratio);
    }
    if !r.groups.is_empty() {
        obj["groups"] = json!(r.groups);
    }
    if let Some(m) = &r.membership {
        obj["group"] = membership_json(m);
    }
    if r.threads > 1 {
        obj["threads"] = json!(r.threads);
    }
    put_method(&mut obj, r.method);
    read_path_json(&mut obj, r);
    for o in &r.overhead {
        obj["metrics"][&o.metric]["overhead"] = json!(o.per_iteration);
        obj["metrics"][&o.metric]["raw_estimate"] = json!(o.raw_estimate);
    }
    if let Some(c) = comparison {
        obj["baseline"] = json!({ "name": c.against.json_name(), "new": c.changes.is_none() });
        if let Some(why) = &c.unfair {
            obj["baseline"]["not_compared"] = json!(why);
        }
    }
    if !r.derived.is_empty() {
        obj["derived"] = r
            .derived
            .iter()
            .map(|(n, v)| (n.clone(), json!(v)))
            .collect::<Map<_, _>>()
            .into();
    }
    if let Some(t) = r.throughput {
        obj["throughput"] = match t {
            Throughput::Bytes(n) => json!({ "bytes": n }),
            Throughput::Elements(n) => json!({ "elements": n }),
        };
        if let Some(rate) = rate(r) {
            let e = rate.per_second;
            // An interval open above (wall time down to 0) has no finite end.
            let high = e.ci.high.is_finite().then_some(e.ci.high);
            obj["throughput"]["per_second"] = json!(e.point);
            obj["throughput"]["per_second_ci"] = json!([e.ci.low, high]);
        }
    }
    Value::to_string(&obj)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::exact_result as result;

    #[test]
    fn json_lines_follow_the_schema() {
        let r = result(
            "x/1",
            &[
                ("wall-time", Unit::Nanoseconds, 2.5),
                ("page-faults", Unit::Count, 16.0),
            ],
        );
        let env = Environment::read_from(std::path::Path::new("/nonexistent"), Some(1));
        let line = bench_line(&r, &env, None);
        assert!(!line.contains('\n'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["schema"], "perfbench/v1");
        assert_eq!(v["id"], "x/1");
        assert_eq!(v["mode"], "batch");
        assert_eq!(v["samples"], 10);
        assert_eq!(v["iterations"], 550);
        assert_eq!(v["metrics"]["page-faults"]["estimate"], 16.0);
        assert_eq!(v["metrics"]["page-faults"]["unit"], "count");
        assert_eq!(v["metrics"]["wall-time"]["unit"], "ns");
        assert_eq!(v["cpu"], 1);
        assert_eq!(v["environment"]["cpu"], 1);
        assert_eq!(v["environment"]["cpu_model"], "unknown");
        assert_eq!(v.get("threads"), None, "one thread");
    }

    #[test]
    fn json_lines_give_the_threads_of_a_threaded_benchmark() {
        let mut r = result("x/threads=4", &[("page-faults", Unit::Count, 8.0)]);
        r.threads = 4;
        let line = bench_line(&r, &Environment::default(), None);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["threads"], 4);
        assert_eq!(v["metrics"]["page-faults"]["estimate"], 8.0);
    }

    /// A stored result of 3 samples in rounds 0, 1, 1: wall time and page
    /// faults, as JSON to spoil.
    fn stored() -> Value {
        let series = |name: &str, unit, totals: Vec<u64>| Series {
            name: name.into(),
            unit,
            totals,
            event: None,
            user_only: None,
            earlier: vec![10.0],
        };
        let run = Recording::stored(
            "x/1".into(),
            Environment::default(),
            (vec![1, 2, 3], vec![0, 1, 1]),
            vec![
                series("wall-time", Unit::Nanoseconds, vec![10, 21, 29]),
                series("page-faults", Unit::Count, vec![2, 4, 6]),
            ],
        );
        let result = crate::analysis::analyze(&run, &Default::default());
        let doc = serde_json::from_str(&encode_recording(&run, &result)).unwrap();
        assert_eq!(decode_recording(&encode_recording(&run, &result)), Ok(run));
        doc
    }

    /// What decoding `stored()` changed by `spoil` says.
    fn spoiled(spoil: impl FnOnce(&mut Value)) -> String {
        let mut doc = stored();
        spoil(&mut doc);
        // How long a hostile file takes to refuse is the fuzz target's to
        // bound (`-timeout`), not a timed assertion's on a shared machine.
        let e = decode_recording(&doc.to_string()).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
        e
    }

    #[test]
    fn absurd_earlier_runs_are_malformed() {
        let e = spoiled(|d| d["series"][0]["earlier"] = json!([1e308]));
        assert_eq!(
            e,
            "malformed `series.earlier` (not a number from -1e100 to 1e100); remove or restore it"
        );
        let e2 = spoiled(|d| d["series"][1]["earlier"] = json!([10.0, -1e308]));
        assert_eq!(e2, e);
        let e = spoiled(|d| d["series"][0]["earlier"] = json!(vec![1.0; 10]));
        assert_eq!(
            e,
            "malformed `series.earlier` (more than 9 runs); remove or restore it"
        );
        // JSON has no NaN or infinity; serde_json refuses 1e309.
        let text = stored()
            .to_string()
            .replace("\"earlier\":[10.0]", "\"earlier\":[1e309]");
        let e = decode_recording(&text).unwrap_err();
        assert!(
            e.starts_with("not valid JSON (number out of range at line 1"),
            "{e}"
        );
    }

    #[test]
    fn a_schema_of_many_lines_is_named_on_one() {
        let e = spoiled(|d| d["schema"] = json!(format!("v0\n{}", "x".repeat(100))));
        assert_eq!(
            e,
            format!(
                "has schema `v0\\n{}`, this perfbench reads `{RESULT_SCHEMA}`; remove it or use a matching perfbench",
                "x".repeat(61)
            )
        );
    }

    #[test]
    fn round_numbers_are_below_the_sample_count() {
        let e = spoiled(|d| d["rounds"] = json!([0, 1, u32::MAX]));
        assert_eq!(
            e,
            "malformed `rounds` (not a whole number from 0 to 2); remove or restore it"
        );
        assert_eq!(spoiled(|d| d["rounds"] = json!([0, 1, 3])), e);
        assert_eq!(spoiled(|d| d["rounds"] = json!([0, -1, 1])), e);
        let e = spoiled(|d| d["rounds"] = json!([0, 1]));
        assert_eq!(
            e,
            "malformed `rounds` (not one per sample); remove or restore it"
        );
    }

    #[test]
    fn counts_are_whole_numbers_within_bounds() {
        let bounds = "not a whole number from 0 to 1000000000000000";
        for (spoil, field) in [
            (json!([1, -2, 3]), "iterations"),
            (json!([1, 2.5, 3]), "iterations"),
            (json!([1, 1e16, 3]), "iterations"),
            (json!([1, MAX_COUNT + 1, 3]), "iterations"),
        ] {
            let e = spoiled(|d| d["iterations"] = spoil);
            assert_eq!(
                e,
                format!("malformed `{field}` ({bounds}); remove or restore it")
            );
        }
        let e = spoiled(|d| d["series"][1]["totals"] = json!([2, u64::MAX, 6]));
        assert_eq!(
            e,
            format!("malformed `series.totals` ({bounds}); remove or restore it")
        );
        let e = spoiled(|d| d["iterations"] = json!([1, 0, 3]));
        assert_eq!(
            e,
            "malformed `iterations` (a sample of 0); remove or restore it"
        );
        let e = spoiled(|d| d["threads"] = json!(0));
        let threads =
            "malformed `threads` (not a whole number from 1 to 2^22); remove or restore it";
        assert_eq!(e, threads);
        assert_eq!(spoiled(|d| d["threads"] = json!(1u64 << 23)), threads);
    }

    #[test]
    fn the_method_is_stored_decoded_and_iter_where_a_file_has_none() {
        // `iter`, the most common, is left out, as in older files.
        let doc = stored();
        assert_eq!((doc.get("method"), doc.get("batch_size")), (None, None));
        let old = decode_recording(&doc.to_string()).unwrap();
        assert_eq!(old.method, Method::Iter);
        let mut run = old;
        for method in [
            Method::IterBatched(BatchSize::PerIteration),
            Method::IterBatchedRef(BatchSize::NumBatches(7)),
            Method::IterCustom,
            Method::IterBatched(BatchSize::NumIterations(3)),
        ] {
            run.method = method;
            let result = crate::analysis::analyze(&run, &Default::default());
            let text = encode_recording(&run, &result);
            assert_eq!(decode_recording(&text).unwrap().method, method);
            let line: Value =
                serde_json::from_str(&bench_line(&result, &Environment::default(), None)).unwrap();
            assert_eq!(line["method"], method.name());
        }
        let doc: Value = serde_json::from_str(&encode_recording(
            &run,
            &crate::analysis::analyze(&run, &Default::default()),
        ))
        .unwrap();
        assert_eq!(doc["batch_size"], "inputs=3");
        assert_eq!(
            spoiled(|d| d["method"] = json!("iter_batched")),
            "malformed `method`; remove or restore it",
            "iter_batched without a batch size"
        );
        assert_eq!(
            spoiled(|d| d["method"] = json!("iter_shared")),
            "malformed `method`; remove or restore it",
            "iter_shared on one thread"
        );
        assert_eq!(
            spoiled(|d| d["batch_size"] = json!("huge")),
            "malformed `batch_size`; remove or restore it"
        );
    }

    #[test]
    fn arrays_hold_one_entry_per_sample() {
        let e = spoiled(|d| d["series"][1]["totals"] = json!(vec![1; 100_000]));
        assert_eq!(
            e,
            "malformed `series.totals` (not one per sample); remove or restore it"
        );
        assert_eq!(MAX_SAMPLES as u64, crate::run::cli::MAX_SAMPLE_COUNT);
        let e = spoiled(|d| d["iterations"] = json!(vec![1; MAX_SAMPLES + 1]));
        assert_eq!(
            e,
            "malformed `iterations` (not 1 to 1000000 samples); remove or restore it"
        );
        let e = spoiled(|d| d["iterations"] = json!([]));
        assert_eq!(
            e,
            "malformed `iterations` (not 1 to 1000000 samples); remove or restore it"
        );
    }

    #[test]
    fn series_are_named_once_and_typed() {
        let e = spoiled(|d| d["series"][1]["name"] = json!("wall-time"));
        assert_eq!(
            e,
            "malformed `series.name` (a name twice); remove or restore it"
        );
        let e = spoiled(|d| d["series"] = json!([]));
        assert_eq!(e, "malformed `series`; remove or restore it");
        let e = spoiled(|d| d["series"][0]["user_only"] = json!("yes"));
        assert_eq!(e, "malformed `series.user_only`; remove or restore it");
        let e = spoiled(|d| d["read_path"] = json!(5));
        assert_eq!(e, "malformed `read_path`; remove or restore it");
    }
}
