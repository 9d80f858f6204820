//! A serving build's reply, read: decoded and checked against what was
//! asked before any of it is used, since the paired build is any binary
//! the user named. A round whose samples the driving build could not
//! record as its own (fewer values than metrics, a sample of no
//! iterations, other samples than the plan sent, numbers a stored run
//! cannot hold) is refused in one line, never recorded.

use std::fmt;
use std::time::Duration;

use super::protocol::{Failure, Reply, Unknown, WireRound};
use super::waits::seconds;
use crate::measure::{Config, SamplingPlan, MAX_SAMPLES, MAX_STORED_ITERATIONS};
use crate::output::format::{quoted, thousands};
use crate::profile::Profile;
use crate::run::bench::RoundMeasured;
use crate::run::cli::{MAX_ROUNDS, MAX_SAMPLE_COUNT};
use crate::store::json::{MAX_COUNT, MAX_THREADS};

/// Bytes a reply may take beside its samples and metric names: the
/// method, plan and throughput take under a hundred, a failure's message
/// up to [`MAX_WHY`] characters of up to 6 bytes each (JSON's `\u001b`).
pub const REPLY_BYTES: usize = 64 * 1024;

/// The most bytes a sample takes, beside its counts: its four numbers,
/// brackets and commas.
const SAMPLE_BYTES: usize = 4 * NUMBER_BYTES + 8;

/// The most bytes a number of a sample takes: 20 digits and a comma.
const NUMBER_BYTES: usize = 21;

/// The most characters of a failure's message a serving build sends.
pub const MAX_WHY: usize = 4_000;

/// What a round was asked for: what its reply must hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Asked<'a> {
    /// The metrics the driving build measures the benchmark with (wall
    /// time first): the round's, in this order.
    pub metrics: &'a [String],
    /// The round, from 0.
    pub round: u64,
    /// The sampling plan sent, which the round follows; `None` in
    /// per-iteration mode, and for a first round, which chooses one.
    pub plan: Option<SamplingPlan>,
    /// Whether the benchmark is measured in per-iteration mode.
    pub per_iter: bool,
    /// The most samples the round can hold ([`most_samples`]).
    pub samples: u64,
}

/// The most samples round `round` of a benchmark measured with `config`
/// holds, asked with `plan`: the plan's share; else what a first round's
/// plan takes ([`MAX_SAMPLES`]), or per-iteration mode keeps (its
/// [`MAX_STORED_ITERATIONS`], or the round's sample count where that is
/// more, up to `--sample-count`'s limit).
pub fn most_samples(config: &Config, round: u64, plan: Option<SamplingPlan>) -> u64 {
    match plan {
        Some(plan) => plan.round_samples(round),
        None => {
            let kept = MAX_SAMPLES.max(MAX_STORED_ITERATIONS);
            (config.round(round).sample_count).clamp(kept, MAX_SAMPLE_COUNT)
        }
    }
}

/// The longest reply line `asked` allows: [`REPLY_BYTES`], the metrics'
/// names (6 bytes a byte at most, escaped), and the samples, each with
/// its four numbers and a count per metric but wall time, every number at
/// most 20 digits. With wall time and 6 events, 5 samples take under 66
/// KB; per-iteration mode's most, 1,000,000 samples, 239 MB.
pub fn longest_reply(asked: &Asked<'_>) -> usize {
    let names: usize = asked.metrics.iter().map(|m| m.len() * 6 + 3).sum();
    let sample = SAMPLE_BYTES + NUMBER_BYTES * asked.metrics.len();
    let samples = usize::try_from(asked.samples).unwrap_or(usize::MAX);
    REPLY_BYTES
        .saturating_add(names)
        .saturating_add(sample.saturating_mul(samples))
}

/// A reply, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The round, as asked.
    Round(RoundMeasured),
    /// The round was measured with these metrics, not the ones asked.
    OtherMetrics(Vec<String>),
    /// The round failed: why.
    Failed(Failure),
}

/// The reply `line` to a request `asked`, decoded and checked; `Err` says
/// in one line what is wrong with it, worded to follow the build's name
/// (`sent a round whose …`).
pub fn answer(line: &[u8], asked: &Asked<'_>) -> Result<Answer, ReplyError> {
    let reply =
        serde_json::from_slice::<Reply>(line).map_err(|e| ReplyError::NoReply(e.to_string()))?;
    let round = match reply {
        Reply::Failed { why } => return Ok(Answer::Failed(why.bounded(MAX_WHY))),
        Reply::Profiled { .. } => return Err(ReplyError::NotAsked("a profile")),
        Reply::Round { round } if round.metrics != asked.metrics => {
            return Ok(Answer::OtherMetrics(round.metrics))
        }
        Reply::Round { round } => round,
    };
    let plan = check_mode(&round, asked)?;
    check_samples(&round, asked, plan)?;
    check_facts(&round)?;
    let measured = round.measured().map_err(ReplyError::Unknown)?;
    Ok(Answer::Round(measured))
}

