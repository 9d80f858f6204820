//! The driving build's handle on a build serving a paired run (the
//! paired build, or this one): it starts the bench binary with this
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
//! [`TOKEN_VARIABLE`] is what its stdin holds ([`super::child::requested`]).
//! Each serving process leads a process group of its own, which ends with
//! the run: killed whole when the process is ended, and by the kernel and
//! the [`group_guard`](crate::kernel::group_guard) when this process dies,
//! even by SIGKILL.

use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::line_reader::{Lines, Unread};
use super::paired_error::{PairedError, SpawnError};
use super::protocol::{
    line, Hello, Request, CHILD_VARIABLE, GREETING, GREETING_BYTES, TOKEN_VARIABLE,
};
use super::reply::{answer, longest_reply, profiled, Answer, Asked, ReplyError};
use super::waits::{seconds, Waits};
use super::wire_profile::PROFILE_REPLY_BYTES;
use crate::kernel::{group_guard, handoff, process_group};
use crate::output::format::quoted;
use crate::profile::Profile;
use crate::run::bench::RoundMeasured;
use crate::run::stderr;

/// A build serving a paired run.
pub struct ServingBuild {
    /// The bench binary.
    path: PathBuf,
    /// Which build it is, as messages name it: `the baseline build`.
    what: &'static str,
    /// Its name where it breaks the protocol: `--paired-with `PATH``.
    named: String,
    /// How long it is waited for.
    waits: Waits,
    /// The process serving this run, while it lives.
    running: Option<Serving>,
    /// Why it is not asked again, once it is not.
    gone: Option<Gone>,
    /// The benchmarks it has, as it greeted.
    pub ids: Vec<String>,
}

/// A serving build's process, the socket of its requests and the pipe of
/// its replies.
struct Serving {
    process: Child,
    /// Its requests, until they end.
    requests: Option<UnixStream>,
    replies: Lines,
}

