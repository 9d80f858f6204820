//! End to end: the formats continuous-benchmarking services read, through
//! `cargo bench` on the fixtures, each read back by a parser written here
//! from the service's own rules: github-action-benchmark's `extract.ts`
//! (`extractCargoResult`'s line pattern, the custom tools' array of
//! `BenchmarkResult`s) and Bencher's `bencher_adapter` (`rust_bench`'s
//! line grammar, the BMF schema of bencher.dev/bmf.json).

mod common;

use std::path::{Path, PathBuf};

use common::bench_run::BenchRun;
use common::json::Fields;
use common::{bench_with_env, counted, fixtures_binary, fresh_dir, quick_page_faults, Run};
use serde_json::{Map, Value};

/// Benchmarks without a throughput, with bytes, and with bytes and a
/// space in the id.
const IDS: [&str; 3] = ["touch_16", "text/ascii", "text/emoji 🦀"];

/// A quick run of [`IDS`] counting page faults, with `args`, storing in
/// a fresh folder named `name`; also returns that folder for files.
fn run(name: &str, args: &[&str]) -> (Run, PathBuf) {
    let home = fresh_dir("service-formats", name);
    let mut all = vec!["--exact"];
    all.extend(IDS);
    all.extend(args);
    let run = bench_with_env(
        &quick_page_faults(&all),
        &[("PERFBENCH_HOME", &home.display().to_string())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    (run, home)
}

/// The fixtures binary run directly with `--bench` and `args`.
fn bench_binary(args: &[&str]) -> Run {
    BenchRun::of(fixtures_binary()).args(args).run()
}

/// `FORMAT=PATH` for `--output-file`, the file in `dir`.
fn file_of(format: &str, dir: &Path, name: &str) -> (String, PathBuf) {
    let path = dir.join(name);
    (format!("{format}={}", path.display()), path)
}

/// A bench line as github-action-benchmark's `extractCargoResult` reads
/// it: `^test (.+)\s+\.\.\. bench:\s+([0-9,.]+) (\w+\/\w+)
/// \(\+\/- ([0-9,.]+)\)$`, the name trimmed. Returns (name, value, unit,
/// range).
fn action_cargo_line(line: &str) -> Option<(String, f64, String, String)> {
    let rest = line.strip_prefix("test ")?;
    // `(.+)\s+` is greedy: the name runs to the last `... bench:`.
    let at = rest.rfind("... bench:")?;
    let (name, rest) = (&rest[..at], &rest[at + "... bench:".len()..]);
    if name.trim().is_empty() || !name.ends_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.strip_prefix(char::is_whitespace)?.trim_start();
    let (value, rest) = rest.split_once(' ')?;
    let (unit, rest) = rest.split_once(' ')?;
    let digits =
        |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || ",.".contains(c));
    let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    let range = rest.strip_prefix("(+/- ")?.strip_suffix(')')?;
    let unit_ok = unit
        .split_once('/')
        .is_some_and(|(a, b)| word(a) && word(b));
    if !(digits(value) && unit_ok && digits(range)) {
        return None;
    }
    let value: f64 = value.replace(',', "").parse().ok()?;
    Some((
        name.trim().into(),
        value,
        unit.into(),
        range.replace(',', ""),
    ))
}

/// A bench line as Bencher's `rust_bench` adapter reads it: `test`, spaces,
/// the name up to the first space, spaces, `...`, spaces, `bench:`,
/// spaces, a whole number (commas allowed), spaces, a time unit and
/// `/iter`, spaces, `(+/- N)`, and the end of the line. Returns (name,
/// value, lower, upper).
fn bencher_rust_bench_line(line: &str) -> Option<(String, f64, f64, f64)> {
    let spaces = |s: &str| -> Option<String> {
        let t = s.trim_start_matches([' ', '\t']);
        (t.len() < s.len()).then(|| t.to_string())
    };
    let whole = |s: &str| -> Option<f64> {
        let ok = !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == ',');
        ok.then(|| s.replace(',', "").parse().ok())?
    };
    let rest = spaces(line.strip_prefix("test")?)?;
    let (name, rest) = rest.split_at(rest.find(' ')?);
    let rest = spaces(rest)?;
    let rest = spaces(rest.strip_prefix("...")?)?;
    let rest = spaces(rest.strip_prefix("bench:")?)?;
    let (value, rest) = rest.split_at(rest.find(' ')?);
    let rest = spaces(rest)?;
    let nanos = ["ns", "µs", "us", "ms", "s"]
        .iter()
        .find_map(|u| Some((u, rest.strip_prefix(u)?.strip_prefix("/iter")?)));
    let (unit, rest) = nanos?;
    let scale = match *unit {
        "ns" => 1.0,
        "µs" | "us" => 1e3,
        "ms" => 1e6,
        _ => 1e9,
    };
    let rest = spaces(rest)?;
    let spread = spaces(rest.strip_prefix("(+/-")?)?
        .strip_suffix(')')?
        .to_string();
    let (value, spread) = (whole(value)? * scale, whole(&spread)? * scale);
    Some((name.into(), value, value - spread, value + spread))
}

