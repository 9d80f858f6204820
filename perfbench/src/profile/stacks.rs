//! [`Profile`]: the distinct stacks a profiling pass sampled, each with
//! its count, as flame graphs and folded-stacks files hold them.

use std::collections::BTreeMap;

/// The most characters of a frame's name a profile keeps: Rust's generic
/// names can run to thousands, and a flame graph shows a few dozen.
pub const MAX_FRAME_CHARS: usize = 1000;

/// The stacks a profiling pass sampled in one benchmark's routine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The sampling event as the user wrote it (`cpu-clock`, `cycles`).
    pub event: String,
    /// Iterations of the routine run while sampling: samples per
    /// iteration compare two profiles of different lengths.
    pub iterations: u64,
    /// Each distinct stack, outermost frame first (the benchmark's
    /// routine), innermost last, with its samples. A frame is a
    /// demangled function name, without `;` or control characters (the
    /// folded format's separators).
    pub stacks: BTreeMap<Vec<String>, u64>,
    /// Samples the kernel dropped because the ring was full.
    pub lost: u64,
}

impl Profile {
    /// An empty profile of `event`.
    pub fn new(event: &str) -> Profile {
        Profile {
            event: event.to_string(),
            ..Profile::default()
        }
    }

    /// All samples kept.
    pub fn samples(&self) -> u64 {
        self.stacks.values().fold(0, |a, &n| a.saturating_add(n))
    }

    /// Counts `n` samples of `stack` (outermost first).
    pub fn add(&mut self, stack: Vec<String>, n: u64) {
        let count = self.stacks.entry(stack).or_insert(0);
        *count = count.saturating_add(n);
    }
}
