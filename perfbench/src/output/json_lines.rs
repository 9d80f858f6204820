//! One benchmark as a line of JSON (`--output-format json`, schema
//! [`SCHEMA`]); values are per iteration. A metric's object is the one a
//! stored result file holds (`store::json::estimates`) with its change and
//! the cost of measuring it; the throughput is the stored one with its rate.
//! Keys are written in the order of their names, the order perfbench has
//! always written them in: the line is made a `serde_json::Value` first,
//! whose objects keep their keys sorted, since a stored object and what a
//! line adds to it (`#[serde(flatten)]`) are two structs.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::destination::Destination;
use crate::analysis::comparison::{self, Comparison, Target};
use crate::analysis::derived::rate;
use crate::analysis::estimates::{estimates, MetricEstimates};
use crate::analysis::profile_shares::{
    function_moves, function_shares, where_changed, FunctionMove,
};
use crate::analysis::standings::Membership;
use crate::analysis::Analysed;
use crate::analysis::{BenchResult, ResultView};
use crate::measure::environment::Environment;
use crate::measure::Throughput;
use crate::profile::Profile;
use crate::store::json::method_json;
use crate::store::{Store, StoreError};

/// The schema tag of every JSON line (`--output-format json`).
pub const SCHEMA: &str = "perfbench/v1";

/// A JSON line.
#[derive(Serialize)]
struct BenchLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "baseline")]
    compared_with: Option<ComparedWithLine<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    batch_size: Option<String>,
    cpu: Option<usize>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    derived: BTreeMap<&'a str, f64>,
    environment: &'a Environment,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'a Membership>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    #[serde(rename = "groups")]
    passes: &'a [Vec<String>],
    id: &'a str,
    iterations: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    left_out_iterations: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    left_out_samples: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<String>,
    metrics: BTreeMap<String, MetricLine<'a>>,
    mode: &'static str,
    multiplexed_samples: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    off_cpu_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<ProfileLine<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    profile_change: Option<Vec<MoveLine<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_path: Option<&'static str>,
    samples: usize,
    schema: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    throughput: Option<ThroughputLine>,
}

/// What the line was compared with.
#[derive(Serialize)]
struct ComparedWithLine<'a> {
    name: &'a str,
    new: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    not_compared: Option<&'a str>,
    /// A build measured in turn with this one (`--paired-with`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    paired: bool,
    /// In a paired run, what moved ([`comparison::why`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
}

/// One metric's estimates with its change and the cost of measuring it.
#[derive(Serialize)]
struct MetricLine<'a> {
    /// The change against the run compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    change: Option<ChangeLine<'a>>,
    #[serde(flatten)]
    estimates: MetricEstimates<'a>,
    /// The cost of measuring, per iteration, taken off.
    #[serde(skip_serializing_if = "Option::is_none")]
    overhead: Option<f64>,
    /// The estimate before the cost of measuring was taken off.
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_estimate: Option<f64>,
}

/// A metric's change.
#[derive(Serialize)]
struct ChangeLine<'a> {
    /// The interval of the relative change, where there is one.
    ci: Option<[f64; 2]>,
    p: f64,
    /// The relative change, where the baseline is not 0.
    relative: Option<f64>,
    /// The runs both sides took in.
    runs: usize,
    verdict: &'a str,
}

/// A declared throughput with its rate per second and the rate's
/// interval (an interval open above has no finite end: `null`).
#[derive(Serialize)]
struct ThroughputLine {
    #[serde(flatten)]
    amount: Throughput,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_second_ci: Option<(f64, Option<f64>)>,
}

/// The sampling profile of the routine (`--profile`).
#[derive(Serialize)]
struct ProfileLine<'a> {
    event: &'a str,
    /// The events the samples stand for (each weighs its period).
    events: u64,
    /// The path of the folded stacks, where the line is written beside
    /// the store that holds them.
    #[serde(skip_serializing_if = "Option::is_none")]
    folded: Option<String>,
    /// The functions with the largest self share, at most
    /// [`PROFILE_FUNCTIONS`].
    functions: Vec<FunctionLine>,
    iterations: u64,
    lost: u64,
    samples: u64,
}

/// A function's shares of the events sampled.
#[derive(Serialize)]
struct FunctionLine {
    name: String,
    #[serde(rename = "self")]
    own: f64,
    total: f64,
}