/// The reply `line` to a request for a profile, decoded and checked: the
/// profile, or why the build could not take it; `Err` says how the reply
/// breaks the protocol.
pub fn profiled(line: &[u8]) -> Result<Result<Profile, Failure>, ReplyError> {
    let reply =
        serde_json::from_slice::<Reply>(line).map_err(|e| ReplyError::NoReply(e.to_string()))?;
    match reply {
        Reply::Profiled { profile } => profile.profile().map(Ok).map_err(ReplyError::BadProfile),
        Reply::Failed { why } => Ok(Err(why.bounded(MAX_WHY))),
        Reply::Round { .. } => Err(ReplyError::NotAsked("a round")),
    }
}

/// Checks that the round is measured in the mode asked, and in batch mode
/// follows the plan sent, or a plan the limits allow with the round asked
/// in it; returns that plan.
fn check_mode(round: &WireRound, asked: &Asked<'_>) -> Result<Option<SamplingPlan>, ReplyError> {
    if round.per_iter.is_some() != asked.per_iter || round.plan.is_some() == asked.per_iter {
        return Err(ReplyError::OtherMode(asked.per_iter));
    }
    let Some(plan) = round.plan else {
        return Ok(None);
    };
    if asked.plan.is_some_and(|sent| sent != plan) {
        return Err(ReplyError::OtherPlan);
    }
    // The largest sample runs at most `samples × step` iterations.
    let largest = plan.step.checked_mul(plan.samples);
    let fits = plan.step >= 1
        && largest.is_some_and(|n| n <= MAX_COUNT)
        && (1..=MAX_SAMPLES).contains(&plan.samples)
        && (1..=MAX_ROUNDS.min(plan.samples)).contains(&plan.rounds)
        && asked.round < plan.rounds;
    if !fits {
        return Err(ReplyError::PlanOutOfBounds(plan, asked.round));
    }
    Ok(Some(plan))
}

/// Checks the samples: as many as the plan gives the round (per-iteration
/// mode: from 1 to [`Asked::samples`]), each of the plan's iterations (1
/// in per-iteration mode), with one count per metric but wall time, and
/// every number within what a stored run holds ([`MAX_COUNT`]).
fn check_samples(
    round: &WireRound,
    asked: &Asked<'_>,
    plan: Option<SamplingPlan>,
) -> Result<(), ReplyError> {
    let n = round.samples.len() as u64;
    let expected = plan.map(|p| p.round_samples(asked.round));
    let fits = match expected {
        Some(expected) => n == expected,
        None => (1..=asked.samples).contains(&n),
    };
    if !fits {
        return Err(ReplyError::SampleCount(n, expected.ok_or(asked.samples)));
    }
    let counts = asked.metrics.len().saturating_sub(1);
    let mut total: u64 = 0;
    for (i, (iterations, wall_ns, _, _, values)) in round.samples.iter().enumerate() {
        let at = i + 1;
        let planned = plan.map_or(1, |p| p.iterations(at as u64));
        if *iterations == 0 || *iterations != planned {
            return Err(ReplyError::Iterations(at, *iterations, planned));
        }
        if values.len() != counts {
            return Err(ReplyError::Counts(at, values.len(), counts));
        }
        let numbers = std::iter::once(iterations).chain([wall_ns]).chain(values);
        if numbers.clone().any(|&x| x > MAX_COUNT) {
            return Err(ReplyError::NumberTooLarge(at));
        }
        total = total
            .checked_add(*iterations)
            .filter(|&t| t <= MAX_COUNT)
            .ok_or(ReplyError::TooManyIterations)?;
    }
    Ok(())
}

/// Checks the method's threads, the throughput and per-iteration mode's
/// counts of disturbed iterations against their limits.
fn check_facts(round: &WireRound) -> Result<(), ReplyError> {
    let threads = round.method.2 as u64;
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(ReplyError::Threads(threads));
    }
    if round
        .throughput
        .as_ref()
        .is_some_and(|(_, n)| *n > MAX_COUNT)
    {
        return Err(ReplyError::ThroughputTooLarge);
    }
    if let Some((_, multiplexed, left_out)) = &round.per_iter {
        let n = round.samples.len();
        if *multiplexed > n || *left_out as u64 > MAX_SAMPLE_COUNT {
            return Err(ReplyError::Disturbed(n, *multiplexed, *left_out));
        }
    }
    Ok(())
}

