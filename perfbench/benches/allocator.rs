//! What `perfbench::CountingAllocator` costs per allocation: an allocation
//! of 64 bytes and its deallocation through the system allocator (what a
//! binary without the counting allocator ends up calling), and through the
//! counting allocator around it, outside a counted window (while the
//! routine's setup runs, say) and inside one. Both are called directly, so
//! the difference is the counting alone: the call through
//! `std::alloc::alloc` to the global allocator is the same with it or
//! without. Prints figures; asserts nothing (these machines are noisy).
//!
//! `cargo bench -p perfbench --bench allocator`

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::time::Instant;

use perfbench::counter::event::parse_list;
use perfbench::counter::group::CounterGroup;
use perfbench::CountingAllocator;

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

/// Allocation and deallocation pairs per timing.
const PAIRS: u32 = 200_000;
/// Timings per way, interleaved.
const ROUNDS: usize = 51;

const LAYOUT: Layout = match Layout::from_size_align(64, 8) {
    Ok(layout) => layout,
    Err(_) => panic!("64 bytes aligned to 8 is a layout"),
};

/// Nanoseconds per allocation and deallocation over [`PAIRS`] of them
/// through `allocator`, called directly.
#[inline(never)]
fn per_pair(allocator: &impl GlobalAlloc) -> f64 {
    let start = Instant::now();
    for _ in 0..PAIRS {
        // SAFETY: LAYOUT has a non-zero size; the pointer, if not null, is
        // freed once, by the allocator that made it, with its layout.
        unsafe {
            let p = allocator.alloc(LAYOUT);
            if !p.is_null() {
                allocator.dealloc(black_box(p), LAYOUT);
            }
        }
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(PAIRS)
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_unstable_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        // `cargo test --all-targets` runs benches once as tests: the
        // figures only mean something under `cargo bench`.
        return;
    }
    let mut window = CounterGroup::open(&parse_list("allocs").expect("allocs parses"))
        .expect("allocation counts open");
    let counted = |group: &mut CounterGroup| {
        group.enable().expect("enable");
        let t = per_pair(&ALLOC);
        group.disable().expect("disable");
        t
    };
    // Each round times the three ways back to back: a slow spell of the
    // machine then lands on all three, and their differences within a
    // round stay fair.
    let rounds: Vec<[f64; 3]> = (0..ROUNDS)
        .map(|_| [per_pair(&System), per_pair(&ALLOC), counted(&mut window)])
        .collect();
    let counts = window.read().expect("read").values[0];
    println!("an allocation of 64 bytes and its deallocation, {ROUNDS} rounds of {PAIRS}:");
    println!(
        "  {:<36} {:>9} {:>9}  {:>17}",
        "", "fastest", "median", "median extra"
    );
    let ways = [
        "system allocator",
        "CountingAllocator, outside a window",
        "CountingAllocator, counting",
    ];
    for (k, way) in ways.iter().enumerate() {
        let times: Vec<f64> = rounds.iter().map(|r| r[k]).collect();
        let fastest = times.iter().copied().fold(f64::INFINITY, f64::min);
        let extra = median(rounds.iter().map(|r| r[k] - r[0]).collect());
        println!(
            "  {way:<36} {fastest:>6.2} ns {:>6.2} ns  {extra:>+14.2} ns",
            median(times)
        );
    }
    println!("  (allocations counted: {counts})");
}
