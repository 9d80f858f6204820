//! The driving build's handle on a build serving a paired run (the
//! baseline build, or this one): it starts the bench binary with this
//! run's arguments and environment, checks that it speaks this perfbench's
//! protocol, and asks it for one round at a time. The driving build ends
//! it between blocks of rounds, so that each block is measured by fresh
//! processes (what one process's memory layout does to its speed is then
//! part of the spread between blocks, not a bias of the run); one that
//! dies (a crash, an abort) is named and started again for the benchmarks
//! after.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use super::protocol::{line, Hello, Reply, Request, CHILD_VARIABLE, GREETING, PROTOCOL};
use crate::measure::SamplingPlan;
use crate::output::format::quoted;
use crate::run::bench::RoundMeasured;

/// A build serving a paired run.
pub struct ServingBuild {
    /// The bench binary.
    path: PathBuf,
    /// Which build it is, as messages name it: `the baseline build`.
    what: &'static str,
    /// The process serving this run, while it lives.
    running: Option<Serving>,
    /// Why it cannot be started again, once it could not.
    gone: Option<String>,
    /// The benchmarks it has, as it greeted.
    pub ids: Vec<String>,
}

/// A baseline build's process and its pipes.
struct Serving {
    process: Child,
    requests: ChildStdin,
    replies: BufReader<ChildStdout>,
}

impl ServingBuild {
    /// Starts the bench binary `path` serving a paired run and reads its
    /// greeting; `Err` says in one line why it cannot be paired with.
    pub fn start(path: &Path, what: &'static str) -> Result<ServingBuild, String> {
        let (running, hello) = serve(path)?;
        Ok(ServingBuild {
            path: path.to_path_buf(),
            what,
            running: Some(running),
            gone: None,
            ids: hello.ids,
        })
    }

    /// Ends the process serving now; the next round starts a fresh one.
    pub fn restart(&mut self) {
        if let Some(running) = self.running.take() {
            end(running);
        }
    }

    /// Round `round` of benchmark `id` measured by the build with `plan`;
    /// `Err` says why not, worded to follow the id.
    pub fn measure(
        &mut self,
        id: &str,
        round: u64,
        plan: Option<SamplingPlan>,
        metrics: &[String],
    ) -> Result<RoundMeasured, String> {
        if let Some(gone) = &self.gone {
            return Err(gone.clone());
        }
        if self.running.is_none() {
            match serve(&self.path) {
                Ok((running, _)) => self.running = Some(running),
                Err(why) => {
                    let gone = format!(": {} could not be started again: {why}", self.what);
                    self.gone = Some(gone.clone());
                    return Err(gone);
                }
            }
        }
        let running = self.running.as_mut().expect("started above");
        let request = line(&Request::Measure {
            id: id.into(),
            round,
            plan,
        });
        let what = self.what;
        match exchange(running, &request) {
            Some(Reply::Round { round }) if round.metrics != metrics => Err(format!(
                ": {what} measured {}, this build {}",
                round.metrics.join(","),
                metrics.join(",")
            )),
            Some(Reply::Round { round }) => round
                .measured()
                .map_err(|e| format!(": {what} sent a round with an unknown {e}")),
            Some(Reply::Failed { why }) => Err(format!(" in {what}{why}")),
            None => {
                let mut dead = self.running.take().expect("running");
                let _ = dead.process.kill();
                let status =
                    (dead.process.wait()).map_or_else(|e| e.to_string(), |s| s.to_string());
                Err(format!(": {what} died measuring it ({status})"))
            }
        }
    }
}

impl Drop for ServingBuild {
    fn drop(&mut self) {
        self.restart();
    }
}

/// Ends a serving process: the end of its requests ends it.
fn end(running: Serving) {
    let Serving {
        mut process,
        requests,
        ..
    } = running;
    drop(requests);
    let _ = process.wait();
}

/// Writes `request` and reads the reply; `None` where the process is gone
/// or answers what no reply is.
fn exchange(running: &mut Serving, request: &str) -> Option<Reply> {
    writeln!(running.requests, "{request}").ok()?;
    running.requests.flush().ok()?;
    let mut reply = String::new();
    running.replies.read_line(&mut reply).ok()?;
    serde_json::from_str(&reply).ok()
}

/// Starts `path` serving a paired run with this process's arguments and
/// environment, and reads its greeting.
fn serve(path: &Path) -> Result<(Serving, Hello), String> {
    let named = format!("--paired-with `{}`", quoted(&path.display().to_string()));
    // A bare name would be looked up in PATH.
    let program = if path.is_relative() {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    };
    let mut process = Command::new(&program)
        .args(std::env::args_os().skip(1))
        .env(CHILD_VARIABLE, PROTOCOL.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("{named}: cannot start it: {e}"))?;
    let requests = process.stdin.take().expect("piped");
    let mut replies = BufReader::new(process.stdout.take().expect("piped"));
    let mut first = String::new();
    let read = replies.read_line(&mut first);
    let hello = serde_json::from_str::<Hello>(&first)
        .ok()
        .filter(|h| h.hello == GREETING);
    let refused = match (&read, &hello) {
        (Ok(_), Some(hello)) => hello.incompatible().map(|why| format!("{named} {why}")),
        _ => Some(not_a_baseline(&named, &first, &mut process)),
    };
    if let Some(why) = refused {
        let _ = process.kill();
        let _ = process.wait();
        return Err(why);
    }
    let running = Serving {
        process,
        requests,
        replies,
    };
    Ok((running, hello.expect("checked above")))
}

/// Why the process that printed `first` instead of a greeting is no
/// baseline build of this perfbench.
fn not_a_baseline(named: &str, first: &str, process: &mut Child) -> String {
    let first = first.trim_end();
    if first.is_empty() {
        let _ = process.kill();
        let status = process
            .wait()
            .map_or_else(|e| e.to_string(), |s| s.to_string());
        return format!(
            "{named} ended without answering ({status}): is it a bench binary built with this \
             perfbench ({})?",
            super::protocol::VERSION
        );
    }
    format!(
        "{named} does not answer as a bench binary of perfbench {} does (it printed `{}`): \
         pair builds of one perfbench version",
        super::protocol::VERSION,
        quoted(first)
    )
}
