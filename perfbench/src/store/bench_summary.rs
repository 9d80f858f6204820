//! A benchmark's summary for the HTML report: what the index row and a
//! group page show of its latest run (its estimates, the change its run
//! found, where it belongs), and apart from it a bounded sample of its
//! per-iteration values for a group page's distributions. A run writes the
//! summaries of its benchmarks (`json/summary_file.rs`), so that a later
//! run lists them without loading and analysing their samples
//! (`report_cache.rs`).

use serde::{Deserialize, Serialize};

use super::json::stored_value as checked;
use crate::analysis::comparison::Comparison;
use crate::analysis::standings::{Membership, Standee};
use crate::analysis::{Analysed, WALL_TIME};
use crate::counter::event::Unit;
use crate::counter::group::ReadPath;
use crate::measure::environment::Environment;
use crate::measure::Throughput;
use crate::stats::Estimate;

/// Most per-iteration values a summary keeps of each metric: enough to
/// draw its distribution, bounded however many samples the run took.
pub const MAX_VALUES: usize = 256;

/// One metric's headline, as a summary file holds it (each field checked
/// as it is read: `json/stored_value.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    /// The headline per iteration with its interval (`Metric::estimate`).
    #[serde(serialize_with = "checked::write_estimate")]
    #[serde(deserialize_with = "checked::metrics_estimate")]
    pub estimate: Estimate,
    /// Its name ([`WALL_TIME`] or an event).
    #[serde(deserialize_with = "checked::metrics_name")]
    pub name: String,
    /// Its unit.
    #[serde(serialize_with = "checked::write_unit")]
    #[serde(deserialize_with = "checked::metrics_unit")]
    pub unit: Unit,
}

/// What the report's index and group pages show of a benchmark's run: a
/// summary file (`json/summary_file.rs`), each field checked as it is read
/// (`json/stored_value.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchSummary {
    /// The benchmark's id.
    #[serde(deserialize_with = "checked::id")]
    pub id: String,
    /// Where it ran.
    #[serde(deserialize_with = "checked::environment")]
    pub environment: Environment,
    /// Its group, member and argument, where it has a group.
    #[serde(rename = "group", default)]
    #[serde(deserialize_with = "checked::group")]
    pub membership: Option<Membership>,
    /// The threads it ran on at once.
    #[serde(deserialize_with = "checked::threads")]
    pub threads: usize,
    /// The throughput it declared.
    #[serde(default)]
    #[serde(deserialize_with = "checked::throughput")]
    pub throughput: Option<Throughput>,
    /// In per-iteration mode, how the counters were read.
    #[serde(default, serialize_with = "checked::write_read_path")]
    #[serde(deserialize_with = "checked::read_path")]
    pub read_path: Option<ReadPath>,
    /// How many samples its run took.
    #[serde(deserialize_with = "checked::samples")]
    pub samples: usize,
    /// Its metrics, wall time first.
    #[serde(deserialize_with = "checked::metrics")]
    pub metrics: Vec<MetricSummary>,
    /// The change its run found, against what that run compared with.
    #[serde(default, serialize_with = "checked::write_comparison")]
    #[serde(deserialize_with = "checked::comparison")]
    pub comparison: Option<Comparison>,
    /// The change points of its history among its last runs
    /// (`history::RECENT_RUNS`), latest last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[serde(deserialize_with = "checked::changed")]
    pub changed: Vec<RecentChange>,
}

/// A change point among a benchmark's last runs, as the index lists it and
/// a summary file holds it (each field checked as it is read).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecentChange {
    /// The mean level after the step.
    #[serde(deserialize_with = "checked::changed_after")]
    pub after: f64,
    /// The mean level before it.
    #[serde(deserialize_with = "checked::changed_before")]
    pub before: f64,
    /// The commit of the first run at the new level, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::changed_commit")]
    pub commit: Option<String>,
    /// Whether that run's tree was dirty, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::changed_dirty")]
    pub dirty: Option<bool>,
    /// The metric its history follows.
    #[serde(deserialize_with = "checked::changed_metric")]
    pub metric: String,
    /// Runs of its series after the first at the new level (0: the latest
    /// run is the first).
    #[serde(deserialize_with = "checked::changed_runs_ago")]
    pub runs_ago: usize,
    /// Its unit.
    #[serde(serialize_with = "checked::write_unit")]
    #[serde(deserialize_with = "checked::changed_unit")]
    pub unit: Unit,
}

/// A metric's per-iteration values: at most [`MAX_VALUES`] of them, at
/// evenly spaced ranks, with how many there were. Written and read as an
/// entry of a values file, each field checked as it is read
/// (`json/stored_value.rs`), their count against the samples after.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampledValues {
    /// The metric.
    #[serde(deserialize_with = "checked::values_name")]
    pub name: String,
    /// How many samples the run took.
    #[serde(deserialize_with = "checked::values_samples")]
    pub samples: usize,
    /// The values at evenly spaced ranks, lowest first, both ends kept.
    #[serde(deserialize_with = "checked::values")]
    pub values: Vec<f64>,
}

impl BenchSummary {
    /// The summary of an analysed run.
    pub fn of(a: &Analysed) -> BenchSummary {
        BenchSummary {
            id: a.recording.id.clone(),
            environment: a.recording.environment.clone(),
            membership: a.recording.membership.clone(),
            threads: a.recording.threads,
            throughput: a.recording.throughput,
            read_path: a.recording.read_path,
            samples: a.recording.iterations.len(),
            metrics: a
                .result
                .metrics
                .iter()
                .map(|m| MetricSummary {
                    name: m.name.clone(),
                    unit: m.unit,
                    estimate: *m.estimate(),
                })
                .collect(),
            comparison: a.comparison.clone(),
            changed: Vec::new(),
        }
    }

    /// The metric named `name`.
    pub fn metric(&self, name: &str) -> Option<&MetricSummary> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// The wall-time headline.
    pub fn wall_time(&self) -> Option<&Estimate> {
        self.metric(WALL_TIME).map(|m| &m.estimate)
    }
}

impl Standee for BenchSummary {
    fn membership(&self) -> Option<&Membership> {
        self.membership.as_ref()
    }

    fn headline(&self, name: &str) -> Option<Estimate> {
        self.metric(name).map(|m| m.estimate)
    }

    fn metric_names(&self) -> Vec<&str> {
        self.metrics.iter().map(|m| m.name.as_str()).collect()
    }
}

/// The sampled per-iteration values of every metric of `a`'s run.
pub fn values_of(a: &Analysed) -> Vec<SampledValues> {
    let run = &a.recording;
    run.series
        .iter()
        .map(|s| {
            let mut all: Vec<f64> = run
                .iterations
                .iter()
                .zip(&s.totals)
                .map(|(&x, &y)| y as f64 / x as f64)
                .collect();
            all.sort_unstable_by(f64::total_cmp);
            SampledValues {
                name: s.name.clone(),
                samples: all.len(),
                values: evenly(&all, MAX_VALUES),
            }
        })
        .collect()
}

/// At most `max` of `items`, evenly spaced among them with the first and
/// last kept (of sorted values: those at evenly spaced ranks); all of them
/// where they are no more.
pub fn evenly<T: Copy>(items: &[T], max: usize) -> Vec<T> {
    if items.len() <= max || max < 2 {
        return items.iter().copied().take(max).collect();
    }
    let last = items.len() - 1;
    (0..max).map(|k| items[k * last / (max - 1)]).collect()
}
