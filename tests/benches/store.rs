//! Benchmarks for the stored-results tests (tests/tests/store.rs) only:
//! results a run's environment changes, and a routine that keeps a run busy
//! while a test interrupts it or waits for its lock.

use perfbench::fixtures::touch_fresh_pages;
use perfbench::{black_box, perfbench, Bencher};

/// The number in environment variable `var`, else `default`.
fn number(var: &str, default: usize) -> usize {
    std::env::var(var).map_or(default, |v| v.parse().expect("a number"))
}

/// `FIXTURE_PAGES` (default 16) times the argument page faults
/// per iteration: every result of a run tells which run stored it.
#[perfbench(args = [1, 2, 3])]
fn pages_times(b: &mut Bencher, times: usize) {
    let pages = number("FIXTURE_PAGES", 16) * times;
    b.iter(|| touch_fresh_pages(black_box(pages)));
}

/// One page fault and `FIXTURE_SLEEP_MS` (default 0) of sleep per
/// iteration. Last, so that in a run of one round the others are stored
/// while it runs.
#[perfbench]
fn sleeps(b: &mut Bencher) {
    let sleep = std::time::Duration::from_millis(number("FIXTURE_SLEEP_MS", 0) as u64);
    b.iter(|| {
        std::thread::sleep(sleep);
        touch_fresh_pages(black_box(1))
    });
}

perfbench::main!();
