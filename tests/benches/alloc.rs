//! Benchmarks with perfbench's counting allocator installed, as a user
//! would install it, for the end-to-end tests (`cargo bench --bench
//! alloc`): each allocates a known amount per iteration.

use perfbench::fixtures::{self, boxes_of_64};
use perfbench::{black_box, perfbench, BatchSize, Bencher, CountingAllocator};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

/// 3 allocs, 192 alloc-bytes, 3 deallocs and 0 reallocs per iteration.
#[perfbench]
fn three_boxes() {
    boxes_of_64(black_box(3));
}

/// Nothing allocated: 0 of each.
#[perfbench]
fn empty() {}

/// 64 bytes grown to 256 and shrunk to 16: 1 alloc, 256 alloc-bytes, 2
/// reallocs, 1 dealloc.
#[perfbench]
fn grow_and_shrink() -> usize {
    fixtures::grow_and_shrink()
}

/// Three boxes on an input of 1000 bytes that setup allocates and the
/// routine returns: neither counted, so 3 allocs, 192 bytes, 3 deallocs.
#[perfbench]
fn batched(b: &mut Bencher) {
    b.iter_batched(
        || vec![0u8; 1000],
        |input| {
            boxes_of_64(black_box(3));
            input
        },
        BatchSize::SmallInput,
    );
}

/// `FIXTURE_ALLOC_BOXES` (default 3, at most 8) boxes per iteration: the
/// baseline test changes the allocations between runs without rebuilding.
#[perfbench]
fn boxes_n(b: &mut Bencher) {
    let n = std::env::var("FIXTURE_ALLOC_BOXES").map_or(3, |n| n.parse().expect("a number"));
    b.iter(|| boxes_of_64(black_box(n)));
}

perfbench::main!();
