//! Counters: event specs in perf's syntax, counter groups opened on the
//! kernel, and the split of an event list into groups that the PMU can
//! count at once.

pub mod denial;
pub mod event;
pub mod group;