impl ServingBuild {
    /// Starts the bench binary `path` serving a paired run and reads its
    /// greeting, waiting as `waits` says; `Err` says in one line why it
    /// cannot be paired with. Where it breaks the protocol, it is `named`.
    pub fn start(
        path: &Path,
        (what, named): (&'static str, String),
        waits: Waits,
    ) -> Result<ServingBuild, PairedError> {
        let (running, hello) = serve(path, &waits)?;
        Ok(ServingBuild {
            path: path.to_path_buf(),
            what,
            named,
            waits,
            running: Some(running),
            gone: None,
            ids: hello.ids,
        })
    }

    /// Ends the process serving now; the next round starts a fresh one.
    /// One that outlives its requests by [`Waits::end`] is killed, said,
    /// and not started again.
    pub fn restart(&mut self) {
        if let Some(mut running) = self.running.take() {
            let wait = self.waits.end();
            if !ends_within(&mut running, wait) {
                let why = format!(
                    "{} did not end within {} of the end of its requests, and was killed",
                    self.named,
                    seconds(wait)
                );
                stderr::warning(&why);
                self.gone = Some(Gone::GivenUp);
            }
            end(running);
        }
    }

    /// Round `asked.round` of benchmark `id` measured by the build, waiting
    /// `wait` for it; `Err` says why not. A build
    /// that does not answer in time or answers what the protocol does not
    /// allow is killed and not asked again.
    pub fn measure(
        &mut self,
        id: &str,
        asked: &Asked<'_>,
        wait: Duration,
    ) -> Result<RoundMeasured, PairedError> {
        let request = line(&Request::Measure {
            id: id.into(),
            round: asked.round,
            plan: asked.plan,
        });
        let what = self.what;
        let reply = self.ask(&request, longest_reply(asked), wait)?;
        match answer(&reply, asked) {
            Ok(Answer::Round(measured)) => Ok(measured),
            Ok(Answer::OtherMetrics(theirs)) => Err(PairedError::OtherMetrics(
                what,
                theirs,
                asked.metrics.to_vec(),
            )),
            Ok(Answer::Failed(why)) => Err(PairedError::Failed(what, why)),
            Err(why) => Err(self.give_up(why)),
        }
    }

    /// The build's profile of benchmark `id` (`--profile`), whose
    /// iterations take about `ns_per_iter`, waiting `wait` for it; `Err`
    /// says why not, as [`ServingBuild::measure`] does.
    pub fn profile(
        &mut self,
        id: &str,
        ns_per_iter: f64,
        wait: Duration,
    ) -> Result<Profile, PairedError> {
        let request = line(&Request::Profile {
            id: id.into(),
            ns_per_iter,
        });
        let reply = self.ask(&request, PROFILE_REPLY_BYTES, wait)?;
        match profiled(&reply) {
            Ok(Ok(profile)) => Ok(profile),
            Ok(Err(why)) => Err(PairedError::Failed(self.what, why)),
            Err(why) => Err(self.give_up(why)),
        }
    }

    /// Sends `request` to the build, started again if it was ended, and
    /// reads its reply line of at most `limit` bytes within `wait`.
    fn ask(&mut self, request: &str, limit: usize, wait: Duration) -> Result<Vec<u8>, PairedError> {
        if let Some(gone) = &self.gone {
            return Err(self.error_of(gone));
        }
        if self.running.is_none() {
            match serve(&self.path, &self.waits) {
                Ok((running, _)) => self.running = Some(running),
                Err(why) => {
                    let gone = Gone::NotRestarted(why.to_string());
                    let error = self.error_of(&gone);
                    self.gone = Some(gone);
                    return Err(error);
                }
            }
        }
        let running = self.running.as_mut().expect("started above");
        match exchange(running, request, limit, wait) {
            Ok(reply) => Ok(reply),
            Err(Unread::TooLong) => Err(self.give_up(ReplyError::TooLong(limit))),
            Err(Unread::TimedOut) => Err(self.give_up(ReplyError::TimedOut(wait))),
            Err(Unread::Ended(_) | Unread::Failed(_)) => {
                let mut dead = self.running.take().expect("running");
                let status = stop(&mut dead.process);
                Err(PairedError::Died(self.what, status))
            }
        }
    }

    /// Kills the process, which broke the protocol as `why` says, and
    /// keeps the build from being asked again; the error.
    fn give_up(&mut self, why: ReplyError) -> PairedError {
        if let Some(running) = self.running.take() {
            end(running);
        }
        self.gone = Some(Gone::GivenUp);
        PairedError::Broke(self.named.clone(), why)
    }

    /// The error of a round asked of the build once it is `gone`.
    fn error_of(&self, gone: &Gone) -> PairedError {
        match gone {
            Gone::GivenUp => PairedError::GivenUp(self.named.clone()),
            Gone::NotRestarted(why) => PairedError::NotRestarted(self.what, why.clone()),
        }
    }
}

/// Why a build is not asked for rounds again.
#[derive(Clone, Debug)]
enum Gone {
    /// It was killed, given up.
    GivenUp,
    /// It could not be started again: why.
    NotRestarted(String),
}

impl Drop for ServingBuild {
    fn drop(&mut self) {
        self.restart();
    }
}

/// Ends a serving process, which [`ends_within`] may have waited for:
/// its whole group is killed (what it started ends with it) and it is
/// reaped.
fn end(mut running: Serving) {
    drop(running.requests.take());
    stop(&mut running.process);
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

/// Closes the requests of `running` and waits up to `wait` for it to end;
/// `false` where it does not. It is not reaped here ([`end`] does, after
/// killing its group), so that its group's id cannot be reused meanwhile.
fn ends_within(running: &mut Serving, wait: Duration) -> bool {
    drop(running.requests.take());
    let deadline = Instant::now().checked_add(wait);
    let mut pause = Duration::from_millis(1);
    loop {
        if process_group::has_ended(running.process.id()) {
            return true;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        // No wait with a timeout for a child in std: a few checks a
        // second, the first soon, as most end at once.
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Writes `request` and reads the reply line, of at most `limit` bytes,
/// within `wait`; [`Unread::Ended`] where the process is gone.
fn exchange(
    running: &mut Serving,
    request: &str,
    limit: usize,
    wait: Duration,
) -> Result<Vec<u8>, Unread> {
    let gone = |_| Unread::Ended(Vec::new());
    let requests = running.requests.as_mut().ok_or(Unread::Ended(Vec::new()))?;
    writeln!(requests, "{request}").map_err(gone)?;
    requests.flush().map_err(gone)?;
    running.replies.next(limit, wait)
}

/// Starts `path` serving a paired run with this process's arguments and
/// environment, and reads its greeting within `waits`' time.
fn serve(path: &Path, waits: &Waits) -> Result<(Serving, Hello), PairedError> {
    let named = format!("--paired-with `{}`", quoted(&path.display().to_string()));
    // A bare name would be looked up in PATH.
    let program = if path.is_relative() {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    };
    let (mut process, requests) =
        spawn(&program).map_err(|e| PairedError::Spawn(named.clone(), e))?;
    let greeted = greeting(&mut process, &named, waits.greeting());
    let (replies, hello) = match greeted {
        Ok(greeted) => greeted,
        Err(why) => {
            stop(&mut process);
            return Err(why);
        }
    };
    let running = Serving {
        process,
        requests: Some(requests),
        replies,
    };
    Ok((running, hello))
}

/// The replies of `process`, started as the build `named`, and its
/// greeting, read within `wait`; `Err` says in one line why it is no
/// build to pair with.
fn greeting(
    process: &mut Child,
    named: &str,
    wait: Duration,
) -> Result<(Lines, Hello), PairedError> {
    let out = process.stdout.take().expect("piped");
    let unreadable = |e: String| PairedError::Unreadable(named.into(), e);
    let replies = Lines::of(out).map_err(|e| unreadable(e.to_string()))?;
    let first = match replies.next(GREETING_BYTES, wait) {
        Ok(first) => first,
        Err(Unread::Ended(part)) => part,
        Err(Unread::TooLong) => return Err(PairedError::GreetingTooLong(named.into())),
        Err(Unread::TimedOut) => return Err(PairedError::NoGreeting(named.into(), wait)),
        Err(Unread::Failed(e)) => return Err(unreadable(e)),
    };
    let hello = serde_json::from_slice::<Hello>(&first)
        .ok()
        .filter(|h| h.hello == GREETING);
    match hello {
        Some(hello) => match hello.incompatible() {
            Some(why) => Err(PairedError::Incompatible(named.into(), why)),
            None => Ok((replies, hello)),
        },
        None => Err(not_a_serving_build(
            named,
            &String::from_utf8_lossy(&first),
            process,
        )),
    }
}

/// Starts `program` serving with this process's arguments and
/// environment, its requests on a socket holding a fresh token, which
/// [`TOKEN_VARIABLE`] names, in a process group that ends with this run;
/// `Err` says why not.
fn spawn(program: &Path) -> Result<(Child, UnixStream), SpawnError> {
    let guard = group_guard::shared().map_err(|e| SpawnError::Guard(e.to_string()))?;
    let (requests, theirs) = UnixStream::pair().map_err(SpawnError::Socket)?;
    let token = handoff::random_token().map_err(SpawnError::Token)?;
    (&requests)
        .write_all(token.as_bytes())
        .map_err(SpawnError::WriteToken)?;
    let mut command = Command::new(program);
    command
        .args(std::env::args_os().skip(1))
        .env(TOKEN_VARIABLE, token)
        .env(CHILD_VARIABLE, "1")
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    process_group::end_with_this_process(&mut command, guard);
    let process = command.spawn().map_err(SpawnError::Start)?;
    Ok((process, requests))
}

/// Why the process that printed `first` instead of a greeting is no
/// paired build of this perfbench.
fn not_a_serving_build(named: &str, first: &str, process: &mut Child) -> PairedError {
    let first = first.trim_end();
    if first.is_empty() {
        let status = stop(process);
        return PairedError::EndedSilently(named.into(), status);
    }
    PairedError::NotPerfbench(named.into(), first.into())
}
