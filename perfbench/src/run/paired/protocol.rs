//! What the two builds of a paired run say to each other: one JSON object
//! a line. The driving build starts the baseline build with
//! [`CHILD_VARIABLE`] set; the baseline build greets it ([`Hello`]), then
//! answers each [`Request`] with a [`Reply`] until its input ends.

use serde::{Deserialize, Serialize};

use crate::measure::SamplingPlan;

/// Set (to [`PROTOCOL`]) in the environment of a paired run's baseline
/// build: it serves its driver instead of running as a bench binary.
pub const CHILD_VARIABLE: &str = "PERFBENCH_PAIRED_CHILD";

/// The version of this protocol; builds that speak another are refused.
pub const PROTOCOL: u32 = 1;

/// This perfbench's version: builds of two versions measure differently,
/// and are refused as a pair.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The first line of the baseline build.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// `perfbench-paired`: what tells it from a bench binary that does not
    /// know paired runs and prints its results instead.
    pub hello: String,
    /// Its perfbench's [`VERSION`].
    pub perfbench: String,
    /// Its [`PROTOCOL`].
    pub protocol: u32,
    /// The ids of the benchmarks the run's filters select in that build.
    pub ids: Vec<String>,
}

/// [`Hello::hello`]'s value.
pub const GREETING: &str = "perfbench-paired";

impl Hello {
    /// This build's greeting, offering `ids`.
    pub fn new(ids: Vec<String>) -> Hello {
        Hello {
            hello: GREETING.into(),
            perfbench: VERSION.into(),
            protocol: PROTOCOL,
            ids,
        }
    }

    /// Why a build that greeted with `self` cannot be paired with this one.
    pub fn incompatible(&self) -> Option<String> {
        if self.perfbench != VERSION || self.protocol != PROTOCOL {
            return Some(format!(
                "is built with perfbench {} (paired-run protocol {}), this one with perfbench \
                 {VERSION} (protocol {PROTOCOL}); pair builds of one perfbench version",
                self.perfbench, self.protocol
            ));
        }
        None
    }
}

/// What the driving build asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum Request {
    /// Measure round `round` (from 0) of benchmark `id`, with this build's
    /// sampling plan (`None` in per-iteration mode).
    Measure {
        /// The benchmark.
        id: String,
        /// Its round, from 0: the round's share of time and samples.
        round: u64,
        /// The sampling plan this build's first round chose.
        plan: Option<SamplingPlan>,
    },
}

/// What the baseline build answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum Reply {
    /// The round, as a stored result file holds a recording.
    Round {
        /// The recording (`store::json::encode_round`).
        recording: String,
    },
    /// The round failed: the benchmark panicked or returned an error
    /// (`why` follows its id), or is not in this build.
    Failed {
        /// Why.
        why: String,
    },
}

/// One message as its line, without the line break.
pub fn line<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).expect("protocol messages serialise")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Shape;

    #[test]
    fn messages_are_one_line_each_and_read_back() {
        let request = Request::Measure {
            id: "a\nb".into(),
            round: 3,
            plan: Some(SamplingPlan {
                shape: Shape::Linear,
                step: 7,
                samples: 50,
                rounds: 10,
            }),
        };
        let text = line(&request);
        assert!(!text.contains('\n'), "{text}");
        assert!(
            text.starts_with(r#"{"do":"measure","id":"a\nb","round":3,"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Request>(&text).unwrap(), request);
        let reply = Reply::Failed {
            why: " panicked".into(),
        };
        assert_eq!(line(&reply), r#"{"is":"failed","why":" panicked"}"#);
    }

    #[test]
    fn another_version_or_protocol_is_refused_naming_both() {
        assert_eq!(Hello::new(vec![]).incompatible(), None);
        let old = Hello {
            perfbench: "0.0.1".into(),
            ..Hello::new(vec![])
        };
        let why = old.incompatible().unwrap();
        assert!(
            why.starts_with(
                "is built with perfbench 0.0.1 (paired-run protocol 1), this one with perfbench "
            ),
            "{why}"
        );
        let other = Hello {
            protocol: PROTOCOL + 1,
            ..Hello::new(vec![])
        };
        assert!(other.incompatible().is_some());
    }
}