/// The BMF rules of bencher.dev/bmf.json: an object of benchmarks, each an
/// object of measures, each an object with a numeric `value` and optional
/// numeric `lower_value`/`upper_value`, here also lower ≤ value ≤ upper.
fn check_bmf(v: &Value) -> &Map<String, Value> {
    let benchmarks = v.as_object().expect("BMF is an object");
    for (id, measures) in benchmarks {
        assert!(!id.is_empty());
        let measures = measures.as_object().expect("a benchmark is an object");
        for (measure, metric) in measures {
            assert!(!measure.is_empty() && measure.len() <= 64, "{measure}");
            let value = metric.f64_at("value");
            let metric = metric.as_object().expect("a measure is an object");
            for (key, n) in metric {
                assert!(
                    ["value", "lower_value", "upper_value"].contains(&key.as_str()),
                    "{id} {measure}: {key}"
                );
                assert!(n.is_number(), "{id} {measure} {key}: {n}");
            }
            let lower = metric
                .get("lower_value")
                .map_or(value, common::json::number);
            let upper = metric
                .get("upper_value")
                .map_or(value, common::json::number);
            assert!(
                lower <= value && value <= upper,
                "{id} {measure}: {metric:?}"
            );
        }
    }
    benchmarks
}

/// The custom tools' rules of github-action-benchmark's `extract.ts`: an
/// array of objects with a string `name` and `unit`, a numeric `value`,
/// and optionally string `range` and `extra`. Returns the names.
fn check_action_array(v: &Value) -> Vec<String> {
    let entries = v.as_array().expect("an array");
    assert!(!entries.is_empty(), "the action fails on an empty array");
    entries
        .iter()
        .map(|e| {
            assert!(e["name"].is_string() && e["unit"].is_string(), "{e}");
            assert!(e["value"].is_number(), "{e}");
            for optional in ["range", "extra"] {
                assert!(e.get(optional).is_none_or(Value::is_string), "{e}");
            }
            e.str_at("name").to_string()
        })
        .collect()
}

/// A file's JSON.
fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}: {text}"))
}

