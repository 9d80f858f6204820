//! A line of a benchmark's `history.jsonl`: one run's headline, compact,
//! with what the run knew of its commit, branch, machine and time. Fields
//! are declared in the order of their names; a line is read with
//! [`Loose`] fields and checked with the limits of every stored file,
//! since a restored cache may hold anything.
//!
//! ```text
//! {"branch":"main","commit":"9fceb02","dirty":false,"estimate":[1480.2,1471.9,1488.6],
//!  "host":"5d41402abc4b2a76","metric":"wall-time","samples":100,
//!  "started":"2026-11-25T22:41:07Z","unit":"ns"}
//! ```

use serde::{Deserialize, Serialize};

use super::loose_field::{bad, bad_because, document, loose_list, text, Loose};
use super::summary_file::{estimate_of, sample_count, unit_of};
use crate::measure::environment::is_commit_id;
use crate::store::history::HistoryRun;

/// A line as written, and as read before its checks.
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct HistoryRecord {
    #[serde(skip_serializing_if = "Loose::is_missing")]
    branch: Loose<String>,
    #[serde(skip_serializing_if = "Loose::is_missing")]
    commit: Loose<String>,
    #[serde(skip_serializing_if = "Loose::is_missing")]
    dirty: Loose<bool>,
    estimate: Loose<Vec<Loose<f64>>>,
    #[serde(skip_serializing_if = "Loose::is_missing")]
    host: Loose<String>,
    metric: Loose<String>,
    /// Written only where the run was `--quick`.
    #[serde(skip_serializing_if = "Loose::is_missing")]
    quick: Loose<bool>,
    samples: Loose<u64>,
    #[serde(skip_serializing_if = "Loose::is_missing")]
    started: Loose<String>,
    unit: Loose<String>,
}

/// The line of `run`, without its newline.
pub fn encode_history_run(run: &HistoryRun) -> String {
    let known = |t: &Option<String>| t.clone().map_or(Loose::Missing, Loose::Is);
    let e = &run.estimate;
    let line = HistoryRecord {
        branch: known(&run.branch),
        commit: known(&run.commit),
        dirty: run.dirty.map_or(Loose::Missing, Loose::Is),
        estimate: loose_list(&[e.point, e.ci.low, e.ci.high]),
        host: known(&run.host),
        metric: Loose::Is(run.metric.clone()),
        quick: if run.quick {
            Loose::Is(true)
        } else {
            Loose::Missing
        },
        samples: Loose::Is(run.samples as u64),
        started: known(&run.started),
        unit: Loose::Is(run.unit.symbol().to_string()),
    };
    serde_json::to_string(&line).expect("history lines serialise")
}

/// The run a line holds, or what is wrong with it.
pub fn decode_history_run(line: &str) -> Result<HistoryRun, String> {
    let doc: HistoryRecord = document(line).map_err(|e| format!("not valid JSON ({e})"))?;
    let metric = text(doc.metric, "metric")?;
    if !label(&metric) {
        return Err(bad("metric"));
    }
    Ok(HistoryRun {
        started: optional_label(doc.started, "started")?,
        commit: commit_of(doc.commit)?,
        dirty: optional(doc.dirty, "dirty")?,
        branch: optional_label(doc.branch, "branch")?,
        host: optional_label(doc.host, "host")?,
        unit: unit_of(doc.unit.ok()).ok_or_else(|| bad("unit"))?,
        metric,
        estimate: estimate_of(doc.estimate, "estimate")?,
        samples: sample_count(doc.samples, "samples")?,
        quick: optional(doc.quick, "quick")?.unwrap_or(false),
    })
}

/// An optional field: `None` where it is left out, the error where it is
/// of another shape.
fn optional<T>(v: Loose<T>, what: &str) -> Result<Option<T>, String> {
    match v {
        Loose::Missing => Ok(None),
        Loose::Is(t) => Ok(Some(t)),
        Loose::Wrong => Err(bad(what)),
    }
}

/// A short text a person reads (a branch, a time, a host id): at most 200
/// characters, none of them a control character.
fn label(t: &str) -> bool {
    !t.is_empty() && t.chars().count() <= 200 && !t.chars().any(char::is_control)
}

/// An optional [`label`].
fn optional_label(v: Loose<String>, what: &str) -> Result<Option<String>, String> {
    match optional(v, what)? {
        Some(t) if !label(&t) => Err(bad_because(what, "not a short line of text")),
        t => Ok(t),
    }
}

/// An optional commit id: 7 to 64 hex digits.
fn commit_of(v: Loose<String>) -> Result<Option<String>, String> {
    match optional(v, "commit")? {
        Some(c) if !is_commit_id(&c) => Err(bad_because("commit", "not 7 to 64 hex digits")),
        c => Ok(c),
    }
}
