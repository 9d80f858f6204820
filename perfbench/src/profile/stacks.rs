//! [`Profile`]: the distinct stacks a profiling pass sampled, each with
//! the events its samples stand for, as flame graphs and folded-stacks
//! files hold them.

use std::collections::BTreeMap;

/// The most characters of a frame's name a profile keeps: Rust's generic
/// names can run to thousands, and a flame graph shows a few dozen.
pub const MAX_FRAME_CHARS: usize = 1000;

/// The stacks a profiling pass sampled in one benchmark's routine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The sampling event as the user wrote it (`cpu-clock`, `cycles`).
    pub event: String,
    /// Iterations of the routine run while sampling: events per
    /// iteration compare two profiles of different lengths.
    pub iterations: u64,
    /// Samples taken.
    pub samples: u64,
    /// Each distinct stack, outermost frame first (the benchmark's
    /// routine), innermost last, with the events its samples stand for
    /// (each sample weighs its period: nanoseconds for `cpu-clock`, the
    /// event's count for another). A frame is a demangled function name,
    /// without `;` or control characters (the folded format's separators).
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

    /// The events of every stack together.
    pub fn events(&self) -> u64 {
        self.stacks.values().fold(0, |a, &n| a.saturating_add(n))
    }

    /// Counts a sample of `stack` (outermost first) standing for `events`.
    pub fn add(&mut self, stack: Vec<String>, events: u64) {
        let count = self.stacks.entry(stack).or_insert(0);
        *count = count.saturating_add(events);
        self.samples = self.samples.saturating_add(1);
    }
}
