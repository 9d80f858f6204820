//! A paired run: this bench binary (the candidate) and a baseline build of
//! the same bench target measure each benchmark in alternating rounds, in
//! one run on one machine, so that what the machine does to both in the
//! same seconds cancels in their differences.

pub mod revision;

mod cargo_build;
mod git_tree;
