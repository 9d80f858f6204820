//! What a run printed (its JSON lines, exit code and time) and the tally of
//! many runs as one table, shared by the unpaired gate (`--gate`) and the
//! paired runs (`--paired`), so that their figures stand side by side in
//! the same shape.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

/// The metrics measured in time, whose intervals are in question.
pub const TIMES: [&str; 2] = ["wall-time", "task-clock"];

/// The metric name under which a benchmark counts as regressed where any
/// of its metrics was: what fails the gate.
pub const ANY: &str = "any metric";

/// A benchmark's metric: (benchmark id, metric name, or [`ANY`]).
pub type Key = (String, String);

/// One run: per (benchmark, time metric), the estimate and its interval.
pub type Run = BTreeMap<Key, (f64, f64, f64)>;

/// What a run said.
pub struct Outcome {
    pub code: Option<i32>,
    /// How long the process ran.
    pub took: Duration,
    /// Per benchmark's metric that was judged, its verdict.
    pub verdicts: Vec<(Key, String)>,
    /// Each benchmark's wall-time change and its interval, in percent.
    pub wall_changes: Vec<String>,
    /// Benchmarks printed, and those of them compared in a paired run
    /// (`baseline.paired`).
    pub benchmarks: usize,
    pub paired: usize,
    /// The last line of its standard error, to name a failure.
    pub last_error: String,
}

impl Outcome {
    /// `benchmark metric` of every metric found regressed.
    pub fn regressed(&self) -> Vec<String> {
        self.verdicts
            .iter()
            .filter(|(_, v)| v == "regressed")
            .map(|((id, metric), _)| format!("{id} {metric}"))
            .collect()
    }
}

/// Reads a run's output (`--output-format json`) into its outcome and the
/// estimates of its time metrics.
pub fn read(out: &std::process::Output, took: Duration) -> (Run, Outcome) {
    let mut run = Run::new();
    let mut outcome = Outcome {
        code: out.status.code(),
        took,
        verdicts: Vec::new(),
        wall_changes: Vec::new(),
        benchmarks: 0,
        paired: 0,
        last_error: String::from_utf8_lossy(&out.stderr)
            .lines()
            .last()
            .unwrap_or("")
            .to_string(),
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let (Some(id), Some(metrics)) = (v["id"].as_str(), v["metrics"].as_object()) else {
            continue;
        };
        outcome.benchmarks += 1;
        outcome.paired += usize::from(v["baseline"]["paired"] == Value::Bool(true));
        for (metric, m) in metrics {
            let key = (id.to_string(), metric.to_string());
            read_change(&key, &m["change"], &mut outcome);
            if let (true, Some(e), Some(lo), Some(hi)) = (
                TIMES.contains(&metric.as_str()),
                m["estimate"].as_f64(),
                m["ci"][0].as_f64(),
                m["ci"][1].as_f64(),
            ) {
                run.insert(key, (e, lo, hi));
            }
        }
    }
    (run, outcome)
}

/// Adds a metric's change (verdict, and the wall time's figures) to the
/// outcome.
fn read_change(key: &Key, change: &Value, outcome: &mut Outcome) {
    if let (Some(r), Some(lo), Some(hi), "wall-time") = (
        change["relative"].as_f64(),
        change["ci"][0].as_f64(),
        change["ci"][1].as_f64(),
        key.1.as_str(),
    ) {
        outcome.wall_changes.push(format!(
            "{} {:+.1} [{:+.1}, {:+.1}]",
            key.0,
            100.0 * r,
            100.0 * lo,
            100.0 * hi
        ));
    }
    if let Some(verdict) = change["verdict"].as_str() {
        outcome.verdicts.push((key.clone(), verdict.to_string()));
    }
}

/// Many runs of one condition, together.
#[derive(Default)]
pub struct Tally {
    pub runs: usize,
    /// Runs the gate failed (exit 3).
    pub failed: usize,
    /// Runs that ended otherwise than 0 or 3, with the last line of the
    /// first one's standard error.
    pub broken: usize,
    pub first_error: Option<String>,
    /// Runs in which a benchmark was not compared in a paired run, though
    /// the run was meant to pair.
    pub unpaired: usize,
    /// Per benchmark's metric: runs that judged it, found it regressed,
    /// found it improved.
    pub judged: BTreeMap<Key, [usize; 3]>,
    pub times: Vec<Duration>,
    /// Ordinary runs' times, to set beside these.
    pub ordinary: Vec<Duration>,
}

