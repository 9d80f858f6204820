//! The JSON of the store's files and of `--output-format json`, typed with
//! serde: the lines of `--output-format json` (`bench_line.rs`, with the
//! estimates of `estimates.rs`), stored result files (`result_file.rs`),
//! the report's summaries and sampled values (`summary_file.rs`), the
//! fields they share (`shared_fields.rs`), and the lines of a benchmark's
//! history (`history_line.rs`). Fields are written in the order of their
//! names. A stored file may be hostile (a restored CI cache), so every
//! field is checked as it is read, its error one line naming it: a store
//! type derived straight from its file (`HistoryRun`, `BenchSummary`, its
//! `MetricSummary` and `RecentChange`, `SampledValues`) has a check per
//! field in `stored_value.rs`; a wire type for a type of a lower layer
//! (a result file's `Recording`, a summary's `Comparison`) keeps the
//! fields checked against each other as found ([`Loose`], `loose_field.rs`,
//! with the limits of a stored file) for the step to the domain type.

mod bench_line;
mod decode_error;
mod estimates;
mod history_line;
mod result_file;
pub(crate) mod stored_value;
mod summary_file;

pub use bench_line::{bench_line, SCHEMA};
pub use decode_error::DecodeError;
pub use history_line::{decode_history_run, encode_history_run};
pub use result_file::{decode_recording, encode_recording, RESULT_SCHEMA};
pub use stored_value::{MAX_COUNT, MAX_SAMPLES, MAX_STATISTIC, MAX_THREADS};
pub use summary_file::{
    decode_summary, decode_values, encode_summary, encode_values, SUMMARY_SCHEMA, VALUES_SCHEMA,
};

#[cfg(test)]
mod tests;
