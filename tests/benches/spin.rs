//! Routines of a few known lengths, a chain of dependent
//! multiplies and nothing else, run by tests/tests/per_iteration_wall.rs only: per-iteration and
//! batch mode must time them alike.

use std::hint::black_box;

use perfbench::{perfbench, Bencher};

#[path = "shared/mix.rs"]
mod mix;
use mix::mix;

/// The rounds of [`mix`] that take about the time named here.
fn rounds(length: &str) -> u64 {
    match length {
        "50ns" => 45,
        "100ns" => 85,
        "250ns" => 215,
        "1us" => 830,
        _ => panic!("no routine length named {length}"),
    }
}

#[perfbench(args = ["50ns", "100ns", "250ns", "1us"])]
fn spin(b: &mut Bencher, length: &str) {
    let n = rounds(length);
    b.iter(|| mix(black_box(1), n));
}

perfbench::main!();
