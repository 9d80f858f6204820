//! What the two builds of a paired run say to each other: one JSON object
//! a line. The driving build starts the paired build with its requests
//! on a socket (its stdin) holding a one-time token, which
//! [`TOKEN_VARIABLE`] names; the paired build greets it ([`Hello`]) on
//! its stdout, then answers each [`Request`] with a [`Reply`] until its
//! input ends.

use serde::{Deserialize, Serialize};

use crate::counter::group::{Counts, ReadPath};
use crate::measure::{BatchSize, Measurement, Method, Sample, SamplingPlan, Throughput};
use crate::run::bench::{PerIterFacts, RoundMeasured};
use crate::run::bench_failure::BenchFailure;
use crate::run::paired::wire_profile::WireProfile;

/// Set, to a one-time token, in the environment of a paired run's serving
/// processes: one whose stdin is a socket holding that token serves its
/// driver instead of running as a bench binary. Set by anyone else, it is
/// ignored.
pub const TOKEN_VARIABLE: &str = "PERFBENCH_PAIRED_TOKEN";

/// Set to `1` beside [`TOKEN_VARIABLE`], and read by no build of this
/// protocol: builds of protocol 1 served on it alone, so that one given as
/// the paired build (`--paired-with-rev` of an older commit) greets, and is
/// refused in one line by its protocol, instead of running as a bench
/// binary until the greeting's wait ends. Set by anyone else, it is
/// ignored.
pub const CHILD_VARIABLE: &str = "PERFBENCH_PAIRED_CHILD";

/// The version of this protocol; builds that speak another are refused.
/// 2: serving is entered through [`TOKEN_VARIABLE`]'s token. 3: a failed
/// round says why as a [`Failure`], not as text worded to follow an id.
/// 4: a build is asked for a profile of a benchmark ([`Request::Profile`]).
pub const PROTOCOL: u32 = 4;

/// This perfbench's version: builds of two versions measure differently,
/// and are refused as a pair.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The longest greeting line a build reads: 16 MiB, the ids of 100,000
/// benchmarks of 160 characters each, escaped.
pub const GREETING_BYTES: usize = 16 * 1024 * 1024;

/// The longest request line a build serving `ids` reads: its longest id,
/// every byte escaped (`\u001b`: 6 bytes), and 1 KiB for the rest (the
/// round and the plan take under 200 bytes). A longer one asks for no
/// benchmark it has.
pub fn longest_request<'a>(ids: impl IntoIterator<Item = &'a str>) -> usize {
    let longest = ids.into_iter().map(str::len).max().unwrap_or(0);
    longest.saturating_mul(6).saturating_add(1024)
}

/// The first line of the paired build.
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
    /// Profile benchmark `id` (`--profile`, which both builds are given),
    /// whose iterations took about `ns_per_iter` in this build's rounds.
    Profile {
        /// The benchmark.
        id: String,
        /// Nanoseconds an iteration, which sets the sampling rate.
        ns_per_iter: f64,
    },
}

/// What the paired build answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum Reply {
    /// The round, measured.
    Round {
        /// What it measured, raw: the driving build records it as its own.
        round: WireRound,
    },
    /// The profile asked for.
    Profiled {
        /// The stacks sampled, as sent.
        profile: WireProfile,
    },
    /// The round failed: the benchmark panicked or returned an error, or
    /// is not in this build.
    Failed {
        /// Why.
        why: Failure,
    },
}

/// Why a round failed in the build that was asked for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// The benchmark is not in that build.
    NotInThisBuild,
    /// That build cannot read the request: the decoder's error.
    UnreadableRequest(String),
    /// The benchmark panicked: `panicked…`, as [`crate::run::panics`] says.
    Panicked(String),
    /// The benchmark returned an error, or could not be measured: which.
    Errored(String),
}

impl Failure {
    /// The failure of a benchmark measured by [`crate::run::bench::measure_raw`].
    pub fn of_benchmark(why: &BenchFailure) -> Failure {
        match why {
            BenchFailure::Panicked(_) | BenchFailure::ListingPanicked(..) => {
                Failure::Panicked(why.to_string())
            }
            _ => Failure::Errored(why.to_string()),
        }
    }

    /// The failure as it follows a benchmark's id: `: …`, or ` panicked…`.
    pub fn after_id(&self) -> String {
        match self {
            Failure::Panicked(_) => format!(" {self}"),
            _ => format!(": {self}"),
        }
    }

