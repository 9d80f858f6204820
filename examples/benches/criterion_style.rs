//! A Criterion suite, written for Criterion and unchanged: Cargo.toml
//! renames `perfbench-criterion` to `criterion`, and perfbench measures it.

use std::time::Duration;

use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput,
};

fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

fn plain(c: &mut Criterion) {
    c.bench_function("fib 15", |b| b.iter(|| fib(black_box(15))));
    c.bench_with_input(BenchmarkId::new("fib", 10), &10u64, |b, &n| {
        b.iter(|| fib(black_box(n)))
    });
}

fn grouped(c: &mut Criterion) {
    let mut group = c.benchmark_group("checksum");
    for len in [64usize, 4096] {
        let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(BenchmarkId::from_parameter(len), &data, |b, data| {
            b.iter(|| data.iter().map(|&x| u64::from(x)).sum::<u64>())
        });
    }
    group.finish();
}

fn batched(c: &mut Criterion) {
    let mut group = c.benchmark_group("sort");
    group
        .sample_size(20)
        .measurement_time(Duration::from_millis(400));
    group.bench_function("batched", |b| {
        b.iter_batched(
            || (0..256u32).rev().collect::<Vec<_>>(),
            |mut v| {
                v.sort();
                v
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("custom", |b| {
        b.iter_custom(|iters| {
            let start = std::time::Instant::now();
            for i in 0..iters {
                black_box(i.wrapping_mul(7));
            }
            start.elapsed()
        })
    });
    group.finish();
}

criterion_group!(benches, plain, grouped);
criterion_group! {
    name = configured;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_millis(100));
    targets = batched
}
criterion_main!(benches, configured);
