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

perfbench::main!();
