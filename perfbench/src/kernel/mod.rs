//! The kernel's interface, and the only `unsafe` code of the crate: the
//! `perf_event_open(2)` syscall, its attribute, ioctls and read format, the
//! mmap'd counter page and user-space counter reads, a sampler of the
//! calling thread with its ring buffer (`sampling/`), thread affinity, the
//! PMUs that sysfs describes, and the global allocator that counts
//! allocations (`alloc.rs`), folders walked by descriptor without
//! following a link (`dir.rs`), `flock(2)` (`flock.rs`), SIGINT/SIGTERM
//! turned into a call on a thread (`signals.rs`), child processes that end
//! with this one (`process_group.rs`, `group_guard.rs`) and a token handed
//! to a child on a socket (`handoff.rs`), and
//! the timestamp counter that times a span inside counted code (`ticks.rs`).
//!
//! Everything above this layer sees safe types. Each `unsafe` block carries
//! a `// SAFETY:` comment.
#![allow(unsafe_code)]

pub mod alloc;
pub mod dir;
pub mod flock;
pub mod group_guard;
pub mod handoff;
pub mod pmu;
pub mod process_group;
pub mod rdpmc;
pub mod sampling;
#[cfg(test)]
pub(crate) mod scratch_dir;
pub mod signals;
pub mod sys;
pub mod ticks;
