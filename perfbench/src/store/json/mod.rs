//! All JSON perfbench writes and reads, typed with serde: the lines of
//! `--output-format json` (`bench_line.rs`, with the estimates of
//! `estimates.rs`), stored result files (`result_file.rs`), the report's
//! summaries and sampled values (`summary_file.rs`), the fields they
//! share (`shared_fields.rs`), and the lines of a benchmark's history
//! (`history_line.rs`). A wire type is written as declared, its fields in
//! the order of their names; read back, it keeps fields of the wrong shape
//! ([`Loose`], `loose_field.rs`), and the step to the domain type checks each
//! against its limits, naming the field in one line: a stored file may be
//! hostile (a restored CI cache).

mod bench_line;
mod estimates;
mod history_line;
mod loose_field;
mod result_file;
mod shared_fields;
pub(crate) mod stored_value;
mod summary_file;

pub use bench_line::{bench_line, SCHEMA};
pub use history_line::{decode_history_run, encode_history_run};
pub use loose_field::{Loose, MAX_COUNT, MAX_SAMPLES, MAX_STATISTIC, MAX_THREADS};
pub use result_file::{decode_recording, encode_recording, RESULT_SCHEMA};
pub use summary_file::{
    decode_summary, decode_values, encode_summary, encode_values, SUMMARY_SCHEMA, VALUES_SCHEMA,
};

#[cfg(test)]
mod tests;
