//! A benchmark's history across runs: `<folder of the id>/history.jsonl`,
//! one compact JSON line per run (`json/history_line.rs`), the last
//! [`MAX_HISTORY_RUNS`] of them, appended by the run that measured the
//! benchmark when it stores its result. Separate from the few earlier runs
//! a stored result carries for the run-to-run spread: this one is for
//! people, plotted over runs with its change points in the report.
//!
//! The file is read as every stored file is (no link followed, at most
//! [`MAX_STORED_BYTES`](super::MAX_STORED_BYTES), UTF-8), and only its last
//! [`MAX_HISTORY_RUNS`] lines are looked at: a line that is not a run as
//! perfbench writes one is skipped and counted, for one warning. It is
//! rewritten whole, through a temporary file and a rename, at each append.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::bench_summary::RecentChange;
use super::json::{decode_history_run, encode_history_run, stored_value as checked};
use super::{error, folder_name, Store, StoreError};
use crate::analysis::comparison::Thresholds;
use crate::analysis::{Analysed, BenchResult, Metric, MetricKey};
use crate::counter::event::Unit;
use crate::measure::environment::commit_label;
use crate::stats::{change_points, ChangePoint, ChangeSettings, Estimate};

/// Runs a history keeps: older lines are dropped when a run is appended.
pub const MAX_HISTORY_RUNS: usize = 1000;

/// The file of a benchmark's history in its folder.
pub const HISTORY_FILE: &str = "history.jsonl";

/// One run of a benchmark, as its history keeps it: a line of the file,
/// its fields in the order of their names, each checked as it is read
/// (`json/stored_value.rs`), since a restored cache may hold anything.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryRun {
    /// The branch, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::branch")]
    pub branch: Option<String>,
    /// The commit measured (a hex id), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::commit")]
    pub commit: Option<String>,
    /// Whether the working tree differed from the commit, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::dirty")]
    pub dirty: Option<bool>,
    /// Its headline per iteration with the 95 % interval.
    #[serde(serialize_with = "checked::write_estimate")]
    #[serde(deserialize_with = "checked::estimate")]
    pub estimate: Estimate,
    /// The machine's anonymous id, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::host")]
    pub host: Option<String>,
    /// The headline metric ([`headline`]).
    #[serde(deserialize_with = "checked::metric")]
    pub metric: String,
    /// Whether the run was `--quick` (written only then).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[serde(deserialize_with = "checked::quick")]
    pub quick: bool,
    /// Samples the run took.
    #[serde(deserialize_with = "checked::samples")]
    pub samples: usize,
    /// When the run started (RFC 3339, UTC), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "checked::started")]
    pub started: Option<String>,
    /// Its unit.
    #[serde(serialize_with = "checked::write_unit")]
    #[serde(deserialize_with = "checked::unit")]
    pub unit: Unit,
}

impl HistoryRun {
    /// The history line of an analysed run; `None` where it has no
    /// headline metric.
    pub fn of(a: &Analysed, quick: bool) -> Option<HistoryRun> {
        let m = headline(&a.result)?;
        let env = &a.recording.environment;
        Some(HistoryRun {
            started: env.started.clone(),
            commit: env.commit.clone(),
            dirty: env.dirty,
            branch: env.branch.clone(),
            host: env.host.clone(),
            metric: m.name.clone(),
            unit: m.unit,
            estimate: *m.estimate(),
            samples: a.recording.samples(),
            quick,
        })
    }

    /// The commit as people read it: its first 7 digits, `+dirty` where the
    /// tree differed; `None` where unknown.
    pub fn short_commit(&self) -> Option<String> {
        commit_label(self.commit.as_deref(), self.dirty)
    }

    /// Whether `other` measured the same thing here: its metric, unit and
    /// machine (timings of two machines are not one series).
    fn same_series(&self, other: &HistoryRun) -> bool {
        self.metric == other.metric && self.unit == other.unit && self.host == other.host
    }
}

impl RecentChange {
    /// The commit of the first run at the new level, as people read it.
    pub fn short_commit(&self) -> Option<String> {
        commit_label(self.commit.as_deref(), self.dirty)
    }

    /// The step relative to the level before it; `None` from 0.
    pub fn relative(&self) -> Option<f64> {
        (self.before != 0.0).then(|| (self.after - self.before) / self.before)
    }
}

