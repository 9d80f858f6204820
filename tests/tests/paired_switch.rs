//! End to end: the variable a paired run's driver sets in its serving
//! processes (`PERFBENCH_PAIRED_CHILD`) is no switch a CI config can turn.
//! Set in the environment of an ordinary `cargo bench` whose benchmark
//! regressed, under `--fail-on-regression`, the run still measures,
//! stores, prints its table, writes its output file and fails the gate,
//! and one warning says the variable was ignored.

mod common;

use std::path::Path;

use common::{bench_with_env, fresh_dir, Run, QUICK};

/// `cargo bench --bench fixtures -- QUICK --exact touch_n ARGS` storing
/// under `home`, touching `pages` pages an iteration, with `env`.
fn touch_n(home: &Path, pages: u32, args: &[&str], env: &[(&str, &str)]) -> Run {
    let all: Vec<&str> = (QUICK.iter().copied())
        .chain(["--exact", "touch_n"])
        .chain(args.iter().copied())
        .collect();
    let pages = pages.to_string();
    let home = home.to_str().expect("a UTF-8 path");
    let mut env = env.to_vec();
    env.extend([("PERFBENCH_HOME", home), ("FIXTURE_PAGES", pages.as_str())]);
    bench_with_env(&all, &env)
}

/// The runs `touch_n` stored under `home`.
fn stored_runs(home: &Path) -> usize {
    std::fs::read_to_string(home.join("touch_n/history.jsonl")).map_or(0, |t| t.lines().count())
}

#[test]
fn the_internal_variable_in_a_ci_environment_changes_nothing_but_a_warning() {
    let home = fresh_dir("paired-switch", "home");
    let saved = touch_n(&home, 16, &["--save-baseline", "main"], &[]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    // 32 times the pages: 32 times the page faults, a regression wherever
    // they are counted; where nothing counts them (under a seccomp
    // filter), the run with the variable must end as this one did.
    let gate = ["--baseline", "main", "--fail-on-regression"];
    let control = touch_n(&home, 512, &gate, &[]);
    if common::counted("page-faults").is_some() {
        assert_eq!(control.code, 3, "{}", control.stderr);
    }
    assert!(control.stdout.contains("touch_n"), "{}", control.stdout);
    let values = ["1", "", "yes", "0123456789abcdef0123456789abcdef"];
    for (i, value) in values.into_iter().enumerate() {
        let before = stored_runs(&home);
        let out = home.join(format!("out-{i}.json"));
        let file = format!("json={}", out.display());
        let args: Vec<&str> = gate.into_iter().chain(["--output-file", &file]).collect();
        let run = touch_n(&home, 512, &args, &[("PERFBENCH_PAIRED_CHILD", value)]);
        let what = format!("PERFBENCH_PAIRED_CHILD={value:?}: {}", run.stderr);
        assert_eq!(run.code, control.code, "{what}");
        assert!(run.stdout.contains("touch_n"), "{what}\n{}", run.stdout);
        assert!(!run.stdout.contains("perfbench-paired"), "{}", run.stdout);
        assert_eq!(stored_runs(&home), before + 1, "{what}");
        let written = std::fs::read_to_string(&out).unwrap_or_default();
        assert!(written.contains("\"touch_n\""), "{what}");
        let warned = run.stderr_lines(|l| l.contains("PERFBENCH_PAIRED_CHILD"));
        assert_eq!(
            warned,
            [
                "perfbench: warning: PERFBENCH_PAIRED_CHILD is internal to paired runs and was \
              ignored: this process was not started by a paired run"
            ],
            "{what}"
        );
    }
}