/// A function whose self events per iteration moved from the profile of
/// the run compared with.
#[derive(Serialize)]
struct MoveLine<'a> {
    after: f64,
    after_per_iteration: f64,
    before: f64,
    before_per_iteration: f64,
    name: &'a str,
}

/// JSON lines as an output: a line per benchmark, the path of its folded
/// stacks from the store they were saved in.
pub struct JsonLinesSink {
    environment: Environment,
    out: Destination,
    store: Store,
}

impl JsonLinesSink {
    /// Lines of a run in `environment`, to `out`, stored in `store`.
    pub fn new(environment: Environment, out: Destination, store: Store) -> JsonLinesSink {
        JsonLinesSink {
            environment,
            out,
            store,
        }
    }

    /// Writes the line of `a`.
    pub fn benchmark(&mut self, a: &Analysed) {
        let was = a.compared_with.as_ref().and_then(|w| w.profile.as_ref());
        let folded = self.store.profile_path(&a.recording.id);
        let line = line_with_folded(
            a.view(),
            &self.environment,
            a.comparison.as_ref(),
            was,
            Some(&folded),
        );
        self.out.line(&line);
    }

    /// Ends the lines, writing a file whole.
    pub fn finish(self) -> Result<(), StoreError> {
        self.out.finish()
    }
}

/// Most functions a line's profile lists.
pub const PROFILE_FUNCTIONS: usize = 50;

/// Most functions a line's `profile_change` lists.
pub const PROFILE_MOVES: usize = 10;

/// One benchmark as a line of JSON (schema [`SCHEMA`]); values are per
/// iteration. `was` is the profile of the run compared with, where it has
/// one.
pub fn bench_line(
    r: ResultView<'_>,
    environment: &Environment,
    comparison: Option<&Comparison>,
    was: Option<&Profile>,
) -> String {
    line_with_folded(r, environment, comparison, was, None)
}

/// As [`bench_line`], its profile (where it has one) naming `folded`, the
/// path of its folded stacks in the store.
fn line_with_folded(
    r: ResultView<'_>,
    environment: &Environment,
    comparison: Option<&Comparison>,
    was: Option<&Profile>,
    folded: Option<&Path>,
) -> String {
    let moves = match (was, &r.recording.profile) {
        (Some(was), Some(is)) => function_moves(was, is, PROFILE_MOVES),
        _ => Vec::new(),
    };
    let run = r.recording;
    let (method, batch_size) = method_json(run.method);
    let line = BenchLine {
        compared_with: comparison.map(|c| ComparedWithLine {
            name: c.against.json_name(),
            new: c.changes.is_none(),
            not_compared: c.unfair.as_deref(),
            paired: matches!(c.against, Target::Paired(_)),
            why: comparison::why(c, &r)
                .filter(|_| matches!(c.against, Target::Paired(_)))
                .map(
                    |why| match where_changed(c, was, r.recording.profile.as_ref()) {
                        Some(moved) => format!("{why}; where: {moved}"),
                        None => why,
                    },
                ),
        }),
        batch_size,
        cpu: environment.cpu,
        derived: r.derived.iter().map(|(n, v)| (n.as_str(), *v)).collect(),
        environment,
        group: run.membership.as_ref(),
        passes: &run.passes,
        id: &run.id,
        iterations: run.total_iterations(),
        // How per-iteration mode read the counters and how many iterations
        // it left out, or in batch mode how many samples, where it left
        // some out.
        left_out_iterations: run.read_path.map(|_| run.left_out),
        left_out_samples: (run.read_path.is_none() && run.left_out > 0).then_some(run.left_out),
        method,
        metrics: metrics(r.result, comparison),
        mode: if run.read_path.is_some() {
            "per-iter"
        } else {
            "batch"
        },
        multiplexed_samples: run.multiplexed_samples,
        off_cpu_ratio: r.off_cpu_ratio,
        profile: (run.profile.as_ref()).map(|p| profile_line(p, folded)),
        profile_change: (!moves.is_empty()).then(|| moves.iter().map(move_line).collect()),
        read_path: run.read_path.map(|p| p.name()),
        samples: run.samples(),
        schema: SCHEMA,
        threads: (run.threads > 1).then_some(run.threads),
        throughput: run.throughput.map(|t| throughput(r, t)),
    };
    let line = serde_json::to_value(&line).expect("JSON lines serialise");
    serde_json::to_string(&line).expect("JSON lines serialise")
}

