//! Routines of known behaviour, shared by the `fixtures` benchmarks and the
//! `oracle-routine` binary that `perf stat` measures: the oracle test runs
//! the very same code under both and compares their figures.

use std::hint::black_box;
use std::time::Duration;

use perfbench::fixtures::{read_into_fresh_pages, touch_fresh_pages};

/// The routines by name: what `oracle-routine NAME M` runs and what the
/// `oracle` benchmark family (`oracle/NAME`) measures.
pub const ROUTINES: [(&str, fn()); 5] = [
    ("touch_pages", || {
        black_box(touch_fresh_pages(black_box(16)));
    }),
    ("read_into_pages", || {
        black_box(read_into_fresh_pages(black_box(16)));
    }),
    ("sleep_4", sleep_4),
    ("thread", || thread_touching_pages(black_box(16))),
    ("compute", || {
        black_box(compute(black_box(20_000)));
    }),
];

/// The routine named `name`.
pub fn routine(name: &str) -> Option<fn()> {
    ROUTINES.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// Blocks four times (short sleeps): four voluntary context switches.
pub fn sleep_4() {
    for _ in 0..4 {
        std::thread::sleep(Duration::from_micros(20));
    }
}

/// Spawns a thread that touches `pages` fresh pages and computes for a
/// while, and joins it: its faults and CPU time belong to the routine.
pub fn thread_touching_pages(pages: usize) {
    std::thread::spawn(move || {
        black_box(touch_fresh_pages(pages));
        black_box(compute(50_000));
    })
    .join()
    .expect("the thread finishes");
}

/// `rounds` dependent steps of integer arithmetic: pure user-space compute.
pub fn compute(rounds: u64) -> u64 {
    (0..rounds).fold(1u64, |x, i| {
        black_box(x.wrapping_mul(6_364_136_223_846_793_005) ^ i)
    })
}
