//! The option model's tests: every flag in both spellings and from the
//! environment, the errors a user sees (one line, naming the culprit,
//! quoting values escaped and cut), and the help the flag table prints.

use std::ffi::OsString;
use std::path::Path;

use super::*;

/// The options `args` give with no `PERFBENCH_*` variable set: the
/// fixture of the run's tests (preparation, step, selection).
pub(crate) fn parse_args(args: &[&str]) -> RunOptions {
    parse(args.iter().map(OsString::from), |_| None).unwrap()
}

/// The options `args` and `env` give, or the error as it is printed.
fn parse_with(args: &[&str], env: &[(&str, &str)]) -> Result<RunOptions, String> {
    parse_typed(args, env).map_err(|e| e.to_string())
}

/// The options `args` and `env` give, or the error.
fn parse_typed(args: &[&str], env: &[(&str, &str)]) -> Result<RunOptions, UsageError> {
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    parse(args.iter().map(OsString::from), move |k| {
        env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    })
}

#[test]
fn an_error_names_its_culprit_as_a_value_not_as_text() {
    let Err(UsageError::Value {
        flag,
        expected,
        value,
    }) = parse_typed(&["--cpu", "one"], &[])
    else {
        panic!("--cpu one parsed")
    };
    assert_eq!(
        (flag.as_str(), expected, value.as_str()),
        ("--cpu", Expected::Number, "one")
    );
    // A variable's error holds the flag's, an alias's the flag's it stands for.
    let Err(UsageError::Variable { var, error }) = parse_typed(&[], &[("PERFBENCH_ROUNDS", "0")])
    else {
        panic!("PERFBENCH_ROUNDS=0 parsed")
    };
    assert_eq!(var, "PERFBENCH_ROUNDS");
    assert!(
        matches!(*error, UsageError::Value { ref flag, expected: Expected::Whole(MAX_ROUNDS), .. } if flag == "--rounds"),
        "{error:?}"
    );
    let Err(UsageError::Alias { alias, error }) = parse_typed(&["--sample-size=x"], &[]) else {
        panic!("--sample-size=x parsed")
    };
    assert_eq!(alias, "--sample-size");
    assert!(
        matches!(*error, UsageError::Value { ref flag, .. } if flag == "--sample-count"),
        "{error:?}"
    );
}

#[test]
fn cargo_bench_arguments_select_bench_mode_and_filters() {
    let o = parse_with(&["--bench", "three::", "many"], &[]).unwrap();
    assert_eq!(o.action, Action::Run(RunMode::Bench));
    assert_eq!(o.filter.patterns, ["three::", "many"]);
    assert_eq!(
        parse_with(&[], &[]).unwrap().action,
        Action::Run(RunMode::Test)
    );
    assert_eq!(
        parse_with(&["--bench", "--test"], &[]).unwrap().action,
        Action::Run(RunMode::Test)
    );
}