/// The metric a history follows: `instructions` where measured, else wall
/// time ([`MetricKey::history_headline`]: an exact count that varies far
/// less than time, so that its change points mark changes of the code).
pub fn headline(result: &BenchResult) -> Option<&Metric> {
    MetricKey::history_headline(&result.metrics, |m| &m.name)
}

/// A benchmark's stored history.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// Its runs, oldest first.
    pub runs: Vec<HistoryRun>,
    /// Lines among the last [`MAX_HISTORY_RUNS`] that were not a run and
    /// were skipped.
    pub skipped: usize,
    /// The text of each run's line, for rewriting it unchanged.
    lines: Vec<String>,
}

/// The runs in `text`: its last [`MAX_HISTORY_RUNS`] lines that are not
/// empty, those that are no run skipped and counted.
pub fn parse_history(text: &str) -> History {
    let mut kept: Vec<&str> = text
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(MAX_HISTORY_RUNS)
        .collect();
    kept.reverse();
    let mut history = History::default();
    for line in kept {
        match decode_history_run(line) {
            Ok(run) => {
                history.runs.push(run);
                history.lines.push(line.to_string());
            }
            Err(_) => history.skipped += 1,
        }
    }
    history
}

impl Store {
    /// The path of `id`'s history, for messages.
    pub fn history_path(&self, id: &str) -> PathBuf {
        self.root().join(folder_name(id)).join(HISTORY_FILE)
    }

    /// `id`'s history; empty where it has none.
    pub fn history(&self, id: &str) -> Result<History, StoreError> {
        let rel = Path::new(&folder_name(id)).join(HISTORY_FILE);
        Ok(self
            .read(&rel)?
            .map_or_else(History::default, |t| parse_history(&t)))
    }

    /// Appends `run` to `id`'s history, dropping the oldest beyond
    /// [`MAX_HISTORY_RUNS`] and the lines that are no run; returns how
    /// many of those it dropped. A file that cannot be read, or holds no
    /// run at all but other text, is the error, and kept.
    pub fn append_history(&self, id: &str, run: &HistoryRun) -> Result<usize, StoreError> {
        let rel = Path::new(&folder_name(id)).join(HISTORY_FILE);
        let history = self.history(id)?;
        if history.runs.is_empty() && history.skipped > 0 {
            return Err(error(
                &self.root().join(&rel),
                "holds no run of a history perfbench wrote; remove it",
            ));
        }
        let keep = history.lines.len().min(MAX_HISTORY_RUNS - 1);
        let mut text = String::new();
        for line in &history.lines[history.lines.len() - keep..] {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&encode_history_run(run));
        text.push('\n');
        self.write(&rel, text.as_bytes())?;
        Ok(history.skipped)
    }
}

/// The runs a chart of a history shows, with their change points.
#[derive(Clone, Debug, PartialEq)]
pub struct Trend {
    /// The runs of the latest one's metric, unit and machine, oldest
    /// first, the latest last.
    pub runs: Vec<HistoryRun>,
    /// Each run's number in the whole history, from 1.
    pub numbers: Vec<usize>,
    /// Where the series steps (indices into `runs`).
    pub changes: Vec<ChangePoint>,
}

impl Trend {
    /// The trend of `history`: the runs of the same series as its latest
    /// and their change points, at the smallest step the gate's noise
    /// threshold `thresholds` sets for the metric's unit.
    pub fn of(history: &History, thresholds: &Thresholds) -> Option<Trend> {
        let latest = history.runs.last()?;
        let (numbers, runs): (Vec<usize>, Vec<HistoryRun>) = history
            .runs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.same_series(latest))
            .map(|(i, r)| (i + 1, r.clone()))
            .unzip();
        let points: Vec<f64> = runs.iter().map(|r| r.estimate.point).collect();
        let settings = ChangeSettings {
            min_relative: thresholds.noise(latest.unit),
            ..ChangeSettings::default()
        };
        Some(Trend {
            changes: change_points(&points, &settings),
            runs,
            numbers,
        })
    }

    /// The change points among the last `n` runs, each with the first run
    /// at its new level.
    pub fn recent(&self, n: usize) -> impl Iterator<Item = (&ChangePoint, &HistoryRun)> {
        let from = self.runs.len().saturating_sub(n);
        self.changes
            .iter()
            .filter(move |c| c.index >= from)
            .map(|c| (c, &self.runs[c.index]))
    }
}

