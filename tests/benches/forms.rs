//! The forms of `#[perfbench]` (and `#[perfbench::group]`) beyond one
//! function per benchmark, run by
//! tests/tests/forms.rs through `cargo bench --bench forms`. Every routine
//! touches a known number of fresh pages, so its exact page-fault count
//! shows which argument or type it ran with.

use perfbench::fixtures::touch_fresh_pages;
use perfbench::{perfbench, Bencher};

/// Arguments from a constant slice, cloned into the function.
const PAGES: &[usize] = &[1, 3];

#[perfbench(args = PAGES)]
fn from_const(b: &mut Bencher, pages: usize) {
    b.iter(|| touch_fresh_pages(pages));
}

/// Arguments from a range.
#[perfbench(args = 2..=3)]
fn from_range(b: &mut Bencher, pages: usize) {
    b.iter(|| touch_fresh_pages(pages));
}

/// Tuples: named by their `Debug`, `(1, 4)`.
#[perfbench(args = [(1, 4), (2, 0)])]
fn tuples(b: &mut Bencher, (x, y): (usize, usize)) {
    b.iter(|| touch_fresh_pages(x + y));
}

/// An argument without `Display`: named by its `Debug`.
#[derive(Debug, Clone, Copy)]
enum Size {
    Small,
    Large,
}

#[perfbench(args = [Size::Small, Size::Large])]
fn by_debug(b: &mut Bencher, size: Size) {
    let pages = match size {
        Size::Small => 2,
        Size::Large => 5,
    };
    b.iter(|| touch_fresh_pages(pages));
}

/// A page count carried by a type.
trait Pages {
    const PAGES: usize;
}

impl Pages for u8 {
    const PAGES: usize = 1;
}

impl Pages for u64 {
    const PAGES: usize = 8;
}

#[perfbench(types = [u8, u64])]
fn typed<T: Pages>(b: &mut Bencher) {
    b.iter(|| touch_fresh_pages(T::PAGES));
}

#[perfbench(types = [u8, u64], args = [1, 2])]
fn typed_with_args<T: Pages>(b: &mut Bencher, times: usize) {
    b.iter(|| touch_fresh_pages(T::PAGES * times));
}

/// Its own sample count and times, which the run's settings override.
#[perfbench(sample_count = 7, warm_up_time = 0.01, measurement_time = 0.05)]
fn own_settings() -> u64 {
    touch_fresh_pages(1)
}

/// Its own events and mode, which `--events` and `--mode` override.
#[perfbench(events = "page-faults", mode = "per-iter")]
fn own_setup() -> u64 {
    touch_fresh_pages(3)
}

/// An event that does not exist: an error naming the benchmark, where it
/// is selected and `--events` does not override it.
#[perfbench(events = "no-such-event")]
fn unknown_event() -> u64 {
    touch_fresh_pages(1)
}

/// Times itself (`iter_custom`): 1 µs per iteration as it reports, whatever
/// it took, and 2 page faults as the counters around it count.
#[perfbench]
fn custom_timing(b: &mut Bencher) {
    b.iter_custom(|n| {
        for _ in 0..n {
            perfbench::black_box(touch_fresh_pages(2));
        }
        std::time::Duration::from_micros(n)
    });
}

/// On 1, 2 and 4 threads at once: 2 fresh pages a call, so 2, 4 and 8 page
/// faults per iteration, the totals over the threads.
#[perfbench(threads = [1, 2, 4])]
fn threaded() -> u64 {
    touch_fresh_pages(2)
}

/// `iter_shared` with `args`: every thread touches `pages` pages a call.
#[perfbench(args = [1, 3], threads = [2])]
fn threaded_args(b: &mut Bencher, pages: usize) {
    b.iter_shared(|| touch_fresh_pages(pages));
}

/// A group by module: its members side by side at each argument.
mod paging {
    use perfbench::fixtures::touch_fresh_pages;
    use perfbench::{perfbench, Bencher};

    #[perfbench(args = [1, 2])]
    fn single(b: &mut Bencher, n: usize) {
        b.iter(|| touch_fresh_pages(n));
    }

    #[perfbench(args = [1, 2])]
    fn triple(b: &mut Bencher, n: usize) {
        b.iter(|| touch_fresh_pages(3 * n));
    }
}

/// A group by attribute, across modules.
#[perfbench(group = "named")]
fn light() -> u64 {
    touch_fresh_pages(2)
}

mod elsewhere {
    #[perfbench::perfbench(group = "named")]
    fn heavy() -> u64 {
        perfbench::fixtures::touch_fresh_pages(5)
    }
}

/// Criterion's `bench_with_input(id, &pages, |b, &pages| …)` habit: the
/// argument taken by reference.
#[perfbench(args = [1, 4])]
fn by_reference(b: &mut Bencher, &pages: &usize) {
    b.iter(|| touch_fresh_pages(pages));
}

/// One place for a group's settings: its members take them, and the group's
/// name, unless they give their own.
#[perfbench::group(
    name = "shared",
    sample_size = 6,
    warm_up_time = 0.01,
    measurement_time = 0.05
)]
mod grouped {
    use perfbench::fixtures::touch_fresh_pages;
    use perfbench::{perfbench, Bencher};

    #[perfbench(args = [1, 2])]
    fn inherits(b: &mut Bencher, pages: &usize) {
        b.iter(|| touch_fresh_pages(*pages));
    }

    #[perfbench(sample_count = 8)]
    fn own_count() -> u64 {
        touch_fresh_pages(3)
    }
}

perfbench::main!();
