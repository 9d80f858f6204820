//! End to end: every input bounded and handled, through `cargo bench` on
//! tests/benches/inputs.rs (hostile ids, a panicking `Display`, ids written
//! alike) and tests/benches/fixtures.rs: numbers beyond their limits, the
//! environment's one rule, selections of nothing, and a failed store with
//! a regression.

mod common;

use std::path::PathBuf;

use common::json::Fields;
use common::{bench_target_with_env, bench_with_env, files_under, Run, QUICK};

/// `cargo bench --bench inputs -- ARGS` with `env`.
fn inputs(args: &[&str], env: &[(&str, &str)]) -> Run {
    bench_target_with_env("inputs", args, env)
}

/// [`inputs`] measuring page faults only, quickly, with `args` after.
fn measured(args: &[&str], env: &[(&str, &str)]) -> Run {
    inputs(&common::quick_page_faults(args), env)
}

/// A fresh folder for one test's stored results.
fn home(name: &str) -> PathBuf {
    common::fresh_dir("inputs", name)
}

/// The lines perfbench wrote on stderr, without those cargo adds when the
/// bench exits with an error.
fn ours(run: &Run) -> String {
    run.stderr
        .lines()
        .filter(|l| l.starts_with("perfbench: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Whether `text` holds a control character other than a line end.
fn has_control(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && c != '\n')
}

#[test]
fn numbers_beyond_their_limits_are_one_line_errors_naming_the_flag_or_variable() {
    let count = "takes a whole number from 1 to 1,000,000";
    for (args, env, says) in [
        (&["--sample-count", "1000000000"][..], &[][..], format!("--sample-count {count}, not `1000000000`")),
        (&["--sample-count", "18446744073709551615"], &[], format!("--sample-count {count}, not `18446744073709551615`")),
        (&["--sample-size=1000001"], &[], format!("--sample-size: --sample-count {count}, not `1000001`")),
        (&[], &[("PERFBENCH_SAMPLE_COUNT", "1000000000")], format!("PERFBENCH_SAMPLE_COUNT: --sample-count {count}, not `1000000000`")),
        (&["--measurement-time", "1e10"], &[], "--measurement-time takes seconds from 0 to 86400 (e.g. 0.5 or 500ms), not `1e10`".into()),
        (&[], &[("PERFBENCH_WARM_UP_TIME", "inf")], "PERFBENCH_WARM_UP_TIME: --warm-up-time takes seconds from 0 to 86400 (e.g. 0.5 or 500ms), not `inf`".into()),
        (&["--noise-threshold", "1e400"], &[], "--noise-threshold takes a percentage from 0 to 1000, such as 5 or 2.5%, not `1e400`".into()),
        (&["--rounds", "99999999999"], &[], "--rounds takes a whole number from 1 to 10,000, not `99999999999`".into()),
    ] {
        let run = inputs(args, env);
        assert_eq!(run.code, 2, "{args:?} {env:?}: {}", run.stderr);
        assert_eq!(ours(&run), format!("perfbench: error: {says}\n"), "{args:?} {env:?}");
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn ids_written_alike_are_an_error_naming_the_id_and_function_before_anything_runs() {
    let said = "perfbench: error: duplicate benchmark id `named/dup` of `named`: two of its \
                arguments are written alike (give them distinct `Display`s)\n";
    for args in [&["plain"][..], &["--list"], &["--test"]] {
        let run = measured(args, &[("FIXTURE_DUPLICATE_IDS", "1")]);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(ours(&run), said, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}: nothing is measured or listed");
    }
}

#[test]
fn a_panicking_display_fails_its_function_and_the_others_list_and_run() {
    let env = [("FIXTURE_PANIC_DISPLAY", "1")];
    let failure = "perfbench: error: benchmark `touchy` panicked at tests/benches/inputs.rs:";
    let run = inputs(&["--list", "--format", "terse"], &env);
    assert_eq!(run.code, 101, "{}", run.stderr);
    let ids: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        ids,
        [
            "plain: benchmark",
            "hostile/line\\nbreak: benchmark",
            "hostile/esc\\u{1b}[31mred: benchmark",
            "hostile/nul\\0byte: benchmark",
            "named/dup: benchmark",
            "named/other: benchmark",
        ]
    );
    assert!(run.stderr.starts_with(failure), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(": deliberate panic in a Display (listing its cases"),
        "{}",
        run.stderr
    );
    // Measured: the others run; the function fails by its path.
    let run = measured(
        &["--exact", "plain", "touchy", "--output-format", "json"],
        &env,
    );
    assert_eq!(run.code, 101, "{}", run.stderr);
    let lines = run.json();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert_eq!(lines[0]["id"], "plain");
    if let Some(faults) = common::faults_metric(&lines[0]["metrics"]) {
        assert_eq!(faults["estimate"], 1.0);
    }
    assert!(run.stderr.starts_with(failure), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("perfbench: 1 of 2 benchmarks failed: touchy\n"),
        "{}",
        run.stderr
    );
    // A filter that cannot select it leaves it out.
    let run = measured(&["--exact", "plain"], &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Test mode, as libtest would.
    let run = inputs(&["--test", "--exact", "plain", "touchy"], &env);
    assert_eq!(run.code, 101, "{}", run.stderr);
    assert!(
        run.stdout.contains("test touchy ... FAILED\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("test plain ... ok\n"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("test result: FAILED. 1 passed; 1 failed;"),
        "{}",
        run.stdout
    );
}

#[test]
fn control_characters_in_ids_are_escaped_in_the_table_and_the_report_and_kept_in_json() {
    let home = home("hostile");
    let env = [("PERFBENCH_HOME", home.to_str().unwrap())];
    // The full table: an id and its figures on one row.
    let table = measured(&["hostile", "--color", "never", "--verbose"], &env);
    assert_eq!(table.code, 0, "{}", table.stderr);
    for id in [
        "hostile/line\\nbreak",
        "hostile/esc\\u{1b}[31mred",
        "hostile/nul\\0byte",
    ] {
        let row = table.stdout.lines().find(|l| l.starts_with(id));
        let cells: Vec<&str> = row
            .unwrap_or_else(|| panic!("no row {id}:\n{}", table.stdout))
            .split_whitespace()
            .collect();
        // id, wall time (value unit), page faults where counted
        match common::counted("page-faults") {
            Some(_) => assert_eq!(cells.last(), Some(&"2"), "{cells:?}"),
            None => assert_eq!(cells.len(), 3, "{cells:?}"),
        }
    }
    assert!(!has_control(&table.stdout), "{:?}", table.stdout);
    assert!(!has_control(&table.stderr), "{:?}", table.stderr);
    let json = measured(&["hostile", "--output-format", "json"], &env);
    assert_eq!(json.code, 0, "{}", json.stderr);
    assert!(
        !has_control(&json.stdout),
        "JSON escapes them: {:?}",
        json.stdout
    );
    let ids: Vec<String> = json
        .json()
        .iter()
        .map(|v| v.str_at("id").to_string())
        .collect();
    assert_eq!(
        ids,
        [
            "hostile/line\nbreak",
            "hostile/esc\u{1b}[31mred",
            "hostile/nul\0byte"
        ]
    );
    let report = home.join("report");
    let files = files_under(&report);
    assert!(files.len() >= 4, "the index and a page per id: {files:?}");
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let raw = bytes.iter().find(|&&b| b < 0x20 && b != b'\n' || b == 0x7f);
        assert_eq!(raw, None, "a raw control byte in {}", file.display());
    }
    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        index.contains("hostile/esc\\u{1b}[31mred"),
        "escaped as in the table"
    );
}

#[test]
fn the_environment_follows_one_rule() {
    // Shadowed by the command line: a warning, and the flag's value.
    let run = measured(
        &["--exact", "plain", "--output-format", "json"],
        &[("PERFBENCH_SAMPLE_COUNT", "lots")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()[0]["samples"], 10);
    assert!(
        run.stderr.contains(
            "perfbench: warning: PERFBENCH_SAMPLE_COUNT: --sample-count takes a whole number \
             from 1 to 1,000,000, not `lots` (ignored: --sample-count is given)\n"
        ),
        "{}",
        run.stderr
    );
    // Not shadowed: an error naming the variable, even where nothing runs.
    let run = inputs(&["--list"], &[("PERFBENCH_EVENTS", "junk")]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(ours(&run).lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("perfbench: error: PERFBENCH_EVENTS: --events: event `junk`"),
        "{}",
        run.stderr
    );
    let run = inputs(&["--exact", "plain"], &[("PERFBENCH_NO_PIN", "maybe")]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        ours(&run),
        "perfbench: error: PERFBENCH_NO_PIN: a switch takes 1 or 0, not `maybe`\n"
    );
    // Misspelt: a warning with the nearest, and the run goes on.
    let run = inputs(
        &["--list", "--exact", "plain"],
        &[("PERFBENCH_SAMPEL_COUNT", "5")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "perfbench: warning: unknown variable `PERFBENCH_SAMPEL_COUNT` is ignored \
         (did you mean `PERFBENCH_SAMPLE_COUNT`?)\n"
    );
    // Variables perfbench reads that are no flag's twin are not warned of.
    let run = inputs(
        &["--list"],
        &[
            ("PERFBENCH_WRITE_GOLDEN", "1"),
            ("PERFBENCH_PMU_VM_CACHE", "/tmp"),
        ],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
}

#[test]
fn an_empty_no_color_is_ignored_and_a_set_one_turns_colour_off() {
    // Colour needs a terminal: `script` gives the run one.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no `script` to run under a terminal");
        return;
    }
    let binary = common::built(&["--bench", "inputs"], "/inputs-");
    // In this environment: its runner (plain paths) before the binary.
    let runner: String = common::runner().iter().map(|a| format!("{a} ")).collect();
    let colour = |no_color: &str| {
        let out = std::process::Command::new("script")
            .args(["-qec", &format!("{runner}{} --bench --exact plain --events page-faults --sample-count 10 --measurement-time 0.05", binary.display()), "/dev/null"])
            .env("NO_COLOR", no_color)
            .env("PERFBENCH_HOME", home("no-color"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(stdout.contains("plain"), "{stdout}");
        stdout.contains("\x1b[1mplain\x1b[0m")
    };
    assert!(colour(""), "NO_COLOR=\"\" is ignored");
    assert!(!colour("1"), "NO_COLOR=1 turns colour off");
}

#[test]
fn a_skip_or_filter_that_leaves_nothing_says_so_and_succeeds() {
    let run = inputs(&["--skip", ""], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "perfbench: --skip `` leaves no benchmark (7 registered; an empty --skip is in every id; \
         `--list` shows them)\n"
    );
    let run = inputs(&["plain", "--skip", "pl"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "perfbench: no benchmark matches `plain` but for --skip `pl` (7 registered; `--list` shows them)\n"
    );
}

#[test]
fn a_regression_is_reported_when_storing_failed_too() {
    // The regression is of a count.
    let Some(pf) = common::page_faults() else {
        return;
    };
    let home = home("store-and-regression");
    let at = home.to_str().unwrap();
    let gate = [
        "--exact",
        "touch_n",
        "--events",
        "page-faults",
        "--noise-threshold",
        "1000",
    ];
    let args = |extra: &[&'static str]| -> Vec<&str> {
        QUICK.iter().chain(&gate).chain(extra).copied().collect()
    };
    let saved = bench_with_env(
        &args(&["--save-baseline", "main"]),
        &[("PERFBENCH_HOME", at), ("FIXTURE_PAGES", "16")],
    );
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    // A folder where the baseline `broken` would be written: storing fails.
    std::fs::create_dir_all(home.join("baselines/broken/in-the-way")).unwrap();
    let worse = bench_with_env(
        &args(&[
            "--baseline",
            "main",
            "--save-baseline",
            "broken",
            "--fail-on-regression",
        ]),
        &[("PERFBENCH_HOME", at), ("FIXTURE_PAGES", "17")],
    );
    assert_eq!(
        worse.code, 2,
        "a store error outranks a regression: {}",
        worse.stderr
    );
    assert!(
        worse.stderr.contains(&format!(
            "perfbench: 1 regression against main:\n  touch_n {pf}: +6.25%"
        )),
        "{}",
        worse.stderr
    );
    assert!(
        worse
            .stderr
            .contains("perfbench: 1 stored file could not be read or written (named above)\n"),
        "{}",
        worse.stderr
    );
}
