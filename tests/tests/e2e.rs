//! End to end: `cargo bench --bench fixtures -- …` on a bench crate that uses
//! perfbench as a user would, checking what reaches stdout, stderr and the
//! exit code.

mod common;

use std::path::Path;
use std::process::Command;

use common::json::Fields;
use common::{
    bench_with_env, counted, faults_metric, fixtures_binary, under, Run, Under, QUICK, RUNS,
};
use serde_json::Value;

fn bench(args: &[&str]) -> Run {
    bench_with_env(args, &[])
}

/// `bench` with the quick settings after `args`.
fn bench_quick(args: &[&str]) -> Run {
    let all: Vec<&str> = args.iter().chain(QUICK).copied().collect();
    bench(&all)
}

fn run_json(args: &[&str]) -> (Run, Vec<Value>) {
    let all: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--output-format", "json"])
        .collect();
    let run = bench_quick(&all);
    let lines = run.json();
    (run, lines)
}

#[test]
fn sixteen_fresh_pages_are_exactly_sixteen_page_faults_in_either_event_order() {
    let Some(pf) = common::page_faults() else {
        return;
    };
    for events in ["task-clock,page-faults", "page-faults,task-clock"] {
        let (run, lines) = run_json(&["--exact", "touch_16", "--events", events]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(lines.len(), 1, "{}", run.stdout);
        let v = &lines[0];
        assert_eq!(v["schema"], "perfbench/v1");
        assert_eq!(v["id"], "touch_16");
        assert_eq!(v["mode"], "batch");
        assert_eq!(v["samples"], 10);
        // Two rounds of linear sampling: sample i of a round runs i·d
        // iterations, 15·d a round.
        assert_eq!(v.u64_at("iterations") % 15, 0);
        let faults = &v["metrics"][&pf];
        assert_eq!(faults["rounds"], serde_json::json!([16.0, 16.0]));
        assert_eq!(faults["unit"], "count");
        for stat in ["estimate", "mean", "median", "min", "max"] {
            assert_eq!(
                faults[stat].as_f64(),
                Some(16.0),
                "{events}: page-faults {stat} in {v}"
            );
        }
        // Wall time also runs while the thread is preempted and task-clock
        // does not, so compare the least disturbed samples: the fastest.
        let task = v["metrics"]["task-clock"].f64_at("min");
        let wall = v["metrics"]["wall-time"].f64_at("min");
        assert_eq!(v["metrics"]["task-clock"]["unit"], "ns");
        assert!(
            (0.75..1.25).contains(&(task / wall)),
            "{events}: fastest sample's task-clock {task} ns vs wall time {wall} ns per iteration"
        );
    }
}

#[test]
fn setup_of_iter_batched_is_not_counted() {
    let Some(pf) = common::page_faults() else {
        return;
    };
    let (run, lines) = run_json(&["touch_batched", "--events", "page-faults"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got: Vec<(String, f64, f64)> = lines
        .iter()
        .map(|v| {
            let m = &v["metrics"][&pf];
            (v.str_at("id").to_string(), m.f64_at("min"), m.f64_at("max"))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("touch_batched/1".to_string(), 1.0, 1.0),
            ("touch_batched/17".to_string(), 17.0, 17.0)
        ]
    );
}

#[test]
fn the_default_table_leads_with_the_headline_and_folds_what_never_happens() {
    let dir = common::fresh_dir("table", "default");
    let json_path = dir.join("run.jsonl");
    let json_file = format!("json={}", json_path.display());
    let args = [
        "--exact",
        "touch_16",
        "--events",
        "page-faults,task-clock,cpu-migrations",
        "--color",
        "never",
        "--output-file",
        &json_file,
    ];
    let run = bench_quick(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("touch_16  "))
        .unwrap_or_else(|| panic!("a block: {}", run.stdout));
    assert!(
        lines[at].starts_with("touch_16  wall-time [") || lines[at].starts_with("touch_16  cycles"),
        "{}",
        run.stdout
    );
    if let Some(faults) = counted("page-faults") {
        let figure = format!("{faults} 16");
        assert!(lines[at + 1].contains(&figure), "{}", run.stdout);
    }
    assert!(!run.stdout.contains("measuring costs"), "{}", run.stdout);
    assert!(!run.stdout.contains("95% CI"), "{}", run.stdout);
    assert!(!run.stdout.contains("-0 "), "{}", run.stdout);
    // Where this run's CPU migrations were quiet (zero or rare), they are
    // named once at the end, not in the block; else they are in it.
    if let Some(migrations) = counted("cpu-migrations") {
        let text = std::fs::read_to_string(&json_path).unwrap();
        let v: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let m = &v["metrics"][&migrations];
        let ci = m.array_at("ci");
        let quiet =
            (ci.iter().chain([&m["estimate"]])).all(|x| common::json::number(x).abs() < 1e-3);
        // The folded line, wrapped after its lead where long.
        let folded = run
            .stdout
            .split_once("perfbench: rare or zero")
            .map(|(_, f)| f);
        let in_block = (lines[at..].iter())
            .take_while(|l| !l.starts_with("perfbench: "))
            .any(|l| l.contains(&format!("{migrations} ")));
        assert_eq!(
            folded.is_some_and(|f| f.contains(&migrations)),
            quiet,
            "{}",
            run.stdout
        );
        assert_eq!(in_block, !quiet, "{}", run.stdout);
    }
    let verbose: Vec<&str> = args.iter().copied().chain(["--verbose"]).collect();
    let full = bench_quick(&verbose);
    assert!(
        full.stdout.contains("measuring costs per"),
        "{}",
        full.stdout
    );
    assert!(
        full.stdout.contains("95% CI: wall-time ["),
        "{}",
        full.stdout
    );
    assert!(!full.stdout.contains("rare or zero"), "{}", full.stdout);
}

#[test]
fn the_table_has_a_row_per_benchmark_with_exact_counts() {
    let run = bench_quick(&[
        "--exact",
        "touch_16",
        "touch_batched/17",
        "--events",
        "page-faults,task-clock",
        "--color",
        "never",
        "--verbose",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let header = lines
        .iter()
        .find(|l| l.starts_with("benchmark"))
        .expect("a header");
    let columns: Vec<&str> = header.split_whitespace().collect();
    // Wall time, then what this environment counts of the two events.
    let (faults_name, clock) = (counted("page-faults"), counted("task-clock"));
    let counts: Vec<&str> = [&faults_name, &clock]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let expected: Vec<&str> = ["benchmark", "wall-time"]
        .into_iter()
        .chain(counts)
        .collect();
    assert_eq!(columns, expected);
    for (id, faults) in [("touch_16", "16"), ("touch_batched/17", "17")] {
        let row = lines.iter().find(|l| l.starts_with(id)).expect("a row");
        // id, wall time (value unit), page faults, task-clock (value unit)
        let cells: Vec<&str> = row.split_whitespace().collect();
        let width = 3 + usize::from(faults_name.is_some()) + 2 * usize::from(clock.is_some());
        assert_eq!(cells.len(), width, "{row}");
        if faults_name.is_some() {
            assert_eq!(cells[3], faults, "{row}");
        }
        assert!(["ns", "µs", "ms"].contains(&cells[2]), "{row}");
    }
    assert!(
        lines.iter().all(|l| l.chars().count() <= 80),
        "{}",
        run.stdout
    );
}

#[test]
fn a_panicking_benchmark_is_reported_by_id_and_the_others_still_run() {
    let (run, lines) = run_json(&["--exact", "panics", "touch_16", "--events", "page-faults"]);
    assert_eq!(run.code, 101, "{}", run.stderr);
    assert!(
        run.stderr.contains("benchmark `panics` panicked at")
            && run.stderr.contains("deliberate failure in a fixture"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("RUST_BACKTRACE"), "{}", run.stderr);
    assert!(
        run.stderr.contains("1 of 2 benchmarks failed: panics"),
        "{}",
        run.stderr
    );
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["id"], "touch_16");
    if let Some(faults) = faults_metric(&lines[0]["metrics"]) {
        assert_eq!(faults["estimate"], 16.0);
    }
}

#[test]
fn a_benchmark_that_never_calls_iter_is_reported_by_id() {
    let run = bench_binary(&["--exact", "forgets_iter", "--events", "page-faults"]);
    assert_eq!(run.code, 101, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "benchmark `forgets_iter`: the benchmark returned without calling `Bencher::iter`"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unknown_event_is_named_with_close_suggestions() {
    let run = bench_binary(&["--events", "task-clock,cyclez"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("event `cyclez`"), "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean `cycles`"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_event_this_machine_cannot_count_is_named_and_the_rest_go_on() {
    let (run, lines) = run_json(&["--exact", "touch_16", "--events", "cycles,page-faults"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let metrics = &lines[0]["metrics"];
    if let Some(faults) = faults_metric(metrics) {
        assert_eq!(faults["estimate"], 16.0);
    }
    // Under the filter nothing reaches the kernel, which knows the PMU.
    if perfbench::counter::event::has_cpu_pmu() && under() != Under::Seccomp {
        assert!(metrics["cycles"].f64_at("estimate") > 0.0);
    } else {
        let why = match under() {
            Under::Seccomp => "permission denied opening `cycles`: a seccomp filter blocks",
            _ => "cannot count `cycles` here: no hardware PMU",
        };
        assert!(run.stderr.contains(why), "{}", run.stderr);
        assert!(metrics.get("cycles").is_none(), "{metrics}");
        // With nothing left to count, wall time is measured alone.
        let (alone, lines) = run_json(&["--exact", "touch_16", "--events", "cycles"]);
        assert_eq!(alone.code, 0, "{}", alone.stderr);
        assert!(
            alone
                .stderr
                .contains("no event left to count: measuring wall time alone"),
            "{}",
            alone.stderr
        );
        let metrics = lines[0].object_at("metrics");
        assert_eq!(metrics.keys().collect::<Vec<_>>(), ["wall-time"]);
    }
}

#[test]
fn no_pmu_default_says_why_in_one_line() {
    let (run, lines) = run_json(&["--exact", "touch_16"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let metrics = lines[0].object_at("metrics");
    let keys: Vec<&str> = metrics.keys().map(String::as_str).collect();
    if under() == Under::Seccomp {
        // Nothing opens: one note names the default set and the filter.
        let notes = run.stderr_lines(|l| l.contains("a seccomp filter blocks"));
        assert_eq!(notes.len(), 1, "{}", run.stderr);
        assert!(
            notes[0].starts_with("perfbench: note: not counting ")
                && notes[0].contains("page-faults"),
            "{}",
            notes[0]
        );
        assert_eq!(keys, ["wall-time"]);
    } else if perfbench::counter::event::has_cpu_pmu() {
        assert!(metrics.contains_key("cycles") && metrics.contains_key("instructions"));
    } else {
        let notes: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("no hardware counters"))
            .collect();
        assert_eq!(notes.len(), 1, "{}", run.stderr);
        assert!(notes[0].contains("perf_event_paranoid"), "{}", notes[0]);
        assert!(keys.contains(&"wall-time"), "{keys:?}");
        for k in [
            "task-clock",
            "page-faults",
            "context-switches",
            "cpu-migrations",
        ] {
            match counted(k) {
                Some(name) => assert!(keys.contains(&name.as_str()), "{name}: {keys:?}"),
                None => assert!(!keys.iter().any(|key| key.starts_with(k)), "{k}: {keys:?}"),
            }
        }
        if counted("context-switches").is_none() {
            // As nobody: they would read 0 in user space, and one note says so.
            let said = run.stderr_lines(|l| {
                l.starts_with(
                    "perfbench: note: not counting context-switches, cpu-migrations: raised by \
                     the kernel only in its own context",
                )
            });
            assert_eq!(said.len(), 1, "{}", run.stderr);
        }
        let faults = faults_metric(&lines[0]["metrics"]).expect("counted without the filter");
        assert_eq!(faults["estimate"], 16.0);
    }
}

/// The fixtures binary run directly with `--bench ARGS`, so that stderr holds
/// perfbench's words alone, without cargo's.
fn bench_binary(args: &[&str]) -> Run {
    let binary = fixtures_binary();
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    Run::finish(
        common::command(binary)
            .arg("--bench")
            .args(args)
            .output()
            .expect("runs"),
    )
}

#[test]
fn permission_denied_names_perf_event_paranoid_and_its_value() {
    let paranoid = perfbench::kernel::sys::perf_event_paranoid().expect("readable");
    if paranoid < 2 {
        eprintln!(
            "skipped: perf_event_paranoid is {paranoid}; kernel counting is allowed to anyone here"
        );
        return;
    }
    let home = home_for_nobody("denied");
    let out = unprivileged()
        .args([
            "--bench",
            "--exact",
            "touch_16",
            "--events",
            "page-faults:k",
            "--output-format",
            "json",
        ])
        .args(QUICK)
        .env("PERFBENCH_HOME", &home)
        .output()
        .expect("runs");
    let _ = std::fs::remove_dir_all(&home);
    let run = Run::finish(out);
    // An event asked for by name is a warning; wall time is measured alone.
    assert_eq!(run.code, 0, "{}", run.stderr);
    let denied = run.stderr_lines(|l| l.contains("permission denied opening `page-faults:k`: "));
    assert_eq!(denied.len(), 1, "{}", run.stderr);
    assert!(
        denied[0].starts_with("perfbench: warning: "),
        "{}",
        denied[0]
    );
    // Under the filter the kernel's setting is not the cause.
    let cause = match under() {
        Under::Seccomp => "a seccomp filter blocks perf_event_open".to_string(),
        _ => format!("kernel.perf_event_paranoid is {paranoid}"),
    };
    assert!(denied[0].contains(&cause), "{}", denied[0]);
    let metrics = run.json()[0].object_at("metrics").clone();
    assert_eq!(metrics.keys().collect::<Vec<_>>(), ["wall-time"]);
}

/// A fresh folder `nobody` may write to, for an [`unprivileged`] run's
/// results.
fn home_for_nobody(name: &str) -> std::path::PathBuf {
    let home = std::env::temp_dir().join(format!("perfbench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    std::fs::set_permissions(&home, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    home
}

/// The fixtures binary as a user without privilege: kernel-space counting
/// is refused to such users at paranoid >= 2, so as root, drop to `nobody`
/// (under the filter too, where [`under`] asks for it).
fn unprivileged() -> Command {
    let binary = fixtures_binary();
    if !is_root() || under() == Under::Nobody {
        return common::command(binary);
    }
    let mut c = Command::new("setpriv");
    c.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
    ])
    .args(common::runner())
    .arg(binary);
    c
}

#[test]
fn software_events_refused_the_kernel_count_user_space_with_one_note() {
    let paranoid = perfbench::kernel::sys::perf_event_paranoid().expect("readable");
    if paranoid < 2 {
        eprintln!("skipped: perf_event_paranoid is {paranoid}; anyone may count the kernel here");
        return;
    }
    let home = home_for_nobody("unprivileged");
    let run = Run::finish(
        unprivileged()
            .args(["--bench", "--exact", "touch_16", "--output-format", "json"])
            .args(["--events", "page-faults,context-switches,task-clock"])
            .args(QUICK)
            .env("PERFBENCH_HOME", &home)
            .output()
            .expect("runs"),
    );
    let _ = std::fs::remove_dir_all(&home);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let notes = run.stderr_lines(|l| l.contains("user space only"));
    if under() == Under::Seccomp {
        // The filter refuses user space too: nothing is narrowed, each
        // event asked for is a warning naming the filter.
        assert_eq!(notes, Vec::<&str>::new(), "{}", run.stderr);
        for event in ["page-faults", "context-switches", "task-clock"] {
            let said = format!(
                "perfbench: warning: permission denied opening `{event}`: a seccomp filter blocks"
            );
            assert_eq!(
                run.stderr_lines(|l| l.starts_with(&said)).len(),
                1,
                "{}",
                run.stderr
            );
        }
        let metrics = run.json()[0].object_at("metrics").clone();
        assert_eq!(metrics.keys().collect::<Vec<_>>(), ["wall-time"]);
        return;
    }
    assert_eq!(notes.len(), 1, "{}", run.stderr);
    assert!(
        notes[0].contains("counting page-faults:u in user space only")
            && notes[0].contains(&format!("kernel.perf_event_paranoid is {paranoid}")),
        "{}",
        notes[0]
    );
    // task-clock is left alone; the faults of touching pages are the user's.
    assert!(!notes[0].contains("task-clock"), "{}", notes[0]);
    // Context switches are raised in the kernel's context: in user space
    // alone they would read 0, so they are not measured, and one warning
    // (they were asked for by name) says why.
    let refused = run.stderr_lines(|l| l.contains("not counting `context-switches`"));
    assert_eq!(refused.len(), 1, "{}", run.stderr);
    assert!(
        refused[0].starts_with("perfbench: warning: "),
        "{}",
        refused[0]
    );
    let lines = run.json();
    let metrics = lines[0].object_at("metrics");
    assert_eq!(metrics["page-faults:u"]["estimate"], 16.0);
    let names: Vec<&String> = metrics.keys().collect();
    assert_eq!(names, ["page-faults:u", "task-clock", "wall-time"]);
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        == Some("0")
}

#[test]
fn a_filter_matching_nothing_says_so_and_succeeds() {
    let run = bench(&["no_such_benchmark"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("no benchmark matches `no_such_benchmark`"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn list_prints_ids_in_source_order() {
    let expected = [
        "touch_16: benchmark",
        "touch_batched/1: benchmark",
        "touch_batched/17: benchmark",
        "panics: benchmark",
        "touch_n: benchmark",
        "forgets_iter: benchmark",
        "text/ascii: benchmark",
        "text/emoji 🦀: benchmark",
        "text/<script>alert(1)</script>: benchmark",
        "oracle/touch_pages: benchmark",
        "oracle/read_into_pages: benchmark",
        "oracle/sleep_4: benchmark",
        "oracle/thread: benchmark",
        "oracle/compute: benchmark",
        "sleeps_300ms: benchmark",
        "ignored_attribute: benchmark",
        "ignored_key: benchmark",
        "dear_setup/small: benchmark",
        "dear_setup/large: benchmark",
        "dear_setup/per_iteration: benchmark",
        "dear_setup/batches_10: benchmark",
        "dear_setup/inputs_10: benchmark",
        "hot_input/iter: benchmark",
        "hot_input/small: benchmark",
        "hot_input/large: benchmark",
        "hot_input/per_iteration: benchmark",
        "hot_input/batches_10: benchmark",
        "hot_input/inputs_10: benchmark",
    ];
    let run = bench(&["--list", "--format", "terse"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout.lines().collect::<Vec<_>>(), expected);
    let run = bench(&["--list", "touch"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            expected[0],
            expected[1],
            expected[2],
            expected[4],
            expected[9],
            "",
            "5 benchmarks"
        ]
    );
}

#[test]
fn ignored_benchmarks_are_skipped_and_named_unless_asked_for() {
    // Test mode, like libtest: listed as ignored, counted, not run.
    let run = bench(&["--test", "ignored", "touch_16"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for line in [
        "running 3 tests",
        "test touch_16 ... ok",
        "test ignored_attribute ... ignored",
        "test ignored_key ... ignored",
        "test result: ok. 1 passed; 0 failed; 2 ignored; 0 measured; 25 filtered out",
    ] {
        assert!(run.stdout.contains(line), "no `{line}` in:\n{}", run.stdout);
    }
    // Measured: none of the ignored ones, named on stderr.
    let (run, lines) = run_json(&["ignored", "--events", "page-faults"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(lines.is_empty(), "{lines:?}");
    assert!(
        run.stderr.contains(
            "perfbench: 2 benchmarks ignored: ignored_attribute, ignored_key \
             (`--ignored` runs only those, `--include-ignored` all)"
        ),
        "{}",
        run.stderr
    );
    // `--ignored`: only those, with their exact counts.
    let (run, lines) = run_json(&["--ignored", "--events", "page-faults"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Their page faults (where counted) prove which ran.
    let faults: Vec<(String, Option<f64>)> = lines
        .iter()
        .map(|l| {
            let id = l.str_at("id").to_string();
            (
                id,
                faults_metric(&l["metrics"]).map(|m| m.f64_at("estimate")),
            )
        })
        .collect();
    let counts = counted("page-faults").is_some();
    assert_eq!(
        faults,
        [
            ("ignored_attribute".to_string(), counts.then_some(2.0)),
            ("ignored_key".to_string(), counts.then_some(3.0))
        ]
    );
    // `--include-ignored`: them and the others the filter picks.
    let (run, lines) = run_json(&[
        "--include-ignored",
        "--exact",
        "touch_16",
        "ignored_key",
        "--events",
        "page-faults",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ids: Vec<&str> = lines.iter().map(|l| l.str_at("id")).collect();
    assert_eq!(ids, ["touch_16", "ignored_key"]);
}

#[test]
fn test_mode_runs_each_routine_once_like_libtest() {
    let run = bench(&["--test", "--exact", "touch_16", "text/ascii"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("test touch_16 ... ok\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("test text/ascii ... ok\n"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 26 filtered out"));
    let run = bench(&["--test", "panics"]);
    assert_eq!(run.code, 101);
    assert!(
        run.stdout.contains("test panics ... FAILED"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("deliberate failure in a fixture"),
        "{}",
        run.stdout
    );
}

#[test]
fn environment_twins_configure_a_run() {
    let run = bench_with_env(
        &["--exact", "touch_16"],
        &[
            ("PERFBENCH_EVENTS", "page-faults"),
            ("PERFBENCH_OUTPUT_FORMAT", "json"),
            ("PERFBENCH_SAMPLE_COUNT", "7"),
            ("PERFBENCH_WARM_UP_TIME", "0.02"),
            ("PERFBENCH_MEASUREMENT_TIME", "0.05"),
            ("PERFBENCH_CPU", "0"),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = &run.json()[0];
    assert_eq!(v["samples"], 7);
    assert_eq!(v["cpu"], 0);
    if let Some(faults) = faults_metric(&v["metrics"]) {
        assert_eq!(faults["estimate"], 16.0);
    }
}

#[test]
fn arguments_keep_their_display_in_ids_and_give_throughput() {
    let (run, lines) = run_json(&["text/", "--events", "task-clock"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ids: Vec<&str> = lines.iter().map(|v| v.str_at("id")).collect();
    assert_eq!(
        ids,
        [
            "text/ascii",
            "text/emoji 🦀",
            "text/<script>alert(1)</script>"
        ]
    );
    assert_eq!(lines[1]["throughput"]["bytes"], "emoji 🦀".len());
    // Bytes per second: the work over the wall-time estimate, in JSON too.
    for v in &lines {
        let bytes = v["throughput"].f64_at("bytes");
        let ns = v["metrics"]["wall-time"].f64_at("estimate");
        let per_second = v["throughput"].f64_at("per_second");
        let expected = bytes * 1e9 / ns;
        assert!((per_second / expected - 1.0).abs() < 1e-12, "{v}");
        let ci = &v["throughput"]["per_second_ci"];
        assert!(ci.f64_at(0) <= per_second, "{v}");
    }
}

#[test]
fn declared_throughput_reaches_the_table_and_leaves_the_bencher_lines_as_parsers_want() {
    // The full block: the row's columns and the per-byte figures.
    let run = bench_quick(&[
        "--exact",
        "text/ascii",
        "--events",
        "task-clock,page-faults",
        "--color",
        "never",
        "--verbose",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("text/ascii"))
        .expect("a row");
    // text/ascii  2.345 ns  0  2.301 ns
    let cells: Vec<&str> = lines[at].split_whitespace().collect();
    let wall_ns = number(cells[1]) * prefix(cells[2], "s") * 1e9;
    // Under the row and its notes:
    // `  throughput: [low rate high], task-clock/byte …, page-faults/byte …`
    let (line, rates) = lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with(' '))
        .find_map(|l| Some((l, l.strip_prefix("  throughput: [")?)))
        .unwrap_or_else(|| panic!("no throughput line under the row:\n{}", run.stdout));
    let words: Vec<&str> = rates.split_whitespace().collect();
    let rate = |i: usize| {
        number(words[2 * i]) * prefix(words[2 * i + 1].trim_end_matches([']', ',']), "B/s")
    };
    let (low, point, high) = (rate(0), rate(1), rate(2));
    assert!(low <= point && point <= high, "{line}");
    // 5 bytes an iteration at the row's wall time, to the four digits shown.
    let bytes = point * wall_ns / 1e9;
    assert!(
        (bytes / 5.0 - 1.0).abs() < 2e-3,
        "{bytes} bytes: {line} vs {}",
        lines[at]
    );
    // Per byte, each event this environment counts.
    for event in ["task-clock", "page-faults"] {
        if let Some(name) = counted(event) {
            let per_byte = format!(" {name}/byte ");
            assert!(run.stdout.contains(&per_byte), "{}", run.stdout);
        }
    }

    let run = bench_quick(&[
        "--exact",
        "text/ascii",
        "touch_16",
        "--output-format",
        "bencher",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    // Source order: touch_16 first, which declares no throughput.
    let [touch, text] = lines[..] else {
        panic!("two bencher lines: {}", run.stdout)
    };
    assert!(touch.starts_with("test touch_16 ... bench:"), "{touch}");
    assert!(
        touch.ends_with(')'),
        "no rate without a throughput: {touch}"
    );
    // test text/ascii ... bench:           2 ns/iter (+/- 1): nothing after
    // the spread, which every reader of these lines wants at the end (the
    // rate is in the table above).
    let time = text
        .strip_prefix("test text/ascii ... bench:")
        .unwrap_or_else(|| panic!("not text/ascii's bencher line: {text}"));
    assert!(time.contains(" ns/iter (+/- "), "{text}");
    assert!(time.ends_with(')'), "no rate after the spread: {text}");
}

/// A figure as the table writes it (`∞` for an interval without a
/// bound: a time whose interval reaches zero has no highest rate).
fn number(text: &str) -> f64 {
    match text {
        "∞" => f64::INFINITY,
        _ => text
            .parse()
            .unwrap_or_else(|_| panic!("not a number: {text}")),
    }
}

/// The factor of a unit with a decimal prefix: `µs` of `s` is 1e-6,
/// `MB/s` of `B/s` 1e6.
fn prefix(unit: &str, base: &str) -> f64 {
    let prefix = unit
        .strip_suffix(base)
        .unwrap_or_else(|| panic!("`{unit}` is not in {base}"));
    match prefix {
        "n" => 1e-9,
        "µ" => 1e-6,
        "m" => 1e-3,
        "" => 1.0,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => panic!("unknown prefix in `{unit}`"),
    }
}

#[test]
fn bad_options_are_one_line_errors() {
    for (args, needle) in [
        (&["--frobnicate"][..], "unknown option `--frobnicate`"),
        (
            &["--sample-count", "zero"],
            "--sample-count takes a whole number from 1 to 1,000,000, not `zero`",
        ),
        (
            &["--cpu", "100000", "--events", "page-faults", "touch_16"],
            "cannot pin to CPU 100000",
        ),
        (
            &["--cpu-type", "big", "--events", "page-faults", "touch_16"],
            // Whatever the machine's kinds of core: none is `big`.
            "--cpu-type `big`: ",
        ),
        (
            &["--mode", "per-iter", "--events", "page-faults,cyclez"],
            "event `cyclez`",
        ),
        (
            &["--sampel-count", "5"],
            "unknown option `--sampel-count` (did you mean `--sample-count`?)",
        ),
        (
            &["--profile-time", "0", "touch_16"],
            "--profile-time takes seconds above 0, up to 86400 (e.g. 5 or 500ms), not `0`",
        ),
        (
            &["-c", "sometimes"],
            "-c: --color takes auto | always | never, not `sometimes`",
        ),
    ] {
        let run = bench_binary(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn criterion_s_flags_run_and_what_they_cannot_do_is_said_once() {
    let args = [
        "--test",
        "-V",
        "--nresamples",
        "5",
        "--nresamples=5",
        "-s",
        "main",
        "-c",
        "never",
        "-n",
        "--plotting-backend",
        "gnuplot",
        "--exact",
        "touch_16",
    ];
    let run = bench_binary(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("test touch_16 ... ok"),
        "{}",
        run.stdout
    );
    for said in [
        "perfbench: warning: --version has no effect (Criterion accepts it and does nothing)",
        "perfbench: warning: --nresamples 5 has no effect: the bootstrap always takes 1000 \
         resamples, seeded",
        "perfbench: warning: --plotting-backend gnuplot has no effect: perfbench draws its \
         report's plots itself, as SVG (--noplot leaves them out)",
    ] {
        let times = run.stderr.lines().filter(|l| *l == said).count();
        assert_eq!(times, 1, "{said}\n{}", run.stderr);
    }
}

#[test]
fn profile_time_runs_each_routine_for_a_profiler_and_stores_nothing() {
    let home = std::env::temp_dir().join(format!("perfbench-profile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let ids = ["touch_16", "touch_batched/1"];
    let args = ["--profile-time", "0.2", "--exact", ids[0], ids[1]];
    let run = bench_with_env(&args, &[("PERFBENCH_HOME", home.to_str().unwrap())]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), ids.len(), "{}", run.stdout);
    for (line, id) in lines.iter().zip(ids) {
        // perfbench: profiled ID: 1,234 iterations in 0.20 s (no analysis, nothing stored)
        let rest = line
            .strip_prefix(&format!("perfbench: profiled {id}: "))
            .unwrap_or_else(|| panic!("not a line for {id}: {line}"));
        assert!(rest.ends_with(" (no analysis, nothing stored)"), "{line}");
        let words: Vec<&str> = rest.split(' ').collect();
        let iterations: u64 = words[0].replace(',', "").parse().unwrap();
        assert!(iterations > 0, "{line}");
        assert_eq!(
            words[1],
            if iterations == 1 {
                "iteration"
            } else {
                "iterations"
            }
        );
        let seconds: f64 = words[3].parse().unwrap();
        assert!(seconds >= 0.1, "about 0.2 s: {line}");
    }
    assert!(!home.exists(), "a profiling run stores nothing");
    // A failing routine is named, and the run fails as a measuring run would.
    let run = bench(&[
        "--profile-time",
        "0.05",
        "--exact",
        "panics",
        "forgets_iter",
    ]);
    assert_eq!(run.code, 101, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("benchmark `forgets_iter`: the benchmark returned without calling")
            && run
                .stderr
                .contains("2 of 2 benchmarks failed: panics, forgets_iter"),
        "{}",
        run.stderr
    );
}

#[test]
fn list_events_shows_what_opens_here() {
    let run = bench_binary(&["--list-events"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().map(str::trim).collect();
    for name in ["cycles", "L1-dcache-load-misses"] {
        assert!(lines.contains(&name), "{name} missing from\n{}", run.stdout);
    }
    // Software events: listed plain where they open as asked; as nobody
    // those narrowed say under which name they count, and those the kernel
    // raises only in its own context why they are not counted.
    for name in ["task-clock", "page-faults", "context-switches"] {
        let line = lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing from\n{}", run.stdout));
        let words: Vec<&str> = line.split_whitespace().collect();
        match (under(), counted(name)) {
            (Under::Nobody, Some(as_counted)) if as_counted != name => assert_eq!(
                words[1..].join(" "),
                format!("user space only here, as {as_counted}")
            ),
            (Under::Nobody, None) => assert!(
                line.contains("not countable here: raised by the kernel only in its own context"),
                "{line}"
            ),
            (Under::Seccomp, _) => {}
            _ => assert_eq!(*line, name),
        }
    }
    let hardware = lines
        .iter()
        .find(|l| l.starts_with("hardware events"))
        .unwrap();
    let filtered = under() == Under::Seccomp;
    assert_eq!(
        hardware.contains("none countable here"),
        filtered || !perfbench::counter::event::has_cpu_pmu(),
        "{hardware}"
    );
    let software = lines
        .iter()
        .find(|l| l.starts_with("software events"))
        .unwrap();
    if filtered {
        assert!(
            software.starts_with(
                "software events (none countable here: a seccomp filter blocks perf_event_open"
            ),
            "{software}"
        );
    } else {
        assert_eq!(*software, "software events:", "{}", run.stdout);
    }
}

#[test]
fn per_iteration_mode_counts_exactly_sixteen_faults_on_every_iteration() {
    let Some(pf) = common::page_faults() else {
        return;
    };
    for events in ["task-clock,page-faults", "page-faults,task-clock"] {
        let (run, lines) = run_json(&[
            "--exact", "touch_16", "--events", events, "--mode", "per-iter",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let v = &lines[0];
        assert_eq!(v["mode"], "per-iter");
        let path = v.str_at("read_path");
        if !perfbench::counter::event::has_cpu_pmu() {
            assert_eq!(path, "read()", "software events cannot be read with rdpmc");
        }
        let faults = &v["metrics"][&pf];
        for stat in ["estimate", "min", "p25", "median", "p75", "max"] {
            assert_eq!(faults[stat].as_f64(), Some(16.0), "{events}: {stat} in {v}");
        }
        // every stored iteration, one by one
        let samples = v.u64_at("samples");
        assert_eq!(
            samples,
            v.u64_at("iterations"),
            "one iteration per stored sample"
        );
        assert!(samples >= 10, "{v}");
        let wall = &v["metrics"]["wall-time"];
        assert!(wall.f64_at("min") > 0.0 && wall["p25"].as_f64() <= wall["p75"].as_f64());
    }
}

#[test]
fn the_measurement_overhead_is_reported_and_can_be_subtracted() {
    let (run, lines) = run_json(&[
        "--exact",
        "touch_16",
        "--events",
        "page-faults",
        "--subtract-overhead",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = &lines[0];
    if let Some(faults) = faults_metric(&v["metrics"]) {
        assert_eq!(
            faults["overhead"], 0.0,
            "an empty routine takes no page faults"
        );
        assert_eq!(faults["estimate"], 16.0);
        assert_eq!(faults["raw_estimate"], 16.0);
    }
    let wall = &v["metrics"]["wall-time"];
    let (raw, overhead, corrected) = (
        wall.f64_at("raw_estimate"),
        wall.f64_at("overhead"),
        wall.f64_at("estimate"),
    );
    assert!(overhead.is_finite());
    // serde_json parses floats to within an ulp (without its
    // float_roundtrip feature), so the three figures read back may be off
    // by that much from what was written. Nothing is clipped at zero: a
    // cost above the estimate leaves an honest negative figure.
    let expected = raw - overhead;
    assert!(
        (corrected - expected).abs() <= 4.0 * f64::EPSILON * raw.abs(),
        "{corrected} vs {expected}: {wall}"
    );
}

#[test]
fn msr_tsc_ticks_agree_with_task_clock() {
    if !Path::new("/sys/bus/event_source/devices/msr/events/tsc").exists() {
        eprintln!("skipped: this kernel exposes no msr PMU");
        return;
    }
    let (run, lines) = run_json(&["--exact", "touch_16", "--events", "task-clock,msr/tsc/"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let m = &lines[0]["metrics"];
    if under() != Under::AsIs {
        // The msr PMU is refused to users at paranoid 2, and to all under
        // the filter: a warning names it, and the rest is measured.
        assert!(
            run.stderr
                .contains("perfbench: warning: permission denied opening `msr/tsc/`: "),
            "{}",
            run.stderr
        );
        assert!(m.get("msr/tsc/").is_none(), "{m}");
        eprintln!("skipped: no msr/tsc/ ticks under {:?}", under());
        return;
    }
    let ticks = m["msr/tsc/"].f64_at("median");
    let ns = m["task-clock"].f64_at("median");
    assert_eq!(m["msr/tsc/"]["unit"], "count");
    // The TSC ticks at a fixed rate between 0.5 and 6 GHz on any x86 made
    // this century: ticks per task-clock nanosecond must lie in that range.
    let ghz = ticks / ns;
    assert!(
        (0.5..6.0).contains(&ghz),
        "{ticks} ticks in {ns} ns = {ghz} GHz"
    );
}

#[test]
fn list_events_shows_dynamic_pmus() {
    if !Path::new("/sys/bus/event_source/devices/msr/events/tsc").exists() {
        eprintln!("skipped: this kernel exposes no msr PMU");
        return;
    }
    let run = bench_binary(&["--list-events"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("msr/tsc/"))
        .unwrap_or_else(|| panic!("no msr/tsc/ in\n{}", run.stdout));
    assert!(
        !line.contains("not countable"),
        "msr/tsc/ counts per task here: {line}"
    );
}

/// The fixtures binary with `--bench ARGS`, stderr merged into stdout in
/// the order written.
fn bench_binary_merged(args: &[&str]) -> Run {
    let binary = fixtures_binary();
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    Run::finish(
        common::command(Path::new("sh"))
            .args(["-c", "exec \"$0\" --bench \"$@\" 2>&1"])
            .arg(binary)
            .args(args)
            .output()
            .expect("runs"),
    )
}

/// The samples a fewer-samples warning says the plan takes: the number
/// after `measuring`.
fn planned_samples(warning: &str) -> u64 {
    let (_, after) = warning.split_once(": measuring ").expect("the plan");
    after.split(' ').next().unwrap().parse().unwrap()
}

/// The number in `text` between `before` and `after`.
fn figure_between(text: &str, before: &str, after: &str) -> f64 {
    let (_, rest) = text.split_once(before).expect("the text before");
    let (figure, _) = rest.split_once(after).expect("the text after");
    figure
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {figure}"))
}

#[test]
fn a_routine_slower_than_its_budget_is_warned_of_before_measuring_and_runs_the_fewest_samples() {
    // 300 ms an iteration against 0.05 s + 0.2 s: not one sample of the 50
    // fits, so the plan takes the fewest, 3 samples of one iteration in one
    // round: with the warm-up's one, 4 iterations, about 1.2 s.
    let run = bench_binary_merged(&[
        "--exact",
        "sleeps_300ms",
        "--warm-up-time",
        "0.05",
        "--measurement-time",
        "0.2",
        "--events",
        "task-clock",
        "--output-format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let warning = lines
        .iter()
        .position(|l| l.starts_with("perfbench: warning: `sleeps_300ms` takes about "))
        .unwrap_or_else(|| panic!("no warning in:\n{}", run.stdout));
    let result = lines.iter().position(|l| l.starts_with('{')).unwrap();
    assert!(warning < result, "{}", run.stdout);
    let said = lines[warning];
    assert!(
        said.contains(
            "ms an iteration, and 50 samples of one iteration do not fit its budget of 250.0 ms \
             (warm-up and measurement time): measuring 3 samples of 1 iteration in 1 round \
             instead, about"
        ),
        "{said}"
    );
    // The figures follow the time measured, which a loaded machine
    // stretches (318.8 ms once): a 300 ms sleep takes at least that, and
    // the time that fits 50 samples is 50 of them, to the tenth shown.
    let ms = figure_between(said, "takes about ", " ms an iteration");
    assert!(ms >= 300.0, "{said}");
    let fits = figure_between(said, "; --measurement-time ", " fits them all");
    assert!((fits - 50.0 * ms / 1e3).abs() <= 0.1, "{said}");
    assert_eq!(planned_samples(said), 3);
    let v: Value = serde_json::from_str(lines[result]).unwrap();
    assert_eq!(
        (v["samples"].as_u64(), v["iterations"].as_u64()),
        (Some(3), Some(3))
    );
}

#[test]
fn a_million_samples_of_a_fast_routine_take_what_the_plan_says() {
    let run = bench_binary_merged(&[
        "--exact",
        "text/ascii",
        "--sample-count",
        "1000000",
        "--events",
        "task-clock",
        "--output-format",
        "json",
        "--noplot",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    // Capped at 100,000 samples, or fewer where toggling the counters
    // 100,000 times would not fit 0.85 s; either way said before measuring.
    let warning = run
        .stdout
        .lines()
        .find(|l| l.starts_with("perfbench: warning: `text/ascii`"))
        .unwrap_or_else(|| panic!("no warning in:\n{}", run.stdout));
    let planned = planned_samples(warning);
    assert!(planned <= 100_000, "{warning}");
    let v: Value =
        serde_json::from_str(run.stdout.lines().find(|l| l.starts_with('{')).unwrap()).unwrap();
    assert_eq!(v["samples"].as_u64(), Some(planned), "{}", run.stdout);
    // The shape the warning said: where linear sampling at one iteration a
    // step fits the budget (a fast machine), sample i of each round runs i
    // steps; else every sample runs as many iterations.
    let iterations = v.u64_at("iterations");
    if warning.contains(" growing by ") {
        let (_, plan) = warning.split_once(" growing by ").unwrap();
        let rounds = figure_between(plan, " in ", " round") as u64;
        let per_round = planned / rounds;
        assert_eq!(planned % rounds, 0, "{warning}");
        let steps = rounds * per_round * (per_round + 1) / 2;
        assert_eq!(iterations % steps, 0, "{warning}: {v}");
    } else {
        assert!(warning.contains(" samples of "), "{warning}");
        assert_eq!(iterations % planned, 0, "{warning}: {v}");
    }
}
