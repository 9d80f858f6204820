//! Routines of a known call structure, run by tests/tests/profile.rs only:
//! `nested` spends about three quarters of its time in `three_k` and a
//! quarter in `one_k`, both called from `work`; `batched` runs `work` after
//! a setup (`setup_spin`) that must never be sampled.

use std::hint::black_box;

use perfbench::{perfbench, BatchSize, Bencher, CountingAllocator};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

#[path = "shared/mix.rs"]
mod mix;
use mix::mix;

#[inline(never)]
fn three_k(x: u64) -> u64 {
    mix(x, 3_000)
}

/// Whether `PROFILED_ONE_K_DEARER` is set (read once): then `one_k` runs
/// 4,000 rounds and allocates once, so that a run regresses, in its time
/// and, exactly, in its allocations.
fn dearer() -> bool {
    static DEARER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEARER.get_or_init(|| std::env::var_os("PROFILED_ONE_K_DEARER").is_some())
}

/// 1,000 rounds, or as [`dearer`] says.
#[inline(never)]
fn one_k(x: u64) -> u64 {
    if dearer() {
        black_box(Vec::<u8>::with_capacity(64));
        return mix(x, 4_000);
    }
    mix(x, 1_000)
}

#[inline(never)]
fn work(x: u64) -> u64 {
    three_k(x) ^ one_k(x)
}

#[inline(never)]
fn setup_spin(x: u64) -> u64 {
    mix(x, 8_000)
}

#[perfbench]
fn nested() -> u64 {
    work(black_box(7))
}

#[perfbench]
fn batched(b: &mut Bencher) {
    b.iter_batched(|| setup_spin(black_box(3)), work, BatchSize::SmallInput);
}

/// Lines of a text, worked through a reference: the function's name is
/// `<&profiled::Lines as profiled::Work>::work`, generic and with `&`.
struct Lines(u64);

trait Work {
    fn work(self) -> u64;
}

impl Work for &Lines {
    #[inline(never)]
    fn work(self) -> u64 {
        mix(self.0, 2_000)
    }
}

#[perfbench]
fn generic() -> u64 {
    (&Lines(black_box(5))).work()
}

perfbench::main!();
