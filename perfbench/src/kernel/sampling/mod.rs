//! A self-profiling sampler of the calling thread (`sampler.rs`): a
//! sampling event (`event.rs`, its spec and `sample_type` in `spec.rs`),
//! opened disabled and toggled around the windows to sample; its mmap'd
//! ring buffer (`ring.rs`, read with the `data_head`/`data_tail` protocol;
//! `pages.rs` how many pages fit `perf_event_mlock_kb`); the unread bytes
//! copied out whole across the ring's end (`unread.rs`) and parsed into
//! samples (`record.rs`, a malformed ring's `RecordError` in
//! `record_error.rs`); and why sampling could not open (`error.rs`).

mod error;
mod event;
mod pages;
mod record;
mod record_error;
mod ring;
mod sampler;
mod spec;
mod unread;

#[cfg(test)]
mod tests;

pub use error::SamplingError;
pub use event::SamplingEvent;
pub use pages::{first_log2, mlock_kb, next_log2, MAX_DATA_PAGES_LOG2};
pub use record::{records, RingRecord, RingRecords, SampleLayout, ThreadSample};
pub use record_error::RecordError;
pub use ring::RingMapping;
pub use sampler::Sampler;
pub use spec::{SampleRate, SamplingSpec, MAX_USER_STACK, UNWIND_REGS};
pub use unread::copy_unread;
