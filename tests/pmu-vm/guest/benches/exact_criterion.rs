//! The routines of `exact.rs` written as a Criterion suite and measured
//! through perfbench-criterion, for the check that a Criterion suite's
//! counts are `#[perfbench]`'s to the instruction (`criterion_exact` in
//! `src/main.rs`). Ids and closures are those of `exact.rs`.

use criterion::async_executor::BlockOn;
use criterion::{black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};

#[path = "shared/spin.rs"]
mod spin;
use spin::spin;

/// `spin_loop/1000`, as `exact.rs`'s `spin_loop` with its argument.
fn spin_loop(c: &mut Criterion) {
    c.bench_with_input(
        BenchmarkId::new("spin_loop", 1000),
        &1000u64,
        |b, &trips| b.iter(|| spin(black_box(trips))),
    );
}

/// `spin_batched/*`, as `exact.rs`'s: the loop under `iter_batched`, its
/// input made by a setup that must not be counted.
fn spin_batched(c: &mut Criterion) {
    let mut group = c.benchmark_group("spin_batched");
    for (name, size) in [
        ("small", BatchSize::SmallInput),
        ("large", BatchSize::LargeInput),
        ("per-iteration", BatchSize::PerIteration),
        ("3-batches", BatchSize::NumBatches(3)),
    ] {
        group.bench_function(name, |b| {
            let setup = || {
                spin(black_box(5000));
                black_box(1000u64)
            };
            b.iter_batched(setup, spin, size);
        });
    }
    group.finish();
}

/// `spin_custom`, as `exact.rs`'s.
fn spin_custom(c: &mut Criterion) {
    c.bench_function("spin_custom", |b| {
        b.iter_custom(|n| {
            for _ in 0..n {
                spin(black_box(1000));
            }
            std::time::Duration::from_nanos(n.saturating_mul(1000))
        })
    });
}

/// `spin_async`, as `exact.rs`'s.
fn spin_async(c: &mut Criterion) {
    c.bench_function("spin_async", |b| {
        b.to_async(BlockOn).iter(|| async { spin(black_box(1000)) })
    });
}

criterion_group!(benches, spin_loop, spin_batched, spin_custom, spin_async);
criterion_main!(benches);
