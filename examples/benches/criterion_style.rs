//! Workloads of `workloads.rs`, written as a Criterion suite and left as
//! Criterion would run them: Cargo.toml renames `perfbench-criterion` to
//! `criterion`, and perfbench measures it. Run with
//! `cargo bench -p perfbench-examples --bench criterion_style`.

use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput,
};
use perfbench_examples::*;

/// Branch prediction: the same 256 KiB, sorted or shuffled.
fn branches(c: &mut Criterion) {
    let mut group = c.benchmark_group("branches");
    for order in ["sorted", "shuffled"] {
        let data = branch_input(256 * 1024, order == "sorted");
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("sum_large_bytes", order),
            &data,
            |b, data| b.iter(|| sum_large(black_box(data))),
        );
    }
    group.finish();
}

/// Pure arithmetic, on `Criterion` itself.
fn arithmetic_alone(c: &mut Criterion) {
    c.bench_function("multiply_add_1000", |b| {
        b.iter(|| arithmetic(black_box(1000)))
    });
}

/// Two ways to sort the same data, compared in a group.
fn sort(c: &mut Criterion) {
    let mut group = c.benchmark_group("sort");
    for n in [1_000usize, 100_000] {
        let data = pseudo_random(n, 7);
        group.bench_with_input(BenchmarkId::new("stable", n), &data, |b, data| {
            b.iter_batched_ref(|| data.clone(), |v| v.sort(), BatchSize::LargeInput)
        });
        group.bench_with_input(BenchmarkId::new("unstable", n), &data, |b, data| {
            b.iter_batched_ref(
                || data.clone(),
                |v| v.sort_unstable(),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// A setup a thousand times dearer than the routine, kept out by
/// `iter_batched`.
fn setup(c: &mut Criterion) {
    let mut group = c.benchmark_group("setup");
    let seed = expensive_seed();
    group.bench_function("mix_plain", |b| b.iter(|| mix(black_box(seed))));
    group.bench_function("mix_batched", |b| {
        b.iter_batched(expensive_seed, mix, BatchSize::SmallInput)
    });
    group.finish();
}

criterion_group!(benches, branches, arithmetic_alone, sort, setup);
criterion_main!(benches);
