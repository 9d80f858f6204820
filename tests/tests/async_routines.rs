//! End to end: async routines (`Bencher::to_async`) through `cargo bench`
//! on tests/benches/async_routines.rs, each awaiting a yield to its
//! executor before it touches fresh pages: exact page faults per
//! iteration in batch and per-iteration mode with the method recorded,
//! test mode running each once, `--profile-time`, and `--profile` naming
//! the awaited routine's function below the benchmark.

mod common;

use common::json::Fields;
use common::{bench_target_with_env, faults_metric, fresh_dir, under, Run, Under, QUICK};
use serde_json::Value;

/// `cargo bench --bench async_routines -- ARGS`.
fn async_routines(args: &[&str]) -> Run {
    bench_target_with_env("async_routines", args, &[])
}

/// [`async_routines`] with the quick settings and JSON lines, storing
/// under a fresh home named `name`.
fn measured(name: &str, args: &[&str]) -> (Run, Vec<Value>) {
    let home = fresh_dir("async", name);
    let home = home.display().to_string();
    let args: Vec<&str> = QUICK
        .iter()
        .copied()
        .chain(["--output-format", "json"])
        .chain(args.iter().copied())
        .collect();
    let run = bench_target_with_env("async_routines", &args, &[("PERFBENCH_HOME", &home)]);
    let lines = run.json();
    (run, lines)
}

#[test]
fn awaited_routines_count_exact_page_faults_in_batch_and_per_iteration_mode() {
    let ids = ["async_touch_16", "async_touch_batched"];
    // (pages per iteration, method, batch size)
    let expected = [
        (16.0, "async_iter", None),
        (5.0, "async_iter_batched", Some("small-input")),
    ];
    for mode in ["batch", "per-iter"] {
        let events = ["--events", "page-faults,task-clock", "--mode", mode];
        let args: Vec<&str> = events
            .iter()
            .chain(&["--exact"])
            .chain(&ids)
            .copied()
            .collect();
        let (run, lines) = measured(mode, &args);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        let got: Vec<&str> = lines.iter().map(|l| l.str_at("id")).collect();
        assert_eq!(got, ids, "{mode}");
        for (line, (pages, method, size)) in lines.iter().zip(expected) {
            assert_eq!(line["mode"], mode, "{line}");
            assert_eq!(line["method"], method, "{line}");
            assert_eq!(line["batch_size"].as_str(), size, "{line}");
            let Some(faults) = faults_metric(&line["metrics"]) else {
                continue;
            };
            for stat in ["estimate", "min", "max"] {
                assert_eq!(
                    faults[stat].as_f64(),
                    Some(pages),
                    "{mode}: {stat} in {line}"
                );
            }
        }
    }
}

#[test]
fn test_mode_and_profile_time_run_async_routines() {
    let run = async_routines(&["--test", "--exact", "async_touch_16", "async_touch_batched"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for id in ["async_touch_16", "async_touch_batched"] {
        assert!(
            run.stdout.contains(&format!("test {id} ... ok\n")),
            "{}",
            run.stdout
        );
    }
    assert!(
        run.stdout
            .contains("test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out"),
        "{}",
        run.stdout
    );
    let run = async_routines(&["--profile-time", "0.1", "--exact", "async_touch_16"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run.stdout.trim_end();
    let rest = line.strip_prefix("perfbench: profiled async_touch_16: ");
    let iterations = rest
        .and_then(|r| r.split(' ').next())
        .map(|n| n.replace(',', ""));
    let iterations: u64 = iterations.and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(iterations > 1, "{line}");
}

#[test]
fn a_profile_of_an_awaited_routine_starts_at_the_benchmark() {
    let (run, lines) = measured("profile", &["--profile=cpu-clock", "--exact", "async_spin"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = &lines[0];
    let Some(profile) = line.get("profile") else {
        // Refused here (a seccomp filter, a closed kernel): said once.
        assert_ne!(under(), Under::AsIs, "no profile as root: {}", run.stderr);
        let refusals = run.stderr_lines(|l| l.starts_with("perfbench: note: --profile: "));
        assert_eq!(refusals.len(), 1, "{}", run.stderr);
        return;
    };
    assert_eq!(profile.u64_at("lost"), 0, "{profile}");
    assert!(profile.u64_at("samples") >= 50, "{profile}");
    let functions = profile.array_at("functions");
    let total = |name: &str| {
        let f = functions.iter().find(|f| f.str_at("name") == name);
        f.map_or(0.0, |f| f.f64_at("total"))
    };
    // Every stack starts at the benchmark, and nearly all of them are in
    // the awaited function; no frame of the harness or the executor.
    assert_eq!(total("async_spin"), 1.0, "{profile}");
    assert!(total("async_routines::spin_work") > 0.9, "{profile}");
    let harness = |f: &&Value| f.str_at("name").contains("perfbench::");
    assert!(!functions.iter().any(|f| harness(&f)), "{profile}");
}