    /// The failure with its text cut so that [`Failure::after_id`] holds at
    /// most `most` characters (a panic's message may be long, and a reply
    /// line is read up to a bounded length).
    pub fn bounded(self, most: usize) -> Failure {
        let cut =
            |text: String, taken: usize| text.chars().take(most.saturating_sub(taken)).collect();
        match self {
            Failure::NotInThisBuild => Failure::NotInThisBuild,
            Failure::UnreadableRequest(e) => Failure::UnreadableRequest(cut(e, 47)),
            Failure::Panicked(text) => Failure::Panicked(cut(text, 1)),
            Failure::Errored(text) => Failure::Errored(cut(text, 2)),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::NotInThisBuild => write!(f, "not in this build"),
            Failure::UnreadableRequest(e) => {
                write!(f, "the baseline build cannot read the request ({e})")
            }
            Failure::Panicked(text) | Failure::Errored(text) => write!(f, "{text}"),
        }
    }
}

/// A round as it is sent: the samples and how they were taken, raw, so
/// that the driving build makes the recording of either build as it makes
/// its own ([`crate::run::bench::recording_of`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireRound {
    /// The names of the metrics its build measured (wall time first): the
    /// samples' values are theirs, and the driving build's must match.
    pub metrics: Vec<String>,
    /// The `Bencher` method's name, its batch size, and its threads.
    pub method: (String, Option<String>, usize),
    /// Per-iteration mode's read path, kept disturbed iterations, and
    /// iterations left out.
    pub per_iter: Option<(String, usize, usize)>,
    /// The sampling plan, in batch mode.
    pub plan: Option<SamplingPlan>,
    /// Each sample: iterations, wall time (ns), time enabled and running,
    /// and the group's values.
    pub samples: Vec<(u64, u64, u64, u64, Vec<u64>)>,
    /// The declared throughput: `bytes` or `elements`, and how many.
    pub throughput: Option<(String, u64)>,
}

impl WireRound {
    /// `measured` as sent, with its build's `metrics`.
    pub fn of(measured: &RoundMeasured, metrics: Vec<String>) -> WireRound {
        let m = &measured.measurement;
        let method = measured.method;
        WireRound {
            metrics,
            method: (
                method.name().into(),
                method.batch_size().map(|b| b.name().to_string()),
                method.threads(),
            ),
            per_iter: (measured.per_iter.as_ref())
                .map(|f| (f.read_path.name().into(), f.multiplexed, f.left_out)),
            plan: measured.plan,
            samples: (m.samples.iter())
                .map(|s| {
                    let c = &s.counts;
                    (
                        s.iterations,
                        s.wall_ns,
                        c.time_enabled,
                        c.time_running,
                        c.values.clone(),
                    )
                })
                .collect(),
            throughput: m.throughput.map(|t| match t {
                Throughput::Bytes(n) => ("bytes".into(), n),
                Throughput::Elements(n) => ("elements".into(), n),
            }),
        }
    }

    /// The round measured; `Err` names what does not read back.
    pub fn measured(self) -> Result<RoundMeasured, Unknown> {
        let (name, size, threads) = self.method;
        let size = size.map(|s| BatchSize::from_name(&s).ok_or(Unknown::BatchSize(s)));
        let size = size.transpose()?;
        let method = Method::from_parts(&name, size, threads).ok_or(Unknown::Method(name))?;
        let per_iter = match self.per_iter {
            None => None,
            Some((path, multiplexed, left_out)) => Some(PerIterFacts {
                read_path: [ReadPath::Rdpmc, ReadPath::Syscall, ReadPath::AtomicLoads]
                    .into_iter()
                    .find(|p| p.name() == path)
                    .ok_or(Unknown::ReadPath(path))?,
                multiplexed,
                left_out,
            }),
        };
        let throughput = match self.throughput {
            None => None,
            Some((kind, n)) if kind == "bytes" => Some(Throughput::Bytes(n)),
            Some((kind, n)) if kind == "elements" => Some(Throughput::Elements(n)),
            Some((kind, _)) => return Err(Unknown::Throughput(kind)),
        };
        let samples = (self.samples.into_iter())
            .map(
                |(iterations, wall_ns, time_enabled, time_running, values)| Sample {
                    iterations,
                    wall_ns,
                    counts: Counts {
                        time_enabled,
                        time_running,
                        values,
                    },
                },
            )
            .collect();
        Ok(RoundMeasured {
            measurement: Measurement {
                samples,
                throughput,
            },
            per_iter,
            plan: self.plan,
            method,
        })
    }
}

/// One message as its line, without the line break.
pub fn line<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).expect("protocol messages serialise")
}

/// What of a sent round does not read back as this build's: a name it
/// does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// A batch size.
    BatchSize(String),
    /// A `Bencher` method.
    Method(String),
    /// A read path.
    ReadPath(String),
    /// A throughput's kind.
    Throughput(String),
}

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unknown::BatchSize(s) => write!(f, "batch size `{s}`"),
            Unknown::Method(s) => write!(f, "method `{s}`"),
            Unknown::ReadPath(s) => write!(f, "read path `{s}`"),
            Unknown::Throughput(s) => write!(f, "throughput `{s}`"),
        }
    }
}

