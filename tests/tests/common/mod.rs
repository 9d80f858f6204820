//! What the end-to-end tests share: running the fixture benchmarks
//! (tests/benches/fixtures.rs, or another bench target of tests/benches)
//! through `cargo bench`.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

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

/// `cargo bench --bench fixtures` in its own target directory (the outer
/// `cargo test` may hold the lock of the default one), with no `PERFBENCH_*`
/// variable of ours leaking in.
pub fn cargo_bench_command() -> Command {
    cargo_bench_of("fixtures")
}

/// [`cargo_bench_command`] for the bench target `target`.
pub fn cargo_bench_of(target: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(workspace())
        .args(["bench", "-q", "-p", "perfbench-tests", "--bench", target])
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e"),
        )
        .env_remove("COLUMNS");
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

/// The fixtures binary, built by the same `cargo bench`.
pub fn fixtures_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| built(&[], "/fixtures-"))
}

/// Builds with `cargo bench --no-run` plus `extra` (optimised, in the
/// tests' target directory) and returns the executable whose path contains
/// `marker`.
pub fn built(extra: &[&str], marker: &str) -> PathBuf {
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let out = cargo_bench_command()
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
