//! Benchmarks the end-to-end tests run through `cargo bench --bench fixtures`.

use perfbench::fixtures::touch_fresh_pages;
use perfbench::{black_box, perfbench, BatchSize, Bencher};

/// Exactly 16 page faults per iteration.
#[perfbench]
fn touch_16() -> u64 {
    touch_fresh_pages(black_box(16))
}

/// Exactly `pages` page faults per iteration, setup excluded.
#[perfbench(args = [1, 17])]
fn touch_batched(b: &mut Bencher, pages: usize) {
    b.iter_batched(
        || touch_fresh_pages(3),
        |x| x + touch_fresh_pages(pages),
        BatchSize::SmallInput,
    );
}

/// Fails on purpose: the run must report it by id and go on.
#[perfbench]
fn panics(b: &mut Bencher) {
    b.iter(|| -> u64 { panic!("deliberate failure in a fixture") });
}

/// `FIXTURE_PAGES` (default 16) page faults per iteration: the
/// baseline tests change the workload between runs without rebuilding.
#[perfbench]
fn touch_n(b: &mut Bencher) {
    let pages = std::env::var("FIXTURE_PAGES").map_or(16, |p| p.parse().expect("a number"));
    b.iter(|| touch_fresh_pages(black_box(pages)));
}

/// Returns without measuring anything: reported by id.
#[perfbench]
fn forgets_iter(_b: &mut Bencher) {}

/// Arguments with characters that need care in ids, files and HTML.
#[perfbench(args = ["ascii", "emoji 🦀", "<script>alert(1)</script>"], throughput = bytes)]
fn text(b: &mut Bencher, input: &str) {
    b.iter(|| black_box(input).len());
}

/// The routines the oracle test also runs under `perf stat`.
#[perfbench(args = ["touch_pages", "read_into_pages", "sleep_4", "thread", "compute"])]
fn oracle(b: &mut Bencher, name: &str) {
    let routine = perfbench_tests::routine(name).expect("a routine of ROUTINES");
    b.iter(routine);
}

/// 300 ms an iteration: slower than short budgets, so the run plans fewer
/// samples and warns before measuring.
#[perfbench]
fn sleeps_300ms(b: &mut Bencher) {
    b.iter(|| std::thread::sleep(std::time::Duration::from_millis(300)));
}

/// Ignored with libtest's attribute: measured only when asked for, with
/// exactly 2 page faults per iteration.
#[perfbench]
#[ignore]
fn ignored_attribute() -> u64 {
    touch_fresh_pages(black_box(2))
}

/// Ignored with the attribute's key: exactly 3 page faults per iteration.
#[perfbench(ignore)]
fn ignored_key(b: &mut Bencher) {
    b.iter(|| touch_fresh_pages(black_box(3)));
}

/// The `BatchSize` the iter_batched truth fixtures run under, by name.
fn batch_size(name: &str) -> BatchSize {
    match name {
        "small" => BatchSize::SmallInput,
        "large" => BatchSize::LargeInput,
        "per_iteration" => BatchSize::PerIteration,
        "batches_10" => BatchSize::NumBatches(10),
        "inputs_10" => BatchSize::NumIterations(10),
        _ => panic!("no batch size named {name}"),
    }
}

/// `rounds` dependent multiply-adds on `x`: 64 take some 10 ns here, and
/// 15,000 some 20 µs.
fn mix(x: u64, rounds: u64) -> u64 {
    (0..black_box(rounds)).fold(x, |a, i| {
        a.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i)
    })
}

/// A setup of ~20 µs before a ~10 ns routine: the routine's estimate must be
/// positive, with an interval that excludes 0, under every batch size.
#[perfbench(args = ["small", "large", "per_iteration", "batches_10", "inputs_10"])]
fn dear_setup(b: &mut Bencher, size: &str) {
    b.iter_batched(|| mix(1, 15_000), |x| mix(x, 64), batch_size(size));
}

/// A small input that stays hot, under plain `iter` and every batch size:
/// each must read what `iter` reads.
#[perfbench(args = ["iter", "small", "large", "per_iteration", "batches_10", "inputs_10"])]
fn hot_input(b: &mut Bencher, size: &str) {
    let input = 7u64;
    match size {
        "iter" => b.iter(|| mix(black_box(input), 64)),
        _ => b.iter_batched(|| input, |x| mix(x, 64), batch_size(size)),
    }
}

perfbench::main!();
