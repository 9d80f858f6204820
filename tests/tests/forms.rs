//! The forms of `#[perfbench]` through `cargo bench --bench forms`
//! (tests/benches/forms.rs): arguments from any expression, tuples and
//! `Debug` arguments, generic functions over `types`, routines on several
//! threads at once (`threads`), and a benchmark's own settings under the
//! run's. Each routine touches a known number of fresh
//! pages, so its exact page-fault count proves which case ran.

mod common;

use std::collections::BTreeMap;

use common::json::Fields;
use common::{bench_target_with_env, counted, faults_metric, short_of, Run, QUICK, SHORT};

/// `cargo bench --bench forms -- ARGS` with extra environment variables.
fn forms(args: &[&str], env: &[(&str, &str)]) -> Run {
    bench_target_with_env("forms", args, env)
}

/// `cargo bench --bench forms` with the short settings
/// ([`common::SHORT`]) before `args`.
fn short(args: &[&str], env: &[(&str, &str)]) -> Run {
    short_of("forms", args, env)
}

/// Each benchmark's (samples, page faults per iteration where counted), by
/// id.
fn measured(args: &[&str], env: &[(&str, &str)]) -> BTreeMap<String, (u64, Option<f64>)> {
    let run = short(args, env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
        .iter()
        .map(|v| {
            let faults = faults_metric(&v["metrics"]).map(|m| m.f64_at("estimate"));
            let id = v.str_at("id").to_string();
            (id, (v.u64_at("samples"), faults))
        })
        .collect()
}

#[test]
fn every_form_lists_its_benchmarks_in_source_order() {
    let run = forms(&["--list", "--format", "terse"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ids: Vec<&str> = run
        .stdout
        .lines()
        .map(|l| l.trim_end_matches(": benchmark"))
        .collect();
    assert_eq!(
        ids,
        [
            "from_const/1",
            "from_const/3",
            "from_range/2",
            "from_range/3",
            "tuples/(1, 4)",
            "tuples/(2, 0)",
            "by_debug/Small",
            "by_debug/Large",
            "typed::<u8>",
            "typed::<u64>",
            "typed_with_args::<u8>/1",
            "typed_with_args::<u8>/2",
            "typed_with_args::<u64>/1",
            "typed_with_args::<u64>/2",
            "own_settings",
            "own_setup",
            "unknown_event",
            "custom_timing",
            "threaded/threads=1",
            "threaded/threads=2",
            "threaded/threads=4",
            "threaded_args/1/threads=2",
            "threaded_args/3/threads=2",
            "paging::single/1",
            "paging::single/2",
            "paging::triple/1",
            "paging::triple/2",
            "light",
            "elsewhere::heavy",
            "by_reference/1",
            "by_reference/4",
            "grouped::inherits/1",
            "grouped::inherits/2",
            "grouped::own_count",
        ]
    );
}

#[test]
fn each_case_runs_with_its_own_argument_and_type() {
    let m = measured(&["--sample-count", "10"], &[]);
    let faults: Vec<(&str, Option<f64>)> = m.iter().map(|(id, (_, f))| (id.as_str(), *f)).collect();
    let expected = [
        ("by_debug/Large", 5.0),
        ("by_debug/Small", 2.0),
        ("by_reference/1", 1.0),
        ("by_reference/4", 4.0),
        ("custom_timing", 2.0),
        ("elsewhere::heavy", 5.0),
        ("from_const/1", 1.0),
        ("from_const/3", 3.0),
        ("from_range/2", 2.0),
        ("from_range/3", 3.0),
        ("grouped::inherits/1", 1.0),
        ("grouped::inherits/2", 2.0),
        ("grouped::own_count", 3.0),
        ("light", 2.0),
        ("own_settings", 1.0),
        ("own_setup", 3.0),
        ("paging::single/1", 1.0),
        ("paging::single/2", 2.0),
        ("paging::triple/1", 3.0),
        ("paging::triple/2", 6.0),
        ("threaded/threads=1", 2.0),
        ("threaded/threads=2", 4.0),
        ("threaded/threads=4", 8.0),
        ("threaded_args/1/threads=2", 2.0),
        ("threaded_args/3/threads=2", 6.0),
        ("tuples/(1, 4)", 5.0),
        ("tuples/(2, 0)", 2.0),
        ("typed::<u64>", 8.0),
        ("typed::<u8>", 1.0),
        ("typed_with_args::<u64>/1", 8.0),
        ("typed_with_args::<u64>/2", 16.0),
        ("typed_with_args::<u8>/1", 1.0),
        ("typed_with_args::<u8>/2", 2.0),
        ("unknown_event", 1.0),
    ];
    // Every case ran; its count (where counted) proves with what.
    let counts = counted("page-faults").is_some();
    let expected: Vec<(&str, Option<f64>)> = expected
        .iter()
        .map(|(id, f)| (*id, counts.then_some(*f)))
        .collect();
    assert_eq!(faults, expected);
}

#[test]
fn a_benchmarks_own_settings_give_way_to_the_runs() {
    let samples = |args: &[&str], env: &[(&str, &str)]| {
        let m = measured(args, env);
        (m["own_settings"].0, m["from_const/1"].0)
    };
    let filter = ["own_settings", "from_const/1"];
    assert_eq!(
        samples(&filter, &[]),
        (7, 50),
        "the attribute, else the default"
    );
    let given: Vec<&str> = ["--sample-count", "12"]
        .iter()
        .chain(&filter)
        .copied()
        .collect();
    assert_eq!(samples(&given, &[]), (12, 12), "the command line wins");
    let env = [("PERFBENCH_SAMPLE_COUNT", "9")];
    assert_eq!(
        samples(&filter, &env),
        (9, 9),
        "so does its environment twin"
    );
}

#[test]
fn a_groups_settings_and_name_reach_its_members_unless_they_give_their_own() {
    let run = forms(
        &[
            "--events",
            "page-faults",
            "--output-format",
            "json",
            "grouped::",
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Each benchmark's id, samples, group and member (its argument is in
    // its id).
    let mut got: Vec<(String, u64, String, String)> = run
        .json()
        .iter()
        .map(|v| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or("-").to_string();
            let (g, samples) = (&v["group"], v.u64_at("samples"));
            (
                text(&v["id"]),
                samples,
                text(&g["name"]),
                text(&g["member"]),
            )
        })
        .collect();
    got.sort();
    let row =
        |id: &str, samples, member: &str| (id.into(), samples, "shared".into(), member.into());
    assert_eq!(
        got,
        [
            row("grouped::inherits/1", 6, "inherits"),
            row("grouped::inherits/2", 6, "inherits"),
            row("grouped::own_count", 8, "own_count"),
        ],
        "the group's sample_size (6), else the member's own sample_count (8); the group's name"
    );
    let given = short(&["--sample-count", "5", "grouped::"], &[]);
    assert_eq!(given.code, 0, "{}", given.stderr);
    let samples: Vec<u64> = given.json().iter().map(|v| v.u64_at("samples")).collect();
    assert_eq!(samples, [5, 5, 5], "the run's setting wins over both");
}

#[test]
fn groups_compare_their_members_at_each_argument() {
    let args = ["--sample-count", "10", "paging", "light", "heavy"];
    let all: Vec<&str> = SHORT[..6].iter().chain(&args).copied().collect();
    let run = forms(&all, &[("COLUMNS", "100")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A column per member, a row per metric; only page faults are exact:
    // where nothing counts them, the members alone.
    let faults_row = counted("page-faults").map(|name| format!("{name} "));
    let standings: Vec<(String, Vec<String>)> = run
        .stdout
        .split("\n\n")
        .filter(|block| block.starts_with("group "))
        .map(|block| {
            let mut lines = block.lines();
            let title = lines.next().unwrap().to_string();
            let members: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
            let Some(row) = &faults_row else {
                return (title, members.iter().map(|m| m.to_string()).collect());
            };
            let faults = lines
                .find(|l| l.trim_start().starts_with(row.as_str()))
                .unwrap_or_else(|| panic!("no {row}row: {block}"));
            let cells = faults.split_whitespace().skip(1);
            let rows = members
                .iter()
                .zip(cells)
                .map(|(m, c)| format!("{m} {c}"))
                .collect();
            (title, rows)
        })
        .collect();
    let row = |s: &[&str]| {
        s.iter()
            .map(|r| match faults_row {
                Some(_) => r.to_string(),
                None => r.split(' ').next().unwrap().to_string(),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        standings,
        [
            (
                "group paging at 1: each metric against the best member".to_string(),
                row(&["single 1.00×", "triple 3.00×"])
            ),
            (
                "group paging at 2: each metric against the best member".to_string(),
                row(&["single 1.00×", "triple 3.00×"])
            ),
            (
                "group named: each metric against the best member".to_string(),
                row(&["light 1.00×", "heavy 2.50×"])
            ),
        ],
        "{}",
        run.stdout
    );
}

#[test]
fn json_lines_name_each_benchmarks_group() {
    let run = short(&["--sample-count", "5", "triple/2", "own_settings"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.json();
    let ids: Vec<&str> = lines.iter().map(|l| l.str_at("id")).collect();
    assert_eq!(ids, ["own_settings", "paging::triple/2"]);
    assert!(
        lines[0].get("group").is_none(),
        "no group in the crate's root"
    );
    assert_eq!(
        lines[1]["group"],
        serde_json::json!({ "name": "paging", "member": "triple", "arg": "2" })
    );
}

#[test]
fn iter_custom_reports_the_routines_own_time_with_counts_around_it() {
    let run = short(&["--sample-count", "10", "custom_timing"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = &run.json()[0];
    assert_eq!(v["metrics"]["wall-time"]["estimate"], 1000.0, "{v}");
    assert_eq!(v["metrics"]["wall-time"]["min"], 1000.0, "{v}");
    if let Some(faults) = faults_metric(&v["metrics"]) {
        assert_eq!(faults["estimate"], 2.0, "{v}");
    }
}

/// Each benchmark's mode and metrics, by id.
fn setups(args: &[&str]) -> BTreeMap<String, (String, Vec<String>)> {
    let json = [
        "--output-format",
        "json",
        "--exact",
        "own_setup",
        "from_const/1",
    ];
    let all: Vec<&str> = QUICK.iter().chain(args).chain(&json).copied().collect();
    let run = forms(&all, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
        .iter()
        .map(|v| {
            let metrics = v.object_at("metrics").keys().cloned().collect();
            let id = v.str_at("id").to_string();
            (id, (v.str_at("mode").to_string(), metrics))
        })
        .collect()
}

#[test]
fn a_benchmarks_own_events_and_mode_give_way_to_the_runs() {
    // Wall time and what this environment counts of `events`, in order.
    let names = |events: &[&str]| {
        let mut names: Vec<String> = events.iter().filter_map(|e| counted(e)).collect();
        names.push("wall-time".to_string());
        names.sort();
        names
    };
    let s = setups(&[]);
    assert_eq!(s["own_setup"], ("per-iter".into(), names(&["page-faults"])));
    let (mode, metrics) = &s["from_const/1"];
    assert_eq!(mode, "batch");
    if counted("task-clock").is_some() {
        assert!(
            metrics.len() > 2 && metrics.contains(&"task-clock".to_string()),
            "{metrics:?}"
        );
    } else {
        assert_eq!(metrics, &names(&[]));
    }
    let s = setups(&["--events", "task-clock"]);
    // Per-iteration mode leaves the software clocks out.
    assert_eq!(s["own_setup"], ("per-iter".into(), names(&[])));
    assert_eq!(s["from_const/1"].1, names(&["task-clock"]));
    let s = setups(&["--mode", "batch"]);
    assert_eq!(s["own_setup"], ("batch".into(), names(&["page-faults"])));
}

#[test]
fn a_benchmarks_unknown_event_is_an_error_naming_it() {
    let run = forms(&["--exact", "unknown_event"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let errors = run.stderr_lines(|l| l.starts_with("perfbench: error"));
    assert_eq!(errors.len(), 1, "{}", run.stderr);
    assert!(
        errors[0].starts_with(
            "perfbench: error: benchmark `unknown_event` (events = \"no-such-event\"): "
        ),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "nothing measured: {}", run.stdout);
}

#[test]
fn threads_count_totals_over_the_threads_and_say_so() {
    let run = short(&["--sample-count", "10", "threaded/"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.json();
    let mut got: Vec<(&str, Option<u64>, Option<f64>)> = lines
        .iter()
        .map(|v| {
            let faults = faults_metric(&v["metrics"]).map(|m| m.f64_at("estimate"));
            (v.str_at("id"), v["threads"].as_u64(), faults)
        })
        .collect();
    // Lines come as benchmarks conclude, which their rounds decide: with
    // wall time alone (under the filter) threads=2 once came first.
    got.sort_by_key(|g| g.0);
    // The totals over the threads, where page faults are counted.
    let counts = counted("page-faults").is_some();
    assert_eq!(
        got,
        [
            ("threaded/threads=1", None, counts.then_some(2.0)),
            ("threaded/threads=2", Some(2), counts.then_some(4.0)),
            ("threaded/threads=4", Some(4), counts.then_some(8.0)),
        ]
    );
    for v in &lines {
        if let Some(faults) = faults_metric(&v["metrics"]) {
            let ci = &faults["ci"];
            assert_eq!(ci[0], ci[1], "an exact count: {v}");
        }
    }
}

#[test]
fn a_pinned_run_warns_once_and_the_table_says_what_an_iteration_is() {
    let args = [
        "--sample-count",
        "10",
        "--cpu",
        "0",
        "threaded/threads=2",
        "threaded/threads=4",
    ];
    let all: Vec<&str> = SHORT[..6].iter().chain(&args).copied().collect();
    let run = forms(&all, &[("COLUMNS", "300")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let warning = "perfbench: warning: pinned to CPU 0, so the threads of benchmarks with \
                   `threads` (up to 4) share that one CPU and take turns rather than run at \
                   once; `--no-pin` lets them spread";
    assert_eq!(run.stderr.matches(warning).count(), 1, "{}", run.stderr);
    for n in [2, 4] {
        let note = format!(
            "{n} threads: an iteration is one call on each of them at once; counts are totals \
             over the threads, wall time is the iteration's"
        );
        assert_eq!(run.stdout.matches(&note).count(), 1, "{}", run.stdout);
    }
}

/// `own_setup` asks for per-iteration mode, so the run opens two setups of
/// the events `--events` names: what this machine cannot count of them is
/// one fact, said once. (Where a PMU counts `cycles` nothing is said of
/// it; the machines CI runs on have none, and the seccomp filter refuses
/// every event.)
#[test]
fn what_two_setups_cannot_count_is_said_once() {
    let args = [
        "--warm-up-time",
        "0.02",
        "--measurement-time",
        "0.1",
        "--sample-count",
        "10",
        "--events",
        "page-faults,cycles",
        "--output-format",
        "json",
        "own_setup",
        "own_settings",
    ];
    let run = forms(&args, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json().len(), 2, "{}", run.stderr);
    let about_cycles: Vec<&str> = (run.stderr.lines())
        .filter(|l| l.contains("`cycles`") || l.contains(" cycles"))
        .collect();
    let distinct: std::collections::BTreeSet<&&str> = about_cycles.iter().collect();
    assert_eq!(about_cycles.len(), distinct.len(), "{}", run.stderr);
}

#[test]
fn per_iteration_mode_refuses_threads_naming_each_benchmark() {
    let run = short(
        &["--sample-count", "10", "--mode", "per-iter", "threaded/"],
        &[],
    );
    assert_eq!(run.code, 101, "{}", run.stderr);
    for n in [2, 4] {
        let line = format!(
            "perfbench: error: benchmark `threaded/threads={n}`: per-iteration mode counts the \
             measuring thread only, not {n} threads: measure benchmarks with `threads` in batch \
             mode (`--skip threads=` leaves them out)\n"
        );
        assert_eq!(run.stderr.matches(&line).count(), 1, "{}", run.stderr);
    }
    let lines = run.json();
    assert_eq!(lines.len(), 1, "one thread is measured");
    assert_eq!(lines[0]["id"], "threaded/threads=1");
    if let Some(faults) = faults_metric(&lines[0]["metrics"]) {
        assert_eq!(faults["estimate"], 2.0);
    }
}
