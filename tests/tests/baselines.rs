//! End to end: stored results, baselines and the regression gate, through
//! `cargo bench --bench fixtures` with `PERFBENCH_HOME` in a fresh folder.

mod common;

use std::path::{Path, PathBuf};

use common::json::Fields;
use common::{bench_with_env, Run, QUICK};
use serde_json::Value;

/// A fresh output directory for one test.
fn home(name: &str) -> PathBuf {
    common::fresh_dir("baselines", name)
}

/// `cargo bench --bench fixtures -- ARGS` storing under `home`, the fixture
/// touching `pages` pages per iteration.
fn bench(home: &Path, pages: u32, args: &[&str]) -> Run {
    let all: Vec<&str> = QUICK.iter().chain(args).copied().collect();
    let pages = pages.to_string();
    let home = home.to_str().expect("a UTF-8 path");
    bench_with_env(&all, &[("PERFBENCH_HOME", home), ("FIXTURE_PAGES", &pages)])
}

/// Page faults only, and times so noisy-tolerant that only counts decide
/// (a loaded CI machine moved wall time by +63 % between two runs of the
/// same code).
const GATE: &[&str] = &[
    "--exact",
    "touch_n",
    "--events",
    "page-faults",
    "--noise-threshold",
    "1000",
];

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    GATE.iter().chain(extra).copied().collect()
}

#[test]
fn a_page_fault_regression_fails_the_gate_and_an_unchanged_run_passes() {
    let Some(pf) = common::page_faults() else {
        return;
    };
    let home = home("gate");
    let saved = bench(&home, 16, &with(&["--save-baseline", "main"]));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    assert!(home.join("baselines/main/touch_n.json").is_file());
    assert!(home.join("touch_n/latest.json").is_file());

    let worse = bench(
        &home,
        17,
        &with(&[
            "--baseline",
            "main",
            "--fail-on-regression",
            "--output-format",
            "json",
        ]),
    );
    assert_eq!(worse.code, 3, "{}", worse.stderr);
    let v = &worse.json()[0];
    assert_eq!(v["baseline"]["name"], "main");
    assert_eq!(v["baseline"]["new"], false);
    let change = &v["metrics"][&pf]["change"];
    assert_eq!(change["relative"], 0.0625);
    assert_eq!(change["ci"], serde_json::json!([0.0625, 0.0625]));
    assert_eq!(change["p"], 0.0);
    assert_eq!(change["verdict"], "regressed");
    // Wall time may regress too on a loaded machine: the page faults are
    // what this test gates on.
    assert!(worse.stderr.contains("against main"), "{}", worse.stderr);
    assert!(
        worse.stderr.contains(&format!("touch_n {pf}: +6.25%")),
        "{}",
        worse.stderr
    );

    let same = bench(
        &home,
        16,
        &with(&[
            "--baseline",
            "main",
            "--fail-on-regression",
            "--output-format",
            "json",
        ]),
    );
    assert_eq!(same.code, 0, "{}", same.stderr);
    let change = &same.json()[0]["metrics"][&pf]["change"];
    assert_eq!(change["relative"], 0.0);
    assert_eq!(change["p"], 1.0);
    assert_eq!(change["verdict"], "no change");

    // A limit above the change lets it through; one below does not.
    let lenient = bench(
        &home,
        17,
        &with(&["--baseline", "main", "--fail-on-regression=10"]),
    );
    assert_eq!(lenient.code, 0, "{}", lenient.stderr);
    let strict = bench(
        &home,
        17,
        &with(&["--baseline", "main", "--fail-on-regression=5"]),
    );
    assert_eq!(strict.code, 3, "{}", strict.stderr);
}

