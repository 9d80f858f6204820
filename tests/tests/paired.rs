//! End to end: paired runs (`--paired-with PATH`). Two builds of
//! tests/benches/paired.rs — build A as it is, build B compiled with
//! `PAIRED_FIXTURE_BUILD=b`, which does more work and counts more page
//! faults and allocations — are paired through `cargo bench`, and the
//! verdicts, exit codes, one-sided benchmarks, failures of the baseline
//! build, refusals of binaries that cannot be paired, and an interrupted
//! run are checked.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::bench_run::BenchRun;
use common::json::Fields;
use common::{cargo_bench_of, fresh_dir, Run, QUICK, RUNS};
use serde_json::Value;

/// [`QUICK`] with the fewest samples that make the 4 rounds of each build
/// a paired change needs (5 samples a round).
/// Twice the quick samples, for rounds enough to judge, and a warm-up long
/// enough that one stall of a loaded machine cannot end it after a few
/// iterations: with the quick 10 ms (half of 0.02 s) a run under a load of
/// about 8 once planned 7 samples of one ~19 µs iteration, so about 17 ms
/// an iteration, in one round, too few to judge.
const PAIRED_QUICK: [&str; 4] = ["--sample-count", "20", "--warm-up-time", "0.2"];

/// Thresholds that no time can pass: only exact counts are judged, so
/// that an assertion on the exit code does not hang on timing noise.
const COUNTS_ONLY: [&str; 4] = [
    "--noise-threshold",
    "1000",
    "--count-noise-threshold",
    "1000",
];

/// `cargo bench --bench paired` of build `build` (`a` or `b`), as a
/// command; with `--no-run`, it builds.
fn cargo_bench(build: &str) -> Command {
    let mut cmd = cargo_bench_of("paired");
    if build == "b" {
        cmd.env("PAIRED_FIXTURE_BUILD", "b");
    } else {
        cmd.env_remove("PAIRED_FIXTURE_BUILD");
    }
    cmd
}

/// Builds build `build` and copies its binary to the tests' scratch space
/// under that name (the next build of the other replaces cargo's file).
fn build(build: &str) -> PathBuf {
    let out = cargo_bench(build)
        .args(["--no-run", "--message-format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let built = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| {
            v["executable"]
                .as_str()
                .filter(|e| e.contains("/paired-"))
                .map(PathBuf::from)
        })
        .expect("cargo names the executable");
    let copy = scratch().join(format!("build-{build}"));
    std::fs::copy(&built, &copy).unwrap();
    copy
}

/// The scratch folder of this file's binaries and scripts.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| fresh_dir("paired", "builds"))
}

/// Build A's and build B's binaries, built once.
fn builds() -> &'static (PathBuf, PathBuf) {
    static BUILT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
        (build("a"), build("b"))
    })
}

/// Build B through `cargo bench` (so built as B), paired with `baseline`,
/// storing under `home`, with `args` and `env`.
fn paired_run(baseline: &Path, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    builds();
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let mut cmd = cargo_bench("b");
    cmd.arg("--")
        .args(QUICK)
        .args(PAIRED_QUICK)
        .arg("--paired-with")
        .arg(baseline)
        .args(args)
        .env("PERFBENCH_HOME", home)
        .envs(env.iter().copied());
    Run::finish(cmd.output().expect("cargo runs"))
}

/// The JSON line of benchmark `id`.
fn line<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line of {id}"))
}

/// The change of `metric` in `line`: relative change, interval, verdict.
fn change(line: &Value, metric: &str) -> (f64, [f64; 2], String) {
    let c = &line["metrics"][metric]["change"];
    assert!(c.is_object(), "{metric} of {}: {line}", line["id"]);
    let ci = [c["ci"].f64_at(0), c["ci"].f64_at(1)];
    let relative = c.f64_at("relative");
    (relative, ci, c.str_at("verdict").to_string())
}