impl Tally {
    /// Adds a run; `paired` says whether its benchmarks should all have
    /// been compared in a paired run.
    pub fn add(&mut self, outcome: &Outcome, paired: bool) {
        self.runs += 1;
        self.times.push(outcome.took);
        match outcome.code {
            Some(0) => {}
            Some(3) => self.failed += 1,
            _ => {
                self.broken += 1;
                let said = format!("exit {:?}: {}", outcome.code, outcome.last_error);
                self.first_error.get_or_insert(said);
            }
        }
        self.unpaired += usize::from(paired && outcome.paired < outcome.benchmarks);
        let mut routines: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
        for (key, verdict) in &outcome.verdicts {
            let said = [
                1,
                usize::from(verdict == "regressed"),
                usize::from(verdict == "improved"),
            ];
            let counts = self.judged.entry(key.clone()).or_default();
            let routine = routines.entry(&key.0).or_default();
            for i in 0..3 {
                counts[i] += said[i];
                routine[i] = routine[i].max(said[i]);
            }
        }
        for (id, said) in routines {
            let counts = self
                .judged
                .entry((id.to_string(), ANY.to_string()))
                .or_default();
            for i in 0..3 {
                counts[i] += said[i];
            }
        }
    }

    /// Runs that found `key` regressed, and runs that judged it.
    pub fn regressed(&self, key: &Key) -> (usize, usize) {
        self.judged.get(key).map_or((0, 0), |c| (c[1], c[0]))
    }
}

/// The median of some durations, in seconds (NaN for none).
pub fn median_seconds(times: &[Duration]) -> f64 {
    let mut s: Vec<f64> = times.iter().map(Duration::as_secs_f64).collect();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The conditions side by side: a column each (its label and tally), a row
/// per benchmark's metric shown (`shown_keys`) with the runs that found it regressed over the
/// runs that judged it, then the gate, the run times and, where a column
/// has them, the ordinary runs' times and the ratio.
pub fn table(columns: &[(String, &Tally)]) -> String {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let keys = shown_keys(columns.iter().map(|(_, t)| *t));
    let cell = |f: &dyn Fn(&Tally) -> String| columns.iter().map(|(_, t)| f(t)).collect();
    rows.push((
        "gate failed (exit 3)".into(),
        cell(&|t| format!("{}/{}", t.failed, t.runs)),
    ));
    for key in keys {
        let name = format!("{} {}", key.0, key.1);
        rows.push((
            name,
            cell(&|t| format!("{}/{}", t.regressed(key).0, t.regressed(key).1)),
        ));
    }
    rows.push((
        "run time, median (s)".into(),
        cell(&|t| format!("{:.1}", median_seconds(&t.times))),
    ));
    if columns.iter().any(|(_, t)| !t.ordinary.is_empty()) {
        rows.push((
            "ordinary run, median (s)".into(),
            cell(&|t| format!("{:.1}", median_seconds(&t.ordinary))),
        ));
        rows.push((
            "ratio".into(),
            cell(&|t| {
                format!(
                    "{:.2}",
                    median_seconds(&t.times) / median_seconds(&t.ordinary)
                )
            }),
        ));
    }
    layout(columns, &rows)
}

/// The metrics a table shows: [`ANY`], the times and page faults, and any other
/// that some run found regressed (a false alarm in `context-switches`, say).
pub fn shown_keys<'t>(tallies: impl Iterator<Item = &'t Tally> + Clone) -> Vec<&'t Key> {
    let keys: std::collections::BTreeSet<&Key> =
        tallies.clone().flat_map(|t| t.judged.keys()).collect();
    keys.into_iter()
        .filter(|key| {
            TIMES.contains(&key.1.as_str())
                || key.1 == ANY
                || key.1 == "page-faults"
                || tallies.clone().any(|t| t.regressed(key).0 > 0)
        })
        .collect()
}

