//! Why a paired run cannot start, or why a build did not measure a round
//! of a benchmark. Each prints one line; where it is about a benchmark,
//! the benchmark's id is added where it is printed
//! ([`PairedError::after_id`]).

use std::fmt;
use std::time::Duration;

use super::protocol::{Failure, VERSION};
use super::reply::ReplyError;
use super::waits::seconds;
use crate::output::format::quoted;
use crate::output::format::thousands;

/// Why a paired run cannot start, or a build did not measure a round.
#[derive(Debug)]
pub enum PairedError {
    /// This bench binary's own path is unknown.
    OwnPath(std::io::Error),
    /// The build `named` could not be started.
    Spawn(String, SpawnError),
    /// The output of the build `named` cannot be read.
    Unreadable(String, String),
    /// The build `named` sent a first line longer than a greeting may be.
    GreetingTooLong(String),
    /// The build `named` did not greet within the wait.
    NoGreeting(String, Duration),
    /// The build `named` greets as another perfbench or protocol: why.
    Incompatible(String, String),
    /// The build `named` ended without a greeting, with this exit status.
    EndedSilently(String, String),
    /// The build `named` printed this first line instead of a greeting.
    NotPerfbench(String, String),
    /// The build `named` was given up on an earlier benchmark.
    GivenUp(String),
    /// The build (`what`) could not be started again: why.
    NotRestarted(&'static str, String),
    /// The build `named` broke the protocol: it was killed.
    Broke(String, ReplyError),
    /// The build (`what`) died measuring the benchmark, with this status.
    Died(&'static str, String),
    /// The build (`what`) measured these metrics, this build those.
    OtherMetrics(&'static str, Vec<String>, Vec<String>),
    /// The benchmark failed in the build (`what`).
    Failed(&'static str, Failure),
}

impl PairedError {
    /// What stands between a benchmark's id and the error: a space before
    /// ` in the baseline build …`, a colon before the rest.
    pub fn after_id(&self) -> &'static str {
        match self {
            PairedError::Failed(..) => " ",
            _ => ": ",
        }
    }
}

impl fmt::Display for PairedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairedError::OwnPath(e) => {
                write!(f, "paired run: cannot tell this bench binary's path: {e}")
            }
            PairedError::Spawn(named, why) => write!(f, "{named}: {why}"),
            PairedError::Unreadable(named, e) => write!(f, "{named}: cannot read it: {e}"),
            PairedError::GreetingTooLong(named) => write!(
                f,
                "{named} sent a line longer than {} bytes, the most a greeting may take",
                thousands(super::protocol::GREETING_BYTES as f64)
            ),
            PairedError::NoGreeting(named, wait) => write!(
                f,
                "{named} did not greet within {}: is it a bench binary built with this perfbench \
                 ({VERSION})? (--paired-timeout sets the wait)",
                seconds(*wait)
            ),
            PairedError::Incompatible(named, why) => write!(f, "{named} {why}"),
            PairedError::EndedSilently(named, status) => write!(
                f,
                "{named} ended without answering ({status}): is it a bench binary built with \
                 this perfbench ({VERSION})?"
            ),
            PairedError::NotPerfbench(named, first) => write!(
                f,
                "{named} does not answer as a bench binary of perfbench {VERSION} does (it \
                 printed `{}`): pair builds of one perfbench version",
                quoted(first)
            ),
            PairedError::GivenUp(named) => write!(f, "{named} was given up earlier"),
            PairedError::NotRestarted(what, why) => {
                write!(f, "{what} could not be started again: {why}")
            }
            PairedError::Broke(named, why) => write!(f, "{named} {why}"),
            PairedError::Died(what, status) => write!(f, "{what} died measuring it ({status})"),
            PairedError::OtherMetrics(what, theirs, ours) => write!(
                f,
                "{what} measured {}, this build {}",
                theirs.join(","),
                ours.join(",")
            ),
            PairedError::Failed(what, why) => write!(f, "in {what}{}", why.after_id()),
        }
    }
}

impl std::error::Error for PairedError {}

/// Why a serving build's process could not be started.
#[derive(Debug)]
pub enum SpawnError {
    /// The process that ends it with the run could not be started.
    Guard(String),
    /// Its socket could not be made.
    Socket(std::io::Error),
    /// Its token could not be made.
    Token(std::io::Error),
    /// Its token could not be written.
    WriteToken(std::io::Error),
    /// It could not be started.
    Start(std::io::Error),
}

impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpawnError::Guard(e) => {
                write!(f, "cannot start the process that ends it with the run: {e}")
            }
            SpawnError::Socket(e) => write!(f, "cannot make its socket: {e}"),
            SpawnError::Token(e) => write!(f, "cannot make its token: {e}"),
            SpawnError::WriteToken(e) => write!(f, "cannot write its token: {e}"),
            SpawnError::Start(e) => write!(f, "cannot start it: {e}"),
        }
    }
}

impl std::error::Error for SpawnError {}
