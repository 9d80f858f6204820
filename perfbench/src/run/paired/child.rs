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
use crate::run::bench::{measure_raw, Job};
use crate::run::cli::RunOptions;
use crate::run::end_of_run::EXIT_USAGE;
use crate::run::preparation::{self, Preparation};
use crate::run::profiling::Profiler;
use crate::run::registry::Entry;
use crate::run::{jobs, routines, stderr, wants};
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
pub fn serve(options: &RunOptions, entries: &[Entry], store: Store) -> i32 {
    let mut answers = match take_stdout() {
        Ok(out) => std::io::BufWriter::new(out),
        Err(e) => {
            stderr::error(&format!(
                "paired run: cannot keep stdout for the driving build: {e}"
            ));
            return EXIT_USAGE;
        }
    };
    let wants = wants(options, entries);
    let mut prep = match preparation::prepare_serving_build(options, &wants, store) {
        Ok(prep) => prep,
        Err(e) => {
            stderr::error(&e.to_string());
            return EXIT_USAGE;
        }
    };
    let routines = routines(entries);
    let jobs = jobs(options, entries, &routines, &prep);
    let hello = Hello::new(jobs.iter().map(|j| j.id.to_string()).collect());
    if send(&mut answers, &line(&hello)).is_err() {
        return EXIT_USAGE;
    }
    let limit = longest_request(jobs.iter().map(|j| j.id));
    let mut profiler = options.profile.as_ref().map(Profiler::new);
    let mut requests = std::io::stdin().lock();
    loop {
        let request = match read_line(&mut requests, limit) {
            Ok(request) => request,
            Err(Unread::TooLong) => {
                stderr::error(&format!(
                    "paired run: the driving build sent a request longer than {limit} bytes, \
                     the most one for these benchmarks takes"
                ));
                return EXIT_USAGE;
            }
            // The driving build went away: nothing more to do.
            Err(_) => break,
        };
        let reply = match serde_json::from_slice::<Request>(&request) {
            Ok(Request::Measure {
                id,
                round,
                plan: sampling,
            }) => measure(&mut prep, &jobs, (&id, round, sampling)),
            Ok(Request::Profile { id, ns_per_iter }) => {
                profile(profiler.as_mut(), &jobs, &id, ns_per_iter)
            }
            Err(e) => Reply::Failed {
                why: Failure::UnreadableRequest(e.to_string()),
            },
        };
        if send(&mut answers, &line(&reply)).is_err() {
            break;
        }
    }
    0
}

/// One round of the benchmark `id`, as the reply that carries it.
fn measure(
    prep: &mut Preparation,
    jobs: &[Job<'_>],
    (id, round, sampling): (&str, u64, Option<crate::measure::SamplingPlan>),
) -> Reply {
    let Some(job) = jobs.iter().find(|j| j.id == id) else {
        return Reply::Failed {
            why: Failure::NotInThisBuild,
        };
    };
    let setup = prep.setup_mut(job.setup);
    match measure_raw(setup, job, sampling.map(|p| (p, round))) {
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

/// The profile of the benchmark `id`, about `ns_per_iter` an iteration,
/// as the reply that carries it; a build not given `--profile` refuses.
fn profile(profiler: Option<&mut Profiler>, jobs: &[Job<'_>], id: &str, ns_per_iter: f64) -> Reply {
    let Some(job) = jobs.iter().find(|j| j.id == id) else {
        return Reply::Failed {
            why: Failure::NotInThisBuild,
        };
    };
    let Some(profiler) = profiler else {
        return Reply::Failed {
            why: Failure::Errored("this build was not given --profile".into()),
        };
    };
    match profiler.profile(job, ns_per_iter) {
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
