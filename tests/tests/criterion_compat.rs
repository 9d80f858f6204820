//! A Criterion suite through perfbench-criterion (tests/benches/criterion_compat.rs,
//! its dependency renamed `criterion` as a user renames it): Criterion's ids,
//! both forms of `criterion_group!`, the settings of a config and of a group
//! taking effect under the command line's, throughput, every `Bencher`
//! method measuring its routine alone (exact page faults), async routines
//! on a tokio runtime (`to_async`), a panicking
//! routine failing alone, test mode, a measurement of the suite's own named
//! once, and a paired run. Each routine touches a known number of fresh
//! pages, so its exact page-fault count proves what was measured.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::json::Fields;
use common::{bench_target_with_env, built_of, faults_metric, fresh_dir, short_of, Run};
use serde_json::Value;

/// `cargo bench --bench criterion_compat -- ARGS`.
fn suite(args: &[&str], env: &[(&str, &str)]) -> Run {
    bench_target_with_env("criterion_compat", args, env)
}

/// [`suite`] with the short settings ([`common::SHORT`]) before `args`.
fn short(args: &[&str], env: &[(&str, &str)]) -> Run {
    short_of("criterion_compat", args, env)
}

/// Every id of the suite, as Criterion names them, in declaration order.
const IDS: [&str; 18] = [
    "touch 1",
    "touch/3",
    "pages/2",
    "pages/4",
    "pages/twice/1",
    "methods/iter_batched",
    "methods/iter_batched_ref",
    "methods/iter_with_setup",
    "methods/iter_with_large_drop",
    "methods/iter_custom",
    "async/iter",
    "async/iter_batched",
    "async/iter_custom",
    "configured",
    "panics",
    "after panics",
    "calls",
    "calls custom",
];

/// The JSON lines of `run` by id.
fn by_id(run: &Run) -> BTreeMap<String, Value> {
    let lines = run.json().into_iter();
    lines.map(|v| (v.str_at("id").to_string(), v)).collect()
}

