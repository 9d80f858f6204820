//! What the end-to-end tests share: running the fixture benchmarks
//! (tests/benches/fixtures.rs, or another bench target of tests/benches)
//! through `cargo bench`.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

pub mod bench_run;
pub mod browser;
pub mod json;

/// Runs are serialised: they share a target directory, and measurements are
/// steadier without a second one competing for the two cores.
pub static RUNS: Mutex<()> = Mutex::new(());

/// Short measurement settings; counts stay exact at any length.
pub const QUICK: &[&str] = &[
    "--sample-count",
    "10",
    "--warm-up-time",
    "0.02",
    "--measurement-time",
    "0.1",
];

/// [`QUICK`] counting page faults only, then `args`.
pub fn quick_page_faults<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let faults: [&'static str; 2] = ["--events", "page-faults"];
    QUICK.iter().chain(&faults).chain(args).copied().collect()
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Where the benchmarks run, from `E2E_UNDER`: as the test runs (unset or
/// `root`), as an ordinary user (`nobody`: uid 65534, no capabilities, the
/// kernel's `perf_event_paranoid`), or under a seccomp filter that refuses
/// `perf_event_open` as Docker's default profile does (`seccomp`). CI runs
/// the suite all three ways; the tests assert what each must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Under {
    /// As the test itself runs (root in CI).
    AsIs,
    /// As uid 65534 without capabilities.
    Nobody,
    /// With `perf_event_open` refused by a seccomp filter.
    Seccomp,
}

/// The environment `E2E_UNDER` names.
pub fn under() -> Under {
    match std::env::var("E2E_UNDER").as_deref() {
        Err(_) | Ok("" | "root") => Under::AsIs,
        Ok("nobody") => Under::Nobody,
        Ok("seccomp") => Under::Seccomp,
        Ok(other) => panic!("E2E_UNDER={other}: expected root, nobody or seccomp"),
    }
}

/// The command that puts a benchmark binary in the environment of
/// [`under`], before the binary and its arguments; empty as is.
pub fn runner() -> Vec<String> {
    let environments = workspace().join("tests/environments");
    match under() {
        Under::AsIs => Vec::new(),
        Under::Nobody => vec![
            environments.join("as-nobody.sh").display().to_string(),
            env!("CARGO_TARGET_TMPDIR").to_string(),
        ],
        Under::Seccomp => vec![deny_perf_events().display().to_string()],
    }
}

/// The seccomp wrapper (tests/environments/deny-perf-events.c): the one
/// `E2E_DENY_PERF_EVENTS` names (.ci/run builds it), else built here once.
fn deny_perf_events() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Some(given) = std::env::var_os("E2E_DENY_PERF_EVENTS") {
                return PathBuf::from(given);
            }
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("deny-perf-events");
            let source = workspace().join("tests/environments/deny-perf-events.c");
            let built = Command::new("cc")
                .args(["-O2", "-o"])
                .arg(&out)
                .arg(source)
                .status()
                .expect("cc runs");
            assert!(built.success(), "cc could not build deny-perf-events");
            out
        })
        .clone()
}

/// `binary` as a command in the environment of [`under`], with the target
/// directory `cargo bench` gives it ([`cargo_bench_of`]): a run without
/// `PERFBENCH_HOME` stores there, where the runner lets nobody write, not
/// in the outer `CARGO_TARGET_DIR` the tests may have been given.
pub fn command(binary: &Path) -> Command {
    let mut prefix = runner();
    let mut cmd = if prefix.is_empty() {
        Command::new(binary)
    } else {
        let mut cmd = Command::new(prefix.remove(0));
        cmd.args(prefix).arg(binary);
        cmd
    };
    cmd.env("CARGO_TARGET_DIR", bench_target_dir());
    cmd
}

/// The target directory of the fixtures' `cargo bench`.
pub fn bench_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e")
}

/// What the kernel counts of the software event `name` for benchmarks in
/// this environment, under the name perfbench gives it: the event itself
/// as root, `name:u` for an ordinary user at `perf_event_paranoid` 2
/// (`None` for events the kernel raises in its own context only), and
/// nothing under the filter or where the kernel denies users every event.
pub fn counted(name: &str) -> Option<String> {
    match under() {
        Under::AsIs => Some(name.to_string()),
        Under::Seccomp => None,
        Under::Nobody => {
            let paranoid = perfbench::kernel::sys::perf_event_paranoid().unwrap_or(4);
            let kernel_only = ["context-switches", "cpu-migrations"].contains(&name);
            // The clocks count user space and kernel alike, never narrowed.
            let clock = ["task-clock", "cpu-clock"].contains(&name);
            match paranoid {
                p if p < 2 => Some(name.to_string()),
                2 if clock => Some(name.to_string()),
                2 if !kernel_only => Some(format!("{name}:u")),
                _ => None,
            }
        }
    }
}

/// The metric of `page-faults` among `metrics` (a JSON line's, or a stored
/// file's `estimates`) under the name [`counted`] gives it here; `None`
/// where nothing counts page faults, and then no metric of them is there.
pub fn faults_metric(metrics: &Value) -> Option<&Value> {
    match counted("page-faults") {
        Some(name) => {
            let metric = metrics.get(&name);
            assert!(metric.is_some(), "no {name} in {metrics}");
            metric
        }
        None => {
            let names = metrics.as_object().expect("metrics by name").keys();
            assert!(
                !names.into_iter().any(|n| n.contains("faults")),
                "page faults counted under {:?}: {metrics}",
                under()
            );
            None
        }
    }
}

