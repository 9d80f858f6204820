//! A line of a benchmark's `history.jsonl`: one run's headline, compact,
//! with what the run knew of its commit, branch, machine and time,
//! derived on [`HistoryRun`] (its fields in the order of their names,
//! each checked as it is read: `stored_value.rs`).
//!
//! ```text
//! {"branch":"main","commit":"9fceb02","dirty":false,"estimate":[1480.2,1471.9,1488.6],
//!  "host":"5d41402abc4b2a76","metric":"wall-time","samples":100,
//!  "started":"2026-11-25T22:41:07Z","unit":"ns"}
//! ```

use super::decode_error::DecodeError;
use super::stored_value::record_from;
use crate::store::history::HistoryRun;

/// The line of `run`, without its newline.
pub fn encode_history_run(run: &HistoryRun) -> String {
    serde_json::to_string(run).expect("history lines serialise")
}

/// The run a line holds, or what is wrong with it.
pub fn decode_history_run(line: &str) -> Result<HistoryRun, DecodeError> {
    record_from(line)
}
