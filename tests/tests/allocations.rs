//! End to end: allocation counts through `cargo bench --bench alloc`, whose
//! bench target installs perfbench's counting allocator (tests/benches/
//! alloc.rs), in the JSON lines, the table, stored baselines and the gate;
//! and through the fixtures, which do not install it.

mod common;

use std::path::{Path, PathBuf};

use common::json::Fields;
use common::{bench_target_with_env, bench_with_env, Run, QUICK};
use serde_json::Value;

const ALLOCATION_COUNTS: [&str; 4] = ["allocs", "alloc-bytes", "deallocs", "reallocs"];

/// A fresh output directory for one test.
fn home(name: &str) -> PathBuf {
    common::fresh_dir("allocations", name)
}

/// `cargo bench --bench alloc -- ARGS` in short measurements, storing
/// under `home`, with `boxes` boxes per iteration of `boxes_n`.
fn bench(home: &Path, boxes: u32, args: &[&str]) -> Run {
    let all: Vec<&str> = QUICK.iter().chain(args).copied().collect();
    let boxes = boxes.to_string();
    let env = [
        ("PERFBENCH_HOME", home.to_str().expect("a UTF-8 path")),
        ("FIXTURE_ALLOC_BOXES", &boxes),
    ];
    bench_target_with_env("alloc", &all, &env)
}

/// Each benchmark's allocation counts per iteration in JSON lines, where
/// every statistic agrees (exact counts); panics naming the one that does
/// not.
fn exact_counts(lines: &[Value]) -> Vec<(String, [f64; 4])> {
    lines
        .iter()
        .map(|v| {
            let id = v.str_at("id").to_string();
            let counts = ALLOCATION_COUNTS.map(|name| {
                let m = &v["metrics"][name];
                assert_eq!(m["unit"], "count", "{id} {name}");
                let estimate = m.f64_at("estimate");
                for stat in ["mean", "median", "min", "max"] {
                    assert_eq!(m[stat].as_f64(), Some(estimate), "{id} {name} {stat}");
                }
                estimate
            });
            (id, counts)
        })
        .collect()
}

