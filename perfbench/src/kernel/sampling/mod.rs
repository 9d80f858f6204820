//! A self-profiling sampler of the calling thread: a sampling event
//! (`event.rs`, its spec and `sample_type` in `spec.rs`), opened disabled
//! and toggled around the windows to sample; its mmap'd ring buffer
//! (`pages.rs` how many pages fit `perf_event_mlock_kb`); and why sampling
//! could not open (`error.rs`).

mod error;
mod event;
mod pages;
mod spec;

pub use error::SamplingError;
pub use event::SamplingEvent;
pub use pages::{first_log2, mlock_kb, next_log2, MAX_DATA_PAGES_LOG2};
pub use spec::{SampleRate, SamplingSpec, MAX_USER_STACK, UNWIND_REGS};
