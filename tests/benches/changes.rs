//! The report's index in a browser (tests/tests/report.rs, through `cargo
//! bench --bench changes`): ids whose numbers sort naturally (`/2` before
//! `/10`, `/307` before `/1024`), long ids of several parts that a narrow
//! page must break, and allocation counts (exact, and counted where no
//! perf event may be opened) that a second run with `FIXTURE_CHANGES=after`
//! makes regress or improve.

use perfbench::fixtures::boxes_of_64;
use perfbench::{black_box, perfbench, Bencher, CountingAllocator};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

/// Whether this is the second run, whose counts differ.
fn after() -> bool {
    std::env::var_os("FIXTURE_CHANGES").is_some_and(|v| v == "after")
}

/// 2 boxes per iteration at 2, 4 at 10; one more in the second run: a
/// regression of each.
#[perfbench(args = [2, 10])]
fn grows(b: &mut Bencher, n: usize) {
    let boxes = n.min(4) + usize::from(after());
    b.iter(|| boxes_of_64(black_box(boxes)));
}

/// One box per iteration in both runs: no change.
#[perfbench]
fn steady() -> usize {
    boxes_of_64(black_box(1))
}

/// Parts long enough that a narrow page breaks the ids.
mod a_rather_long_module_name {
    /// Its routines in a module of their own.
    pub mod decoding_by_table {
        use perfbench::fixtures::boxes_of_64;
        use perfbench::{black_box, perfbench, Bencher};

        /// 6 boxes per iteration, 3 in the second run: an improvement.
        #[perfbench(args = [307, 1024])]
        fn shrinks(b: &mut Bencher, _len: usize) {
            let boxes = if super::super::after() { 3 } else { 6 };
            b.iter(|| boxes_of_64(black_box(boxes)));
        }
    }
}

perfbench::main!();