#[test]
fn ids_are_criterions_listed_in_the_order_declared() {
    let run = suite(&["--list", "--format", "terse"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ids: Vec<&str> = (run.stdout.lines())
        .map(|l| l.trim_end_matches(": benchmark"))
        .collect();
    assert_eq!(ids, IDS);
}

#[test]
fn every_benchmark_measures_its_routine_alone_with_its_settings() {
    let run = short(&[], &[]);
    assert_eq!(run.code, 101, "{}", run.stderr);
    let lines = by_id(&run);
    let measured: Vec<&str> = IDS
        .into_iter()
        .filter(|id| !["panics", "calls custom"].contains(id))
        .collect();
    let mut ids: Vec<&str> = lines.keys().map(String::as_str).collect();
    ids.sort();
    let mut expected = measured.clone();
    expected.sort();
    assert_eq!(ids, expected, "{}", run.stderr);
    // Samples: a group's sample_size (12), the full form's config (15),
    // else perfbench's default (50), not Criterion's 100.
    let samples = |id: &str| lines[id].u64_at("samples");
    assert_eq!(
        [
            "pages/2",
            "pages/4",
            "pages/twice/1",
            "configured",
            "touch 1"
        ]
        .map(samples),
        [12, 12, 12, 15, 50]
    );
    assert_eq!(lines["pages/4"]["throughput"]["bytes"], 16384);
    assert_eq!(lines["pages/twice/1"]["throughput"]["bytes"], 16384);
    assert!(lines["touch 1"]["throughput"].is_null());
    // The setup's 5 pages are never counted; the routine's are, exactly.
    let pages: [(&str, f64); 16] = [
        ("touch 1", 1.0),
        ("touch/3", 3.0),
        ("pages/2", 2.0),
        ("pages/4", 4.0),
        ("pages/twice/1", 2.0),
        ("methods/iter_batched", 2.0),
        ("methods/iter_batched_ref", 2.0),
        ("methods/iter_with_setup", 2.0),
        ("methods/iter_with_large_drop", 2.0),
        ("methods/iter_custom", 2.0),
        ("async/iter", 2.0),
        ("async/iter_batched", 3.0),
        ("async/iter_custom", 1.0),
        ("configured", 1.0),
        ("after panics", 1.0),
        ("calls", 1.0),
    ];
    for (id, faults) in pages {
        if let Some(m) = faults_metric(&lines[id]["metrics"]) {
            assert_eq!(m.f64_at("estimate"), faults, "{id}");
        }
    }
    let errors = run.stderr_lines(|l| l.starts_with("perfbench: error: benchmark"));
    assert_eq!(errors.len(), 2, "{}", run.stderr);
    assert!(
        errors[0].starts_with("perfbench: error: benchmark `panics` panicked at ")
            && errors[0].ends_with(": the routine gave up"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].contains("`calls custom` panicked at ")
            && errors[1].ends_with(
                "iter_custom with the measurement `criterion_compat::Calls`: perfbench reads \
                 only durations (WallTime)"
            ),
        "{}",
        errors[1]
    );
    assert!(
        run.stderr
            .contains("2 of 18 benchmarks failed: panics, calls custom"),
        "{}",
        run.stderr
    );
}

#[test]
fn what_cannot_mean_the_same_is_named_once_in_one_line() {
    let run = short(&["--sample-count", "10", "touch 1"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let notes = run.stderr_lines(|l| l.starts_with("perfbench: note: the suite's"));
    assert_eq!(
        notes,
        ["perfbench: note: the suite's `with_measurement(criterion_compat::Calls)` is not used: \
          perfbench measures wall time and its counters"],
        "{}",
        run.stderr
    );
}

#[test]
fn the_command_line_wins_over_the_suites_settings() {
    let run = short(
        &["--sample-count", "10", "--exact", "configured", "pages/2"],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = by_id(&run);
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    for id in ["configured", "pages/2"] {
        assert_eq!(lines[id].u64_at("samples"), 10, "{id}");
    }
}

#[test]
fn a_configs_run_wide_settings_are_flags_the_command_line_overrides() {
    let home = fresh_dir("criterion-compat", "config-flags");
    let home = home.to_str().unwrap();
    let env = [
        ("CRITERION_COMPAT_SAVE", "from-code"),
        ("PERFBENCH_HOME", home),
    ];
    let args = ["--sample-count", "10", "--exact", "configured"];
    let run = suite(&args, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let saved = "perfbench: saved baseline `from-code` (1 benchmark)";
    assert!(run.stderr.contains(saved), "{}", run.stderr);
    let over: Vec<&str> = args
        .iter()
        .chain(&["--save-baseline", "from-cli"])
        .copied()
        .collect();
    let run = suite(&over, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("perfbench: saved baseline `from-cli` (1 benchmark)")
            && !run.stderr.contains("from-code"),
        "{}",
        run.stderr
    );
}

#[test]
fn test_mode_runs_each_routine_once_as_libtest_reports() {
    for args in [&["--test"][..], &[]] {
        // `cargo bench -- --test`, and the binary as `cargo test --benches`
        // runs it, with no `--bench`.
        let run = match args {
            [] => Run::finish(
                std::process::Command::new(binary())
                    .output()
                    .expect("the bench binary runs"),
            ),
            _ => suite(args, &[]),
        };
        assert_eq!(run.code, 101, "{}", run.stderr);
        for id in IDS {
            let verdict = if ["panics", "calls custom"].contains(&id) {
                "FAILED"
            } else {
                "ok"
            };
            let line = format!("test {id} ... {verdict}");
            assert!(run.stdout.contains(&line), "{line}\n{}", run.stdout);
        }
        assert!(
            run.stdout
                .contains("test result: FAILED. 16 passed; 2 failed; 0 ignored; 0 measured"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn a_paired_run_measures_both_builds_of_a_criterion_suite() {
    let home = fresh_dir("criterion-compat", "paired");
    let home = home.to_str().unwrap();
    let path = binary();
    let path = path.to_str().unwrap();
    // 20 samples: 4 rounds of each build, which a paired change needs.
    let args = ["--sample-count", "20", "--paired-with", path, "pages/"];
    let run = short(&args, &[("PERFBENCH_HOME", home)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = by_id(&run);
    assert_eq!(
        lines.keys().collect::<Vec<_>>(),
        ["pages/2", "pages/4", "pages/twice/1"]
    );
    for (id, line) in &lines {
        assert_eq!(line["baseline"]["paired"], true, "{id}: {line}");
        // The same routine in both builds: exactly no change in its count.
        if let Some(m) = faults_metric(&line["metrics"]) {
            assert_eq!(m["change"]["relative"], 0.0, "{id}: {line}");
            assert_eq!(m["change"]["verdict"], "no change", "{id}: {line}");
        }
    }
}

/// The suite's binary, as `cargo bench` builds it.
fn binary() -> PathBuf {
    built_of("criterion_compat", &[], "criterion_compat")
}