#[test]
fn the_ci_log_says_what_was_saved_and_what_the_gate_did() {
    let Some(pf) = common::page_faults() else {
        return;
    };
    let home = home("ci-lines");
    let saved = bench(&home, 16, &with(&["--save-baseline", "main"]));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let said = saved.stderr_lines(|l| l == "perfbench: saved baseline `main` (1 benchmark)");
    assert_eq!(said.len(), 1, "{}", saved.stderr);
    assert!(
        !saved.stderr.contains("gate"),
        "nothing compared: {}",
        saved.stderr
    );

    // Under GitHub Actions a regression is an annotation too, on stdout
    // beside the table.
    let args: Vec<&str> = QUICK
        .iter()
        .copied()
        .chain(with(&["--baseline", "main", "--fail-on-regression"]))
        .collect();
    let home_text = home.to_str().unwrap();
    let env = [
        ("PERFBENCH_HOME", home_text),
        ("FIXTURE_PAGES", "17"),
        ("GITHUB_ACTIONS", "true"),
    ];
    let worse = bench_with_env(&args, &env);
    assert_eq!(worse.code, 3, "{}", worse.stderr);
    // Ours, before cargo's own line on the exit code.
    let ours = |run: &Run| {
        let mut lines = run.stderr.lines().filter(|l| l.starts_with("perfbench: "));
        lines.next_back().unwrap_or_default().to_string()
    };
    assert_eq!(
        Some(ours(&worse).as_str()),
        Some(
            "perfbench: gate against `main`: 1 regression, 0 improved, 1 unchanged \
             (1 benchmark, threshold 1000 % for times, 1 % for counts); fails"
        ),
        "{}",
        worse.stderr
    );
    let annotations: Vec<&str> = (worse.stdout.lines())
        .filter(|l| l.starts_with("::"))
        .collect();
    let pf_title = pf.replace(':', "%3A");
    assert_eq!(
        annotations,
        [format!(
            "::error title=perfbench%3A touch_n {pf_title} regressed::touch_n: {pf} \
             +6.25%25 [+6.25%25, +6.25%25], p = 0.000 against `main`"
        )],
        "{}",
        worse.stdout
    );

    let same = bench(
        &home,
        16,
        &with(&["--baseline", "main", "--fail-on-regression"]),
    );
    assert_eq!(same.code, 0, "{}", same.stderr);
    let last = ours(&same);
    assert!(
        last.starts_with("perfbench: gate against `main`: 0 regressions, ")
            && last.ends_with("; passes"),
        "{}",
        same.stderr
    );
    let ungated = bench(&home, 17, &with(&["--baseline", "main"]));
    assert_eq!(ungated.code, 0, "{}", ungated.stderr);
    let last = ours(&ungated);
    assert!(
        last.ends_with("; not gating (no --fail-on-regression)"),
        "{}",
        ungated.stderr
    );
    assert!(!ungated.stdout.contains("::error"), "not on GitHub Actions");
}

/// The headlines of earlier runs `series` keeps in a stored result file.
fn earlier(file: &Path, series: &str) -> Vec<f64> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let found = doc
        .array_at("series")
        .iter()
        .find(|s| s["name"] == series)
        .unwrap_or_else(|| panic!("no series {series} in {}", file.display()));
    found["earlier"]
        .as_array()
        .map_or(Vec::new(), |a| a.iter().map(common::json::number).collect())
}

#[test]
fn a_baseline_saved_again_learns_the_spread_of_its_runs_until_a_count_changes() {
    let Some(pf) = common::page_faults() else {
        return;
    };
    let home = home("earlier");
    let main = home.join("baselines/main/touch_n.json");
    for _ in 0..3 {
        let saved = bench(&home, 16, &with(&["--save-baseline", "main"]));
        assert_eq!(saved.code, 0, "{}", saved.stderr);
    }
    assert_eq!(earlier(&main, &pf), [16.0, 16.0]);
    assert_eq!(earlier(&main, "wall-time").len(), 2);

    let compared = bench(
        &home,
        16,
        &with(&["--baseline", "main", "--output-format", "json"]),
    );
    assert_eq!(compared.code, 0, "{}", compared.stderr);
    // The baseline has seen three runs; this run's predecessors (the three
    // saves, stored as the latest run too) and this run four: the spread is
    // learned from the four.
    let metrics = &compared.json()[0]["metrics"];
    assert_eq!(metrics["wall-time"]["change"]["runs"], 4);
    // Exact over four exact runs: still exact.
    let faults = &metrics[&pf]["change"];
    assert_eq!(faults["runs"], 4);
    assert_eq!(faults["ci"], serde_json::json!([0.0, 0.0]));
    let table = bench(&home, 16, &with(&["--baseline", "main"]));
    assert!(
        table.stdout.contains("vs `main` (spread of 5 runs)"),
        "{}",
        table.stdout
    );
    // The latest run keeps the four runs before it.
    let latest = home.join("touch_n/latest.json");
    assert_eq!(earlier(&latest, &pf), [16.0; 4]);

    // Seventeen faults: other code, whose runs are learned afresh.
    let saved = bench(&home, 17, &with(&["--save-baseline", "main"]));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    for file in [&main, &latest] {
        assert_eq!(earlier(file, &pf), Vec::<f64>::new());
        assert_eq!(earlier(file, "wall-time"), Vec::<f64>::new());
    }
}