#[test]
fn json_lines_give_exact_allocation_counts_in_both_modes() {
    let home = home("json");
    let expected = [
        ("three_boxes", [3.0, 192.0, 3.0, 0.0]),
        ("empty", [0.0; 4]),
        ("grow_and_shrink", [1.0, 256.0, 1.0, 2.0]),
        ("batched", [3.0, 192.0, 3.0, 0.0]),
        ("boxes_n", [3.0, 192.0, 3.0, 0.0]),
    ]
    .map(|(id, counts)| (id.to_string(), counts));
    for mode in [
        &["--output-format", "json"][..],
        &["--output-format", "json", "--mode", "per-iter"],
    ] {
        // The default set, which gains the allocation counts here.
        let run = bench(&home, 3, mode);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(!run.stderr.contains("warning"), "{}", run.stderr);
        assert_eq!(exact_counts(&run.json()), expected, "{mode:?}");
    }
    // Subtracting the measuring cost takes nothing off exact counts.
    let run = bench(
        &home,
        3,
        &[
            "--exact",
            "three_boxes",
            "--output-format",
            "json",
            "--subtract-overhead",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(exact_counts(&run.json())[0].1, [3.0, 192.0, 3.0, 0.0]);
}

#[test]
fn the_table_shows_allocation_counts() {
    let home = home("table");
    let events = "allocs,alloc-bytes,deallocs,reallocs";
    let run = bench(
        &home,
        3,
        &[
            "--exact",
            "three_boxes",
            "grow_and_shrink",
            "--events",
            events,
            "--color",
            "never",
            // The columns and the cost of measuring.
            "--verbose",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let header = lines
        .iter()
        .find(|l| l.starts_with("benchmark"))
        .unwrap_or_else(|| panic!("no header in\n{}", run.stdout));
    let columns: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(
        columns,
        [
            "benchmark",
            "wall-time",
            "allocs",
            "alloc-bytes",
            "deallocs",
            "reallocs"
        ]
    );
    for (id, counts) in [
        ("three_boxes", ["3", "192", "3", "0"]),
        ("grow_and_shrink", ["1", "256", "1", "2"]),
    ] {
        let row = lines.iter().find(|l| l.starts_with(id)).expect("a row");
        // id, wall time (value unit), the four counts
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[3..], counts, "{row}");
    }
    // Measuring costs nothing of them, and the cost line says so.
    assert!(
        run.stdout
            .contains("allocs 0, alloc-bytes 0, deallocs 0, reallocs 0"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_allocation_regression_fails_the_gate_and_an_unchanged_run_passes() {
    let home = home("gate");
    // Times so noisy-tolerant that only counts decide.
    let gate = [
        "--exact",
        "boxes_n",
        "--events",
        "allocs,alloc-bytes",
        "--noise-threshold",
        "1000",
    ];
    let with = |extra: &[&'static str]| gate.iter().chain(extra).copied().collect::<Vec<_>>();
    let saved = bench(&home, 3, &with(&["--save-baseline", "main"]));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let stored = std::fs::read_to_string(home.join("baselines/main/boxes_n.json")).unwrap();
    let stored: Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["estimates"]["alloc-bytes"]["estimate"], 192.0);

    let judged = [
        "--baseline",
        "main",
        "--fail-on-regression",
        "--output-format",
        "json",
    ];
    let worse = bench(&home, 4, &with(&judged));
    assert_eq!(worse.code, 3, "{}", worse.stderr);
    let v = &worse.json()[0];
    for name in ["allocs", "alloc-bytes"] {
        let change = &v["metrics"][name]["change"];
        assert_eq!(change["verdict"], "regressed", "{name}: {change}");
        assert_eq!(change["ci"][0], change["ci"][1], "{name}: exact, {change}");
    }
    assert!(
        worse.stderr.contains("boxes_n allocs: +33.3"),
        "{}",
        worse.stderr
    );

    let same = bench(&home, 3, &with(&judged));
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert_eq!(
        same.json()[0]["metrics"]["allocs"]["change"]["verdict"],
        "no change"
    );
}

#[test]
fn the_report_shows_allocation_counts() {
    let home = home("report");
    let run = bench(
        &home,
        3,
        &["--exact", "three_boxes", "--events", "allocs,alloc-bytes"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let index = std::fs::read_to_string(home.join("report/index.html")).unwrap();
    for name in ["allocs", "alloc-bytes"] {
        assert!(
            index.contains(&format!(">{name}</th>")),
            "{name} is no column of the index"
        );
    }
    let page = std::fs::read_to_string(home.join("report/bench/three_boxes.html")).unwrap();
    for (name, count) in [("allocs", 3), ("alloc-bytes", 192)] {
        let section = page
            .split("<h2>")
            .find(|s| s.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no section for {name}"));
        let exact = format!("Every sample gives exactly {count} per iteration");
        assert!(section.contains(&exact), "{name}: {section}");
    }
}

#[test]
fn list_events_lists_the_allocation_counts_as_countable_where_installed() {
    let home = home("list");
    let installed = bench(&home, 3, &["--list-events"]);
    let fixtures = bench_with_env(&["--list-events"], &[]);
    for run in [&installed, &fixtures] {
        assert_eq!(run.code, 0, "{}", run.stderr);
        for name in ALLOCATION_COUNTS {
            assert!(
                run.stdout.lines().any(|l| l.trim_start().starts_with(name)),
                "{name} not listed:\n{}",
                run.stdout
            );
        }
    }
    let heading = "allocation counts (perfbench::CountingAllocator)";
    assert!(
        installed.stdout.contains(&format!("{heading}:\n")),
        "{}",
        installed.stdout
    );
    assert!(
        fixtures.stdout.contains(&format!(
            "{heading} (none countable here: the bench target's global allocator is not perfbench::CountingAllocator"
        )),
        "{}",
        fixtures.stdout
    );
}

#[test]
fn allocation_counts_without_the_allocator_are_dropped_with_a_warning() {
    let args: Vec<&str> = QUICK
        .iter()
        .copied()
        .chain([
            "--exact",
            "touch_16",
            "--events",
            "page-faults,allocs",
            "--output-format",
            "json",
        ])
        .collect();
    let run = bench_with_env(&args, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let warning = "perfbench: warning: cannot count `allocs` here: the bench target's global \
                   allocator is not perfbench::CountingAllocator; add `#[global_allocator] static \
                   ALLOC: perfbench::CountingAllocator = perfbench::CountingAllocator::system();`\n";
    assert!(run.stderr.contains(warning), "{}", run.stderr);
    let metrics = &run.json()[0]["metrics"];
    if let Some(faults) = common::faults_metric(metrics) {
        assert_eq!(faults["estimate"], 16.0);
    }
    assert!(metrics.get("allocs").is_none(), "{metrics}");

    // Nothing left to count: wall time is still measured.
    let args: Vec<&str> = ["--exact", "touch_16", "--events", "allocs"]
        .into_iter()
        .chain(QUICK.iter().copied())
        .chain(["--output-format", "json"])
        .collect();
    let run = bench_with_env(&args, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains(warning), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("perfbench: note: no event left to count: measuring wall time alone\n"),
        "{}",
        run.stderr
    );
    let metrics = run.json()[0].object_at("metrics").clone();
    let names: Vec<&String> = metrics.keys().collect();
    assert_eq!(names, ["wall-time"]);
    assert!(metrics["wall-time"].f64_at("estimate") > 0.0);
}
