//! What a run shows where users run perfbench, checked in the environment
//! `E2E_UNDER` names (tests/tests/common): as root, as an ordinary user
//! (uid 65534, `perf_event_paranoid` 2 on CI), and under a seccomp filter
//! refusing `perf_event_open` as a container's default profile does. CI runs
//! this suite all three ways; each test asserts what its environment must
//! show, never less than that.

mod common;

use std::path::Path;

use common::bench_run::BenchRun;
use common::json::Fields;
use common::{counted, files_under, fixtures_binary, fresh_dir, under, Run, Under};
use serde_json::Value;

/// The fixtures binary run directly in this environment, quick, under
/// `home`.
fn run(home: &Path, args: &[&str]) -> Run {
    BenchRun::of(fixtures_binary())
        .quick()
        .args(args)
        .home(home)
        .run()
}

/// The metric names of a JSON line, in order.
fn metric_names(line: &Value) -> Vec<String> {
    line.object_at("metrics").keys().cloned().collect()
}

/// The names the default set is measured under here, sorted as JSON sorts
/// them: the software events perfbench counts in this environment, under
/// the names it gives them, and wall time.
fn default_names() -> Vec<String> {
    let software = [
        "task-clock",
        "page-faults",
        "context-switches",
        "cpu-migrations",
    ];
    let mut names: Vec<String> = software
        .iter()
        .filter_map(|e| {
            // task-clock ignores the privilege filter: never narrowed.
            if *e == "task-clock" {
                return (under() != Under::Seccomp).then(|| e.to_string());
            }
            counted(e)
        })
        .chain(["wall-time".to_string()])
        .collect();
    names.sort();
    names
}

#[test]
fn wall_time_is_measured_wherever_perf_events_are_refused() {
    if perfbench::counter::event::has_cpu_pmu() {
        eprintln!("skipped: this machine has hardware counters, which join the default set");
        return;
    }
    let home = fresh_dir("environments", "wall-time");
    let run = run(&home, &["--exact", "touch_16", "--output-format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.json();
    assert_eq!(metric_names(&lines[0]), default_names(), "{}", run.stderr);
    let wall = lines[0]["metrics"]["wall-time"].f64_at("estimate");
    assert!(wall > 0.0, "{wall}");
    assert!(
        run.stderr_lines(|l| l.contains("warning")).is_empty(),
        "{}",
        run.stderr
    );
    // The result is stored and the report written, as anywhere else.
    let files = files_under(&home);
    let named = |name: &str| files.iter().any(|f| f.ends_with(name));
    assert!(
        named("latest.json") && named("report/index.html"),
        "{files:?}"
    );
    if under() == Under::Seccomp {
        let notes = run.stderr_lines(|l| l.starts_with("perfbench: note: "));
        assert_eq!(
            notes,
            [
                "perfbench: note: not counting task-clock, page-faults, context-switches, \
                 cpu-migrations: a seccomp filter blocks perf_event_open (a container's default \
                 profile does); allow it in the profile (Docker: `--security-opt \
                 seccomp=PROFILE`, or `--cap-add PERFMON` where the default profile allows it \
                 then)",
                "perfbench: note: no event left to count: measuring wall time alone",
            ],
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_sleeping_routine_never_shows_an_exact_zero_of_context_switches() {
    let home = fresh_dir("environments", "sleep");
    let run = run(&home, &["--exact", "oracle/sleep_4"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run_json = self::run(
        &home,
        &["--exact", "oracle/sleep_4", "--output-format", "json"],
    );
    assert_eq!(run_json.code, 0, "{}", run_json.stderr);
    let metrics = &run_json.json()[0]["metrics"];
    match counted("context-switches") {
        Some(name) => {
            // Each of the four sleeps switches away. The estimate is a
            // slope over samples, which preemptions of the short samples
            // can tip a little below 4 (3.995 seen); far from an exact 0.
            let switches = metrics[name.as_str()].f64_at("estimate");
            assert!(switches >= 3.5, "{switches}");
            assert!(run.stdout.contains("context-switches"), "{}", run.stdout);
        }
        None => {
            assert!(metrics.get("context-switches").is_none(), "{metrics}");
            assert!(metrics.get("context-switches:u").is_none(), "{metrics}");
            assert!(!run.stdout.contains("context-switches"), "{}", run.stdout);
        }
    }
    if under() == Under::Nobody {
        let why = run.stderr_lines(|l| {
            l.starts_with("perfbench: note: not counting context-switches, cpu-migrations: ")
                && l.contains("raised by the kernel only in its own context")
        });
        assert_eq!(why.len(), 1, "{}", run.stderr);
    }
}

#[test]
fn events_narrowed_to_user_space_carry_u_in_every_output() {
    let Some(name) = counted("page-faults") else {
        eprintln!("skipped: nothing counts page faults under {:?}", under());
        return;
    };
    let narrowed = name.ends_with(":u");
    assert_eq!(narrowed, under() == Under::Nobody, "{name}");
    let home = fresh_dir("environments", "narrowed");
    let args = ["--exact", "touch_16", "--events", "page-faults"];
    // The full table, whose header names every column.
    let table = run(&home, &[&args[..], &["--verbose"]].concat());
    assert_eq!(table.code, 0, "{}", table.stderr);
    let header = table
        .stdout
        .lines()
        .find(|l| l.starts_with("benchmark"))
        .unwrap();
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["benchmark", "wall-time", name.as_str()]
    );
    let json = run(&home, &[&args[..], &["--output-format", "json"]].concat());
    assert_eq!(json.json()[0]["metrics"][name.as_str()]["estimate"], 16.0);
    // The stored run and the report's page of the benchmark.
    let files = files_under(&home);
    let latest = files.iter().find(|f| f.ends_with("latest.json")).unwrap();
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(latest).unwrap()).unwrap();
    let series: Vec<&str> = stored
        .array_at("series")
        .iter()
        .map(|s| s.str_at("name"))
        .collect();
    assert_eq!(series, ["wall-time", name.as_str()]);
    let page = files
        .iter()
        .find(|f| {
            f.extension().is_some_and(|e| e == "html") && f.to_string_lossy().contains("touch_16")
        })
        .unwrap_or_else(|| panic!("no page of touch_16: {files:?}"));
    let html = std::fs::read_to_string(page).unwrap();
    assert_eq!(html.contains("page-faults:u"), narrowed);
}

#[test]
fn the_gate_judges_wall_time_alone_where_nothing_else_counts() {
    let home = fresh_dir("environments", "gate");
    let quick = ["--exact", "oracle/compute", "--events", "task-clock"];
    let saved = run(&home, &[&quick[..], &["--save-baseline", "base"]].concat());
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let args = [
        &quick[..],
        &[
            "--baseline",
            "base",
            "--fail-on-regression=1000",
            "--output-format",
            "json",
        ],
    ]
    .concat();
    let gated = run(&home, &args);
    assert_eq!(gated.code, 0, "{}", gated.stderr);
    let line = &gated.json()[0];
    let names = metric_names(line);
    let expected: &[&str] = match under() {
        Under::Seccomp => &["wall-time"],
        _ => &["task-clock", "wall-time"],
    };
    assert_eq!(names, expected, "{}", gated.stderr);
    // Judged against the baseline: a change with an interval and a verdict.
    let change = &line["metrics"]["wall-time"]["change"];
    assert!(
        change["ci"].is_array() && change["verdict"].is_string(),
        "{line}"
    );
}