#[test]
fn a_build_doing_more_is_caught_exactly_and_fails_the_gate() {
    let (a, _) = builds();
    let home = fresh_dir("paired", "a-vs-b");
    let args = [
        "--output-format",
        "json",
        "--fail-on-regression",
        "--skip",
        "aborts_in_b",
    ];
    let run = paired_run(a, &home, &[&args[..], &COUNTS_ONLY].concat(), &[]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    // Only JSON on stdout: the baseline build's output goes elsewhere.
    let lines = run.json();
    let ids: Vec<&str> = lines.iter().map(|l| l.str_at("id")).collect();
    assert_eq!(
        ids,
        [
            "grows",
            "steady",
            "panics_in_a",
            "aborts_in_a",
            "cases/1",
            "cases/2",
            "split"
        ]
    );

    // One allocation more, from one: exactly twice; the same in both
    // builds: exactly no change. Allocations are counted everywhere.
    let grows = line(&lines, "grows");
    assert_eq!(grows["baseline"]["paired"], true);
    assert_eq!(grows["baseline"]["name"], a.display().to_string());
    assert_eq!(
        change(grows, "allocs"),
        (1.0, [1.0, 1.0], "regressed".into())
    );
    let steady = line(&lines, "steady");
    assert_eq!(
        change(steady, "allocs"),
        (0.0, [0.0, 0.0], "no change".into())
    );
    let why = grows["baseline"].str_at("why");
    assert!(why.contains("allocs ×2.0"), "{why}");
    assert!(
        steady["baseline"].str_at("why").contains("allocs +0"),
        "{steady}"
    );
    // 5 pages where there were 4, where page faults are counted.
    if let Some(faults) = common::page_faults() {
        assert_eq!(
            change(grows, &faults),
            (0.25, [0.25, 0.25], "regressed".into())
        );
        assert_eq!(
            change(steady, &faults),
            (0.0, [0.0, 0.0], "no change".into())
        );
        assert!(why.contains(&format!("{faults} +25.0 %")), "{why}");
    }
    // The gate names the paired build.
    let gate = format!(
        "perfbench: 4 regressions against the paired build `{}`:",
        a.display()
    );
    let gate = gate.replace(
        "4 regressions",
        &format!("{} regressions", regressions(grows)),
    );
    assert!(run.stderr.contains(&gate), "{}", run.stderr);

    // A panic and a crash of the baseline build are named; the benchmarks
    // are measured but not judged, and those after them still are.
    let warnings = run.stderr_lines(|l| l.starts_with("perfbench: warning: benchmark"));
    assert_eq!(warnings.len(), 2, "{}", run.stderr);
    assert!(
        warnings[0].starts_with(
            "perfbench: warning: benchmark `panics_in_a` in the baseline build panicked at "
        ) && warnings[0].ends_with("build A fails here; its change is not judged"),
        "{}",
        warnings[0]
    );
    assert_eq!(
        warnings[1],
        "perfbench: warning: benchmark `aborts_in_a`: the baseline build died measuring it \
         (signal: 6 (SIGABRT)); its change is not judged"
    );
    for id in ["panics_in_a", "aborts_in_a"] {
        let l = line(&lines, id);
        assert_eq!(
            l["baseline"]["not_compared"], "the baseline build failed to measure it",
            "{l}"
        );
    }
    assert_eq!(
        change(line(&lines, "cases/1"), "allocs"),
        (0.0, [0.0, 0.0], "no change".into())
    );
    // A benchmark of one build only is listed and not judged.
    assert_eq!(
        line(&lines, "cases/2")["baseline"]["not_compared"],
        "not in the baseline build"
    );
    assert!(
        run.stderr.contains(
            "perfbench: note: paired run: only in this build, measured but not judged: `cases/2`"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_crash_of_this_build_fails_its_benchmark_and_the_run_goes_on() {
    let (a, _) = builds();
    let home = fresh_dir("paired", "b-crashes");
    let args = [
        "--output-format",
        "json",
        "--exact",
        "aborts_in_b",
        "steady",
    ];
    let run = paired_run(a, &home, &[&args[..], &COUNTS_ONLY].concat(), &[]);
    assert_eq!(run.code, 101, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "perfbench: error: benchmark `aborts_in_b`: this build died measuring it \
             (signal: 6 (SIGABRT))"
        ),
        "{}",
        run.stderr
    );
    let lines = run.json();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert_eq!(
        change(line(&lines, "steady"), "allocs"),
        (0.0, [0.0, 0.0], "no change".into())
    );
}

/// How many metrics of `line` regressed.
fn regressions(line: &Value) -> usize {
    line.object_at("metrics")
        .values()
        .filter(|m| m["change"]["verdict"] == "regressed")
        .count()
}

#[test]
fn one_build_on_both_sides_is_unchanged_and_both_share_the_environment() {
    let (_, b) = builds();
    // The same code under another name: the candidate is cargo's build B.
    let copy = scratch().join("build-b-again");
    std::fs::copy(b, &copy).unwrap();
    let home = fresh_dir("paired", "b-vs-b");
    let args = ["--output-format", "json", "--fail-on-regression", "steady"];
    // Read at run time by both: had the baseline build not been given it,
    // its 2 pages would be 5 here.
    let env = [("PAIRED_FIXTURE_PAGES", "3")];
    let run = paired_run(&copy, &home, &[&args[..], &COUNTS_ONLY].concat(), &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.json();
    assert_eq!(lines.len(), 1);
    let steady = &lines[0];
    if let Some(faults) = common::page_faults() {
        assert_eq!(steady["metrics"][&faults]["estimate"], 5.0, "{steady}");
        assert_eq!(
            change(steady, &faults),
            (0.0, [0.0, 0.0], "no change".into())
        );
    }
    assert_eq!(
        change(steady, "allocs"),
        (0.0, [0.0, 0.0], "no change".into())
    );
    // No regression listed, and the gate's line says none.
    let listed = ["regression against", "regressions against"];
    assert!(
        !listed.iter().any(|l| run.stderr.contains(l)),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("perfbench: gate against the paired build `")
            && run.stderr.contains("`: 0 regressions, 0 improved, "),
        "{}\n{steady}",
        run.stderr
    );
    // A paired run measures this build: it is a run of its history.
    let history = home.join("steady").join("history.jsonl");
    let text = std::fs::read_to_string(&history).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
}

/// An executable script in the scratch space.
fn script(name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = scratch().join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn a_missing_foreign_or_other_version_baseline_is_refused_in_one_line() {
    builds();
    let other_version = script(
        "other-version",
        r#"echo '{"hello":"perfbench-paired","perfbench":"0.0.1","protocol":1,"ids":["grows"]}'
cat > /dev/null"#,
    );
    let not_perfbench = script(
        "not-perfbench",
        "echo 'running 3 benchmarks'; exec sleep 300",
    );
    let missing = scratch().join("no-such-binary");
    let cases: [(&Path, &[&str], String); 4] = [
        (
            &missing,
            &[],
            format!(
                "--paired-with `{}`: cannot start it: No such file",
                missing.display()
            ),
        ),
        (
            &other_version,
            &[],
            format!(
                "--paired-with `{}` is built with perfbench 0.0.1 (paired-run protocol 1), this \
                 one with perfbench {}",
                other_version.display(),
                env!("CARGO_PKG_VERSION")
            ),
        ),
        (
            &not_perfbench,
            &[],
            format!(
                "--paired-with `{}` does not answer as a bench binary of perfbench {} does (it \
                 printed `running 3 benchmarks`)",
                not_perfbench.display(),
                env!("CARGO_PKG_VERSION")
            ),
        ),
        (
            &missing,
            &["--baseline", "main"],
            "--baseline and --paired-with exclude each other".into(),
        ),
    ];
    for (baseline, args, error) in cases {
        let home = fresh_dir("paired", "refused");
        let started = Instant::now();
        let run = paired_run(baseline, &home, args, &[]);
        assert_eq!(run.code, 2, "{error}: {}", run.stderr);
        let errors = run.stderr_lines(|l| l.starts_with("perfbench: error:"));
        assert_eq!(errors.len(), 1, "{}", run.stderr);
        assert!(
            errors[0].starts_with(&format!("perfbench: error: {error}")),
            "{}",
            errors[0]
        );
        assert_eq!(run.stdout, "");
        // Nothing measured, nothing stored.
        let stored: Vec<PathBuf> = common::files_under(&home)
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "json"))
            .collect();
        assert_eq!(stored, Vec::<PathBuf>::new());
        // The foreign binary (which sleeps 300 s) was not waited for. The
        // bound leaves a loaded machine room for cargo and both builds'
        // start: 25 s against a sleep of 30 s failed beside other builds.
        assert!(started.elapsed() < Duration::from_secs(200), "{error}");
    }
}

#[test]
fn an_interrupted_paired_run_leaves_no_unfinished_file_and_no_baseline_build() {
    let (a, b) = builds();
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_dir("paired", "interrupted");
    let mut cmd = BenchRun::of(b)
        .args([
            "--measurement-time",
            "20",
            "--save-baseline",
            "kept",
            "steady",
        ])
        .args([Path::new("--paired-with"), a.as_ref()])
        .home(&home)
        .command();
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    // Measuring: the baseline build was started and greeted.
    let started = Instant::now();
    while baseline_processes(a).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no baseline build"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    let driver = driver_pid(child.id(), b);
    let sent = Command::new("kill")
        .args(["-INT", &driver.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let run = Run::finish(child.wait_with_output().unwrap());
    assert_eq!(run.code, 130, "{}", run.stderr);
    let files = common::files_under(&home);
    let temporary: Vec<&PathBuf> = (files.iter())
        .filter(|f| f.file_name().unwrap().to_string_lossy().contains(".tmp-"))
        .collect();
    assert_eq!(temporary, Vec::<&PathBuf>::new());
    assert!(
        !files.iter().any(|f| f.ends_with("latest.json")),
        "{files:?}"
    );
    // No version of the baseline being saved is left staged.
    let staged: Vec<_> = std::fs::read_dir(home.join("baselines"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(staged, Vec::<PathBuf>::new());
    // Its requests gone, the baseline build ends too.
    let started = Instant::now();
    while !baseline_processes(a).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the baseline build lingers"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The processes running `binary`.
fn baseline_processes(binary: &Path) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if std::fs::read_link(entry.path().join("exe")).is_ok_and(|e| e == binary) {
            found.push(pid);
        }
    }
    found
}

/// The process running `binary`: `pid` itself, or under a runner
/// (`as-nobody.sh` execs, the seccomp wrapper execs) the same process.
fn driver_pid(pid: u32, binary: &Path) -> u32 {
    let started = Instant::now();
    loop {
        if std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|e| e == binary) {
            return pid;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no driver");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn both_builds_profile_their_own_routine_and_the_line_says_what_moved() {
    let (a, _) = builds();
    let home = fresh_dir("paired", "profiles");
    let args = [
        "--output-format",
        "json",
        "--profile=cpu-clock",
        "--exact",
        "split",
    ];
    let run = paired_run(a, &home, &[&args[..], &COUNTS_ONLY].concat(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.json();
    let split = line(&lines, "split");
    let notes = run.stderr_lines(|l| l.starts_with("perfbench: note: no profile of `split`"));
    if split.get("profile").is_none() {
        // Sampling refused in the serving builds: said once, for each build
        // that could not, and the run is as without --profile.
        assert_ne!(common::under(), common::Under::AsIs, "{}", run.stderr);
        assert!(!notes.is_empty() && notes.len() <= 2, "{}", run.stderr);
        assert!(split.get("profile_change").is_none(), "{split}");
        return;
    }
    assert!(notes.is_empty(), "{}", run.stderr);
    let p = &split["profile"];
    assert_eq!(p.str_at("event"), "cpu-clock");
    assert!(p.u64_at("samples") >= 50, "{p}");
    // Each build sampled its own routine, from the benchmark down; `one_k`,
    // four times dearer in this build, moved most.
    let root = p
        .array_at("functions")
        .iter()
        .find(|f| f.str_at("name") == "split");
    assert_eq!(root.map(|f| f.f64_at("total")), Some(1.0), "{p}");
    let moved = split.array_at("profile_change");
    assert!(!moved.is_empty() && moved.len() <= 10, "{split}");
    assert_eq!(moved[0].str_at("name"), "paired::one_k", "{split}");
    let (before, after) = (moved[0].f64_at("before"), moved[0].f64_at("after"));
    assert!(before < 0.4 && after > 0.45, "{before} → {after}");
    for m in moved {
        assert!(
            m.f64_at("before_per_iteration") >= 0.0 && m.f64_at("after") <= 1.0,
            "{m}"
        );
    }
}
