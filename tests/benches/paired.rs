//! Two builds of one bench target for the paired-run tests
//! (tests/tests/paired.rs): built as it is, it is build A, the baseline;
//! built with `PAIRED_FIXTURE_BUILD=b` in the compiler's environment, it is
//! build B, the candidate, which does more work in `grows`, has a benchmark
//! A lacks, is spared the panic and the abort A has, aborts where A does
//! not, and spends four times as long in `one_k` under `split`.

use perfbench::fixtures::touch_fresh_pages;
use perfbench::{black_box, perfbench, Bencher, CountingAllocator};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

/// Whether this is build B, the candidate.
fn build_b() -> bool {
    option_env!("PAIRED_FIXTURE_BUILD") == Some("b")
}

/// Build A touches 4 fresh pages and allocates once an iteration; build B
/// 5 pages and twice.
#[perfbench]
fn grows(b: &mut Bencher) {
    let (pages, allocations) = if build_b() { (5, 2) } else { (4, 1) };
    b.iter(|| {
        for _ in 0..allocations {
            black_box(Vec::<u8>::with_capacity(black_box(64)));
        }
        touch_fresh_pages(pages)
    });
}

/// The same in both builds: 2 fresh pages and one allocation; as many
/// more pages as `PAIRED_FIXTURE_PAGES` says at run time, which both
/// builds read from the one environment they share.
#[perfbench]
fn steady(b: &mut Bencher) {
    let more: usize = std::env::var("PAIRED_FIXTURE_PAGES").map_or(0, |p| p.parse().unwrap());
    b.iter(|| {
        black_box(Vec::<u8>::with_capacity(black_box(64)));
        touch_fresh_pages(2 + more)
    });
}

/// Panics in build A, the baseline, only.
#[perfbench]
fn panics_in_a(b: &mut Bencher) {
    if !build_b() {
        panic!("build A fails here");
    }
    b.iter(|| touch_fresh_pages(1));
}

/// Aborts the whole process in build A, the baseline, only.
#[perfbench]
fn aborts_in_a(b: &mut Bencher) {
    if !build_b() {
        std::process::abort();
    }
    b.iter(|| touch_fresh_pages(1));
}

/// Aborts the whole process in build B, the candidate, only.
#[perfbench]
fn aborts_in_b(b: &mut Bencher) {
    if build_b() {
        std::process::abort();
    }
    b.iter(|| touch_fresh_pages(1));
}

/// Only build B has it: its cases are the arguments of its build.
#[perfbench(args = if build_b() { vec![1, 2] } else { vec![1] })]
fn cases(b: &mut Bencher, n: usize) {
    b.iter(|| touch_fresh_pages(n));
}

#[path = "shared/mix.rs"]
mod mix;
use mix::mix;

#[inline(never)]
fn three_k(x: u64) -> u64 {
    mix(x, 3_000)
}

/// 1,000 rounds in build A, 4,000 in build B: four times dearer.
#[inline(never)]
fn one_k(x: u64) -> u64 {
    mix(x, if build_b() { 4_000 } else { 1_000 })
}

/// Where the time goes: `three_k` and `one_k`, the second four times
/// dearer in build B (the profile's differential names it first).
#[perfbench]
fn split() -> u64 {
    three_k(black_box(7)) ^ one_k(black_box(7))
}

perfbench::main!();