#[test]
fn bencher_lines_are_read_whole_by_both_parsers_and_the_files_beside_them_too() {
    let dir = fresh_dir("service-formats", "files-a");
    let (bmf, bmf_path) = file_of("bmf", &dir, "bmf.json");
    let (smaller, smaller_path) = file_of("github-action-benchmark", &dir, "smaller.json");
    let (bigger, bigger_path) = file_of("github-action-benchmark-bigger", &dir, "bigger.json");
    let (run, _) = run(
        "bencher",
        &[
            "--output-format",
            "bencher",
            "--output-file",
            &bmf,
            "--output-file",
            &smaller,
            "--output-file",
            &bigger,
        ],
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), IDS.len(), "{}", run.stdout);
    let action: Vec<_> = lines.iter().filter_map(|l| action_cargo_line(l)).collect();
    let names: Vec<&str> = action.iter().map(|(name, ..)| name.as_str()).collect();
    assert_eq!(
        names, IDS,
        "github-action-benchmark reads every line:\n{}",
        run.stdout
    );
    assert!(action.iter().all(|(_, _, unit, _)| unit == "ns/iter"));
    // Bencher cuts a name at its first space: that line is not read, and
    // the run says so once, naming it and the format that keeps it.
    let bencher: Vec<_> = lines
        .iter()
        .filter_map(|l| bencher_rust_bench_line(l))
        .collect();
    let read: Vec<&str> = bencher.iter().map(|(name, ..)| name.as_str()).collect();
    assert_eq!(read, ["touch_16", "text/ascii"], "{}", run.stdout);
    for (_, value, lower, upper) in &bencher {
        assert!(lower <= value && value <= upper);
    }
    let warned = run.stderr_lines(|l| l.contains("white space"));
    assert_eq!(warned.len(), 1, "{}", run.stderr);
    assert!(warned[0].contains("`text/emoji 🦀`"), "{}", warned[0]);
    assert!(warned[0].contains("--output-format bmf"), "{}", warned[0]);

    let benchmarks = check_bmf(&json_file(&bmf_path)).clone();
    let ids: Vec<&String> = benchmarks.keys().collect();
    assert_eq!(ids, ["text/ascii", "text/emoji 🦀", "touch_16"]);
    let smaller = check_action_array(&json_file(&smaller_path));
    for id in IDS {
        assert!(smaller.contains(&id.to_string()), "{id}: {smaller:?}");
        if let Some(faults) = counted("page-faults") {
            assert!(smaller.contains(&format!("{id} ({faults})")), "{smaller:?}");
        }
    }
    let bigger = check_action_array(&json_file(&bigger_path));
    for id in ["text/ascii", "text/emoji 🦀"] {
        assert!(
            bigger.contains(&format!("{id} (bytes-per-second)")),
            "{bigger:?}"
        );
    }
    assert!(
        !bigger.iter().any(|n| n.starts_with("touch_16")),
        "{bigger:?}"
    );
}

#[test]
fn bmf_on_stdout_holds_every_benchmark_with_latency_counters_and_throughput() {
    let dir = fresh_dir("service-formats", "files-b");
    let (pretty, pretty_path) = file_of("pretty", &dir, "table.txt");
    let (run, _) = run(
        "bmf",
        &[
            "--output-format",
            "bmf",
            "--output-file",
            &pretty,
            "--color",
            "always",
        ],
    );
    let bmf: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("stdout is one BMF object ({e}): {}", run.stdout));
    let benchmarks = check_bmf(&bmf);
    assert_eq!(benchmarks.len(), IDS.len(), "{bmf}");
    for id in IDS {
        let measures = bmf.object_at(id);
        let latency = &measures["latency"];
        assert!(latency.f64_at("value") > 0.0, "{id}: {latency}");
        assert!(latency.get("lower_value").is_some() && latency.get("upper_value").is_some());
        if let Some(faults) = counted("page-faults") {
            assert!(measures.contains_key(&faults), "{id}: {measures:?}");
        }
        let throughput = measures.get("bytes-per-second");
        assert_eq!(
            throughput.is_some(),
            id.starts_with("text/"),
            "{id}: {measures:?}"
        );
    }
    // The table in a file, without colour whatever --color says.
    let table = std::fs::read_to_string(&pretty_path).unwrap();
    assert!(table.lines().any(|l| l.starts_with("touch_16")), "{table}");
    assert!(!table.contains('\u{1b}'), "{table}");
}

