//! A Criterion suite as users write them, built through perfbench-criterion
//! (renamed `criterion` in Cargo.toml), run by tests/tests/criterion_compat.rs.
//! Every routine touches a known number of fresh pages, so its exact
//! page-fault count shows which routine ran and what was measured.

use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use perfbench::fixtures::touch_fresh_pages;

/// `bench_function` on `Criterion` itself, and `bench_with_input`.
fn plain(c: &mut Criterion) {
    c.bench_function("touch 1", |b| b.iter(|| touch_fresh_pages(1)));
    c.bench_with_input(BenchmarkId::new("touch", 3), &3, |b, &n| {
        b.iter(|| touch_fresh_pages(n))
    });
}

/// A group: throughput, its own sample size, ids from parameters.
fn grouped(c: &mut Criterion) {
    let mut group = c.benchmark_group("pages");
    group.sample_size(12).sampling_mode(SamplingMode::Auto);
    for n in [2usize, 4] {
        group.throughput(Throughput::Bytes(4096 * n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| touch_fresh_pages(n))
        });
    }
    group.bench_function(BenchmarkId::new("twice", 1), |b| {
        b.iter(|| touch_fresh_pages(1) + touch_fresh_pages(1))
    });
    group.finish();
}

/// Every `Bencher` method: the setup's pages (5) are never counted, the
/// routine's are.
fn methods(c: &mut Criterion) {
    let mut group = c.benchmark_group("methods");
    group.bench_function("iter_batched", |b| {
        b.iter_batched(
            || touch_fresh_pages(5),
            |_| touch_fresh_pages(2),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("iter_batched_ref", |b| {
        b.iter_batched_ref(
            || touch_fresh_pages(5),
            |_| touch_fresh_pages(2),
            BatchSize::NumIterations(4),
        )
    });
    group.bench_function("iter_with_setup", |b| {
        b.iter_with_setup(|| touch_fresh_pages(5), |_| touch_fresh_pages(2))
    });
    group.bench_function("iter_with_large_drop", |b| {
        b.iter_with_large_drop(|| touch_fresh_pages(2))
    });
    group.bench_function("iter_custom", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                touch_fresh_pages(2);
            }
            start.elapsed()
        })
    });
    group.finish();
}

/// Async routines on a tokio runtime, as Criterion suites write them: each
/// future yields to the runtime once before it touches its pages, so its
/// count is exact only where it is awaited to its end inside the
/// measurement; the setup's 5 pages are never counted.
fn async_routines(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("async");
    group.bench_function("iter", |b| {
        b.to_async(&runtime).iter(|| async {
            tokio::task::yield_now().await;
            touch_fresh_pages(2)
        })
    });
    group.bench_function("iter_batched", |b| {
        b.to_async(&runtime).iter_batched(
            || touch_fresh_pages(5),
            |_| async {
                tokio::task::yield_now().await;
                touch_fresh_pages(3)
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("iter_custom", |b| {
        b.to_async(&runtime).iter_custom(|iters| async move {
            let start = Instant::now();
            for _ in 0..iters {
                tokio::task::yield_now().await;
                touch_fresh_pages(1);
            }
            start.elapsed()
        })
    });
    group.finish();
}

/// The full form of `criterion_group!`, its config's settings taking effect.
fn configured_target(c: &mut Criterion) {
    c.bench_function("configured", |b| b.iter(|| touch_fresh_pages(1)));
}

/// A routine that panics, and one after it that does not.
fn panicking(c: &mut Criterion) {
    c.bench_function("panics", |b| {
        b.iter(|| {
            if touch_fresh_pages(1) > 0 {
                panic!("the routine gave up");
            }
        })
    });
    c.bench_function("after panics", |b| b.iter(|| touch_fresh_pages(1)));
}

/// A measurement of the suite's own, which perfbench does not use.
struct Calls;

impl ValueFormatter for Calls {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "calls"
    }
    fn scale_throughputs(&self, _t: f64, _th: &Throughput, _v: &mut [f64]) -> &'static str {
        "calls/s"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "calls"
    }
}

impl Measurement for Calls {
    type Intermediate = ();
    type Value = u64;
    fn start(&self) {}
    fn end(&self, _i: ()) -> u64 {
        1
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self
    }
}

fn custom_measurement(c: &mut Criterion<Calls>) {
    c.bench_function("calls", |b| b.iter(|| touch_fresh_pages(1)));
    c.bench_function("calls custom", |b| b.iter_custom(|iters| iters));
}

criterion_group!(benches, plain, grouped, methods, async_routines);
/// The full form's config: its settings per benchmark, and run-wide ones
/// (a baseline to save where `CRITERION_COMPAT_SAVE` names one).
fn configured_config() -> Criterion {
    let c = Criterion::default()
        .sample_size(15)
        .warm_up_time(Duration::from_millis(20))
        .measurement_time(Duration::from_millis(100))
        .noise_threshold(0.05);
    match std::env::var("CRITERION_COMPAT_SAVE") {
        Ok(name) => c.save_baseline(name),
        Err(_) => c,
    }
}

criterion_group! {
    name = configured;
    config = configured_config();
    targets = configured_target
}
criterion_group!(failing, panicking);
criterion_group! {
    name = measured_otherwise;
    config = Criterion::default().with_measurement(Calls);
    targets = custom_measurement
}
criterion_main!(benches, configured, failing, measured_otherwise);
