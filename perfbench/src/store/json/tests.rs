//! Tests of the JSON the store writes and reads: every stored file
//! perfbench writes reads back, while one spoiled in any field is refused
//! with one line naming it.

use serde_json::{json, Value};

use super::*;
use crate::analysis::comparison::{Comparison, MetricChange, Target, Verdict};
use crate::analysis::standings::Membership;
use crate::analysis::{Recording, Series, WALL_TIME};
use crate::counter::event::Unit;
use crate::measure::environment::Environment;
use crate::measure::{BatchSize, Method, Throughput};
use crate::stats::{Change, Estimate, Interval};
use crate::store::bench_summary::{BenchSummary, MetricSummary, SampledValues, MAX_VALUES};

/// What decoding `doc` changed by `spoil` says: an error, on one line.
fn spoiled<T: std::fmt::Debug>(
    mut doc: Value,
    spoil: impl FnOnce(&mut Value),
    decode: fn(&str) -> Result<T, DecodeError>,
) -> String {
    spoil(&mut doc);
    // How long a hostile file takes to refuse is the fuzz target's to
    // bound (`-timeout`), not a timed assertion's on a shared machine.
    let e = decode(&doc.to_string()).unwrap_err().to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

/// A stored result of 3 samples in rounds 0, 1, 1: wall time and page
/// faults, as JSON to spoil.
fn stored_result() -> Value {
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

#[test]
fn a_group_is_stored_with_its_keys_in_order_and_reads_back() {
    let mut run = decode_recording(&stored_result().to_string()).unwrap();
    run.membership = Some(Membership {
        group: "g".into(),
        member: "m".into(),
        arg: None,
    });
    let text = encode_recording(&run, &crate::analysis::analyze(&run, &Default::default()));
    let group =
        "\"group\": {\n    \"arg\": null,\n    \"member\": \"m\",\n    \"name\": \"g\"\n  }";
    assert!(text.contains(group), "{text}");
    assert_eq!(decode_recording(&text), Ok(run));
    assert_eq!(
        spoiled_result(|d| d["group"] = json!({"member": "m"})),
        "malformed `group`; remove or restore it"
    );
}

/// What decoding `stored_result()` changed by `spoil` says.
fn spoiled_result(spoil: impl FnOnce(&mut Value)) -> String {
    spoiled(stored_result(), spoil, decode_recording)
}

#[test]
fn absurd_earlier_runs_are_malformed() {
    let e = spoiled_result(|d| d["series"][0]["earlier"] = json!([1e308]));
    assert_eq!(
        e,
        "malformed `series.earlier` (not a number from -1e100 to 1e100); remove or restore it"
    );
    let e2 = spoiled_result(|d| d["series"][1]["earlier"] = json!([10.0, -1e308]));
    assert_eq!(e2, e);
    let e = spoiled_result(|d| d["series"][0]["earlier"] = json!(vec![1.0; 10]));
    assert_eq!(
        e,
        "malformed `series.earlier` (more than 9 runs); remove or restore it"
    );
    // JSON has no NaN or infinity; serde_json refuses 1e309.
    let text = stored_result()
        .to_string()
        .replace("\"earlier\":[10.0]", "\"earlier\":[1e309]");
    let e = decode_recording(&text).unwrap_err().to_string();
    assert!(
        e.starts_with("not valid JSON (number out of range at line 1"),
        "{e}"
    );
}

#[test]
fn a_schema_of_many_lines_is_named_on_one() {
    let e = spoiled_result(|d| d["schema"] = json!(format!("v0\n{}", "x".repeat(100))));
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
    let e = spoiled_result(|d| d["rounds"] = json!([0, 1, u32::MAX]));
    assert_eq!(
        e,
        "malformed `rounds` (not a whole number from 0 to 2); remove or restore it"
    );
    assert_eq!(spoiled_result(|d| d["rounds"] = json!([0, 1, 3])), e);
    assert_eq!(spoiled_result(|d| d["rounds"] = json!([0, -1, 1])), e);
    let e = spoiled_result(|d| d["rounds"] = json!([0, 1]));
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
        let e = spoiled_result(|d| d["iterations"] = spoil);
        assert_eq!(
            e,
            format!("malformed `{field}` ({bounds}); remove or restore it")
        );
    }
    let e = spoiled_result(|d| d["series"][1]["totals"] = json!([2, u64::MAX, 6]));
    assert_eq!(
        e,
        format!("malformed `series.totals` ({bounds}); remove or restore it")
    );
    let e = spoiled_result(|d| d["iterations"] = json!([1, 0, 3]));
    assert_eq!(
        e,
        "malformed `iterations` (a sample of 0); remove or restore it"
    );
    let e = spoiled_result(|d| d["threads"] = json!(0));
    let threads = "malformed `threads` (not a whole number from 1 to 2^22); remove or restore it";
    assert_eq!(e, threads);
    assert_eq!(
        spoiled_result(|d| d["threads"] = json!(1u64 << 23)),
        threads
    );
}

#[test]
fn the_method_is_stored_decoded_and_iter_where_a_file_has_none() {
    // `iter`, the most common, is left out, as in older files.
    let doc = stored_result();
    assert_eq!((doc.get("method"), doc.get("batch_size")), (None, None));
    let old = decode_recording(&doc.to_string()).unwrap();
    assert_eq!(old.method, Method::Iter);
    let mut run = old;
    for method in [
        Method::IterBatched(BatchSize::PerIteration),
        Method::IterBatchedRef(BatchSize::NumBatches(7)),
        Method::IterCustom,
        Method::AsyncIter,
        Method::AsyncIterBatched(BatchSize::SmallInput),
        Method::AsyncIterBatchedRef(BatchSize::PerIteration),
        Method::AsyncIterCustom,
        Method::IterBatched(BatchSize::NumIterations(3)),
    ] {
        run.method = method;
        let result = crate::analysis::analyze(&run, &Default::default());
        let text = encode_recording(&run, &result);
        assert_eq!(decode_recording(&text).unwrap().method, method);
    }
    let doc: Value = serde_json::from_str(&encode_recording(
        &run,
        &crate::analysis::analyze(&run, &Default::default()),
    ))
    .unwrap();
    assert_eq!(doc["batch_size"], "inputs=3");
    assert_eq!(
        spoiled_result(|d| d["method"] = json!("iter_batched")),
        "malformed `method`; remove or restore it",
        "iter_batched without a batch size"
    );
    assert_eq!(
        spoiled_result(|d| d["method"] = json!("iter_shared")),
        "malformed `method`; remove or restore it",
        "iter_shared on one thread"
    );
    assert_eq!(
        spoiled_result(|d| d["batch_size"] = json!("huge")),
        "malformed `batch_size`; remove or restore it"
    );
}

#[test]
fn arrays_hold_one_entry_per_sample() {
    let e = spoiled_result(|d| d["series"][1]["totals"] = json!(vec![1; 100_000]));
    assert_eq!(
        e,
        "malformed `series.totals` (not one per sample); remove or restore it"
    );
    let e = spoiled_result(|d| d["iterations"] = json!(vec![1; MAX_SAMPLES + 1]));
    assert_eq!(
        e,
        "malformed `iterations` (not 1 to 1000000 samples); remove or restore it"
    );
    let e = spoiled_result(|d| d["iterations"] = json!([]));
    assert_eq!(
        e,
        "malformed `iterations` (not 1 to 1000000 samples); remove or restore it"
    );
}

#[test]
fn series_are_named_once_and_typed() {
    let e = spoiled_result(|d| d["series"][1]["name"] = json!("wall-time"));
    assert_eq!(
        e,
        "malformed `series.name` (a name twice); remove or restore it"
    );
    let e = spoiled_result(|d| d["series"] = json!([]));
    assert_eq!(e, "malformed `series`; remove or restore it");
    let e = spoiled_result(|d| d["series"][0]["user_only"] = json!("yes"));
    assert_eq!(e, "malformed `series.user_only`; remove or restore it");
    let e = spoiled_result(|d| d["read_path"] = json!(5));
    assert_eq!(e, "malformed `read_path`; remove or restore it");
}

/// A summary of one metric with one change, as JSON to spoil.
fn stored_summary() -> Value {
    let estimate = Estimate {
        point: 10.0,
        ci: Interval {
            low: 9.0,
            high: 11.0,
        },
    };
    let change = Change {
        relative: Some(0.25),
        difference: 2.0,
        ci: Some(Interval {
            low: 0.1,
            high: 0.4,
        }),
        p_value: 0.01,
        runs: 2,
    };
    let s = BenchSummary {
        id: "x/1".into(),
        environment: Environment::default(),
        membership: None,
        threads: 1,
        throughput: Some(Throughput::Bytes(64)),
        read_path: None,
        samples: 3,
        metrics: vec![MetricSummary {
            name: WALL_TIME.into(),
            unit: Unit::Nanoseconds,
            estimate,
        }],
        comparison: Some(Comparison {
            against: Target::PreviousRun,
            changes: Some(vec![MetricChange {
                name: WALL_TIME.into(),
                change,
                verdict: Verdict::Regressed,
            }]),
            unfair: None,
        }),
        changed: Vec::new(),
    };
    assert_eq!(decode_summary(&encode_summary(&s)), Ok(s.clone()));
    serde_json::from_str(&encode_summary(&s)).unwrap()
}

/// What decoding `stored_summary()` changed by `spoil` says.
fn spoiled_summary(spoil: impl FnOnce(&mut Value)) -> String {
    spoiled(stored_summary(), spoil, decode_summary)
}

/// The error of a malformed `field` for reason `why`.
fn malformed(field: &str, why: &str) -> String {
    format!("malformed `{field}` ({why}); remove or restore it")
}

#[test]
fn estimates_are_finite_and_hold_their_point() {
    let huge = malformed("metrics.estimate", "not a number from -1e100 to 1e100");
    let estimate = |d: &mut Value, e: Value| d["metrics"][0]["estimate"] = e;
    assert_eq!(
        spoiled_summary(|d| estimate(d, json!([0.0, -1e308, 1e308]))),
        huge
    );
    assert_eq!(
        spoiled_summary(|d| estimate(d, json!([1e308, 1e308, 1e308]))),
        huge
    );
    assert_eq!(
        spoiled_summary(|d| estimate(d, json!([null, 1.0, 2.0]))),
        huge
    );
    let inverted = malformed(
        "metrics.estimate",
        "an interval that does not hold its point",
    );
    assert_eq!(
        spoiled_summary(|d| estimate(d, json!([10.0, 11.0, 9.0]))),
        inverted
    );
    assert_eq!(
        spoiled_summary(|d| estimate(d, json!([12.0, 9.0, 11.0]))),
        inverted
    );
}

#[test]
fn changes_are_consistent() {
    let change = |d: &mut Value, k: &str, v: Value| {
        d["comparison"]["changes"][0][k] = v;
    };
    let e = spoiled_summary(|d| change(d, "p", json!(1.5)));
    assert_eq!(e, malformed("changes.p", "not from 0 to 1"));
    let e = spoiled_summary(|d| change(d, "runs", json!(0)));
    assert_eq!(e, malformed("changes.runs", "not from 1 to 10"));
    let e = spoiled_summary(|d| change(d, "ci", json!([0.3, 0.1])));
    let outside = malformed("changes.ci", "an interval that does not hold its change");
    assert_eq!(e, outside);
    assert_eq!(
        spoiled_summary(|d| change(d, "relative", json!(0.5))),
        outside
    );
    let e = spoiled_summary(|d| change(d, "relative", Value::Null));
    assert_eq!(
        e,
        malformed("changes.ci", "not there exactly where `relative` is")
    );
    let e = spoiled_summary(|d| change(d, "difference", json!(-1e300)));
    assert_eq!(
        e,
        malformed("changes.difference", "not a number from -1e100 to 1e100")
    );
}

#[test]
fn counts_of_a_summary_are_within_bounds() {
    let e = spoiled_summary(|d| d["samples"] = json!(0));
    assert_eq!(e, malformed("samples", "not from 1 to 1000000"));
    assert_eq!(spoiled_summary(|d| d["samples"] = json!(-3)), e);
    let e = spoiled_summary(|d| d["threads"] = json!(u64::MAX));
    assert_eq!(e, malformed("threads", "not a whole number from 1 to 2^22"));
    let e = spoiled_summary(|d| d["throughput"] = json!({ "bytes": -1 }));
    assert_eq!(
        e,
        malformed("throughput", "not bytes or elements from 0 to 10^15")
    );
    let e = spoiled_summary(|d| d["metrics"] = json!([]));
    assert_eq!(e, "malformed `metrics`; remove or restore it");
}

/// What decoding values of `samples` samples, `values`, says.
fn values_error(samples: Value, values: Value) -> String {
    let doc = json!({
        "schema": VALUES_SCHEMA,
        "metrics": [{ "name": "wall-time", "samples": samples, "values": values }],
    });
    let e = decode_values(&doc.to_string()).unwrap_err().to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

#[test]
fn sampled_values_match_their_count_and_bounds() {
    let ok = SampledValues {
        name: "wall-time".into(),
        samples: 1000,
        values: (0..MAX_VALUES).map(|v| v as f64).collect(),
    };
    let text = encode_values(std::slice::from_ref(&ok));
    assert_eq!(decode_values(&text), Ok(vec![ok]));
    let count = malformed("metrics.values", "not one per sample, up to 256");
    assert_eq!(values_error(json!(300), json!([1.0, 2.0, 3.0])), count);
    assert_eq!(values_error(json!(2), json!([1.0, 2.0, 3.0])), count);
    let bounds = malformed("metrics.values", "not numbers from 0 to 10^15");
    assert_eq!(values_error(json!(3), json!([1.0, 2.0, 1e308])), bounds);
    assert_eq!(values_error(json!(3), json!([-1e308, 2.0, 3.0])), bounds);
    assert_eq!(values_error(json!(3), json!([null, 2.0, 3.0])), bounds);
    let order = malformed("metrics.values", "not lowest first");
    assert_eq!(values_error(json!(3), json!([3.0, 2.0, 1.0])), order);
    let samples = malformed("metrics.samples", "not from 1 to 1000000");
    assert_eq!(values_error(json!(1u64 << 40), json!([])), samples);
}

#[test]
fn a_paired_comparison_reads_back_as_paired_and_a_wrong_flag_is_named() {
    let mut doc = stored_summary();
    doc["comparison"]["against"] = json!("./old");
    let baseline = decode_summary(&doc.to_string()).unwrap();
    assert_eq!(
        baseline.comparison.unwrap().against,
        Target::Baseline("./old".into())
    );
    doc["comparison"]["paired"] = json!(true);
    let paired = decode_summary(&doc.to_string()).unwrap();
    assert_eq!(
        paired.comparison.as_ref().unwrap().against,
        Target::Paired("./old".into())
    );
    // Written back as it was read.
    let again: Value = serde_json::from_str(&encode_summary(&paired)).unwrap();
    assert_eq!(again["comparison"], doc["comparison"]);
    assert_eq!(
        spoiled_summary(|d| {
            d["comparison"]["against"] = json!("./old");
            d["comparison"]["paired"] = json!("yes");
        }),
        "malformed `comparison.paired`; remove or restore it"
    );
}

#[test]
fn a_summary_keeps_its_history_s_recent_changes_and_refuses_absurd_ones() {
    let mut s: BenchSummary = decode_summary(&stored_summary().to_string()).unwrap();
    s.changed = vec![crate::store::bench_summary::RecentChange {
        runs_ago: 3,
        metric: "instructions".into(),
        unit: Unit::Count,
        before: 100.0,
        after: 101.0,
        commit: Some("9fceb02".into()),
        dirty: Some(true),
    }];
    let text = encode_summary(&s);
    assert!(text.contains(r#""changed":[{"after":101.0,"before":100.0,"commit":"9fceb02","dirty":true,"metric":"instructions","runs_ago":3,"unit":"count"}]"#), "{text}");
    assert_eq!(decode_summary(&text), Ok(s.clone()));
    let doc: Value = serde_json::from_str(&text).unwrap();
    let spoil = |field: &str, v: Value| {
        let mut d = doc.clone();
        d["changed"][0][field] = v;
        decode_summary(&d.to_string()).unwrap_err().to_string()
    };
    assert_eq!(
        spoil("runs_ago", json!(1000)),
        malformed("changed.runs_ago", "not from 0 to 999")
    );
    assert_eq!(
        spoil("after", json!(1e308)),
        malformed("changed.after", "not a number from -1e100 to 1e100")
    );
    assert_eq!(
        spoil("commit", json!("<script>")),
        "malformed `changed.commit`; remove or restore it"
    );
    assert_eq!(
        spoil("unit", json!("ly")),
        "malformed `changed.unit`; remove or restore it"
    );
}

#[test]
fn a_runs_settings_read_back_and_hostile_ones_are_malformed() {
    let key = crate::measure::Config::default().key();
    assert_eq!(
        key,
        "50 samples in 10 rounds, warm-up 150 ms, measurement 700 ms"
    );
    let with = |v: Value| {
        let mut doc = stored_result();
        doc["settings"] = v;
        decode_recording(&doc.to_string())
    };
    assert_eq!(with(json!(key)).unwrap().settings.as_deref(), Some(&*key));
    assert_eq!(
        decode_recording(&stored_result().to_string())
            .unwrap()
            .settings,
        None
    );
    let malformed = "malformed `settings`; remove or restore it";
    assert_eq!(
        with(json!("a\u{1b}[2J")).unwrap_err().to_string(),
        malformed
    );
    assert_eq!(
        with(json!("x".repeat(201))).unwrap_err().to_string(),
        malformed
    );
    assert_eq!(with(json!(7)).unwrap_err().to_string(), malformed);
    // Written where known, and read back as it was.
    let mut run = decode_recording(&stored_result().to_string()).unwrap();
    run.settings = Some(key.clone());
    let written = encode_recording(&run, &crate::analysis::analyze(&run, &Default::default()));
    assert_eq!(decode_recording(&written).unwrap().settings, Some(key));
}

#[test]
fn a_history_line_names_its_malformed_field() {
    use crate::store::json::decode_history_run;
    let good = r#"{"branch":"main","commit":"9fceb02","dirty":false,"estimate":[10.0,9.9,10.1],"metric":"wall-time","quick":true,"samples":100,"unit":"ns"}"#;
    assert!(decode_history_run(good).unwrap().quick);
    let spoiled = |from: &str, to: &str| {
        decode_history_run(&good.replace(from, to))
            .unwrap_err()
            .to_string()
    };
    let malformed = |what: &str| format!("malformed `{what}`; remove or restore it");
    assert_eq!(
        spoiled(r#""dirty":false"#, r#""dirty":null"#),
        malformed("dirty")
    );
    assert_eq!(
        spoiled(r#""quick":true"#, r#""quick":1"#),
        malformed("quick")
    );
    assert_eq!(spoiled(r#""metric":"wall-time","#, ""), malformed("metric"));
    assert_eq!(
        spoiled(r#""unit":"ns""#, r#""unit":"s""#),
        malformed("unit")
    );
    assert_eq!(
        spoiled(r#""branch":"main""#, r#""branch":"a\u0007""#),
        "malformed `branch` (not a short line of text); remove or restore it"
    );
    assert_eq!(
        spoiled(r#""samples":100"#, r#""samples":0"#),
        "malformed `samples` (not from 1 to 1000000); remove or restore it"
    );
    assert_eq!(
        decode_history_run("[1, 2, 3]").unwrap_err().to_string(),
        "not a JSON object; remove or restore it"
    );
}

#[test]
fn a_values_file_names_an_entry_s_missing_or_malformed_field() {
    let with = |entry: Value| {
        let doc = json!({ "metrics": [entry], "schema": VALUES_SCHEMA });
        decode_values(&doc.to_string()).unwrap_err().to_string()
    };
    let malformed = |what: &str| format!("malformed `{what}`; remove or restore it");
    assert_eq!(
        with(json!({ "name": "x", "samples": 1 })),
        malformed("metrics.values")
    );
    assert_eq!(
        with(json!({ "samples": 1, "values": [1.0] })),
        malformed("metrics.name")
    );
    assert_eq!(
        with(json!({ "name": 7, "samples": 1, "values": [1.0] })),
        malformed("metrics.name")
    );
    assert_eq!(with(json!(["x", 1, [1.0]])), malformed("metrics"));
    let text = encode_values(&[SampledValues {
        name: "wall-time".into(),
        samples: 2,
        values: vec![1.5, 2.0],
    }]);
    assert_eq!(
        text,
        r#"{"metrics":[{"name":"wall-time","samples":2,"values":[1.5,2.0]}],"schema":"perfbench/values/v1"}"#
    );
}

#[test]
fn a_summary_is_written_byte_for_byte_as_before_it_was_derived() {
    let mut s = decode_summary(&stored_summary().to_string()).unwrap();
    s.membership = Some(crate::analysis::standings::Membership {
        group: "g".into(),
        member: "m".into(),
        arg: Some("1".into()),
    });
    s.read_path = Some(crate::counter::group::ReadPath::ALL[0]);
    s.comparison.as_mut().unwrap().against = Target::Paired("./old".into());
    s.environment.commit = Some("9fceb02".into());
    // The text the hand-converted wire copy wrote, keys in name order.
    let before = r#"{"comparison":{"against":"./old","changes":[{"ci":[0.1,0.4],"difference":2.0,"name":"wall-time","p":0.01,"relative":0.25,"runs":2,"verdict":"regressed"}],"paired":true,"unfair":null},"environment":{"commit":"9fceb02","cpu":null,"cpu_model":"","governor":null,"kernel":"","nmi_watchdog":null,"perf_event_paranoid":null,"pmus":[],"rdpmc":null,"virtual_machine":false},"group":{"arg":"1","member":"m","name":"g"},"id":"x/1","metrics":[{"estimate":[10.0,9.0,11.0],"name":"wall-time","unit":"ns"}],"read_path":"rdpmc","samples":3,"schema":"perfbench/summary/v1","threads":1,"throughput":{"bytes":64}}"#;
    assert_eq!(encode_summary(&s), before);
    assert_eq!(decode_summary(before), Ok(s));
}
