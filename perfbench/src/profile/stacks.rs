//! [`Profile`]: the distinct stacks a profiling pass sampled, each with
//! the events its samples stand for, as flame graphs and folded-stacks
//! files hold them.

use std::collections::BTreeMap;

/// The most characters of a frame's name a profile keeps: Rust's generic
/// names can run to thousands, and a flame graph shows a few dozen.
pub const MAX_FRAME_CHARS: usize = 1000;

/// The most frames of a stack a profile holds: deeper than any routine's
/// call chain a flame graph can show (a deeper one keeps its root and its
/// innermost frames: [`Profile::add`]).
pub const MAX_DEPTH: usize = 1024;

/// The most distinct stacks a profile read from elsewhere (another build,
/// a stored file) may hold: a profiling pass of about a second at a few
/// kHz samples far fewer.
pub const MAX_STACKS: usize = 100_000;

/// The frame that stands for the frames left out of a stack deeper than
/// [`MAX_DEPTH`].
pub const DEEPER: &str = "[deeper frames]";

/// The most events a stack, or a profile, may weigh: a stored count's
/// limit (`store::json::MAX_COUNT`, 10^15), so that sums stay exact.
pub const MAX_EVENTS: u64 = 1_000_000_000_000_000;

/// Why `name` cannot be a frame of a profile: empty, too long, or holding
/// the folded format's separator `;` or a control character (a line
/// break would start another stack).
pub fn frame_refused(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("an empty frame");
    }
    if name.chars().count() > MAX_FRAME_CHARS {
        return Some("a frame longer than 1000 characters");
    }
    if name.contains(';') || name.chars().any(char::is_control) {
        return Some("a frame with `;` or a control character");
    }
    None
}

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

    /// Why this profile, read from elsewhere, cannot be taken: a frame
    /// [`frame_refused`], a stack empty or deeper than [`MAX_DEPTH`], more
    /// than [`MAX_STACKS`] stacks, or events beyond [`MAX_EVENTS`]; `None`
    /// where it can.
    pub fn refused(&self) -> Option<&'static str> {
        if self.stacks.len() > MAX_STACKS {
            return Some("more than 100,000 stacks");
        }
        for (stack, &n) in &self.stacks {
            if stack.is_empty() || stack.len() > MAX_DEPTH {
                return Some("a stack of no frame or more than 1,024");
            }
            if let Some(why) = stack.iter().find_map(|f| frame_refused(f)) {
                return Some(why);
            }
            if n > MAX_EVENTS {
                return Some("a stack of more than 10^15 events");
            }
        }
        let total = self
            .stacks
            .values()
            .try_fold(0u64, |a, &n| a.checked_add(n));
        if total.is_none_or(|t| t > MAX_EVENTS) {
            return Some("more than 10^15 events");
        }
        (self.event.is_empty() || frame_refused(&self.event).is_some())
            .then_some("a bad event name")
    }

    /// Counts a sample of `stack` (outermost first) standing for `events`;
    /// a stack deeper than [`MAX_DEPTH`] keeps its root, then [`DEEPER`],
    /// then its innermost frames.
    pub fn add(&mut self, mut stack: Vec<String>, events: u64) {
        if stack.len() > MAX_DEPTH {
            let inner = stack.split_off(stack.len() - (MAX_DEPTH - 2));
            stack.truncate(1);
            stack.push(DEEPER.to_string());
            stack.extend(inner);
        }
        let count = self.stacks.entry(stack).or_insert(0);
        *count = count.saturating_add(events);
        self.samples = self.samples.saturating_add(1);
    }
}

/// A `cpu-clock` profile of `iterations` iterations, of `stacks` written
/// as folded lines (`"b;f;g"`) with their events: the tests' fixture.
#[cfg(test)]
pub(crate) fn folded_profile(iterations: u64, stacks: &[(&str, u64)]) -> Profile {
    let mut p = Profile::new("cpu-clock");
    p.iterations = iterations;
    for (stack, n) in stacks {
        p.add(stack.split(';').map(str::to_string).collect(), *n);
    }
    p
}