/// The estimates of `r`'s metrics with the change `comparison` found and
/// the cost of measuring each.
fn metrics<'a>(
    r: &'a BenchResult,
    comparison: Option<&'a Comparison>,
) -> BTreeMap<String, MetricLine<'a>> {
    let line = |(name, estimates): (String, MetricEstimates<'a>)| {
        let change = comparison
            .and_then(|c| c.change(&name))
            .map(|c| ChangeLine {
                ci: c.change.ci.map(|ci| [ci.low, ci.high]),
                p: c.change.p_value,
                relative: c.change.relative,
                runs: c.change.runs,
                verdict: c.verdict.as_str(),
            });
        let overhead = r.overhead.iter().rfind(|o| o.metric == name);
        let line = MetricLine {
            change,
            estimates,
            overhead: overhead.map(|o| o.per_iteration),
            raw_estimate: overhead.map(|o| o.raw_estimate),
        };
        (name, line)
    };
    estimates(r).into_iter().map(line).collect()
}

/// The profile `p` with its top functions, naming `folded` where given.
fn profile_line<'a>(p: &'a Profile, folded: Option<&Path>) -> ProfileLine<'a> {
    let mut shares = function_shares(p);
    shares.truncate(PROFILE_FUNCTIONS);
    ProfileLine {
        event: &p.event,
        events: p.events(),
        folded: folded.map(|f| f.display().to_string()),
        functions: shares
            .into_iter()
            .map(|s| FunctionLine {
                name: s.name,
                own: s.self_share,
                total: s.total_share,
            })
            .collect(),
        iterations: p.iterations,
        lost: p.lost,
        samples: p.samples,
    }
}

/// A function that moved.
fn move_line(m: &FunctionMove) -> MoveLine<'_> {
    MoveLine {
        after: m.after,
        after_per_iteration: m.after_per_iteration,
        before: m.before,
        before_per_iteration: m.before_per_iteration,
        name: &m.name,
    }
}

