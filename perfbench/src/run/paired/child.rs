//! A build's side of a paired run: started by the driving build with the
//! run's own arguments (the paired build, and this build itself), its
//! stdin a socket holding the token [`TOKEN_VARIABLE`] names, it opens the
//! same events, greets with the benchmarks it has, and measures the rounds
//! it is asked for, sending each back raw. It stores nothing and prints no results: the driving
//! build holds the store and judges both.

use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;

use super::line_reader::{read_line, Unread};
use super::protocol::{
    line, longest_request, Failure, Hello, Reply, Request, WireRound, CHILD_VARIABLE,
    TOKEN_VARIABLE,
};
use super::reply::MAX_WHY;
use super::wire_profile::WireProfile;
use crate::analysis::metric_names;
use crate::kernel::handoff;
use crate::kernel::sys::take_stdout;
use crate::run::bench::{measure_raw, Job, Routine};
use crate::run::cli::RunOptions;
use crate::run::end_of_run::EXIT_USAGE;
use crate::run::preparation::{self, Preparation};
use crate::run::profiling::Profiler;
use crate::run::registry::Entry;
use crate::run::suite::Suite;
use crate::run::{jobs, stderr, wants};
use crate::store::Store;

/// Whether this process was started by a paired run's driver to serve it:
/// [`TOKEN_VARIABLE`] holds a token and stdin is a socket holding the same
/// token, which only the driver arranges (`driver.rs`). Either variable
/// alone, which a CI config can set, is ignored, with a warning.
pub fn requested() -> bool {
    let token = std::env::var_os(TOKEN_VARIABLE);
    if let Some(token) = &token {
        if handoff::take(std::io::stdin().as_fd(), token.as_bytes()) {
            return true;
        }
    }
    let set = match token {
        Some(_) => TOKEN_VARIABLE,
        None if std::env::var_os(CHILD_VARIABLE).is_some() => CHILD_VARIABLE,
        None => return false,
    };
    stderr::warning(&format!(
        "{set} is internal to paired runs and was ignored: this process was not started by a \
         paired run"
    ));
    false
}

/// Serves the driving build until its requests end; returns the exit code.
/// The requests are served in visits of `suite`, each serving those that
/// come in the order it reaches their benchmarks (a round's, in the
/// driver's order); a request for one it passed starts the next visit.
pub fn serve(options: &RunOptions, (suite, entries): (&dyn Suite, &[Entry]), store: Store) -> i32 {
    let answers = match take_stdout() {
        Ok(out) => std::io::BufWriter::new(out),
        Err(e) => {
            stderr::error(&format!(
                "paired run: cannot keep stdout for the driving build: {e}"
            ));
            return EXIT_USAGE;
        }
    };
    let wants = wants(options, entries);
    let prep = match preparation::prepare_serving_build(options, &wants, store) {
        Ok(prep) => prep,
        Err(e) => {
            stderr::error(&e.to_string());
            return EXIT_USAGE;
        }
    };
    let jobs = jobs(options, entries, &prep);
    let mut server = Server {
        prep,
        limit: longest_request(jobs.iter().map(|j| j.id)),
        jobs,
        profiler: options.profile.as_ref().map(Profiler::new),
        answers,
        requests: std::io::stdin().lock(),
        pending: None,
        answered: 0,
        ended: None,
    };
    let hello = Hello::new(server.jobs.iter().map(|j| j.id.to_string()).collect());
    if send(&mut server.answers, &line(&hello)).is_err() {
        return EXIT_USAGE;
    }
    server.next();
    while server.ended.is_none() {
        server.serve_unreached();
        if server.ended.is_some() {
            break;
        }
        let before = server.answered;
        suite.visit(&mut |entry, routine| server.serve_while(&entry.id, routine));
        if server.ended.is_none() && server.answered == before {
            server.answer(Reply::Failed {
                why: Failure::Errored("this build's suite did not run it".into()),
            });
        }
    }
    server.ended.unwrap_or(0)
}

/// A serving build's state between requests.
struct Server<'a, R> {
    prep: Preparation,
    jobs: Vec<Job<'a>>,
    limit: usize,
    profiler: Option<Profiler>,
    answers: std::io::BufWriter<std::fs::File>,
    requests: R,
    /// The request read and not yet answered: its benchmark's id and the
    /// request, or the reply it gets without its routine.
    pending: Option<(String, Result<Request, Reply>)>,
    /// How many requests were answered.
    answered: usize,
    /// The exit code, once the requests ended or cannot be answered.
    ended: Option<i32>,
}

