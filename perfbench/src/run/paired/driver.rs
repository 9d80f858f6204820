//! The driving build's handle on a build serving a paired run (the
//! baseline build, or this one): it starts the bench binary with this
//! run's arguments and environment, checks that it speaks this perfbench's
//! protocol, and asks it for one round at a time. The driving build ends
//! it between blocks of rounds, so that each block is measured by fresh
//! processes (what one process's memory layout does to its speed is then
//! part of the spread between blocks, not a bias of the run); one that
//! dies (a crash, an abort) is named and started again for the benchmarks
//! after.
//!
//! Serving is entered only the way this file starts it: the requests go
//! on a socket (the child's stdin) that holds a one-time token before the
//! child starts, and the child serves only if the token in
//! [`CHILD_VARIABLE`] is what its stdin holds ([`super::child::requested`]).
//! Each serving process leads a process group of its own, which ends with
//! the run: killed whole when the process is ended, and by the kernel and
//! the [`group_guard`](crate::kernel::group_guard) when this process dies,
//! even by SIGKILL.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use super::protocol::{line, Hello, Reply, Request, CHILD_VARIABLE, GREETING};
use crate::kernel::{group_guard, handoff, process_group};
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

/// How long a serving process may take to end once its requests end;
/// then it is killed. One of this perfbench ends in milliseconds.
const ENDS_WITHIN: Duration = Duration::from_secs(1);

/// A baseline build's process, the socket of its requests and the pipe of
/// its replies.
struct Serving {
    process: Child,
    requests: UnixStream,
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
                let status = stop(&mut dead.process);
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

/// Ends a serving process: the end of its requests ends it, or it is
/// killed after [`ENDS_WITHIN`]; what it started ends with its group.
fn end(running: Serving) {
    let Serving {
        mut process,
        requests,
        ..
    } = running;
    drop(requests);
    let since = Instant::now();
    while !process_group::has_ended(process.id()) && since.elapsed() < ENDS_WITHIN {
        std::thread::sleep(Duration::from_millis(2));
    }
    stop(&mut process);
}

/// Kills the group of the serving process `process` (itself, and all it
/// started) and reaps it; its exit status, as said.
fn stop(process: &mut Child) -> String {
    // Killed before it is reaped: until then the group's id is not reused.
    process_group::kill_group(process.id());
    if let Ok(guard) = group_guard::shared() {
        let _ = guard.forget(process.id());
    }
    (process.wait()).map_or_else(|e| e.to_string(), |s| s.to_string())
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
    let (mut process, requests) = spawn(&program).map_err(|e| format!("{named}: {e}"))?;
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
        stop(&mut process);
        return Err(why);
    }
    let running = Serving {
        process,
        requests,
        replies,
    };
    Ok((running, hello.expect("checked above")))
}

/// Starts `program` serving with this process's arguments and
/// environment, its requests on a socket holding a fresh token, which
/// [`CHILD_VARIABLE`] names, in a process group that ends with this run;
/// `Err` says why not.
fn spawn(program: &Path) -> Result<(Child, UnixStream), String> {
    let guard = group_guard::shared()
        .map_err(|e| format!("cannot start the process that ends it with the run: {e}"))?;
    let (requests, theirs) =
        UnixStream::pair().map_err(|e| format!("cannot make its socket: {e}"))?;
    let token = handoff::random_token().map_err(|e| format!("cannot make its token: {e}"))?;
    (&requests)
        .write_all(token.as_bytes())
        .map_err(|e| format!("cannot write its token: {e}"))?;
    let mut command = Command::new(program);
    command
        .args(std::env::args_os().skip(1))
        .env(CHILD_VARIABLE, token)
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    process_group::end_with_this_process(&mut command, guard);
    let process = command
        .spawn()
        .map_err(|e| format!("cannot start it: {e}"))?;
    Ok((process, requests))
}

/// Why the process that printed `first` instead of a greeting is no
/// baseline build of this perfbench.
fn not_a_baseline(named: &str, first: &str, process: &mut Child) -> String {
    let first = first.trim_end();
    if first.is_empty() {
        let status = stop(process);
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
