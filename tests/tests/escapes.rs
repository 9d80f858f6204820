//! End to end: hostile text on the command line and in a restored store
//! (a stored CPU model, a stored schema tag) reaches the terminal escaped,
//! cut and one line per message, through the `inputs` bench target
//! (tests/benches/inputs.rs) run directly, so that no line of cargo's
//! echoes the arguments raw; and a paired build's PATH
//! (`PERFBENCH_PAIRED_WITH`), through build B of the `paired` bench target
//! paired with build A at a hostile path.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::bench_run::BenchRun;
use common::{built, cargo_bench_of, files_under, fresh_dir, Run, QUICK, RUNS};
use serde_json::Value;

/// Erase-line, a window title, a clipboard write (OSC 52), a carriage
/// return and a line break, a bidi override and an isolate.
const HOSTILE: &str = "\x1b[2K\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\r\nFake\u{202e}UPC\u{2066}";

/// [`HOSTILE`] as perfbench prints it.
const ESCAPED: &str =
    "\\u{1b}[2K\\u{1b}]0;pwned\\u{7}\\u{1b}]52;c;ZXZpbA==\\u{7}\\r\\nFake\\u{202e}UPC\\u{2066}";

/// The inputs bench target, built optimised as `cargo bench` builds it.
fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| built(&["--bench", "inputs"], "/inputs-"))
}

/// The inputs binary measuring `plain`'s page faults quickly under `home`,
/// with `args` after.
fn run(home: &Path, args: &[&str]) -> Run {
    BenchRun::of(binary())
        .quick()
        .args(["--events", "page-faults", "--exact", "plain"])
        .args(args)
        .home(home)
        .run()
}

/// Whether `text` holds a raw control character (but for line ends) or a
/// character that turns the direction of text.
fn harmful(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
    })
}

/// Every line of `run`'s stderr is a message of perfbench's (or a
/// regression's indented line): none is the rest of a broken one.
fn one_line_each(run: &Run) -> bool {
    run.stderr.lines().all(|l| l.starts_with("perfbench: "))
}

#[test]
fn hostile_baseline_names_are_one_line_errors_escaped_and_cut() {
    let home = fresh_dir("escapes", "names");
    let long = "n".repeat(10_000);
    let cut = format!("{}… (9,800 more characters)", "n".repeat(200));
    for flag in ["--baseline", "--save-baseline"] {
        for (name, shown) in [(HOSTILE, ESCAPED), (&long, cut.as_str())] {
            let run = run(&home, &[flag, name]);
            assert_eq!(run.code, 2, "{flag}: {}", run.stderr);
            assert_eq!(run.stdout, "", "{flag}: nothing is measured");
            assert!(!harmful(&run.stderr), "{flag}: {:?}", run.stderr);
            assert_eq!(run.stderr.lines().count(), 1, "{flag}: {}", run.stderr);
            let said = format!("perfbench: error: baseline name `{shown}`: ");
            assert!(run.stderr.starts_with(&said), "{flag}: {}", run.stderr);
            assert!(run.stderr.len() < 400, "{flag}: {}", run.stderr);
        }
    }
    let nothing_stored = std::fs::read_dir(&home).unwrap().count();
    assert_eq!(nothing_stored, 0, "a refused name stores nothing");
}

/// The stored latest result under `home`, the only one there.
fn latest(home: &Path) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(home)
        .unwrap()
        .map(|e| e.unwrap().path().join("latest.json"))
        .filter(|p| p.is_file())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].clone()
}

/// Sets `field` (a JSON pointer) of the stored result at `path` to `to`.
fn tamper(path: &Path, field: &str, to: &str) {
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    *doc.pointer_mut(field).expect("the field is stored") = Value::from(to);
    std::fs::write(path, doc.to_string()).unwrap();
}

