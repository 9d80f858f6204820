//! A sampling profile of a benchmark's own code: the stacks sampled while
//! its routine ran, unwound from each sample's user registers and stack
//! with the binary's `.eh_frame`, symbolized from its symbol table, cut to
//! start at the routine, and counted ([`Profile`]).

mod stacks;

pub use stacks::{frame_refused, Profile, MAX_DEPTH, MAX_EVENTS, MAX_FRAME_CHARS, MAX_STACKS};
