//! One run of a benchmark binary with `--bench`, built up step by step:
//! the binary (in the environment of [`super::under`]), its arguments, its
//! environment and its `PERFBENCH_HOME`. The tests that run a bench binary
//! directly (not through `cargo bench`) share it instead of each spelling
//! the same command out.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use super::{command, without_our_variables, Run, QUICK, RUNS};

/// A benchmark run being built; [`BenchRun::run`] runs it.
pub struct BenchRun {
    cmd: Command,
}

impl BenchRun {
    /// `binary --bench` in the environment of [`super::under`], without
    /// the test's own `PERFBENCH_*` variables.
    pub fn of(binary: &Path) -> BenchRun {
        BenchRun::through(command(binary))
    }

    /// `launcher --bench`, where `launcher` ends with the bench binary (a
    /// `prlimit` or `unshare` before it), without the test's own
    /// `PERFBENCH_*` variables.
    pub fn through(mut launcher: Command) -> BenchRun {
        without_our_variables(&mut launcher);
        launcher.arg("--bench");
        BenchRun { cmd: launcher }
    }

    /// The short measurement settings of [`QUICK`].
    pub fn quick(self) -> BenchRun {
        self.args(QUICK)
    }

    /// More arguments.
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> BenchRun {
        self.cmd.args(args);
        self
    }

    /// An environment variable.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> BenchRun {
        self.cmd.env(key, value);
        self
    }

    /// The folder the run starts in.
    pub fn current_dir(mut self, dir: &Path) -> BenchRun {
        self.cmd.current_dir(dir);
        self
    }

    /// Where the run stores its results (`PERFBENCH_HOME`).
    pub fn home(self, home: &Path) -> BenchRun {
        self.env("PERFBENCH_HOME", home)
    }

    /// The command, for a test that spawns it itself (to stop it, or to
    /// bound its time).
    pub fn command(self) -> Command {
        self.cmd
    }

    /// Runs it to its end, one run at a time ([`RUNS`]).
    pub fn run(mut self) -> Run {
        let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
        Run::finish(self.cmd.output().expect("the bench binary runs"))
    }
}
