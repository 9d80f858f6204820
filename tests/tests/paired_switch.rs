//! End to end: the variable a paired run's driver sets in its serving
//! processes (`PERFBENCH_PAIRED_TOKEN`, and `PERFBENCH_PAIRED_CHILD` for
//! builds from before the token) is no switch a CI config can turn.
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
    // Few pages, so that the quick budget holds rounds enough to compare
    // on a loaded machine: at 512 pages an iteration once took 24 ms, the
    // budget fitted one round, and a run with one round is not compared
    // (the gate passed where the control run had failed it).
    let saved = touch_n(&home, 2, &["--save-baseline", "main"], &[]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    // 32 times the pages: 32 times the page faults, a regression wherever
    // they are counted; where nothing counts them (under a seccomp
    // filter), the run with the variable must end as this one did.
    let gate = ["--baseline", "main", "--fail-on-regression"];
    let control = touch_n(&home, 64, &gate, &[]);
    if common::counted("page-faults").is_some() {
        assert_eq!(control.code, 3, "{}", control.stderr);
    }
    assert!(control.stdout.contains("touch_n"), "{}", control.stdout);
    let token = "0123456789abcdef0123456789abcdef";
    let settings: [&[(&str, &str)]; 6] = [
        &[("PERFBENCH_PAIRED_CHILD", "1")],
        &[("PERFBENCH_PAIRED_CHILD", "")],
        &[("PERFBENCH_PAIRED_CHILD", "yes")],
        &[("PERFBENCH_PAIRED_CHILD", token)],
        &[("PERFBENCH_PAIRED_TOKEN", token)],
        &[
            ("PERFBENCH_PAIRED_TOKEN", token),
            ("PERFBENCH_PAIRED_CHILD", "1"),
        ],
    ];
    for (i, env) in settings.into_iter().enumerate() {
        let before = stored_runs(&home);
        let out = home.join(format!("out-{i}.json"));
        let file = format!("json={}", out.display());
        let args: Vec<&str> = gate.into_iter().chain(["--output-file", &file]).collect();
        let run = touch_n(&home, 64, &args, env);
        let what = format!("{env:?}: {}", run.stderr);
        assert_eq!(run.code, control.code, "{what}");
        assert!(run.stdout.contains("touch_n"), "{what}\n{}", run.stdout);
        assert!(!run.stdout.contains("perfbench-paired"), "{}", run.stdout);
        assert_eq!(stored_runs(&home), before + 1, "{what}");
        let written = std::fs::read_to_string(&out).unwrap_or_default();
        assert!(written.contains("\"touch_n\""), "{what}");
        // The token's variable is named where it is set: it is the one
        // that would have made the process serve.
        let named = env
            .iter()
            .map(|(n, _)| *n)
            .min_by_key(|n| !n.ends_with("TOKEN"));
        let warned = run.stderr_lines(|l| l.contains("PERFBENCH_PAIRED_"));
        assert_eq!(
            warned,
            [format!(
                "perfbench: warning: {} is internal to paired runs and was ignored: this process \
                 was not started by a paired run",
                named.unwrap()
            )],
            "{what}"
        );
    }
}
