//! Routines whose instruction counts are known exactly, for the checks in
//! the emulated arm64 machine (`src/main.rs` runs this binary there).

use perfbench::async_executor::BlockOn;
use perfbench::{black_box, perfbench, BatchSize, Bencher};

#[path = "shared/spin.rs"]
mod spin;
use spin::spin;

/// 3,000 instructions (1,500 rounds of the loop), for the profile's split.
#[inline(never)]
fn three_k() {
    spin(black_box(1500));
}

/// 1,000 instructions (500 rounds of the loop).
#[inline(never)]
fn one_k() {
    spin(black_box(500));
}

/// Three quarters of its instructions in `three_k`, a quarter in `one_k`:
/// what `--profile=instructions:u` must find.
#[perfbench]
fn split() {
    three_k();
    one_k();
}

/// The loop with 1000 and 2000 rounds: their counts differ by exactly 2000
/// instructions.
#[perfbench(args = [1000, 2000])]
fn spin_loop(b: &mut Bencher, trips: u64) {
    b.iter(|| spin(black_box(trips)));
}

/// The loop with 1000 rounds, and 500 more in a copy of this binary whose
/// name ends in `-b`: two copies paired (`paired_exact` in `src/main.rs`)
/// are two builds whose counts differ by exactly 1000 instructions an
/// iteration.
#[perfbench]
fn twin_builds(b: &mut Bencher) {
    let build_b = std::env::current_exe().is_ok_and(|e| e.to_string_lossy().ends_with("-b"));
    let trips = if build_b { 1500 } else { 1000 };
    b.iter(|| spin(black_box(trips)));
}

/// The loop with 1000 rounds under `iter_batched`, its input made by a
/// setup of 5000 rounds that must not be counted, in batches of every kind:
/// toggling the counters per batch must land in the intercept alone, so the
/// estimate is the same, exactly, whatever the batch size.
#[perfbench(args = ["small", "large", "per-iteration", "3-batches"])]
fn spin_batched(b: &mut Bencher, size: &str) {
    let size = match size {
        "small" => BatchSize::SmallInput,
        "large" => BatchSize::LargeInput,
        "per-iteration" => BatchSize::PerIteration,
        _ => BatchSize::NumBatches(3),
    };
    let setup = || {
        spin(black_box(5000));
        black_box(1000u64)
    };
    b.iter_batched(setup, spin, size);
}

/// The loop with 1000 rounds as an async routine, its future run by
/// perfbench's own executor: polled in the counted loop, ready at once.
#[perfbench]
fn spin_async(b: &mut Bencher) {
    b.to_async(BlockOn).iter(|| async { spin(black_box(1000)) });
}

/// The loop with 1000 rounds under `iter_custom`: the counters bracket
/// each call, so the estimate is the loop's. The routine returns a nominal
/// time instead of reading the clock: a clock read retries now and then
/// (the vDSO's seqlock, when the kernel updates the time), which adds a
/// few instructions to one sample, and its count would then be the
/// clock's as much as the loop's (a retry once moved the slope by 0.0125
/// of an instruction).
#[perfbench]
fn spin_custom(b: &mut Bencher) {
    b.iter_custom(|n| {
        for _ in 0..n {
            spin(black_box(1000));
        }
        std::time::Duration::from_nanos(n.saturating_mul(1000))
    });
}

/// The loop with 1000 rounds, measured with its own events and mode
/// whatever the run's are (unless `--events` or `--mode` say otherwise).
#[perfbench(events = "instructions", mode = "per-iter")]
fn spin_own_setup(b: &mut Bencher) {
    b.iter(|| spin(black_box(1000)));
}

/// The loop with 1000 rounds on one and on two threads at once: counts are
/// totals over the threads, so two threads count exactly twice one's.
#[perfbench(threads = [1, 2])]
fn spin_threads(b: &mut Bencher) {
    b.iter_shared(|| spin(black_box(1000)));
}

/// An empty routine under each `Bencher` method, written as a user
/// would: each method's own code around it is what calibration measures
/// and `--subtract-overhead` takes off, so each counts exactly 0
/// instructions per iteration then.
#[perfbench(args = ["iter", "iter_batched", "iter_batched_ref", "iter_batched_per_iteration",
    "iter_batched_ref_per_iteration", "iter_custom", "async_iter", "async_iter_batched",
    "async_iter_batched_ref"])]
fn empty(b: &mut Bencher, method: &str) {
    match method {
        "async_iter" => b.to_async(BlockOn).iter(|| async {}),
        "async_iter_batched" => {
            b.to_async(BlockOn)
                .iter_batched(|| 0u64, |x| async move { x }, BatchSize::SmallInput)
        }
        "async_iter_batched_ref" => b.to_async(BlockOn).iter_batched_ref(
            || 0u64,
            |x| {
                let x = *x;
                async move { x }
            },
            BatchSize::SmallInput,
        ),
        "iter" => b.iter(|| ()),
        "iter_batched" => b.iter_batched(|| 0u64, |x| x, BatchSize::SmallInput),
        "iter_batched_ref" => b.iter_batched_ref(|| 0u64, |x| *x, BatchSize::SmallInput),
        "iter_batched_per_iteration" => b.iter_batched(|| 0u64, |x| x, BatchSize::PerIteration),
        "iter_batched_ref_per_iteration" => {
            b.iter_batched_ref(|| 0u64, |x| *x, BatchSize::PerIteration)
        }
        _ => b.iter_custom(|n| {
            let start = std::time::Instant::now();
            for i in 0..n {
                black_box(i);
            }
            start.elapsed()
        }),
    }
}

/// The empty routine shared by two threads (`iter_shared`): calibrated on
/// as many, it counts exactly 0 instructions once subtracted.
#[perfbench(threads = [2])]
fn empty_shared(b: &mut Bencher) {
    b.iter_shared(|| ());
}

perfbench::main!();