#[test]
fn a_hostile_stored_cpu_model_and_schema_reach_the_terminal_escaped() {
    let home = fresh_dir("escapes", "stored");
    let first = run(&home, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let stored = latest(&home);
    let model = format!("{HOSTILE}{}", "x".repeat(5_000));
    tamper(&stored, "/environment/cpu_model", &model);

    let compared = run(&home, &["--color", "never"]);
    assert_eq!(compared.code, 0, "{}", compared.stderr);
    for text in [&compared.stderr, &compared.stdout] {
        assert!(!harmful(text), "{text:?}");
    }
    assert!(one_line_each(&compared), "{}", compared.stderr);
    let warning = compared
        .stderr
        .lines()
        .find(|l| l.contains("comparing with results from another CPU model"))
        .unwrap_or_else(|| panic!("no warning: {}", compared.stderr));
    let said =
        format!("perfbench: warning: comparing with results from another CPU model (`{ESCAPED}xxx");
    assert!(warning.starts_with(&said), "{warning}");
    assert!(warning.ends_with(" more characters)"), "cut: {warning}");
    assert!(warning.chars().count() < 1_100, "{warning}");
    for file in files_under(&home.join("report")) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        assert!(!harmful(&text), "a raw one in {}", file.display());
    }

    tamper(&latest(&home), "/schema", HOSTILE);
    let refused = run(&home, &[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(!harmful(&refused.stderr), "{:?}", refused.stderr);
    assert!(!harmful(&refused.stdout), "{:?}", refused.stdout);
    assert!(one_line_each(&refused), "{}", refused.stderr);
    let said = format!("has schema `{ESCAPED}`, this perfbench reads `perfbench/result/");
    assert!(refused.stderr.contains(&said), "{}", refused.stderr);
}

/// A folder name that breaks a line into a GitHub Actions workflow command
/// and clears the terminal, with a backslash.
const HOSTILE_FOLDER: &str = "b\n::warning::pwned\x1b[2J\\n";

/// [`HOSTILE_FOLDER`] as perfbench prints it.
const HOSTILE_FOLDER_SHOWN: &str = "b\\n::warning::pwned\\u{1b}[2J\\\\n";

/// Build A of the `paired` bench target (tests/benches/paired.rs, built
/// without `PAIRED_FIXTURE_BUILD`), copied into `dir`/[`HOSTILE_FOLDER`].
fn build_a_at_a_hostile_path(dir: &Path) -> PathBuf {
    let built = built(&["--bench", "paired"], "/paired-");
    let folder = dir.join(HOSTILE_FOLDER);
    std::fs::create_dir_all(&folder).unwrap();
    let copy = folder.join("a");
    std::fs::copy(built, &copy).unwrap();
    copy
}

#[test]
fn a_paired_build_s_hostile_path_reaches_the_table_and_the_gate_escaped() {
    let dir = fresh_dir("escapes", "paired");
    let a = build_a_at_a_hostile_path(&dir);
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let mut cmd = cargo_bench_of("paired");
    cmd.env("PAIRED_FIXTURE_BUILD", "b")
        .arg("--")
        .args(QUICK)
        .args(["--sample-count", "20", "--warm-up-time", "0.2"])
        .args([
            "--noise-threshold",
            "1000",
            "--count-noise-threshold",
            "1000",
        ])
        .args([
            "--fail-on-regression",
            "--exact",
            "grows",
            "--color",
            "never",
        ])
        .env("PERFBENCH_PAIRED_WITH", &a)
        .env("PERFBENCH_HOME", dir.join("home"))
        .env("GITHUB_ACTIONS", "true");
    let run = Run::finish(cmd.output().expect("cargo runs"));
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    for text in [&run.stdout, &run.stderr] {
        assert!(!harmful(text), "{text:?}");
        let commands: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("::warning"))
            .collect();
        assert!(commands.is_empty(), "{commands:?}");
    }
    // Cargo's own lines, on the exit code of 3, come last.
    let ours = (run.stderr.lines()).take_while(|l| !l.starts_with("error: bench failed"));
    let broken = { ours }.find(|l| !l.starts_with("perfbench: ") && !l.starts_with("  "));
    assert_eq!(broken, None, "no message is broken: {}", run.stderr);
    let shown = format!(
        "the paired build `{}/{HOSTILE_FOLDER_SHOWN}/a`",
        dir.display()
    );
    let vs = run
        .stdout
        .lines()
        .find(|l| l.contains("vs the paired build"));
    assert!(
        vs.is_some_and(|l| l.trim_start().starts_with(&format!("vs {shown}"))),
        "{}",
        run.stdout
    );
    // Allocations are counted everywhere; page faults where they may be.
    let header = format!(" against {shown}:");
    let header = run.stderr.lines().find(|l| l.ends_with(&header));
    assert!(
        header.is_some_and(|l| l.starts_with("perfbench: ") && l.contains(" regression")),
        "{}",
        run.stderr
    );
    let gate = format!("perfbench: gate against {shown}: ");
    let gate = run.stderr.lines().find(|l| l.starts_with(&gate));
    assert!(
        gate.is_some_and(|l| l.ends_with("; fails")),
        "{}",
        run.stderr
    );
    let annotation = "::error title=perfbench%3A grows allocs regressed::grows: allocs";
    let annotation = run.stdout.lines().find(|l| l.starts_with(annotation));
    assert!(
        annotation.is_some_and(|l| l.ends_with(&format!("against {shown}"))),
        "{}",
        run.stdout
    );
}
