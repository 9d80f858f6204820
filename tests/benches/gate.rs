//! The suite the regression gate is judged on (`src/bin/coverage.rs`):
//! routines of different kinds whose work is `FIXTURE_GATE_WORK` percent
//! (default 100) of their usual, so that a run can be made exactly 25 %
//! dearer without rebuilding.

use perfbench::fixtures::touch_fresh_pages;
use perfbench::{black_box, perfbench, Bencher};
use perfbench_tests::compute;

/// `base` scaled by `FIXTURE_GATE_WORK` percent.
fn work(base: u64) -> u64 {
    let percent: u64 =
        std::env::var("FIXTURE_GATE_WORK").map_or(100, |p| p.parse().expect("a percentage"));
    base * percent / 100
}

/// Dependent integer arithmetic: the CPU alone.
#[perfbench]
fn arithmetic(b: &mut Bencher) {
    let steps = work(2000);
    b.iter(|| compute(black_box(steps)));
}

/// A walk over a 64 KiB buffer per 100 %: loads from L1 and L2.
#[perfbench]
fn memory_walk(b: &mut Bencher) {
    let data: Vec<u64> = (0..work(8192)).collect();
    b.iter(|| {
        black_box(&data)
            .iter()
            .fold(0u64, |a, &x| a.rotate_left(3) ^ x)
    });
}

/// Fresh pages: the kernel's page-fault path, 8 per 100 %.
#[perfbench]
fn page_faults(b: &mut Bencher) {
    let pages = work(8) as usize;
    b.iter(|| touch_fresh_pages(black_box(pages)));
}

/// Sorting 1000 pseudo-random keys per 100 %: branches and memory.
#[perfbench]
fn sort(b: &mut Bencher) {
    let n = work(1000);
    let keys: Vec<u64> = (0..n)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7)
        .collect();
    b.iter_batched_ref(
        || keys.clone(),
        |k| k.sort_unstable(),
        perfbench::BatchSize::SmallInput,
    );
}

perfbench::main!();