/// The rows in aligned columns under the conditions' labels.
fn layout(columns: &[(String, &Tally)], rows: &[(String, Vec<String>)]) -> String {
    let first = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let width: Vec<usize> = (0..columns.len())
        .map(|c| {
            rows.iter()
                .map(|r| r.1[c].len())
                .chain([columns[c].0.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |name: &str, cells: &mut dyn Iterator<Item = &str>| {
        let cells: Vec<String> = cells.zip(&width).map(|(s, w)| format!("{s:>w$}")).collect();
        format!("{name:first$}  {}\n", cells.join("  "))
            .trim_end()
            .to_string()
            + "\n"
    };
    let mut out = line("", &mut columns.iter().map(|c| c.0.as_str()));
    for (name, cells) in rows {
        out += &line(name, &mut cells.iter().map(String::as_str));
    }
    out
}

/// What the table does not show: runs that ended otherwise than 0 or 3,
/// runs meant to pair in which a benchmark was not paired, and verdicts of
/// `improved` (which the gate does not fail).
pub fn notes(columns: &[(String, &Tally)]) -> String {
    let mut out = String::new();
    for (label, t) in columns {
        if let Some(error) = &t.first_error {
            out += &format!(
                "{label}: {} of {} runs ended otherwise; the first: {error}\n",
                t.broken, t.runs
            );
        }
        if t.unpaired > 0 {
            out += &format!(
                "{label}: {} of {} runs left a benchmark unpaired\n",
                t.unpaired, t.runs
            );
        }
        let improved: Vec<String> = t
            .judged
            .iter()
            .filter(|(_, c)| c[2] > 0)
            .map(|((id, metric), c)| format!("{id} {metric} {}/{}", c[2], c[0]))
            .collect();
        if !improved.is_empty() {
            out += &format!("{label}: `improved`: {}\n", improved.join(", "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{ExitStatus, Output};

    /// A run's output: `code`, the JSON `lines` and one line of stderr.
    fn output(code: i32, lines: &[&str]) -> Output {
        Output {
            status: ExitStatus::from_raw(code << 8),
            stdout: lines.join("\n").into_bytes(),
            stderr: b"perfbench: starting\nperfbench: the last word\n".to_vec(),
        }
    }

    const REGRESSED: &str = r#"{"id":"arithmetic","baseline":{"name":"base","new":false,"paired":true},
        "metrics":{"wall-time":{"estimate":1200.0,"ci":[1190.0,1210.0],
        "change":{"ci":[0.2,0.3],"p":0.001,"relative":0.25,"runs":8,"verdict":"regressed"}},
        "context-switches":{"estimate":0.0,"ci":[0.0,0.0],
        "change":{"ci":[0.0,0.0],"p":1.0,"relative":0.0,"runs":8,"verdict":"no change"}}}}"#;
    const UNPAIRED: &str = r#"{"id":"sort","baseline":{"name":"latest","new":true},
        "metrics":{"wall-time":{"estimate":5.0,"ci":[4.0,6.0]}}}"#;

    fn one_line(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn a_run_is_read_from_its_json_lines() {
        let lines = [one_line(REGRESSED), "not json".into(), one_line(UNPAIRED)];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (run, outcome) = read(&output(3, &lines), Duration::from_secs(2));
        assert_eq!(outcome.code, Some(3));
        assert_eq!((outcome.benchmarks, outcome.paired), (2, 1));
        assert_eq!(outcome.regressed(), ["arithmetic wall-time"]);
        assert_eq!(outcome.verdicts.len(), 2);
        assert_eq!(outcome.wall_changes, ["arithmetic +25.0 [+20.0, +30.0]"]);
        assert_eq!(outcome.last_error, "perfbench: the last word");
        let key = ("sort".to_string(), "wall-time".to_string());
        assert_eq!(run.get(&key), Some(&(5.0, 4.0, 6.0)));
        assert_eq!(run.len(), 2, "time metrics only: {run:?}");
    }

    fn tally_of(runs: &[(i32, &str)]) -> Tally {
        let mut tally = Tally::default();
        for (code, line) in runs {
            let (_, outcome) = read(&output(*code, &[&one_line(line)]), Duration::from_secs(4));
            tally.add(&outcome, true);
        }
        tally
    }

    #[test]
    fn a_tally_counts_failures_breakage_and_unpaired_runs() {
        let tally = tally_of(&[(3, REGRESSED), (0, UNPAIRED), (101, UNPAIRED)]);
        assert_eq!(
            (tally.runs, tally.failed, tally.broken, tally.unpaired),
            (3, 1, 1, 2)
        );
        assert_eq!(
            tally.first_error.as_deref(),
            Some("exit Some(101): perfbench: the last word")
        );
        let key = ("arithmetic".to_string(), "wall-time".to_string());
        assert_eq!(tally.regressed(&key), (1, 1));
        let any = ("arithmetic".to_string(), ANY.to_string());
        assert_eq!(
            tally.regressed(&any),
            (1, 1),
            "once per run, whatever metric"
        );
    }

    #[test]
    fn the_table_sets_conditions_side_by_side() {
        let mut paired = tally_of(&[(3, REGRESSED), (3, REGRESSED)]);
        paired.ordinary = vec![Duration::from_secs(2); 2];
        let unpaired = tally_of(&[(0, UNPAIRED)]);
        let table = table(&[("paired".into(), &paired), ("unpaired".into(), &unpaired)]);
        let rows: Vec<Vec<&str>> = table
            .lines()
            .map(|l| {
                l.split("  ")
                    .filter(|c| !c.is_empty())
                    .map(str::trim)
                    .collect()
            })
            .collect();
        assert_eq!(rows[0], ["paired", "unpaired"]);
        assert!(
            rows.contains(&vec!["gate failed (exit 3)", "2/2", "0/1"]),
            "{table}"
        );
        assert!(
            rows.contains(&vec!["arithmetic wall-time", "2/2", "0/0"]),
            "{table}"
        );
        assert!(rows.contains(&vec!["ratio", "2.00", "NaN"]), "{table}");
        assert!(
            !table.contains("context-switches"),
            "never regressed: {table}"
        );
    }
}