/// The declared throughput `t` of `r` with its rate per second.
fn throughput(r: ResultView<'_>, t: Throughput) -> ThroughputLine {
    let rate = rate(r).map(|rate| rate.per_second);
    ThroughputLine {
        amount: t,
        per_second: rate.map(|e| e.point),
        // An interval open above (wall time down to 0) has no finite end.
        per_second_ci: rate.map(|e| (e.ci.low, e.ci.high.is_finite().then_some(e.ci.high))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::analysis::test_support::exact_result as result;
    use crate::analysis::Analysed;
    use crate::counter::event::Unit;
    use crate::measure::{BatchSize, Method};

    #[test]
    fn json_lines_follow_the_schema() {
        let r = result(
            "x/1",
            &[
                ("wall-time", Unit::Nanoseconds, 2.5),
                ("page-faults", Unit::Count, 16.0),
            ],
        );
        let env = Environment::read_from(std::path::Path::new("/nonexistent"), Some(1));
        let line = bench_line(r.view(), &env, None, None);
        assert!(!line.contains('\n'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["schema"], "perfbench/v1");
        assert_eq!(v["id"], "x/1");
        assert_eq!(v["mode"], "batch");
        assert_eq!(v["samples"], 10);
        assert_eq!(v["iterations"], 550);
        assert_eq!(v["metrics"]["page-faults"]["estimate"], 16.0);
        assert_eq!(v["metrics"]["page-faults"]["unit"], "count");
        assert_eq!(v["metrics"]["wall-time"]["unit"], "ns");
        assert_eq!(v["cpu"], 1);
        assert_eq!(v["environment"]["cpu"], 1);
        assert_eq!(v["environment"]["cpu_model"], "unknown");
        assert_eq!(v.get("threads"), None, "one thread");
    }

    #[test]
    fn json_lines_give_the_threads_of_a_threaded_benchmark() {
        let mut r = result("x/threads=4", &[("page-faults", Unit::Count, 8.0)]);
        r.recording.threads = 4;
        let line = bench_line(r.view(), &Environment::default(), None, None);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["threads"], 4);
        assert_eq!(v["metrics"]["page-faults"]["estimate"], 8.0);
    }

    #[test]
    fn json_lines_write_a_group_and_a_throughput_with_their_keys_in_order() {
        let mut r = result("x/1", &[("wall-time", Unit::Nanoseconds, 8.0)]);
        r.recording.membership = Some(Membership {
            group: "g".into(),
            member: "m".into(),
            arg: Some("1".into()),
        });
        r.recording.throughput = Some(Throughput::Bytes(64));
        let line = bench_line(r.view(), &Environment::default(), None, None);
        assert!(
            line.contains(r#""group":{"arg":"1","member":"m","name":"g"}"#),
            "{line}"
        );
        assert!(
            line.contains(r#""throughput":{"bytes":64,"per_second":"#),
            "{line}"
        );
    }

    #[test]
    fn json_lines_write_the_events_of_each_pass_under_groups_after_the_group() {
        let mut r = result("x/1", &[("wall-time", Unit::Nanoseconds, 8.0)]);
        let line = bench_line(r.view(), &Environment::default(), None, None);
        assert!(!line.contains(r#""groups""#), "one pass: {line}");
        r.recording.membership = Some(Membership {
            group: "g".into(),
            member: "m".into(),
            arg: None,
        });
        r.recording.passes = vec![vec!["cycles".into()], vec!["instructions".into()]];
        let line = bench_line(r.view(), &Environment::default(), None, None);
        let keys = r#""name":"g"},"groups":[["cycles"],["instructions"]],"id":"#;
        assert!(line.contains(keys), "{line}");
    }

    #[test]
    fn json_lines_name_the_method_but_iter() {
        let mut r = result("x/1", &[("page-faults", Unit::Count, 8.0)]);
        let line = |r: &Analysed| {
            let line = bench_line(r.view(), &Environment::default(), None, None);
            serde_json::from_str::<Value>(&line).unwrap()
        };
        assert_eq!(line(&r).get("method"), None, "iter, as before methods");
        r.recording.method = Method::IterBatched(BatchSize::NumIterations(3));
        assert_eq!(line(&r)["method"], "iter_batched");
        assert_eq!(line(&r)["batch_size"], "inputs=3");
    }

    #[test]
    fn json_lines_carry_the_profile_and_what_moved_since_the_one_compared_with() {
        use crate::profile::folded_profile as profile;
        let mut r = result("x/1", &[("wall-time", Unit::Nanoseconds, 8.0)]);
        let line = bench_line(r.view(), &Environment::default(), None, None);
        assert!(!line.contains("profile"), "{line}");
        r.recording.profile = Some(profile(10, &[("x/1;parse;light", 300), ("x/1;parse", 100)]));
        let was = profile(10, &[("x/1;parse;light", 100), ("x/1;parse", 100)]);
        let line = bench_line(r.view(), &Environment::default(), None, Some(&was));
        let v: Value = serde_json::from_str(&line).unwrap();
        let want = serde_json::json!({
            "event": "cpu-clock",
            "events": 400,
            "functions": [
                {"name": "light", "self": 0.75, "total": 0.75},
                {"name": "parse", "self": 0.25, "total": 1.0},
                {"name": "x/1", "self": 0.0, "total": 1.0},
            ],
            "iterations": 10,
            "lost": 0,
            "samples": 2,
        });
        assert_eq!(v["profile"], want);
        let moved = serde_json::json!([{
            "after": 0.75, "after_per_iteration": 30.0,
            "before": 0.5, "before_per_iteration": 10.0, "name": "light",
        }]);
        assert_eq!(v["profile_change"], moved);
        // Beside a store, the line names the folded stacks, in its place
        // among the profile's keys; nothing else changes.
        let folded = Path::new("/s/x\"1/profile.folded");
        let env = Environment::default();
        let named = line_with_folded(r.view(), &env, None, Some(&was), Some(folded));
        let want = r#""events":400,"folded":"/s/x\"1/profile.folded","functions""#;
        assert_eq!(named.matches(want).count(), 1, "{named}");
        assert_eq!(named.replace(want, r#""events":400,"functions""#), line);
        // Without a profile, no folded.
        r.recording.profile = None;
        let named = line_with_folded(r.view(), &env, None, None, Some(folded));
        assert_eq!(named, bench_line(r.view(), &env, None, None));
    }
}