#[test]
fn an_output_file_leaves_the_table_on_stdout_and_a_bad_one_stops_the_run_at_once() {
    let dir = fresh_dir("service-formats", "files-d");
    let (bmf, bmf_path) = file_of("bmf", &dir, "results.json");
    let (run, _) = run("table", &["--output-file", &bmf]);
    assert!(
        run.stdout.lines().any(|l| l.starts_with("touch_16")),
        "{}",
        run.stdout
    );
    assert_eq!(check_bmf(&json_file(&bmf_path)).len(), IDS.len());

    let missing = dir.join("no-such-folder").join("x.json");
    let folder = dir.display().to_string();
    for (value, culprit) in [
        (format!("bmf={}", missing.display()), "no-such-folder"),
        (format!("xml={folder}/x.xml"), "`xml`"),
        ("bmf=".to_string(), "``"),
        (format!("json={folder}"), &folder),
    ] {
        let run = bench_binary(&["--exact", "touch_16", "--output-file", &value]);
        assert_eq!(run.code, 2, "{value}: {}", run.stderr);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{value}: {}", run.stderr);
        assert!(
            lines[0].starts_with("perfbench: error: --output-file"),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains(culprit), "{value}: {}", lines[0]);
        assert!(run.stdout.is_empty(), "nothing measured: {}", run.stdout);
    }
}

/// A FIFO, a socket and, where this user may make one, a private copy of
/// `/dev/null` in `dir`, each with what perfbench calls it; the device
/// case is left out, saying so, where mknod fails (as uid 65534).
fn not_regular_files(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let fifo = dir.join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let socket = dir.join("socket");
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let mut made = vec![(fifo, "a FIFO"), (socket, "a socket")];
    let null = dir.join("null");
    let mknod = std::process::Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .output();
    match mknod {
        Ok(out) if out.status.success() => made.push((null, "a device")),
        Ok(out) => eprintln!(
            "skipping the device case: mknod failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => eprintln!("skipping the device case: no mknod: {e}"),
    }
    made
}

/// Whether `path` is still the FIFO, socket or device `what` says.
fn still_there(path: &Path, what: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    match what {
        "a FIFO" => meta.file_type().is_fifo(),
        "a socket" => meta.file_type().is_socket(),
        _ => meta.file_type().is_char_device(),
    }
}

/// The fixtures binary measuring `touch_16` with `args` and `env`, in the
/// folder `cwd`.
fn touch_16_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut run = BenchRun::of(fixtures_binary())
        .args(["--exact", "touch_16"])
        .args(quick_page_faults(args))
        .home(&cwd.join("home"))
        .current_dir(cwd);
    for (key, value) in env {
        run = run.env(key, value);
    }
    run.run()
}

#[test]
fn an_output_file_where_a_device_fifo_or_socket_is_or_one_given_twice_stops_the_run_at_once() {
    let dir = fresh_dir("service-formats", "not-files");
    for (path, what) in not_regular_files(&dir) {
        let value = format!("json={}", path.display());
        let run = touch_16_in(&dir, &["--output-file", &value], &[]);
        assert_eq!(run.code, 2, "{what}: {}{}", run.stdout, run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "perfbench: error: --output-file: `{}` is {what}, not a regular file: \
                 --output-file writes only regular files\n",
                path.display()
            )
        );
        assert_eq!(run.stdout, "", "{what}: nothing is measured");
        assert!(still_there(&path, what), "{what} was replaced");
    }
    // The variable is the route a CI config takes.
    let twice = [("PERFBENCH_OUTPUT_FILE", "bmf=o.json,json=./o.json")];
    let run = touch_16_in(&dir, &[], &twice);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stderr,
        "perfbench: error: PERFBENCH_OUTPUT_FILE: --output-file: `./o.json` and `o.json` are one \
         file, given twice\n"
    );
    assert_eq!(run.stdout, "");
    assert!(!dir.join("o.json").exists(), "nothing written");
}
