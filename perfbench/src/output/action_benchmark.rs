//! github-action-benchmark's custom formats: one JSON array of `{name,
//! unit, value, range, extra}` for the run, read by its `extract.ts` under
//! `tool: customSmallerIsBetter` (`--output-format
//! github-action-benchmark`: wall time, every event, the miss rates) or
//! `tool: customBiggerIsBetter` (`github-action-benchmark-bigger`: a
//! declared throughput per second, and IPC). One action step takes one
//! direction, so each array holds only the metrics of its own.
//!
//! The action draws a chart per `name`: the wall time is named by the id
//! alone, every other metric `id (metric)`, and the wall time too where
//! the id ends in `)` (`f(x) (wall-time)`), so that no two charts share a
//! name. `range` is the 95 % interval,
//! `[low, high]`; `extra` the estimator, the sample count and what the run
//! knows of itself (commit, branch, host, start), a line each.

use serde::Serialize;

use super::bmf::throughput_measure;
use super::destination::Destination;
use crate::analysis::derived::rate;
use crate::analysis::{Analysed, MetricKey, ResultView, WALL_TIME};
use crate::measure::environment::Environment;
use crate::stats::Estimate;
use crate::store::StoreError;

/// Which of the action's tools an array is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// `customSmallerIsBetter`.
    Smaller,
    /// `customBiggerIsBetter`.
    Bigger,
}

/// One entry of the array, as the action's `BenchmarkResult`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ActionEntry {
    /// The chart's name.
    pub name: String,
    /// The unit the chart shows.
    pub unit: String,
    /// The headline figure.
    pub value: f64,
    /// The interval, `[low, high]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
    /// The estimator, samples and run, a line each.
    pub extra: String,
}

/// The entries of one benchmark measured in the run of `env`, for the
/// tool `better` names.
pub fn entries(r: ResultView<'_>, env: &Environment, better: Better) -> Vec<ActionEntry> {
    let run = run_lines(env);
    let entry = |metric: &str, unit: String, e: &Estimate, estimator: &str| {
        let interval = format!("[{}, {}]", short(e.ci.low), short(e.ci.high));
        let extra = format!(
            "{estimator} {interval}, {} samples{run}",
            r.recording.samples()
        );
        let (name, value, range) = (chart_name(r, metric), e.point, Some(interval));
        ActionEntry {
            name,
            unit,
            value,
            range,
            extra,
        }
    };
    let mut out = Vec::new();
    if better == Better::Smaller {
        for m in &r.metrics {
            let unit = format!("{}/iter", m.unit.symbol());
            out.push(entry(&m.name, unit, m.estimate(), m.estimator()));
        }
    }
    // Ratios of the headlines: no interval of their own. Only IPC is
    // better higher; per byte or element is a metric over a constant.
    for (name, value) in &r.derived {
        let bigger = MetricKey::Ipc.is(name);
        if name.contains('/') || bigger != (better == Better::Bigger) {
            continue;
        }
        let extra = format!(
            "ratio of the estimates, {} samples{run}",
            r.recording.samples()
        );
        let (name, unit, value) = (chart_name(r, name), "ratio".into(), *value);
        out.push(ActionEntry {
            name,
            unit,
            value,
            range: None,
            extra,
        });
    }
    if let Some(rate) = rate(r).filter(|_| better == Better::Bigger) {
        let unit = format!("{}s/s", rate.work.noun());
        let measure = throughput_measure(rate.work);
        out.push(entry(&measure, unit, &rate.per_second, "rate"));
    }
    out.retain(|e| e.value.is_finite());
    out
}

/// The name of `metric`'s chart: `id (metric)`, but the id alone for the
/// wall time where the id does not end in `)`. No two charts of a run
/// share a name: ids are unique, a name ending in `)` is never a bare id,
/// and `id (metric)` is one id's only where no metric name holds ` (`
/// (event specs, derived names and rates hold none).
fn chart_name(r: ResultView<'_>, metric: &str) -> String {
    match metric {
        WALL_TIME if !r.recording.id.ends_with(')') => r.recording.id.clone(),
        metric => format!("{} ({metric})", r.recording.id),
    }
}

/// What the run knows of itself, each on a line of its own after the
/// first: `commit 0123abc… (dirty) on main`, `host …`, `started …`.
fn run_lines(env: &Environment) -> String {
    let mut out = String::new();
    if let Some(commit) = &env.commit {
        let dirty = if env.dirty == Some(true) {
            " (dirty)"
        } else {
            ""
        };
        out.push_str(&format!("\ncommit {commit}{dirty}"));
        if let Some(branch) = &env.branch {
            out.push_str(&format!(" on {branch}"));
        }
    }
    for (what, value) in [("host", &env.host), ("started", &env.started)] {
        if let Some(value) = value {
            out.push_str(&format!("\n{what} {value}"));
        }
    }
    out
}