/// Runs of a history the index looks back over for change points.
pub const RECENT_RUNS: usize = 10;

/// The change points of `trend` among its last [`RECENT_RUNS`] runs, as
/// the index lists them.
pub fn recent_changes(trend: &Trend) -> Vec<RecentChange> {
    let last = trend.runs.len().saturating_sub(1);
    trend
        .recent(RECENT_RUNS)
        .map(|(c, run)| RecentChange {
            runs_ago: last - c.index,
            metric: run.metric.clone(),
            unit: run.unit,
            before: c.before,
            after: c.after,
            commit: run.commit.clone(),
            dirty: run.dirty,
        })
        .collect()
}

/// The recent change points of `id`'s stored history at the default
/// thresholds, for a summary made from a stored run; none where it cannot
/// be read (the run that appended to it said why).
pub fn stored_changes(store: &Store, id: &str) -> Vec<RecentChange> {
    let history = store.history(id).unwrap_or_default();
    Trend::of(&history, &Thresholds::default())
        .map(|t| recent_changes(&t))
        .unwrap_or_default()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::WALL_TIME;
    use crate::stats::Interval;

    /// Writes `id`'s history as runs at `points` (with [`run_at`]), whole:
    /// a thousand appends would rewrite the file a thousand times.
    pub(crate) fn write_history(store: &Store, id: &str, points: &[f64]) {
        let lines: String = points
            .iter()
            .enumerate()
            .map(|(i, &p)| encode_history_run(&run_at(i, p)) + "\n")
            .collect();
        store
            .write(
                &Path::new(&folder_name(id)).join(HISTORY_FILE),
                lines.as_bytes(),
            )
            .unwrap();
    }

    /// Run `i` of a history at `point`.
    pub(crate) fn run_at(i: usize, point: f64) -> HistoryRun {
        HistoryRun {
            started: Some(format!("2026-11-25T22:{:02}:{:02}Z", i / 60 % 60, i % 60)),
            commit: Some(format!("{i:07x}{}", "0".repeat(33))),
            dirty: Some(i % 2 == 1),
            branch: Some("main".into()),
            host: Some("5d41402abc4b2a76".into()),
            metric: WALL_TIME.into(),
            unit: Unit::Nanoseconds,
            estimate: Estimate {
                point,
                ci: Interval {
                    low: point * 0.99,
                    high: point * 1.01,
                },
            },
            samples: 100,
            quick: false,
        }
    }

    fn temp_store(name: &str) -> Store {
        Store::at(super::super::tests::temp_root(name))
    }

    #[test]
    fn lines_round_trip_and_leave_out_what_is_unknown() {
        let mut run = run_at(3, 1480.25);
        run.quick = true;
        let line = encode_history_run(&run);
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(decode_history_run(&line).unwrap(), run);
        let bare = HistoryRun {
            started: None,
            commit: None,
            dirty: None,
            branch: None,
            host: None,
            quick: false,
            ..run
        };
        let line = encode_history_run(&bare);
        assert_eq!(
            line,
            r#"{"estimate":[1480.25,1465.4475,1495.0525],"metric":"wall-time","samples":100,"unit":"ns"}"#
        );
        assert_eq!(decode_history_run(&line).unwrap(), bare);
    }

    #[test]
    fn a_history_keeps_the_last_thousand_runs() {
        let store = temp_store("history-bound");
        let points: Vec<f64> = (0..MAX_HISTORY_RUNS + 3).map(|i| i as f64).collect();
        write_history(&store, "b::x", &points);
        for i in MAX_HISTORY_RUNS + 3..MAX_HISTORY_RUNS + 5 {
            store.append_history("b::x", &run_at(i, i as f64)).unwrap();
        }
        let history = store.history("b::x").unwrap();
        assert_eq!(history.runs.len(), MAX_HISTORY_RUNS);
        assert_eq!(history.runs[0], run_at(5, 5.0), "the oldest dropped");
        assert_eq!(history.runs.last().unwrap().estimate.point, 1004.0);
        let text = std::fs::read_to_string(store.history_path("b::x")).unwrap();
        assert_eq!(text.lines().count(), MAX_HISTORY_RUNS);
        assert!(store.history("other").unwrap().runs.is_empty());
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn hostile_lines_are_skipped_and_counted() {
        let store = temp_store("history-hostile");
        store.append_history("x", &run_at(0, 10.0)).unwrap();
        let path = store.history_path("x");
        let good = std::fs::read_to_string(&path).unwrap();
        let good = good.trim_end();
        let hostile = [
            "not json",
            "[1, 2, 3]",
            &good.replace("[10.0,", "[1e400,"),
            &good.replace("[10.0", "[1e300"),
            &good.replace("[10.0,9.9,10.1]", "[10.0,10.5,10.1]"),
            &good.replace("\"samples\":100", "\"samples\":-1"),
            &good.replace("\"unit\":\"ns\"", "\"unit\":\"parsecs\""),
            &good.replace("\"branch\":\"main\"", "\"branch\":\"a\\u0007b\""),
            &good.replace(
                "\"branch\":\"main\"",
                &format!("\"branch\":\"{}\"", "b".repeat(201)),
            ),
            &good.replace("\"commit\":\"", "\"commit\":\"<script>"),
            &good.replace("\"dirty\":false", "\"dirty\":\"yes\""),
            &good.replace("\"metric\":\"wall-time\"", "\"metric\":7"),
        ];
        let text = format!("{good}\n\n{}\n{good}\n", hostile.join("\n"));
        std::fs::write(&path, &text).unwrap();
        for line in hostile {
            assert!(decode_history_run(line).is_err(), "{line}");
        }
        let history = store.history("x").unwrap();
        assert_eq!((history.runs.len(), history.skipped), (2, hostile.len()));
        // Appending drops them, once, and says how many.
        assert_eq!(
            store.append_history("x", &run_at(1, 11.0)).unwrap(),
            hostile.len()
        );
        assert_eq!(store.history("x").unwrap().runs.len(), 3);
        // A file of nothing perfbench wrote is kept, and named.
        std::fs::write(&path, "#!/bin/sh\nrm -rf /\n").unwrap();
        let e = store.append_history("x", &run_at(2, 12.0)).unwrap_err();
        assert!(e.to_string().contains("history.jsonl: holds no run"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "#!/bin/sh\nrm -rf /\n"
        );
        // Not UTF-8, or a link: refused unread, kept.
        std::fs::write(&path, b"\xff\xfe").unwrap();
        let e = store.history("x").unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
        let e = store.append_history("x", &run_at(2, 12.0)).unwrap_err();
        assert!(e.to_string().contains("is a link"), "{e}");
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn a_million_lines_are_read_only_at_their_end() {
        let one = encode_history_run(&run_at(0, 5.0));
        let mut text = "{}\n".repeat(1_000_000);
        text.push_str(&format!("{one}\n").repeat(MAX_HISTORY_RUNS));
        text.push_str("garbage\n");
        let history = parse_history(&text);
        assert_eq!(history.runs.len(), MAX_HISTORY_RUNS - 1);
        assert_eq!(history.skipped, 1);
    }

    #[test]
    fn a_trend_follows_the_latest_series_and_marks_its_steps() {
        let mut history = History::default();
        for i in 0..100 {
            let mut run = run_at(i, if i < 60 { 100.0 } else { 110.0 });
            if i < 10 {
                run.metric = "instructions".into();
                run.unit = Unit::Count;
            }
            if i == 50 {
                run.host = Some("another machine".into());
            }
            history.runs.push(run);
        }
        let trend = Trend::of(&history, &Thresholds::default()).unwrap();
        assert_eq!(trend.runs.len(), 89);
        assert_eq!(trend.numbers[0], 11);
        assert_eq!(trend.changes.len(), 1);
        let c = trend.changes[0];
        assert_eq!(trend.numbers[c.index], 61);
        assert_eq!(trend.recent(10).count(), 0);
        assert_eq!(trend.recent(40).count(), 1);
        assert!(recent_changes(&trend).is_empty());
        history.runs.truncate(65);
        let trend = Trend::of(&history, &Thresholds::default()).unwrap();
        let recent = recent_changes(&trend);
        assert_eq!(recent.len(), 1);
        assert_eq!(
            (recent[0].runs_ago, recent[0].before, recent[0].after),
            (4, 100.0, 110.0)
        );
        assert_eq!(
            recent[0].commit.as_deref(),
            Some(&*format!("{:07x}{}", 60, "0".repeat(33)))
        );
        assert!(Trend::of(&History::default(), &Thresholds::default()).is_none());
    }
}
