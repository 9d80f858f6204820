//! The JSON of the store's files, typed with serde: stored result files
//! (`result_file.rs`, with the estimates `analysis::estimates` makes of the
//! result for every JSON writer), the report's summaries and
//! sampled values (`summary_file.rs`), the lines of a benchmark's
//! history (`history_line.rs`), and a profile's facts beside its folded
//! stacks (`profile_facts.rs`). Fields are written
//! in the order of their names. A stored file may be hostile (a restored
//! CI cache), so every field is checked as serde reads it, with the limits
//! of a stored file (`stored_value.rs`), its error a [`DecodeError`] of one
//! line naming the field (`decode_error.rs`): a store type is derived
//! straight from its file (`HistoryRun`, `BenchSummary` with its
//! `MetricSummary` and `RecentChange`, `SampledValues`); a lower layer's
//! type through a small wire type (a result file's `Recording` and
//! `Series`, a summary's `Comparison`), whose fields are checked against
//! each other in one place on the way to the domain type.

mod decode_error;
mod history_line;
mod profile_facts;
mod result_file;
pub(crate) mod stored_value;
mod summary_file;

pub use decode_error::DecodeError;
pub use history_line::{decode_history_run, encode_history_run};
pub use profile_facts::{decode_profile_facts, encode_profile_facts, ProfileFacts, PROFILE_SCHEMA};
pub use result_file::{decode_recording, encode_recording, RESULT_SCHEMA};
pub(crate) use stored_value::method_json;
pub use stored_value::{MAX_COUNT, MAX_SAMPLES, MAX_STATISTIC, MAX_THREADS};
pub use summary_file::{
    decode_summary, decode_values, encode_summary, encode_values, SUMMARY_SCHEMA, VALUES_SCHEMA,
};

#[cfg(test)]
mod tests;