/// A figure as `range` shows it: to four decimals, without trailing
/// zeros (`16`, `3.4123`), `inf` for an open end.
fn short(v: f64) -> String {
    if !v.is_finite() {
        return "inf".into();
    }
    let rounded = (v * 1e4).round() / 1e4;
    format!("{rounded}")
}

/// The run's array, printed or written when the run ends.
pub struct ActionSink {
    out: Destination,
    better: Better,
    environment: Environment,
    entries: Vec<ActionEntry>,
}

impl ActionSink {
    /// An empty array for the tool `better` names, bound for `out`.
    pub fn new(out: Destination, better: Better, environment: Environment) -> ActionSink {
        ActionSink {
            out,
            better,
            environment,
            entries: Vec::new(),
        }
    }

    /// Adds one benchmark's entries.
    pub fn benchmark(&mut self, a: &Analysed) {
        let more = entries(a.view(), &self.environment, self.better);
        self.entries.extend(more);
    }

    /// Prints or writes the array.
    pub fn finish(mut self) -> Result<(), StoreError> {
        // Strings and finite numbers: serde_json has nothing to refuse.
        let text = serde_json::to_string_pretty(&self.entries).expect("entries serialize");
        self.out.line(&text);
        self.out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::exact_result;
    use crate::counter::event::Unit;
    use crate::measure::Throughput;

    fn result() -> Analysed {
        let mut r = exact_result(
            "copy/64",
            &[
                ("wall-time", Unit::Nanoseconds, 32.0),
                ("instructions", Unit::Count, 100.0),
            ],
        );
        r.recording.throughput = Some(Throughput::Bytes(64));
        r.result.derived = vec![
            ("IPC".into(), 2.5),
            ("branch-miss rate".into(), 0.125),
            ("wall-time/byte".into(), 0.5),
        ];
        r
    }

    #[test]
    fn the_smaller_array_has_every_metric_named_for_its_chart() {
        let env = Environment {
            commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
            dirty: Some(true),
            branch: Some("main".into()),
            host: Some("00ff00ff00ff00ff".into()),
            started: Some("2026-11-25T22:41:07Z".into()),
            ..Environment::default()
        };
        let text = serde_json::to_string_pretty(&entries(result().view(), &env, Better::Smaller));
        let run = "\\ncommit 0123456789abcdef0123456789abcdef01234567 (dirty) on main\
                   \\nhost 00ff00ff00ff00ff\\nstarted 2026-11-25T22:41:07Z";
        let expected = format!(
            r#"[
  {{
    "name": "copy/64",
    "unit": "ns/iter",
    "value": 32.0,
    "range": "[32, 32]",
    "extra": "slope [32, 32], 10 samples{run}"
  }},
  {{
    "name": "copy/64 (instructions)",
    "unit": "count/iter",
    "value": 100.0,
    "range": "[100, 100]",
    "extra": "slope [100, 100], 10 samples{run}"
  }},
  {{
    "name": "copy/64 (branch-miss rate)",
    "unit": "ratio",
    "value": 0.125,
    "extra": "ratio of the estimates, 10 samples{run}"
  }}
]"#
        );
        assert_eq!(text.unwrap(), expected);
    }

    #[test]
    fn the_bigger_array_has_the_throughput_and_ipc_only() {
        let got = entries(result().view(), &Environment::default(), Better::Bigger);
        let names: Vec<(&str, &str, f64)> = got
            .iter()
            .map(|e| (e.name.as_str(), e.unit.as_str(), e.value))
            .collect();
        assert_eq!(
            names,
            [
                ("copy/64 (IPC)", "ratio", 2.5),
                ("copy/64 (bytes-per-second)", "bytes/s", 2e9),
            ]
        );
        assert_eq!(got[1].extra, "rate [2000000000, 2000000000], 10 samples");
    }

    #[test]
    fn every_chart_name_is_one_benchmark_s_metric_alone() {
        let metrics = [
            ("wall-time", Unit::Nanoseconds, 32.0),
            ("task-clock", Unit::Nanoseconds, 30.0),
        ];
        let env = Environment::default();
        let mut names = Vec::new();
        for id in ["evil/a", "evil/a (task-clock)", "evil/b (x)(y)", "evil/c)"] {
            let r = exact_result(id, &metrics);
            names.extend(
                entries(r.view(), &env, Better::Smaller)
                    .into_iter()
                    .map(|e| e.name),
            );
        }
        assert_eq!(
            names,
            [
                "evil/a",
                "evil/a (task-clock)",
                "evil/a (task-clock) (wall-time)",
                "evil/a (task-clock) (task-clock)",
                "evil/b (x)(y) (wall-time)",
                "evil/b (x)(y) (task-clock)",
                "evil/c) (wall-time)",
                "evil/c) (task-clock)",
            ]
        );
    }
}
