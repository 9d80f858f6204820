//! The driving build's handle on the baseline build of a paired run: it
//! starts the baseline bench binary with this run's arguments and
//! environment, checks that it speaks this perfbench's protocol, and asks
//! it for one round at a time. A baseline build that dies (a crash, an
//! abort) is named and started again for the benchmarks after.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use super::protocol::{line, Hello, Reply, Request, CHILD_VARIABLE, GREETING, PROTOCOL};
use crate::analysis::Recording;
use crate::measure::SamplingPlan;
use crate::output::format::quoted;
use crate::store::json::decode_recording;

/// The baseline build of a paired run.
pub struct BaselineBuild {
    /// The bench binary.
    path: PathBuf,
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

impl BaselineBuild {
    /// Starts the bench binary `path` as a baseline build and reads its
    /// greeting; `Err` says in one line why it cannot be paired with.
    pub fn start(path: &Path) -> Result<BaselineBuild, String> {
        let (running, hello) = serve(path)?;
        Ok(BaselineBuild {
            path: path.to_path_buf(),
            running: Some(running),
            gone: None,
            ids: hello.ids,
        })
    }

    /// Round `round` of benchmark `id` measured by the baseline build with
    /// `plan`; `Err` says why not, worded to follow the id.
    pub fn measure(
        &mut self,
        id: &str,
        round: u64,
        plan: Option<SamplingPlan>,
    ) -> Result<Recording, String> {
        if let Some(gone) = &self.gone {
            return Err(gone.clone());
        }
        if self.running.is_none() {
            match serve(&self.path) {
                Ok((running, _)) => self.running = Some(running),
                Err(why) => {
                    let gone = format!(": the baseline build could not be started again: {why}");
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
        match exchange(running, &request) {
            Some(Reply::Round { recording }) => decode_recording(&recording)
                .map_err(|e| format!(": the baseline build sent a round that {e}")),
            Some(Reply::Failed { why }) => Err(format!(" in the baseline build{why}")),
            None => {
                let mut dead = self.running.take().expect("running");
                let _ = dead.process.kill();
                let status = dead
                    .process
                    .wait()
                    .map_or_else(|e| e.to_string(), |s| s.to_string());
                Err(format!(": the baseline build died measuring it ({status})"))
            }
        }
    }
}

impl Drop for BaselineBuild {
    fn drop(&mut self) {
        if let Some(mut running) = self.running.take() {
            // The end of its requests ends it.
            drop(running.requests);
            let _ = running.process.wait();
        }
    }
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