impl<R: std::io::BufRead> Server<'_, R> {
    /// Answers the pending request with `reply` and reads the next.
    fn answer(&mut self, reply: Reply) {
        self.pending = None;
        self.answered += 1;
        if send(&mut self.answers, &line(&reply)).is_err() {
            self.ended = Some(0);
            return;
        }
        self.next();
    }

    /// Answers, one after the other, the pending requests that need no
    /// routine: unreadable ones, and those for a benchmark not here.
    fn serve_unreached(&mut self) {
        while let Some((_, Err(reply))) = &self.pending {
            let reply = reply.clone();
            self.answer(reply);
        }
    }

    /// Answers, one after the other, the pending requests for benchmark
    /// `id`, whose routine is `routine`.
    fn serve_while(&mut self, id: &str, routine: Routine<'_>) {
        while let Some((asked, Ok(request))) = &self.pending {
            if asked != id || self.ended.is_some() {
                return;
            }
            let job = (self.jobs.iter())
                .find(|j| j.id == id)
                .expect("checked when read");
            let reply = match request {
                Request::Measure { round, plan, .. } => {
                    measure(&mut self.prep, (job, routine), (*round, *plan))
                }
                Request::Profile { ns_per_iter, .. } => {
                    profile(self.profiler.as_mut(), (job, routine), *ns_per_iter)
                }
            };
            self.answer(reply);
            self.serve_unreached();
        }
    }

    /// Reads the next request into `pending`, or ends.
    fn next(&mut self) {
        let request = match read_line(&mut self.requests, self.limit) {
            Ok(request) => request,
            Err(Unread::TooLong) => {
                stderr::error(&format!(
                    "paired run: the driving build sent a request longer than {} bytes, \
                     the most one for these benchmarks takes",
                    self.limit
                ));
                self.ended = Some(EXIT_USAGE);
                return;
            }
            // The driving build went away: nothing more to do.
            Err(_) => {
                self.ended = Some(0);
                return;
            }
        };
        self.pending = Some(match serde_json::from_slice::<Request>(&request) {
            Ok(request) => {
                let id = match &request {
                    Request::Measure { id, .. } | Request::Profile { id, .. } => id.clone(),
                };
                match self.jobs.iter().any(|j| j.id == id) {
                    true => (id, Ok(request)),
                    false => (
                        id,
                        Err(Reply::Failed {
                            why: Failure::NotInThisBuild,
                        }),
                    ),
                }
            }
            Err(e) => (
                String::new(),
                Err(Reply::Failed {
                    why: Failure::UnreadableRequest(e.to_string()),
                }),
            ),
        });
    }
}
/// One round of a benchmark, as the reply that carries it.
fn measure(
    prep: &mut Preparation,
    (job, routine): (&Job<'_>, Routine<'_>),
    (round, sampling): (u64, Option<crate::measure::SamplingPlan>),
) -> Reply {
    let setup = prep.setup_mut(job.setup);
    match measure_raw(setup, (job, routine), sampling.map(|p| (p, round))) {
        Ok(measured) => {
            let metrics = metric_names(&setup.events)
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            Reply::Round {
                round: WireRound::of(&measured, metrics),
            }
        }
        // A panic's message may be long: the driving build reads a line
        // of a bounded length.
        Err(why) => Reply::Failed {
            why: Failure::of_benchmark(&why).bounded(MAX_WHY),
        },
    }
}

/// The profile of a benchmark, about `ns_per_iter` an iteration, as the
/// reply that carries it; a build not given `--profile` refuses.
fn profile(
    profiler: Option<&mut Profiler>,
    (job, routine): (&Job<'_>, Routine<'_>),
    ns_per_iter: f64,
) -> Reply {
    let Some(profiler) = profiler else {
        return Reply::Failed {
            why: Failure::Errored("this build was not given --profile".into()),
        };
    };
    match profiler.profile((job, routine), ns_per_iter) {
        Ok(profile) => Reply::Profiled {
            profile: WireProfile::of(&profile),
        },
        Err(why) => Reply::Failed {
            why: Failure::Errored(why.to_string()).bounded(MAX_WHY),
        },
    }
}

/// Writes `text` and a line break, and flushes it to the driving build.
fn send(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}