/// How a reply breaks the protocol, worded to follow the build's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyError {
    /// It is no reply: the decoder's error.
    NoReply(String),
    /// Its round is not measured in the mode asked (per-iteration: `true`).
    OtherMode(bool),
    /// Its round follows another sampling plan than the one sent.
    OtherPlan,
    /// Its round's sampling plan is out of bounds, for this round (from 0).
    PlanOutOfBounds(SamplingPlan, u64),
    /// Its round has this many samples, not this many (`Err`: 1 to this).
    SampleCount(u64, Result<u64, u64>),
    /// Its sample (from 1) ran this many iterations, not this many.
    Iterations(usize, u64, u64),
    /// Its sample (from 1) has this many counts, not this many.
    Counts(usize, usize, usize),
    /// Its sample (from 1) holds a number above [`MAX_COUNT`].
    NumberTooLarge(usize),
    /// Its round runs more than [`MAX_COUNT`] iterations in all.
    TooManyIterations,
    /// Its round ran this many threads.
    Threads(u64),
    /// Its round's throughput is above [`MAX_COUNT`] an iteration.
    ThroughputTooLarge,
    /// Its round of this many iterations has this many disturbed, and
    /// this many left out.
    Disturbed(usize, usize, usize),
    /// Its round names what this build does not know.
    Unknown(Unknown),
    /// Its line is longer than this many bytes, the most the round takes.
    TooLong(usize),
    /// It did not answer within this wait.
    TimedOut(Duration),
    /// It sent this, which was not asked.
    NotAsked(&'static str),
    /// It sent a profile that cannot be taken: why.
    BadProfile(&'static str),
}

impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplyError::NoReply(e) => write!(f, "sent what is no reply ({})", quoted(e)),
            ReplyError::OtherMode(per_iter) => {
                let mode = if *per_iter { "per-iteration" } else { "batch" };
                write!(f, "sent a round not measured in {mode} mode, as asked")
            }
            ReplyError::OtherPlan => {
                write!(f, "sent a round of another sampling plan than the one sent")
            }
            ReplyError::PlanOutOfBounds(plan, round) => write!(
                f,
                "sent a round of a sampling plan out of bounds ({} samples in {} rounds of step {}, \
                 for round {})",
                plan.samples,
                plan.rounds,
                plan.step,
                round + 1
            ),
            ReplyError::SampleCount(n, wanted) => {
                let wanted = match wanted {
                    Ok(expected) => thousands(*expected as f64),
                    Err(most) => format!("1 to {}", thousands(*most as f64)),
                };
                write!(f, "sent a round of {} samples, not {wanted}", thousands(*n as f64))
            }
            ReplyError::Iterations(at, ran, planned) => write!(
                f,
                "sent a round whose sample {at} ran {ran} iterations, not {planned}"
            ),
            ReplyError::Counts(at, has, counts) => write!(
                f,
                "sent a round whose sample {at} has {has} counts, not {counts} (one per metric \
                 after wall time)"
            ),
            other => other.fmt_transport(f),
        }
    }
}

impl ReplyError {
    /// [`fmt::Display`] of the errors of a round's numbers, its facts and
    /// its line; the others are written by `fmt`.
    fn fmt_transport(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplyError::NumberTooLarge(at) => write!(
                f,
                "sent a round whose sample {at} holds a number above {MAX_COUNT}"
            ),
            ReplyError::TooManyIterations => {
                write!(f, "sent a round of more than {MAX_COUNT} iterations in all")
            }
            ReplyError::Threads(threads) => write!(f, "sent a round of {threads} threads"),
            ReplyError::ThroughputTooLarge => write!(
                f,
                "sent a round of a throughput above {MAX_COUNT} an iteration"
            ),
            ReplyError::Disturbed(n, multiplexed, left_out) => write!(
                f,
                "sent a round of {n} iterations, {multiplexed} of them disturbed and {left_out} \
                 left out"
            ),
            ReplyError::Unknown(e) => write!(f, "sent a round with an unknown {e}"),
            ReplyError::TooLong(limit) => write!(
                f,
                "sent a line longer than {} bytes, the most a reply of this round takes",
                thousands(*limit as f64)
            ),
            ReplyError::TimedOut(wait) => write!(
                f,
                "did not answer within {} (--paired-timeout sets the wait)",
                seconds(*wait)
            ),
            ReplyError::NotAsked(what) => write!(f, "sent {what}, which was not asked"),
            ReplyError::BadProfile(why) => write!(f, "sent a profile with {why}"),
            // Written by `fmt`.
            _ => Ok(()),
        }
    }
}