impl std::error::Error for Unknown {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Shape;
    use crate::run::panics::Panic;

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
            why: Failure::Panicked("panicked".into()),
        };
        assert_eq!(
            line(&reply),
            r#"{"is":"failed","why":{"panicked":"panicked"}}"#
        );
    }

    #[test]
    fn a_failure_follows_the_id_as_the_benchmark_worded_it_within_the_bound() {
        let panic = |t: &str| BenchFailure::Panicked(Panic(t.into()));
        let errored = Failure::Errored("returned an error: no".into());
        for (failure, worded) in [
            (
                Failure::of_benchmark(&panic("panicked at src/lib.rs:3:5: no")),
                " panicked at src/lib.rs:3:5: no",
            ),
            (errored, ": returned an error: no"),
            (Failure::of_benchmark(&panic("panicked")), " panicked"),
        ] {
            assert_eq!(failure.after_id(), worded);
            let sent = line(&Reply::Failed {
                why: failure.clone(),
            });
            let back: Reply = serde_json::from_str(&sent).unwrap();
            assert_eq!(back, Reply::Failed { why: failure });
        }
        assert_eq!(Failure::NotInThisBuild.after_id(), ": not in this build");
        let long_error = Failure::Errored(": boom".repeat(50)[2..].to_string());
        assert_eq!(long_error.bounded(40).after_id(), ": boom".repeat(50)[..40]);
        let long_panic = Failure::Panicked(" panic".repeat(50)[1..].to_string());
        assert_eq!(long_panic.bounded(40).after_id(), " panic".repeat(50)[..40]);
        let unread = Failure::UnreadableRequest("e".repeat(100)).bounded(60);
        assert_eq!(unread.after_id().chars().count(), 60);
        assert!(unread.after_id().ends_with("(eeeeeeeeeeeee)"));
    }

    #[test]
    fn a_round_reads_back_as_measured() {
        let measured = RoundMeasured {
            measurement: Measurement {
                samples: vec![Sample {
                    iterations: 3,
                    wall_ns: 900,
                    counts: Counts {
                        time_enabled: 10,
                        time_running: 7,
                        values: vec![12, u64::MAX],
                    },
                }],
                throughput: Some(Throughput::Elements(4)),
            },
            per_iter: Some(PerIterFacts {
                read_path: ReadPath::AtomicLoads,
                multiplexed: 1,
                left_out: 2,
            }),
            plan: None,
            method: Method::IterBatchedRef(BatchSize::NumIterations(8)),
        };
        let metrics = vec!["wall-time".to_string(), "allocs".to_string()];
        let text = line(&Reply::Round {
            round: WireRound::of(&measured, metrics.clone()),
        });
        let Ok(Reply::Round { round }) = serde_json::from_str(&text) else {
            panic!("{text}")
        };
        assert_eq!(round.metrics, metrics);
        assert_eq!(round.measured(), Ok(measured));
        let mut unknown = WireRound::of(&measured_iter(), vec![]);
        unknown.method.0 = "iter_sideways".into();
        assert_eq!(
            unknown.measured(),
            Err(Unknown::Method("iter_sideways".into()))
        );
    }

    fn measured_iter() -> RoundMeasured {
        RoundMeasured {
            measurement: Measurement {
                samples: Vec::new(),
                throughput: None,
            },
            per_iter: None,
            plan: None,
            method: Method::Iter,
        }
    }

    #[test]
    fn the_longest_request_holds_the_longest_id_escaped() {
        assert_eq!(longest_request(["a", "bcd"]), 1024 + 18);
        assert_eq!(longest_request([]), 1024);
        let id = "\u{1b}".repeat(50);
        let request = line(&Request::Measure {
            id: id.clone(),
            round: u64::MAX,
            plan: Some(SamplingPlan {
                shape: Shape::Linear,
                step: u64::MAX,
                samples: u64::MAX,
                rounds: u64::MAX,
            }),
        });
        assert!(request.len() <= longest_request([id.as_str()]), "{request}");
    }

    #[test]
    fn another_version_or_protocol_is_refused_naming_both() {
        assert_eq!(Hello::new(vec![]).incompatible(), None);
        let old = Hello {
            perfbench: "0.0.1".into(),
            ..Hello::new(vec![])
        };
        let why = old.incompatible().unwrap();
        assert_eq!(
            why,
            format!(
                "is built with perfbench 0.0.1 (paired-run protocol {PROTOCOL}), this one with \
                 perfbench {VERSION} (protocol {PROTOCOL}); pair builds of one perfbench version"
            )
        );
        let other = Hello {
            protocol: PROTOCOL + 1,
            ..Hello::new(vec![])
        };
        assert!(other.incompatible().is_some());
    }
}
