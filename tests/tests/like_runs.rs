//! End to end: a benchmark's spread between runs, which widens its
//! intervals, is learned only from runs of the same settings. A `--quick`
//! try-out between two runs of the usual settings neither joins their
//! spread nor breaks it.

mod common;

use std::path::Path;

use common::json::Fields;
use common::{bench_with_env, fresh_dir, quick_page_faults};
use serde_json::Value;

/// Runs `touch_16` with `settings` into the store at `home`; the stored
/// latest run's file.
fn run(home: &Path, settings: &[&str]) -> Value {
    let mut args = vec!["--exact", "touch_16"];
    args.extend(settings);
    let home_var = home.to_str().unwrap();
    let run = bench_with_env(&args, &[("PERFBENCH_HOME", home_var)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(home.join("touch_16/latest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The earlier runs a stored run keeps for its wall time.
fn earlier(stored: &Value) -> Vec<f64> {
    let walls = &stored["series"][0];
    assert_eq!(walls["name"], "wall-time");
    walls["earlier"]
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().map(common::json::number).collect())
}

/// A stored run's wall-time headline.
fn headline(stored: &Value) -> f64 {
    stored["estimates"]["wall-time"].f64_at("estimate")
}

#[test]
fn a_quick_try_out_neither_joins_nor_breaks_the_spread_of_usual_runs() {
    let home = fresh_dir("like_runs", "store");
    let usual = quick_page_faults(&["--sample-count", "20"]);
    let first = run(&home, &usual);
    assert!(earlier(&first).is_empty(), "nothing before: {first}");
    let settings = first.str_at("settings").to_string();
    assert!(settings.starts_with("20 samples in "), "{settings}");

    let try_out = run(&home, &quick_page_faults(&["--quick"]));
    assert_ne!(try_out["settings"], settings.as_str(), "{try_out}");
    assert!(
        earlier(&try_out).is_empty(),
        "the usual run is not its kind: {try_out}"
    );

    let second = run(&home, &usual);
    assert_eq!(second["settings"], settings.as_str());
    // The first usual run, unless the two differ beyond doubt (a machine
    // that slowed between them starts the spread again): never the try-out.
    let kept = earlier(&second);
    let first_wall = headline(&first);
    match kept.as_slice() {
        [] => eprintln!("the runs differed beyond doubt: the spread started again"),
        [one] => assert!(
            (one - first_wall).abs() <= 1e-12 * first_wall.abs(),
            "{one} is not the first run's {first_wall} (the try-out's: {})",
            headline(&try_out)
        ),
        more => panic!("the try-out joined the spread: {more:?}"),
    }
}

#[test]
fn two_bench_targets_sharing_a_target_directory_keep_apart() {
    // No PERFBENCH_HOME: each bench target stores under the target
    // directory, in a folder of its package and its own.
    let root = common::bench_target_dir().join("perfbench/perfbench-tests");
    let mut reports = Vec::new();
    for (target, id) in [("fixtures", "touch_16"), ("paired", "steady")] {
        let mut args = vec!["--exact", id];
        args.extend(common::QUICK);
        let run = common::bench_target_with_env(target, &args, &[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(root.join(target).join(id).join("latest.json").is_file());
        let report = run
            .stderr_lines(|l| l.starts_with("perfbench: report: "))
            .concat();
        assert!(
            report.ends_with(&format!("perfbench-tests/{target}/report/index.html")),
            "{report}"
        );
        reports.push(root.join(target).join("report/index.html"));
    }
    let paired_index = std::fs::read_to_string(&reports[1]).unwrap();
    assert!(paired_index.contains("steady"), "{paired_index}");
    assert!(
        !paired_index.contains("touch_16"),
        "another target's benchmark"
    );
    assert!(!root.join("paired/touch_16").exists() && !root.join("fixtures/steady").exists());
}