impl std::error::Error for ReplyError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Shape;
    use crate::run::paired::protocol::line;

    const METRICS: [&str; 3] = ["wall-time", "instructions", "allocs"];

    fn metrics() -> Vec<String> {
        METRICS.iter().map(|m| m.to_string()).collect()
    }

    /// 10 samples of step 3 in 2 rounds, linear.
    fn plan() -> SamplingPlan {
        SamplingPlan {
            shape: Shape::Linear,
            step: 3,
            samples: 10,
            rounds: 2,
        }
    }

    /// Round 1 of [`plan`], as sent, in batch mode.
    fn asked(metrics: &[String]) -> Asked<'_> {
        Asked {
            metrics,
            round: 1,
            plan: Some(plan()),
            per_iter: false,
            samples: 5,
        }
    }

    /// Round 1 of [`plan`] as a working build answers it.
    fn good() -> WireRound {
        WireRound {
            metrics: metrics(),
            method: ("iter".into(), None, 1),
            per_iter: None,
            plan: Some(plan()),
            samples: (1..=5)
                .map(|i| (3 * i, 100 * i, 9, 9, vec![7 * i, i]))
                .collect(),
            throughput: None,
        }
    }

    /// `round` sent and read as the answer to [`asked`].
    fn read(round: WireRound) -> Result<Answer, ReplyError> {
        let metrics = metrics();
        answer(line(&Reply::Round { round }).as_bytes(), &asked(&metrics))
    }

    /// `round` bent by `bend`, read: the error.
    fn refused(bend: impl FnOnce(&mut WireRound)) -> String {
        let mut round = good();
        bend(&mut round);
        read(round).unwrap_err().to_string()
    }

    #[test]
    fn a_round_as_asked_is_read() {
        let Ok(Answer::Round(measured)) = read(good()) else {
            panic!("{:?}", read(good()))
        };
        assert_eq!(measured.measurement.samples.len(), 5);
        assert_eq!(measured.measurement.samples[4].iterations, 15);
        assert_eq!(measured.plan, Some(plan()));
        let failed = line(&Reply::Failed {
            why: Failure::Errored("x".repeat(MAX_WHY + 10)),
        });
        let metrics = metrics();
        assert_eq!(
            answer(failed.as_bytes(), &asked(&metrics)),
            Ok(Answer::Failed(Failure::Errored("x".repeat(MAX_WHY - 2))))
        );
        let mut other = good();
        other.metrics.pop();
        assert_eq!(
            read(other),
            Ok(Answer::OtherMetrics(vec![
                "wall-time".into(),
                "instructions".into()
            ]))
        );
    }

    #[test]
    fn samples_the_driving_build_cannot_record_are_refused_in_one_line() {
        assert_eq!(
            refused(|r| {
                r.samples[2].4.pop();
            }),
            "sent a round whose sample 3 has 1 counts, not 2 (one per metric after wall time)"
        );
        assert_eq!(
            refused(|r| r.samples[0].0 = 0),
            "sent a round whose sample 1 ran 0 iterations, not 3"
        );
        assert_eq!(
            refused(|r| r.samples[1].0 = 7),
            "sent a round whose sample 2 ran 7 iterations, not 6"
        );
        assert_eq!(
            refused(|r| {
                r.samples.pop();
            }),
            "sent a round of 4 samples, not 5"
        );
        assert_eq!(
            refused(|r| r.samples[3].4[1] = MAX_COUNT + 1),
            format!("sent a round whose sample 4 holds a number above {MAX_COUNT}")
        );
        assert_eq!(
            refused(|r| r.samples[0].1 = u64::MAX),
            format!("sent a round whose sample 1 holds a number above {MAX_COUNT}")
        );
    }

    #[test]
    fn another_plan_mode_method_or_limits_are_refused() {
        assert_eq!(
            refused(|r| r.plan = Some(SamplingPlan { step: 4, ..plan() })),
            "sent a round of another sampling plan than the one sent"
        );
        assert_eq!(
            refused(|r| r.per_iter = Some(("rdpmc".into(), 0, 0))),
            "sent a round not measured in batch mode, as asked"
        );
        assert_eq!(
            refused(|r| r.plan = None),
            "sent a round not measured in batch mode, as asked"
        );
        assert_eq!(
            refused(|r| r.method.0 = "iter_sideways".into()),
            "sent a round with an unknown method `iter_sideways`"
        );
        assert_eq!(refused(|r| r.method.2 = 0), "sent a round of 0 threads");
        assert_eq!(
            refused(|r| r.throughput = Some(("bytes".into(), u64::MAX))),
            format!("sent a round of a throughput above {MAX_COUNT} an iteration")
        );
        assert_eq!(
            refused(|r| r.throughput = Some(("furlongs".into(), 1))),
            "sent a round with an unknown throughput `furlongs`"
        );
        // Unsent, a plan must be within the limits and hold the round.
        let metrics = metrics();
        let first = Asked {
            plan: None,
            ..asked(&metrics)
        };
        let huge = SamplingPlan {
            step: u64::MAX / 2,
            ..plan()
        };
        for (bad, what) in [
            (huge, "10 samples in 2 rounds of step 9223372036854775807"),
            (
                SamplingPlan {
                    rounds: 1,
                    ..plan()
                },
                "10 samples in 1 rounds of step 3",
            ),
            (
                SamplingPlan {
                    samples: 0,
                    ..plan()
                },
                "0 samples in 2 rounds of step 3",
            ),
        ] {
            let round = WireRound {
                plan: Some(bad),
                ..good()
            };
            let text = line(&Reply::Round { round });
            assert_eq!(
                answer(text.as_bytes(), &first).map_err(|e| e.to_string()),
                Err(format!(
                    "sent a round of a sampling plan out of bounds ({what}, for round 2)"
                ))
            );
        }
    }

    #[test]
    fn per_iteration_rounds_are_of_single_iterations_within_the_most_samples() {
        let metrics = metrics();
        let asked = Asked {
            plan: None,
            per_iter: true,
            samples: 3,
            ..asked(&metrics)
        };
        let round = |n: u64, iterations: u64| WireRound {
            per_iter: Some(("read()".into(), 1, 2)),
            plan: None,
            samples: (0..n).map(|_| (iterations, 5, 0, 0, vec![1, 2])).collect(),
            ..good()
        };
        let read = |r: WireRound| {
            answer(line(&Reply::Round { round: r }).as_bytes(), &asked).map_err(|e| e.to_string())
        };
        assert!(matches!(read(round(3, 1)), Ok(Answer::Round(_))));
        assert_eq!(
            read(round(4, 1)),
            Err("sent a round of 4 samples, not 1 to 3".into())
        );
        assert_eq!(
            read(round(0, 1)),
            Err("sent a round of 0 samples, not 1 to 3".into())
        );
        assert_eq!(
            read(round(2, 2)),
            Err("sent a round whose sample 1 ran 2 iterations, not 1".into())
        );
        let mut disturbed = round(2, 1);
        disturbed.per_iter = Some(("read()".into(), 3, 0));
        assert_eq!(
            read(disturbed),
            Err("sent a round of 2 iterations, 3 of them disturbed and 0 left out".into())
        );
    }

    #[test]
    fn what_is_no_reply_is_refused_in_one_line() {
        let metrics = metrics();
        let asked = asked(&metrics);
        for text in [&b""[..], b"{", b"\xff\xfe", b"{\"is\":\"round\"}", b"[1,2]"] {
            let why = answer(text, &asked).unwrap_err().to_string();
            assert!(why.starts_with("sent what is no reply ("), "{why}");
            assert!(!why.contains('\n'), "{why}");
        }
    }

    #[test]
    fn the_longest_reply_grows_with_the_samples_and_metrics() {
        let metrics = metrics();
        let five = longest_reply(&asked(&metrics));
        // 64 KiB, the names (9, 12 and 6 bytes), 5 samples of 4 numbers and
        // 3 counts.
        assert_eq!(five, 65_536 + (54 + 72 + 36 + 9) + 5 * (92 + 63));
        let config = Config::default();
        assert_eq!(most_samples(&config, 1, Some(plan())), 5);
        assert_eq!(most_samples(&config, 0, None), 100_000);
        let million = Config {
            sample_count: MAX_SAMPLE_COUNT,
            rounds: 1,
            ..config
        };
        assert_eq!(most_samples(&million, 0, None), 1_000_000);
        // Wall time and 6 events, 1,000,000 samples: 239 MB.
        let seven: Vec<String> = (0..7).map(|i| format!("event-{i}")).collect();
        let most = Asked {
            samples: 1_000_000,
            ..asked(&seven)
        };
        assert_eq!(longest_reply(&most) / 1_000_000, 239);
    }
}