#[test]
fn without_flags_each_run_is_compared_with_the_previous_one() {
    let home = home("previous");
    let first = bench(&home, 16, &with(&["--output-format", "json"]));
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        first.json()[0]["baseline"],
        serde_json::json!({"name": "latest", "new": true})
    );
    let second = bench(&home, 17, &with(&["--output-format", "json"]));
    assert_eq!(
        second.code, 0,
        "without the gate a regression is reported, not fatal: {}",
        second.stderr
    );
    let v = &second.json()[0];
    assert_eq!(v["baseline"]["new"], false);
    assert!(v["metrics"]["wall-time"]["change"].is_object(), "{v}");
    // The verdicts that follow are on a count.
    let Some(pf) = common::page_faults() else {
        return;
    };
    assert_eq!(v["metrics"][&pf]["change"]["verdict"], "regressed");
    let third = bench(&home, 16, &with(&["--output-format", "json"]));
    let change = &third.json()[0]["metrics"][&pf]["change"];
    assert_eq!(change["verdict"], "improved");
    assert!(
        (change.f64_at("relative") + 1.0 / 17.0).abs() < 1e-12,
        "{change}"
    );
    // The table shows the change under the row.
    let table = bench(&home, 17, &with(&["--color", "never"]));
    let lines: Vec<&str> = table.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("vs previous run"))
        .expect("a change line");
    // Wrapped at 80 columns where wall time's figures are wide: with the
    // lines that continue it, indented deeper.
    let continued = lines[at + 1..].iter().take_while(|l| l.starts_with("    "));
    let change: Vec<&str> = std::iter::once(&lines[at])
        .chain(continued)
        .copied()
        .collect();
    let change = change.join(" ");
    assert!(change.contains(&format!("{pf} +6.25% ▲")), "{change}");
}

#[test]
fn a_missing_baseline_is_named_and_a_new_benchmark_is_reported_as_new() {
    let home = home("missing");
    let run = bench(&home, 16, &with(&["--baseline", "nosuch"]));
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("baseline `nosuch` not found"),
        "{}",
        run.stderr
    );
    assert!(bench(&home, 16, &with(&["--save-baseline", "main"])).code == 0);
    let other = bench(
        &home,
        16,
        &[
            "--exact",
            "touch_16",
            "--events",
            "page-faults",
            "--baseline",
            "main",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(other.code, 0, "{}", other.stderr);
    assert_eq!(
        other.json()[0]["baseline"],
        serde_json::json!({"name": "main", "new": true})
    );
}

#[test]
fn a_damaged_result_file_is_named_and_left_alone() {
    let home = home("damaged");
    assert_eq!(bench(&home, 16, GATE).code, 0);
    let latest = home.join("touch_n/latest.json");
    let text = std::fs::read_to_string(&latest).unwrap();
    let truncated = &text[..text.len() / 2];
    std::fs::write(&latest, truncated).unwrap();
    let run = bench(&home, 16, GATE);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("{}: not valid JSON", latest.display())),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&latest).unwrap(), truncated);
}

#[test]
fn stored_results_hold_raw_samples_estimates_and_the_environment() {
    let home = home("stored");
    assert_eq!(bench(&home, 16, GATE).code, 0);
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("touch_n/latest.json")).unwrap())
            .unwrap();
    assert_eq!(doc["schema"], "perfbench/result/v1");
    assert_eq!(doc["id"], "touch_n");
    let iterations: Vec<u64> = serde_json::from_value(doc["iterations"].clone()).unwrap();
    assert_eq!(iterations.len(), 10);
    assert!(!doc["environment"].str_at("kernel").is_empty());
    let Some(estimate) = common::faults_metric(&doc["estimates"]) else {
        return;
    };
    assert_eq!(estimate["estimate"], 16.0);
    let pf = common::counted("page-faults").unwrap();
    let faults = doc
        .array_at("series")
        .iter()
        .find(|s| s["name"] == pf)
        .unwrap();
    let totals: Vec<u64> = serde_json::from_value(faults["totals"].clone()).unwrap();
    assert_eq!(
        totals,
        iterations.iter().map(|i| 16 * i).collect::<Vec<_>>()
    );
}

