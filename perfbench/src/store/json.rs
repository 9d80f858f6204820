//! All JSON perfbench writes and reads: the lines of `--output-format
//! json`, stored result files and their schema tags.

use serde_json::{json, Map, Value};

use crate::analysis::compare::Comparison;
use crate::analysis::derived::rate;
use crate::analysis::group::Membership;
use crate::analysis::{BenchResult, Fit, Recording, Series};
use crate::counter::event::Unit;
use crate::counter::group::ReadPath;
use crate::measure::environment::Environment;
use crate::measure::Throughput;
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

/// A stored result file: the recording's samples and environment, with the
/// estimates derived from them for convenience.
pub(crate) fn encode_recording(run: &Recording, result: &BenchResult) -> String {
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
    serde_json::to_string_pretty(&doc).expect("JSON values serialise")
}

/// A recording from a stored result file, or what is wrong with the file.
pub(crate) fn decode_recording(text: &str) -> Result<Recording, String> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| format!("not valid JSON ({e}); remove or restore it"))?;
    let schema = doc.get("schema").and_then(Value::as_str).unwrap_or("none");
    if schema != RESULT_SCHEMA {
        return Err(format!(
            "has schema `{schema}`, this perfbench reads `{RESULT_SCHEMA}`; remove it or use a matching perfbench"
        ));
    }
    let iterations = numbers(&doc["iterations"], "iterations")?;
    if iterations.is_empty() || iterations.contains(&0) {
        return Err(bad("iterations"));
    }
    // Files from before rounds were measured in one.
    let rounds = match doc.get("rounds") {
        None => vec![0; iterations.len()],
        Some(v) => numbers(v, "rounds")?
            .into_iter()
            .map(|r| u32::try_from(r).map_err(|_| bad("rounds")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    if rounds.len() != iterations.len() {
        return Err(bad("rounds"));
    }
    let read_path = match doc["read_path"].as_str() {
        None => None,
        Some(name) => Some(
            ReadPath::ALL
                .into_iter()
                .find(|p| p.name() == name)
                .ok_or_else(|| bad("read_path"))?,
        ),
    };
    let series = series_of(&doc["series"], iterations.len())?;
    let mut recording = Recording::stored(
        doc["id"].as_str().ok_or_else(|| bad("id"))?.to_string(),
        Environment::from_json(&doc["environment"]).ok_or_else(|| bad("environment"))?,
        (iterations, rounds),
        series,
    );
    recording.read_path = read_path;
    recording.membership = match &doc["group"] {
        Value::Null => None,
        v => Some(membership_of(v).ok_or_else(|| bad("group"))?),
    };
    // Files of one thread, and those from before `threads`, have none.
    recording.threads = match &doc["threads"] {
        Value::Null => 1,
        v => v
            .as_u64()
            .filter(|&n| n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| bad("threads"))?,
    };
    Ok(recording)
}

/// The series of a stored result, each of `samples` totals.
fn series_of(v: &Value, samples: usize) -> Result<Vec<Series>, String> {
    v.as_array()
        .ok_or_else(|| bad("series"))?
        .iter()
        .map(|s| {
            let unit = match s["unit"].as_str() {
                Some("ns") => Unit::Nanoseconds,
                Some("count") => Unit::Count,
                _ => return Err(bad("series.unit")),
            };
            let totals = numbers(&s["totals"], "series.totals")?;
            if totals.len() != samples {
                return Err(bad("series.totals"));
            }
            Ok(Series {
                name: s["name"]
                    .as_str()
                    .ok_or_else(|| bad("series.name"))?
                    .to_string(),
                unit,
                totals,
                event: None,
                user_only: s["user_only"].as_bool(),
                earlier: earlier_runs(&s["earlier"]).ok_or_else(|| bad("series.earlier"))?,
            })
        })
        .collect()
}

/// The error for a stored file's malformed field `what`.
fn bad(what: &str) -> String {
    format!("malformed `{what}`; remove or restore it")
}

/// A stored array of whole numbers, or the error naming the field `what`.
fn numbers(v: &Value, what: &str) -> Result<Vec<u64>, String> {
    v.as_array()
        .ok_or_else(|| bad(what))?
        .iter()
        .map(|n| n.as_u64().ok_or_else(|| bad(what)))
        .collect()
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

/// The headlines of earlier runs a stored series keeps, where they are
/// finite numbers: none where the file has none (stored before them).
fn earlier_runs(v: &Value) -> Option<Vec<f64>> {
    if v.is_null() {
        return Some(Vec::new());
    }
    v.as_array()?
        .iter()
        .map(|n| n.as_f64().filter(|x| x.is_finite()))
        .collect()
}

/// Why the line fitted poorly, where it did.
fn poor_fit_json(fit: &Fit) -> Option<Value> {
    match fit {
        Fit::Good => None,
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
    if let Some(path) = r.read_path {
        obj["read_path"] = json!(path.name());
        obj["left_out_iterations"] = json!(r.left_out);
    }
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
}