/// Whether `line` of stderr is one a run adds in this environment on the
/// events it cannot count as asked: kernel counting narrowed to user space
/// or refused as nobody, every event refused under the filter, and wall
/// time measured alone. None is, as is: there every event opens.
fn is_environment_line(line: &str) -> bool {
    match under() {
        Under::AsIs => false,
        Under::Nobody => {
            (line.starts_with("perfbench: note: counting ")
                && line.contains(" in user space only: "))
                || line.contains("not counting `context-switches`: raised by the kernel only")
                || line.contains("not counting `cpu-migrations`: raised by the kernel only")
        }
        Under::Seccomp => {
            line.contains("a seccomp filter blocks perf_event_open")
                || line == "perfbench: note: no event left to count: measuring wall time alone"
        }
    }
}

/// The name of `page-faults` here; `None` where nothing counts it, for
/// tests whose subject needs it (they say so and end).
pub fn page_faults() -> Option<String> {
    let name = counted("page-faults");
    if name.is_none() {
        eprintln!("skipped: nothing counts page faults under {:?}", under());
    }
    name
}

/// `cargo bench --bench fixtures` in its own target directory (the outer
/// `cargo test` may hold the lock of the default one), with no `PERFBENCH_*`
/// variable of ours (nor `GITHUB_ACTIONS`) leaking in.
pub fn cargo_bench_command() -> Command {
    cargo_bench_of("fixtures")
}

/// [`cargo_bench_command`] for the bench target `target`.
pub fn cargo_bench_of(target: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(workspace()).args(["bench", "-q"]);
    let runner = runner();
    if !runner.is_empty() {
        let quoted: Vec<String> = runner.iter().map(|a| format!("{a:?}")).collect();
        let setting = format!("target.'cfg(all())'.runner=[{}]", quoted.join(","));
        cmd.args(["--config", &setting]);
    }
    cmd.args(["-p", "perfbench-tests", "--bench", target])
        .env("CARGO_TARGET_DIR", bench_target_dir())
        .env_remove("COLUMNS")
        // Run on GitHub Actions, the suite would see annotations a test
        // did not ask for.
        .env_remove("GITHUB_ACTIONS");
    without_our_variables(&mut cmd);
    cmd
}

/// Keeps the `PERFBENCH_*` variables of the test's environment from `cmd`.
pub fn without_our_variables(cmd: &mut Command) {
    for (var, _) in std::env::vars() {
        if var.starts_with("PERFBENCH_") {
            cmd.env_remove(var);
        }
    }
}

/// A fresh, empty folder `area/name` in the tests' scratch space.
pub fn fresh_dir(area: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(area).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a run printed and how it ended.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The outcome of a finished process.
    pub fn finish(output: Output) -> Run {
        Run {
            code: output.status.code().expect("exited normally"),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    /// stderr without the lines on events this environment cannot count
    /// as asked: what a test of something else expects anywhere. As is,
    /// stderr itself.
    pub fn stderr_beyond_events(&self) -> String {
        self.stderr
            .lines()
            .filter(|l| !is_environment_line(l))
            .map(|l| format!("{l}\n"))
            .collect()
    }

    /// The lines of stderr that `wanted` picks.
    pub fn stderr_lines(&self, wanted: impl Fn(&str) -> bool) -> Vec<&str> {
        self.stderr.lines().filter(|l| wanted(l)).collect()
    }

    /// The JSON lines of stdout; fails if stdout holds anything else.
    pub fn json(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {l}\n{}", self.stderr))
            })
            .collect()
    }
}

/// `cargo bench --bench fixtures -- ARGS` with extra environment variables.
pub fn bench_with_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    bench_target_with_env("fixtures", args, env)
}

/// `cargo bench --bench TARGET -- ARGS` with extra environment variables.
pub fn bench_target_with_env(target: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let mut cmd = cargo_bench_of(target);
    cmd.arg("--").args(args).envs(env.iter().copied());
    Run::finish(cmd.output().expect("cargo runs"))
}

/// Short times, page faults counted, JSON lines; the sample count is left
/// to each test.
pub const SHORT: &[&str] = &[
    "--warm-up-time",
    "0.02",
    "--measurement-time",
    "0.1",
    "--events",
    "page-faults",
    "--output-format",
    "json",
];

/// [`bench_target_with_env`] with the [`SHORT`] settings before `args`.
pub fn short_of(target: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let all: Vec<&str> = SHORT.iter().chain(args).copied().collect();
    bench_target_with_env(target, &all, env)
}

/// The fixtures binary, built by the same `cargo bench`.
pub fn fixtures_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| built(&[], "/fixtures-"))
}

/// Builds with `cargo bench --no-run` plus `extra` (optimised, in the
/// tests' target directory) and returns the executable whose path contains
/// `marker`.
pub fn built(extra: &[&str], marker: &str) -> PathBuf {
    built_of("fixtures", extra, marker)
}

/// [`built`] for the bench target `target`.
pub fn built_of(target: &str, extra: &[&str], marker: &str) -> PathBuf {
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let out = cargo_bench_of(target)
        .args(["--no-run", "--message-format", "json"])
        .args(extra)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| {
            v["executable"]
                .as_str()
                .filter(|e| e.contains(marker))
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| panic!("cargo names no executable with `{marker}`"))
}

/// Every file under `dir`, at any depth (links not followed); none where
/// `dir` cannot be listed.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}