#[test]
fn bencher_format_prints_libtest_bench_lines() {
    let home = home("bencher");
    let run = bench(&home, 16, &with(&["--output-format", "bencher"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run.stdout.trim_end();
    assert!(line.starts_with("test touch_n ... bench: "), "{line}");
    assert!(
        line.ends_with(')') && line.contains(" ns/iter (+/- "),
        "{line}"
    );
    let ns: String = line["test touch_n ... bench: ".len()..]
        .split(" ns/iter")
        .next()
        .unwrap()
        .trim()
        .replace(',', "");
    assert!(ns.parse::<u64>().unwrap() > 0, "{line}");
}

#[test]
fn a_baseline_from_another_kernel_gets_a_warning() {
    let home = home("foreign-env");
    assert_eq!(bench(&home, 16, &with(&["--save-baseline", "old"])).code, 0);
    let path = home.join("baselines/old/touch_n.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["environment"]["kernel"] = "2.6.32-test".into();
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    let run = bench(&home, 16, &with(&["--baseline", "old"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("comparing with results from another kernel (2.6.32-test"),
        "{}",
        run.stderr
    );
}

#[test]
fn comparisons_that_cannot_be_fair_are_not_judged_and_never_fail_the_gate() {
    let home = home("unfair");
    let saved = bench(&home, 16, &with(&["--save-baseline", "main"]));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    // 17 pages per iteration would regress, but each of these runs differs
    // from the baseline in a way that makes the comparison unfair.
    let cases: Vec<(&[&str], &str)> = vec![
        (
            &["--mode", "per-iter"],
            "measured in batch mode, this run in per-iteration mode",
        ),
        (
            &["--events", "page-faults,task-clock"],
            "measured with other events",
        ),
        (&["--sample-count", "1"], "1 sample on one side"),
        (&["--rounds", "1"], "1 round on one side"),
    ];
    let faults = common::counted("page-faults");
    for (extra, why) in cases {
        if faults.is_none() && extra[0] == "--events" {
            // Under the filter neither side counts an event: the same ones.
            continue;
        }
        let mut args = with(&[
            "--baseline",
            "main",
            "--fail-on-regression",
            "--output-format",
            "json",
        ]);
        args.extend_from_slice(extra);
        let run = bench(&home, 17, &args);
        assert_eq!(run.code, 0, "{extra:?}: {}", run.stderr);
        let v = &run.json()[0];
        let said = v["baseline"]["not_compared"].as_str().unwrap_or_default();
        assert!(said.starts_with(why), "{extra:?}: {}", v["baseline"]);
        let metrics = v.object_at("metrics");
        for (name, metric) in metrics {
            assert!(metric["change"].is_null(), "{extra:?}: {name} judged");
        }
        assert_eq!(
            common::faults_metric(&v["metrics"]).is_some(),
            faults.is_some()
        );
    }
}

#[test]
fn the_report_shows_the_last_change_of_benchmarks_this_run_did_not_measure() {
    // A change of a count is what the report must show.
    if common::page_faults().is_none() {
        return;
    }
    let home = home("report-previous");
    let only = |name: &'static str| ["--exact", name, "--events", "page-faults"];
    for pages in [16, 17] {
        let run = bench(&home, pages, &only("touch_n"));
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    assert!(home.join("touch_n/previous.json").is_file());
    // A run of another benchmark only: touch_n's latest run against the
    // one before it is still in the report.
    let other = bench(&home, 16, &only("touch_16"));
    assert_eq!(other.code, 0, "{}", other.stderr);
    let index = std::fs::read_to_string(home.join("report/index.html")).unwrap();
    let row = index
        .lines()
        .find(|l| l.contains(">touch_n<"))
        .unwrap_or_else(|| panic!("no touch_n row: {index}"));
    assert!(
        row.contains("class=\"num change regressed\" data-v=\"0.0625\"")
            && row.contains(">+6.25%<"),
        "{row}"
    );
}