#[test]
fn values_parse_in_both_spellings() {
    let o = parse_with(
        &[
            "--events=task-clock",
            "--cpu",
            "1",
            "--warm-up-time",
            "250ms",
            "--measurement-time=2",
            "--sample-count",
            "7",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(
        o.events.as_ref().map(|e| e.spec.as_str()),
        Some("task-clock")
    );
    assert_eq!(o.pinning, Pinning::Cpu(1));
    assert_eq!(o.config.warm_up, Duration::from_millis(250));
    assert_eq!(o.config.measurement, Duration::from_secs(2));
    assert_eq!(o.config.sample_count, 7);
}

#[test]
fn environment_twins_apply_and_the_command_line_wins() {
    let env = [
        ("PERFBENCH_EVENTS", "page-faults"),
        ("PERFBENCH_SAMPLE_COUNT", "9"),
        ("PERFBENCH_NO_PIN", "1"),
        ("PERFBENCH_OUTPUT_FORMAT", "json"),
        ("PERFBENCH_EXACT", "0"),
    ];
    let o = parse_with(&["--sample-count", "3"], &env).unwrap();
    assert_eq!(
        o.events.as_ref().map(|e| e.spec.as_str()),
        Some("page-faults")
    );
    assert_eq!(o.config.sample_count, 3);
    assert_eq!(o.pinning, Pinning::Off);
    assert!(!o.filter.exact);
    assert_eq!(o.output_format, OutputFormat::Json);
}

#[test]
fn output_files_are_repeatable_and_their_twin_takes_a_comma_list() {
    let dir = std::env::temp_dir();
    let (a, b) = (dir.join("perfbench-a.json"), dir.join("perfbench-b.json"));
    let env = format!("json={},bencher={}", a.display(), b.display());
    let flag = format!("github-action-benchmark={}", dir.join("c.json").display());
    let o = parse_with(
        &["--output-file", &flag],
        &[("PERFBENCH_OUTPUT_FILE", &env)],
    )
    .unwrap();
    let files: Vec<(OutputFormat, &Path)> = (o.output_files.iter())
        .map(|(f, p)| (*f, p.as_path()))
        .collect();
    let c = dir.join("c.json");
    assert_eq!(
        files,
        [
            (OutputFormat::Json, a.as_path()),
            (OutputFormat::Bencher, b.as_path()),
            (OutputFormat::ActionSmaller, c.as_path())
        ]
    );
    assert_eq!(
        o.output_format,
        OutputFormat::Pretty,
        "stdout keeps the table"
    );
}

#[test]
fn a_bad_output_file_is_one_line_naming_it() {
    let dir = std::env::temp_dir();
    let missing = dir.join("perfbench-no-such-folder").join("x.json");
    let missing = format!("bmf={}", missing.display());
    let folder = format!("bmf={}", dir.display());
    let twice = format!("bmf={0}/t.json,json={0}/t.json", dir.display());
    for (value, needle) in [
        ("xml=out.xml", "--output-file takes pretty | json"),
        (
            "out.json",
            "--output-file takes FORMAT=PATH, not `out.json`",
        ),
        ("bmf=", "--output-file: `` is no path"),
        (&missing, "perfbench-no-such-folder` does not exist"),
        (&folder, "is a folder: give a file's path"),
        (&twice, "t.json` is given twice"),
    ] {
        let e = parse_with(&["--output-file", value], &[]).unwrap_err();
        assert!(e.contains(needle), "{value}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn an_output_file_where_a_device_fifo_or_socket_is_is_refused_at_once() {
    use crate::output::destination::{not_regular_files, still_there};
    let dir = std::env::temp_dir().join(format!("perfbench-cli-nodes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (path, what) in not_regular_files(&dir) {
        let value = format!("json={}", path.display());
        let e = parse_with(&["--output-file", &value], &[]).unwrap_err();
        assert_eq!(
            e,
            format!(
                "--output-file: `{}` is {what}, not a regular file: --output-file writes only \
                 regular files",
                path.display()
            )
        );
        assert!(still_there(&path, what));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_spellings_of_one_file_are_given_twice() {
    let dir = std::env::temp_dir().join(format!("perfbench-cli-twice-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink(dir.join("sub"), dir.join("linked")).unwrap();
    let d = dir.display();
    for (first, second) in [
        ("o.json".to_string(), "./o.json".to_string()),
        (format!("{d}/o.json"), format!("{d}/./o.json")),
        (format!("{d}/o.json"), format!("{d}/sub/../o.json")),
        (format!("{d}/sub/o.json"), format!("{d}/linked/o.json")),
        (format!("{d}//o.json"), format!("{d}/o.json")),
    ] {
        let value = format!("bmf={first},json={second}");
        let e = parse_with(&["--output-file", &value], &[]).unwrap_err();
        assert_eq!(
            e,
            format!("--output-file: `{second}` and `{first}` are one file, given twice"),
            "{value}"
        );
    }
    let apart = format!("bmf={d}/o.json,json={d}/sub/o.json");
    assert!(parse_with(&["--output-file", &apart], &[]).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn quick_fills_only_what_was_not_set() {
    let o = parse_with(&["--sample-count", "5", "--quick"], &[]).unwrap();
    assert_eq!(o.config.sample_count, 5);
    assert_eq!(o.config.measurement, Duration::from_millis(200));
}

#[test]
fn bad_input_is_a_one_line_error_naming_the_culprit() {
    for (args, env, needle) in [
        (&["--frobnicate"][..], &[][..], "`--frobnicate`"),
        (&["-x"], &[], "`-x`"),
        (&["--sample-count", "0"], &[], "not `0`"),
        (&["--warm-up-time", "soon"], &[], "not `soon`"),
        (
            &["--output-format", "xml"],
            &[],
            "bmf | github-action-benchmark | github-action-benchmark-bigger, not `xml`",
        ),
        (&["--cpu"], &[], "--cpu"),
        (&[], &[("PERFBENCH_NO_PIN", "maybe")], "PERFBENCH_NO_PIN"),
        (
            &[],
            &[("PERFBENCH_CPU", "one")],
            "PERFBENCH_CPU: --cpu takes a whole number",
        ),
    ] {
        let e = parse_with(args, env).unwrap_err();
        assert!(e.contains(needle), "{args:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn numbers_out_of_range_are_one_line_errors_naming_the_flag() {
    let count = "takes a whole number from 1 to 1,000,000";
    let seconds = "takes seconds from 0 to 86400 (e.g. 0.5 or 500ms)";
    let pct = "takes a percentage from 0 to 1000, such as 5 or 2.5%";
    for (flag, bad, says) in [
        ("--sample-count", "1000000000", count),
        ("--sample-count", "18446744073709551615", count),
        ("--sample-count", "18446744073709551616", count),
        ("--sample-count", "-1", count),
        ("--rounds", "10001", "takes a whole number from 1 to 10,000"),
        ("--warm-up-time", "86401", seconds),
        ("--warm-up-time", "1e300", seconds),
        ("--measurement-time", "inf", seconds),
        ("--measurement-time", "NaN", seconds),
        ("--measurement-time", "-0.5", seconds),
        ("--measurement-time", "86400001ms", seconds),
        ("--noise-threshold", "1001", pct),
        ("--count-noise-threshold", "1e308", pct),
        ("--count-noise-threshold", "-1", pct),
        ("--fail-on-regression", "NaN", pct),
    ] {
        let e = parse_with(&[&format!("{flag}={bad}")], &[]).unwrap_err();
        assert_eq!(e, format!("{flag} {says}, not `{bad}`"));
        let var = format!("PERFBENCH_{}", flag[2..].to_uppercase().replace('-', "_"));
        let e = parse_with(&[], &[(&var, bad)]).unwrap_err();
        assert_eq!(e, format!("{var}: {flag} {says}, not `{bad}`"));
    }
    // The limits themselves are taken.
    let o = parse_with(
        &[
            "--sample-count=1000000",
            "--measurement-time=86400",
            "--noise-threshold=1000",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(o.config.sample_count, 1_000_000);
    assert_eq!(o.config.measurement, Duration::from_secs(86_400));
    assert_eq!(o.thresholds.time, 10.0);
}

#[test]
fn an_attributes_own_settings_beyond_the_limits_name_the_function() {
    let ok = Settings {
        sample_count: Some(1_000_000),
        measurement: Some(Duration::from_secs(86_400)),
        ..Settings::NONE
    };
    assert_eq!(check_settings("m::f", &ok), Ok(()));
    let many = Settings {
        sample_count: Some(u64::MAX),
        ..Settings::NONE
    };
    assert_eq!(
        check_settings("m::f", &many).unwrap_err().to_string(),
        "`m::f`: sample_count takes a whole number from 1 to 1,000,000, not 18446744073709551615"
    );
    let long = Settings {
        warm_up: Some(Duration::from_secs(86_401)),
        ..Settings::NONE
    };
    assert_eq!(
        check_settings("m::f", &long).unwrap_err().to_string(),
        "`m::f`: warm_up_time takes seconds from 0 to 86400, not 86401"
    );
}

#[test]
fn a_wrong_variable_is_an_error_unless_its_flag_is_given_then_a_warning() {
    let env = [("PERFBENCH_SAMPLE_COUNT", "lots")];
    let e = parse_with(&[], &env).unwrap_err();
    assert_eq!(
        e,
        "PERFBENCH_SAMPLE_COUNT: --sample-count takes a whole number from 1 to 1,000,000, not `lots`"
    );
    // Given on the command line (in any spelling), the flag wins.
    for args in [&["--sample-count", "7"][..], &["--sample-size=7"]] {
        let o = parse_with(args, &env).unwrap();
        assert_eq!(o.config.sample_count, 7);
        assert_eq!(
            o.warnings,
            [format!("{e} (ignored: --sample-count is given)")]
        );
    }
    let e = parse_with(&[], &[("PERFBENCH_NO_PIN", "maybe")]).unwrap_err();
    assert_eq!(e, "PERFBENCH_NO_PIN: a switch takes 1 or 0, not `maybe`");
    let o = parse_with(&["--no-pin"], &[("PERFBENCH_NO_PIN", "maybe")]).unwrap();
    assert_eq!(o.pinning, Pinning::Off);
    assert_eq!(o.warnings.len(), 1);
    assert!(parse_with(&[], &[]).unwrap().warnings.is_empty());
}

#[test]
fn wrong_events_in_the_environment_are_an_error_naming_the_variable() {
    let env = [("PERFBENCH_EVENTS", "junk")];
    let e = parse_with(&["--list"], &env).unwrap_err();
    assert!(
        e.starts_with("PERFBENCH_EVENTS: --events: event `junk`"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    let o = parse_with(&["--events", "page-faults"], &env).unwrap();
    assert_eq!(
        o.events.as_ref().map(|e| e.spec.as_str()),
        Some("page-faults")
    );
    assert_eq!(o.warnings.len(), 1, "{:?}", o.warnings);
    let e = parse_with(&["--events", "cyclez"], &[]).unwrap_err();
    assert!(e.starts_with("--events: event `cyclez`"), "{e}");
}

#[test]
fn unknown_perfbench_variables_are_warned_with_the_nearest_known_one() {
    let names = [
        "PERFBENCH_SAMPEL_COUNT",
        "PERFBENCH_SAMPLE_COUNT",
        "PERFBENCH_HOME",
        "PERFBENCH_WRITE_GOLDEN",
        "PERFBENCH_FROBNICATE_EVERYTHING",
        "PERFBENCH_A\nB",
        "NO_COLOR",
        "HOME",
    ];
    assert_eq!(
        unknown_variables(&names),
        [
            "unknown variable `PERFBENCH_SAMPEL_COUNT` is ignored (did you mean `PERFBENCH_SAMPLE_COUNT`?)",
            "unknown variable `PERFBENCH_FROBNICATE_EVERYTHING` is ignored (`--help` lists the options; each has a PERFBENCH_ twin)",
            "unknown variable `PERFBENCH_A\\nB` is ignored (`--help` lists the options; each has a PERFBENCH_ twin)",
        ]
    );
}

#[test]
fn a_close_typo_is_suggested_and_a_far_off_name_is_not() {
    let e = parse_with(&["--sampel-count", "5"], &[]).unwrap_err();
    assert_eq!(
        e,
        "unknown option `--sampel-count` (did you mean `--sample-count`?)"
    );
    let e = parse_with(&["--warmup-time=1"], &[]).unwrap_err();
    assert_eq!(
        e,
        "unknown option `--warmup-time` (did you mean `--warm-up-time`?)"
    );
    // Aliases are suggested too.
    let e = parse_with(&["--sample-sise"], &[]).unwrap_err();
    assert!(e.ends_with("(did you mean `--sample-size`?)"), "{e}");
    for far in ["--frobnicate", "--fast", "--xy"] {
        let e = parse_with(&[far], &[]).unwrap_err();
        assert_eq!(e, format!("unknown option `{far}` (see --help)"));
    }
}

#[test]
fn libtest_options_we_lack_say_what_to_use_instead() {
    for (args, hint) in [
        (
            &["--logfile", "out.txt"][..],
            "(libtest's; redirect stdout instead",
        ),
        (&["--shuffle"], "(libtest's; benchmarks run in source order"),
        (&["-x"], "(see --help)"),
    ] {
        let e = parse_with(args, &[]).unwrap_err();
        assert!(
            e.starts_with(&format!("unknown option `{}` (", args[0])),
            "{e}"
        );
        assert!(e.contains(hint), "{args:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn sample_size_is_criterion_s_spelling_of_sample_count() {
    let size = parse_with(&["--sample-size", "12"], &[]).unwrap();
    let count = parse_with(&["--sample-count", "12"], &[]).unwrap();
    assert_eq!(size, count);
    assert_eq!(size.config.sample_count, 12);
    assert_eq!(
        parse_with(&["--sample-size=7", "--quick"], &[])
            .unwrap()
            .config
            .sample_count,
        7
    );
    // An error names the spelling used and the flag it stands for.
    assert_eq!(
        parse_with(&["--sample-size", "0"], &[]).unwrap_err(),
        "--sample-size: --sample-count takes a whole number from 1 to 1,000,000, not `0`"
    );
    let help = usage();
    let line = help
        .lines()
        .find(|l| l.contains("--sample-count N"))
        .unwrap();
    assert!(
        line.ends_with("(default 50); also --sample-size (Criterion's)"),
        "{line}"
    );
}

#[test]
fn profile_time_profiles_when_measuring_and_takes_seconds_above_zero() {
    let o = parse_with(&["--bench", "--profile-time", "0.2"], &[]).unwrap();
    assert_eq!(
        o.action,
        Action::Run(RunMode::Profile(Duration::from_millis(200)))
    );
    let o = parse_with(&["--bench", "--profile-time=5"], &[]).unwrap();
    assert_eq!(
        o.action,
        Action::Run(RunMode::Profile(Duration::from_secs(5)))
    );
    // Test mode wins, as in Criterion.
    let o = parse_with(&["--profile-time", "1"], &[]).unwrap();
    assert_eq!(o.action, Action::Run(RunMode::Test));
    let o = parse_with(&["--bench"], &[("PERFBENCH_PROFILE_TIME", "250ms")]).unwrap();
    assert_eq!(
        o.action,
        Action::Run(RunMode::Profile(Duration::from_millis(250)))
    );
    for bad in ["0", "0ms", "-1", "soon", "inf", "NaN", "1e10", ""] {
        let e = parse_with(&["--bench", "--profile-time", bad], &[]).unwrap_err();
        assert_eq!(
            e,
            format!(
                "--profile-time takes seconds above 0, up to 86400 (e.g. 5 or 500ms), not `{bad}`"
            )
        );
    }
    let e = parse_with(&["--bench", "--profile-time"], &[]).unwrap_err();
    assert!(e.contains("--profile-time"), "{e}");
}

#[test]
fn a_hostile_baseline_name_is_quoted_escaped_and_cut() {
    for flag in ["--baseline", "--save-baseline"] {
        let e = parse_with(&[flag, "a\nb\r\x1b]0;x\x07\u{202e}"], &[]).unwrap_err();
        assert!(
            e.starts_with("baseline name `a\\nb\\r\\u{1b}]0;x\\u{7}\\u{202e}`: use "),
            "{e}"
        );
        let long = "n".repeat(10_000);
        let e = parse_with(&[flag, &long], &[]).unwrap_err();
        let cut = format!(
            "baseline name `{}… (9,800 more characters)`: ",
            "n".repeat(200)
        );
        assert!(e.starts_with(&cut), "{e}");
        assert!(e.ends_with("at most 64"), "{e}");
    }
    let env = [("PERFBENCH_BASELINE", "x\u{2066}\x1b[2K")];
    let e = parse_with(&[], &env).unwrap_err();
    assert!(
        e.starts_with("PERFBENCH_BASELINE: baseline name `x\\u{2066}\\u{1b}[2K`"),
        "{e}"
    );
}

#[test]
fn values_and_unknown_options_are_quoted_escaped_and_cut() {
    let long = "9".repeat(10_000);
    let cut = format!("not `{}… (9,800 more characters)`", "9".repeat(200));
    let e = parse_with(&["--sample-count", &long], &[]).unwrap_err();
    assert!(e.ends_with(&cut), "{e}");
    for (args, needle) in [
        (&["--sample-count", "\x1b[2K"][..], "not `\\u{1b}[2K`"),
        (
            &["--color", "\x1b]52;c;ZXZpbA==\x07"],
            "not `\\u{1b}]52;c;ZXZpbA==\\u{7}`",
        ),
        (&["--no\rpe\u{202e}"], "`--no\\rpe\\u{202e}`"),
        (&["-\x1b"], "`-\\u{1b}`"),
    ] {
        let e = parse_with(args, &[]).unwrap_err();
        assert!(e.contains(needle), "{e}");
        assert!(!e.contains(['\x1b', '\r', '\u{202e}']), "{e}");
    }
    let env = [("PERFBENCH_MEASUREMENT_TIME", "1\x1b")];
    let e = parse_with(&[], &env).unwrap_err();
    assert!(e.starts_with("PERFBENCH_MEASUREMENT_TIME: "), "{e}");
    assert!(e.ends_with("not `1\\u{1b}`"), "{e}");
}

#[test]
fn baselines_and_the_regression_gate() {
    let o = parse_with(
        &[
            "--save-baseline",
            "main",
            "--baseline=v1",
            "--fail-on-regression",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(o.save_baseline.as_deref(), Some("main"));
    assert_eq!(o.baseline.as_deref(), Some("v1"));
    assert_eq!(o.gate, RegressionGate::AnyRegression);
    let o = parse_with(
        &["--fail-on-regression=5", "--noise-threshold", "2.5%"],
        &[],
    )
    .unwrap();
    assert_eq!(o.gate, RegressionGate::Beyond(0.05));
    assert_eq!(o.thresholds.time, 0.025);
    // The value is optional: a following word is a filter, not a percentage.
    let o = parse_with(&["--fail-on-regression", "touch"], &[]).unwrap();
    assert_eq!(
        (o.gate, o.filter.patterns),
        (RegressionGate::AnyRegression, vec!["touch".to_string()])
    );
    let o = parse_with(&[], &[("PERFBENCH_FAIL_ON_REGRESSION", "true")]).unwrap();
    assert_eq!(o.gate, RegressionGate::AnyRegression);
    let o = parse_with(&[], &[("PERFBENCH_FAIL_ON_REGRESSION", "7%")]).unwrap();
    assert_eq!(o.gate, RegressionGate::Beyond(0.07));
    let o = parse_with(&[], &[("PERFBENCH_FAIL_ON_REGRESSION", "0")]).unwrap();
    assert_eq!(o.gate, RegressionGate::Off);
    assert!(parse_with(&["--baseline", "../etc"], &[])
        .unwrap_err()
        .contains("baseline name `../etc`"));
    assert!(parse_with(&["--fail-on-regression=lots"], &[])
        .unwrap_err()
        .contains("not `lots`"));
}

#[test]
fn measurement_modes() {
    assert!(!parse_with(&[], &[]).unwrap().per_iter);
    assert!(parse_with(&["--mode", "per-iter"], &[]).unwrap().per_iter);
    assert!(
        parse_with(&[], &[("PERFBENCH_MODE", "per-iter")])
            .unwrap()
            .per_iter
    );
    assert!(
        !parse_with(&["--mode=batch"], &[("PERFBENCH_MODE", "per-iter")])
            .unwrap()
            .per_iter
    );
    assert!(parse_with(&["--mode", "sometimes"], &[])
        .unwrap_err()
        .contains("batch | per-iter, not `sometimes`"));
    assert!(
        parse_with(&["--subtract-overhead"], &[])
            .unwrap()
            .subtract_overhead
    );
}

#[test]
fn libtest_flags_from_cargo_test_are_accepted() {
    let o = parse_with(
        &[
            "--test-threads",
            "1",
            "--nocapture",
            "-q",
            "--list",
            "--format",
            "terse",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(o.action, Action::List { terse: true });
}

#[test]
fn the_defaults_help_shows_are_those_the_run_takes() {
    let help = usage();
    let line = |flag: &str| {
        let start = format!("  --{flag} ");
        help.lines()
            .find(|l| l.starts_with(&start))
            .unwrap()
            .to_string()
    };
    let o = parse_with(&[], &[]).unwrap();
    let c = &o.config;
    for (flag, value) in [
        ("sample-count", c.sample_count.to_string()),
        ("warm-up-time", c.warm_up.as_secs_f64().to_string()),
        ("measurement-time", c.measurement.as_secs_f64().to_string()),
        ("rounds", c.rounds.to_string()),
        (
            "noise-threshold",
            (o.thresholds.time * 100.0).round().to_string(),
        ),
        (
            "count-noise-threshold",
            (o.thresholds.count * 100.0).round().to_string(),
        ),
    ] {
        let l = line(flag);
        assert!(l.contains(&format!("(default {value})")), "{l}");
    }
    let q = parse_with(&["--quick"], &[]).unwrap().config;
    let settings = format!(
        "short run: {} s warm-up, {} s measurement, {} samples",
        q.warm_up.as_secs_f64(),
        q.measurement.as_secs_f64(),
        q.sample_count
    );
    assert!(line("quick").ends_with(&settings), "{}", line("quick"));
}

#[test]
fn every_flag_but_libtest_s_has_help_and_only_perfbench_s_a_twin_and_names_are_unique() {
    let mut names: Vec<&str> = flags::all().map(|f| f.name).collect();
    names.extend(flags::all().filter_map(|f| f.alias.map(|a| a.0)));
    let count = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), count, "a name or alias given twice");
    let mut letters: Vec<char> = flags::all().filter_map(|f| f.short).collect();
    let count = letters.len();
    letters.sort();
    letters.dedup();
    assert_eq!(letters.len(), count, "a letter given twice");
    let libtest = ["nocapture", "show-output", "quiet", "test-threads"];
    for f in flags::all() {
        assert_eq!(f.help.is_none(), libtest.contains(&f.name), "--{}", f.name);
        let own = f.origin == flags::Whose::Own;
        assert_eq!(f.twin().is_some(), own, "--{}", f.name);
    }
    // Criterion's flags are the section after the twins' sentence.
    let help = usage();
    let (_, criterion) = help.split_once("Criterion's options").unwrap();
    for f in criterion_flags::CRITERION_FLAGS {
        assert!(
            criterion.contains(&format!("--{} ", f.name)),
            "--{}",
            f.name
        );
        assert_eq!(f.origin, flags::Whose::Criterion, "--{}", f.name);
    }
}

#[test]
fn a_paired_run_takes_four_times_the_samples_and_rounds_in_the_same_time_unless_given() {
    let plain = parse_args(&["--bench"]).config;
    let paired = parse_args(&["--bench", "--paired-with", "./old"]);
    assert_eq!(
        paired.paired_with,
        Some(Pairing::Binary(std::path::PathBuf::from("./old")))
    );
    let c = &paired.config;
    assert_eq!((c.sample_count, c.rounds), (200, 40));
    assert_eq!(
        (c.warm_up, c.measurement),
        (plain.warm_up, plain.measurement)
    );
    // A benchmark's own sample count scales too; what the run gives does not.
    let own = Settings {
        sample_count: Some(30),
        ..Settings::NONE
    };
    let c = paired.config_for(&own);
    assert_eq!((c.sample_count, c.rounds), (120, 40));
    let given = parse_args(&[
        "--bench",
        "--paired-with-rev",
        "main",
        "--sample-count",
        "40",
    ]);
    assert_eq!(given.paired_with, Some(Pairing::Revision("main".into())));
    let c = given.config_for(&own);
    assert_eq!((c.sample_count, c.rounds, c.rounds()), (40, 40, 8));
    let c = parse_args(&["--bench", "--paired-with", "x", "--rounds", "6"]).config;
    assert_eq!((c.sample_count, c.rounds), (200, 6));
    assert_eq!(
        parse_with(&["--bench", "--paired-with-rev", "-x"], &[]).unwrap_err(),
        "--paired-with-rev takes a git revision (a branch, tag or commit), not `-x`"
    );
    assert_eq!(
        parse_with(&["--bench", "--paired-with="], &[]).unwrap_err(),
        "--paired-with takes the path of a bench binary, not ``"
    );
}

#[test]
fn a_value_not_utf8_names_its_flag_as_written() {
    use std::os::unix::ffi::OsStringExt;
    let bad = || OsString::from_vec(vec![b'1', 0xff]);
    let parse_os = |args: Vec<OsString>| parse(args, |_| None).unwrap_err().to_string();
    assert_eq!(
        parse_os(vec!["--cpu".into(), bad()]),
        "--cpu: `1\u{fffd}` is not valid UTF-8"
    );
    assert_eq!(
        parse_os(vec![bad()]),
        "FILTER: `1\u{fffd}` is not valid UTF-8"
    );
}

#[test]
fn profile_samples_the_default_event_or_the_one_given() {
    let given = |o: RunOptions| match o.profile {
        Some(ProfileEvent::Given(asked)) => Some(asked.spec),
        Some(ProfileEvent::Default) => Some(String::new()),
        Some(ProfileEvent::Regressed) => Some("regressed".to_string()),
        None => None,
    };
    assert_eq!(given(parse_with(&[], &[]).unwrap()), None);
    assert_eq!(
        given(parse_with(&["--profile"], &[]).unwrap()),
        Some(String::new())
    );
    let o = parse_with(&["--profile=regressed"], &[]).unwrap();
    assert_eq!(o.profile, Some(ProfileEvent::Regressed));
    let o = parse_with(&["--profile=cache-misses"], &[]).unwrap();
    assert_eq!(given(o), Some("cache-misses".to_string()));
    // The value is optional: a following word is a filter, not an event.
    let o = parse_with(&["--profile", "cycles"], &[]).unwrap();
    assert_eq!(o.filter.patterns, vec!["cycles".to_string()]);
    assert_eq!(given(o), Some(String::new()));
    let o = parse_with(&[], &[("PERFBENCH_PROFILE", "1")]).unwrap();
    assert_eq!(given(o), Some(String::new()));
    assert_eq!(
        given(parse_with(&[], &[("PERFBENCH_PROFILE", "0")]).unwrap()),
        None
    );
    let o = parse_with(&[], &[("PERFBENCH_PROFILE", "instructions:u")]).unwrap();
    assert_eq!(given(o), Some("instructions:u".to_string()));
    assert_eq!(
        parse_with(&["--profile=cycles,instructions"], &[]).unwrap_err(),
        "--profile takes one event (e.g. cycles, cache-misses or cpu-clock), not \
         `cycles,instructions`"
    );
    let e = parse_with(&["--profile=bogus-event"], &[]).unwrap_err();
    assert!(
        e.starts_with("--profile: ") && e.contains("bogus-event"),
        "{e}"
    );
}

/// The options `args` give a Criterion suite's `criterion_main!`, or the
/// error as it is printed.
fn criterion_with(args: &[&str]) -> Result<RunOptions, String> {
    parse_in(Dialect::Criterion, args.iter().map(OsString::from), |_| {
        None
    })
    .map_err(|e| e.to_string())
}

#[test]
fn criterion_s_one_letter_forms_are_its_flags() {
    let long = parse_args(&[
        "--bench",
        "--save-baseline",
        "main",
        "--baseline",
        "v1",
        "--color",
        "never",
        "--verbose",
        "--noplot",
    ]);
    for short in [
        &[
            "--bench", "-s", "main", "-b", "v1", "-c", "never", "-v", "-n",
        ][..],
        &["--bench", "-smain", "-b=v1", "-cnever", "-vn"],
        &[
            "--bench",
            "-s=main",
            "--baseline=v1",
            "--colour",
            "never",
            "-nv",
        ],
    ] {
        assert_eq!(parse_args(short), long, "{short:?}");
        assert_eq!(criterion_with(short).unwrap(), long, "{short:?}");
    }
    assert_eq!(long.save_baseline.as_deref(), Some("main"));
    assert_eq!(long.baseline.as_deref(), Some("v1"));
    assert_eq!(
        (long.color, long.verbose, long.noplot),
        (Color::Never, true, true)
    );
    assert_eq!(parse_args(&["-h"]).action, Action::Help);
    assert_eq!(parse_args(&["-q", "--bench"]), parse_args(&["--bench"]));
    // `--help` shows the letters.
    let help = usage();
    for line in [
        "  -s, --save-baseline NAME ",
        "  -b, --baseline NAME ",
        "  -c, --color auto|always|never ",
        "  -n, --noplot ",
        "  -v, --verbose ",
        "  -h, --help ",
        "  -V, --version ",
    ] {
        assert!(help.contains(line), "{line}");
    }
}

#[test]
fn a_bad_value_names_the_flag_as_spelled() {
    let color = "--color takes auto | always | never, not `sometimes`";
    for (args, error) in [
        (&["-c", "sometimes"][..], format!("-c: {color}")),
        (&["--colour=sometimes"], format!("--colour: {color}")),
        (&["--color", "sometimes"], color.to_string()),
        (
            &["-s", "../up"],
            "-s: baseline name `../up`: use letters, digits, `_`, `-` and `.` (not first), at most 64"
                .to_string(),
        ),
        (
            &["--nresamples", "0"],
            "--nresamples takes a whole number from 1 to 1,000,000,000, not `0`".to_string(),
        ),
        (
            &["--confidence-level", "1"],
            "--confidence-level takes a number between 0 and 1, such as 0.95, not `1`".to_string(),
        ),
        (
            &["--significance-level=-0.1"],
            "--significance-level takes a number between 0 and 1, such as 0.95, not `-0.1`"
                .to_string(),
        ),
        (
            &["--plotting-backend", "svg"],
            "--plotting-backend takes gnuplot | plotters, not `svg`".to_string(),
        ),
        (
            &["--baseline-lenient", "a/b"],
            "baseline name `a/b`: use letters, digits, `_`, `-` and `.` (not first), at most 64".to_string(),
        ),
        (&["-b"], "missing argument for option '-b'".to_string()),
    ] {
        assert_eq!(parse_with(args, &[]).unwrap_err(), error, "{args:?}");
        assert_eq!(criterion_with(args).unwrap_err(), error, "{args:?}");
    }
    assert_eq!(
        criterion_with(&["--noise-threshold", "lots"]).unwrap_err(),
        "--noise-threshold takes a fraction from 0 to 10, such as 0.05, or a percentage such \
         as 5%, not `lots`"
    );
    assert_eq!(
        criterion_with(&["--noise-threshold", "11"]).unwrap_err(),
        "--noise-threshold takes a fraction from 0 to 10, such as 0.05, or a percentage such \
         as 5%, not `11`"
    );
}

#[test]
fn criterion_s_flags_parse_to_the_options_they_mean() {
    let bench = |args: &[&str]| {
        let mut all = vec!["--bench"];
        all.extend(args);
        criterion_with(&all).unwrap()
    };
    let o = bench(&[
        "--sample-size",
        "12",
        "--warm-up-time",
        "1",
        "--measurement-time=2.5",
    ]);
    assert_eq!(
        (
            o.config.sample_count,
            o.config.warm_up,
            o.config.measurement
        ),
        (12, Duration::from_secs(1), Duration::from_millis(2500))
    );
    assert_eq!(o.warnings, Vec::<String>::new());
    assert_eq!(
        bench(&["--output-format", "bencher"]).output_format,
        OutputFormat::Bencher
    );
    assert_eq!(
        bench(&["--output-format=criterion"]),
        bench(&["--output-format", "pretty"])
    );
    assert_eq!(bench(&["--baseline-lenient", "v1"]), bench(&["-b", "v1"]));
    assert_eq!(
        bench(&["--list", "--format", "terse"]).action,
        Action::List { terse: true }
    );
    assert_eq!(bench(&["--test"]).action, Action::Run(RunMode::Test));
    assert_eq!(
        criterion_with(&[]).unwrap().action,
        Action::Run(RunMode::Test)
    );
    assert_eq!(
        bench(&["--profile-time", "2"]).action,
        Action::Run(RunMode::Profile(Duration::from_secs(2)))
    );
    assert_eq!(bench(&["--ignored"]).filter.ignored, Ignored::Only);
    assert_eq!(
        bench(&["--include-ignored"]).filter.ignored,
        Ignored::Included
    );
    let exact = bench(&["--exact", "group/f/10"]).filter;
    assert!(exact.exact && exact.matches("group/f/10") && !exact.matches("group/f/100"));
    assert_eq!(bench(&["--quick"]).config, parse_args(&["--quick"]).config);
    assert_eq!(bench(&["--nocapture", "--show-output"]), bench(&[]));
    // Criterion's noise threshold is a fraction; perfbench's a percentage.
    assert_eq!(bench(&["--noise-threshold", "0.05"]).thresholds.time, 0.05);
    assert_eq!(bench(&["--noise-threshold=2.5%"]).thresholds.time, 0.025);
    assert_eq!(
        parse_args(&["--noise-threshold", "0.05"]).thresholds.time,
        0.0005
    );
    // The twin is perfbench's, a percentage, under either.
    let env = |k: &str| (k == "PERFBENCH_NOISE_THRESHOLD").then(|| "5".to_string());
    let o = parse_in(Dialect::Criterion, ["--bench"].map(OsString::from), env).unwrap();
    assert_eq!(o.thresholds.time, 0.05);
    // Values perfbench takes anyway are taken without a word.
    let same = bench(&[
        "--nresamples",
        "1000",
        "--confidence-level",
        "0.95",
        "--significance-level",
        "0.05",
    ]);
    assert_eq!(same, bench(&[]));
}

#[test]
fn what_a_criterion_flag_cannot_do_here_is_said_once_in_one_line() {
    for (args, note) in [
        (
            &["--nresamples", "5000"][..],
            "--nresamples 5000 has no effect: the bootstrap always takes 1000 resamples, seeded",
        ),
        (
            &["--confidence-level", "0.99"],
            "--confidence-level 0.99 has no effect: every interval is 95 %",
        ),
        (
            &["--significance-level", "0.01"],
            "--significance-level 0.01 has no effect: a change is significant where its 95 % \
             interval excludes zero, p < 0.05",
        ),
        (
            &["--plotting-backend", "plotters"],
            "--plotting-backend plotters has no effect: perfbench draws its report's plots \
             itself, as SVG (--noplot leaves them out)",
        ),
        (
            &["--discard-baseline"],
            "--discard-baseline: no named baseline is saved (none is without --save-baseline), \
             but the run is stored as the latest, for the next to compare with",
        ),
        (
            &["-b", "old", "--load-baseline", "new"],
            "--load-baseline new: perfbench measures anew rather than loading the samples of \
             `new`, and compares with --baseline as asked",
        ),
        (
            &["-V"],
            "--version has no effect (Criterion accepts it and does nothing)",
        ),
    ] {
        let twice: Vec<&str> = ["--bench"]
            .iter()
            .chain(args)
            .chain(args)
            .copied()
            .collect();
        for o in [
            parse_with(&twice, &[]).unwrap(),
            criterion_with(&twice).unwrap(),
        ] {
            assert_eq!(o.warnings, [note], "{args:?}");
        }
    }
    // A paired run's serving build, given the same command line, leaves
    // the notes to the driving build.
    use crate::run::paired::protocol::CHILD_VARIABLE;
    let serving = |k: &str| (k == CHILD_VARIABLE).then(|| "1".to_string());
    let args = ["--bench", "--nresamples", "5", "--quiet", "^f"];
    assert_eq!(criterion_with(&args).unwrap().warnings.len(), 3);
    let o = parse_in(Dialect::Criterion, args.map(OsString::from), serving).unwrap();
    assert!(o.warnings.is_empty());
    for args in [
        &["--discard-baseline", "-s", "main"][..],
        &["--save-baseline=main", "--discard-baseline"],
    ] {
        assert_eq!(
            parse_with(args, &[]).unwrap_err(),
            "--discard-baseline contradicts --save-baseline, as in Criterion: give one"
        );
    }
    let env = [("PERFBENCH_SAVE_BASELINE", "main")];
    let o = parse_with(&["--discard-baseline"], &env).unwrap();
    assert_eq!(o.save_baseline, None);
    assert_eq!(
        parse_with(&[], &env).unwrap().save_baseline.as_deref(),
        Some("main")
    );
    assert_eq!(
        criterion_with(&["--load-baseline", "new"]).unwrap_err(),
        "--load-baseline needs --baseline NAME, as in Criterion"
    );
    // Criterion's --quiet while measuring; libtest's (and in test mode) says nothing.
    let quiet = "--quiet has no effect: perfbench's table has no quieter form";
    assert_eq!(
        criterion_with(&["--bench", "--quiet"]).unwrap().warnings,
        [quiet]
    );
    assert!(criterion_with(&["--quiet"]).unwrap().warnings.is_empty());
    assert!(parse_with(&["--bench", "--quiet"], &[])
        .unwrap()
        .warnings
        .is_empty());
    // A Criterion filter written as a regular expression is matched as text.
    let o = criterion_with(&["--bench", "^fib.*20$", "sort"]).unwrap();
    assert_eq!(
        o.warnings,
        [
            "the filter `^fib.*20$` is matched as text, not as Criterion's regular expression: an \
          id is selected where it contains the filter (--exact: where it is the filter)"
        ]
    );
    assert!(criterion_with(&["--bench", "fib/1.5"])
        .unwrap()
        .warnings
        .is_empty());
    assert!(parse_with(&["--bench", "^fib"], &[])
        .unwrap()
        .warnings
        .is_empty());
}

#[test]
fn criterion_s_table_names_every_flag_of_its_and_what_it_is_here() {
    let table = criterion_table();
    let rows: Vec<&str> = table.lines().skip(2).collect();
    assert_eq!(rows.len(), criterion_flags::CRITERION.len());
    for f in criterion_flags::CRITERION_FLAGS {
        assert!(
            criterion_flags::CRITERION.iter().any(|(n, _)| *n == f.name),
            "--{}",
            f.name
        );
    }
    for row in [
        "| `-s`, `--save-baseline NAME` | `--save-baseline` | store the run",
        "| `--sample-size N` | `--sample-count` | `--sample-count`: 1 to 1,000,000",
        "| `--colour auto|always|never` | `--color` | `--color` |",
        "| `--quiet` | `--quiet` | under `criterion_main!`",
        "| `--nresamples N` | `--nresamples` | the bootstrap always takes 1000 resamples",
    ] {
        let row = row.replace("auto|always|never", "auto\\|always\\|never");
        assert!(rows.iter().any(|r| r.starts_with(&row)), "{row}\n{table}");
    }
    for letter in criterion_flags::CRITERION_LETTERS {
        assert!(flags::resolve_short(*letter).is_some(), "-{letter}");
    }
    // The help of a Criterion flag quotes the figures the run takes.
    let fixed = crate::stats::Bootstrap::default();
    let help = usage();
    assert!(help.contains(&format!("always takes {} resamples", fixed.resamples)));
    assert!(help.contains(&format!("always {} %", fixed.confidence * 100.0)));
}
