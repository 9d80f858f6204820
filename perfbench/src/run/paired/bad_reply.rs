//! What is wrong with a serving build's reply: one line each, worded to
//! follow the build's name (`the baseline build sent a round of 0
//! threads`). A reply is hostile input: it is checked against what was
//! asked and against the limits of a stored run before it is recorded.

use std::fmt;

use crate::output::format::{quoted, thousands};
use crate::store::json::MAX_COUNT;

/// Why a reply was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadReply {
    /// The line is no reply of the protocol (serde's words).
    NotAReply(String),
    /// A part of the round that this build does not know.
    Unknown(UnknownPart),
    /// The round was not measured in the mode asked (per-iteration where
    /// `per_iter`).
    OtherMode {
        /// The mode asked.
        per_iter: bool,
    },
    /// The round followed another sampling plan than the one sent.
    OtherPlan,
    /// The round's sampling plan is beyond the limits, for round `round`
    /// (from 0).
    PlanOutOfBounds {
        /// Its samples.
        samples: u64,
        /// Its rounds.
        rounds: u64,
        /// Its step.
        step: u64,
        /// The round asked.
        round: u64,
    },
    /// The round holds `sent` samples, not what was `wanted`.
    SampleCount {
        /// The samples sent.
        sent: u64,
        /// The samples wanted: a number, or `1 to N`.
        wanted: String,
    },
    /// Sample `sample` (from 1) ran `ran` iterations, not `planned`.
    Iterations {
        /// The sample.
        sample: usize,
        /// Its iterations.
        ran: u64,
        /// The plan's.
        planned: u64,
    },
    /// Sample `sample` has `has` counts, not `wanted`.
    Counts {
        /// The sample.
        sample: usize,
        /// Its counts.
        has: usize,
        /// One per metric after wall time.
        wanted: usize,
    },
    /// Sample `sample` holds a number above what a stored run holds.
    AboveLimit {
        /// The sample.
        sample: usize,
    },
    /// The samples' iterations add up to more than a stored run holds.
    TooManyIterations,
    /// The round ran on this many threads, beyond the limits.
    Threads(u64),
    /// A throughput above what a stored run holds.
    Throughput,
    /// Per-iteration mode's disturbed or left-out iterations beyond the
    /// round's.
    Disturbed {
        /// The iterations kept.
        kept: usize,
        /// Those multiplexed.
        multiplexed: usize,
        /// Those left out.
        left_out: usize,
    },
}

impl fmt::Display for BadReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadReply::NotAReply(e) => write!(f, "sent what is no reply ({})", quoted(e)),
            BadReply::Unknown(part) => write!(f, "sent a round with an unknown {part}"),
            BadReply::OtherMode { per_iter } => {
                let mode = if *per_iter { "per-iteration" } else { "batch" };
                write!(f, "sent a round not measured in {mode} mode, as asked")
            }
            BadReply::OtherPlan => {
                f.write_str("sent a round of another sampling plan than the one sent")
            }
            BadReply::PlanOutOfBounds {
                samples,
                rounds,
                step,
                round,
            } => write!(
                f,
                "sent a round of a sampling plan out of bounds ({samples} samples in {rounds} \
                 rounds of step {step}, for round {})",
                round + 1
            ),
            BadReply::SampleCount { sent, wanted } => write!(
                f,
                "sent a round of {} samples, not {wanted}",
                thousands(*sent as f64)
            ),
            BadReply::Iterations {
                sample,
                ran,
                planned,
            } => write!(
                f,
                "sent a round whose sample {sample} ran {ran} iterations, not {planned}"
            ),
            BadReply::Counts {
                sample,
                has,
                wanted,
            } => write!(
                f,
                "sent a round whose sample {sample} has {has} counts, not {wanted} (one per \
                 metric after wall time)"
            ),
            BadReply::AboveLimit { sample } => write!(
                f,
                "sent a round whose sample {sample} holds a number above {MAX_COUNT}"
            ),
            BadReply::TooManyIterations => {
                write!(f, "sent a round of more than {MAX_COUNT} iterations in all")
            }
            BadReply::Threads(n) => write!(f, "sent a round of {n} threads"),
            BadReply::Throughput => write!(
                f,
                "sent a round of a throughput above {MAX_COUNT} an iteration"
            ),
            BadReply::Disturbed {
                kept,
                multiplexed,
                left_out,
            } => write!(
                f,
                "sent a round of {kept} iterations, {multiplexed} of them disturbed and \
                 {left_out} left out"
            ),
        }
    }
}

impl std::error::Error for BadReply {}

/// A part of a round a build of another version may send, which this one
/// does not know, as it was sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownPart {
    /// A batch size.
    BatchSize(String),
    /// A `Bencher` method.
    Method(String),
    /// A read path of per-iteration mode.
    ReadPath(String),
    /// A kind of throughput.
    Throughput(String),
}

impl fmt::Display for UnknownPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownPart::BatchSize(s) => write!(f, "batch size `{s}`"),
            UnknownPart::Method(s) => write!(f, "method `{s}`"),
            UnknownPart::ReadPath(s) => write!(f, "read path `{s}`"),
            UnknownPart::Throughput(s) => write!(f, "throughput `{s}`"),
        }
    }
}
