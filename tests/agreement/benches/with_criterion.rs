//! The agreement routines under Criterion with its defaults, timed twice:
//! by wall time (group `wall-time`, what Criterion prints) and by the
//! thread's CPU time (group `cpu-time`, comparable with perfbench's
//! `task-clock` on a machine other work shares).

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use perfbench_agreement::{
    alloc_free_68, base64_decode_68, base64_encode_4096, base64_encode_50,
    base64_encode_50_inlined, empty, mul_chain, parse_csv_50, siphash_50, stride_4mib, sum_1000,
    Inputs,
};
use std::hint::black_box;

/// The routines, in the group `g`.
fn routines<M: Measurement>(mut g: BenchmarkGroup<'_, M>) {
    let inputs = Inputs::default();
    bench(&mut g, "base64_encode_50", || {
        base64_encode_50(black_box(&inputs.bytes_50))
    });
    bench(&mut g, "base64_encode_50_inlined", || {
        base64_encode_50_inlined(black_box(&inputs.bytes_50))
    });
    bench(&mut g, "base64_decode_68", || {
        base64_decode_68(black_box(&inputs.chars_68))
    });
    bench(&mut g, "siphash_50", || {
        siphash_50(black_box(&inputs.bytes_50))
    });
    bench(&mut g, "parse_csv_50", || {
        parse_csv_50(black_box(&inputs.csv_50))
    });
    bench(&mut g, "base64_encode_4096", || {
        base64_encode_4096(black_box(&inputs.bytes_4096))
    });
    bench(&mut g, "empty", || empty(black_box(&0)));
    bench(&mut g, "alloc_free_68", || alloc_free_68(black_box(7)));
    bench(&mut g, "sum_1000", || sum_1000(black_box(&inputs.numbers)));
    bench(&mut g, "mul_chain", || mul_chain(black_box(3)));
    bench(&mut g, "stride_4mib", || {
        stride_4mib(black_box(&inputs.buffer))
    });
    g.finish();
}

/// `routine` as the benchmark `name`, its output passed through
/// `black_box` and dropped in the closure, as perfbench's `iter` and the
/// plain loop do; with `AGREEMENT_RETURN_OUTPUT` set, returned to
/// Criterion's `iter` instead, as users write it. `iter` moves a returned
/// value into its `black_box` with a 16-byte load right after the
/// routine's stores of it; where the routine wrote those 16 bytes with two
/// 8-byte stores (the `String` of base64's `encode`, the `Vec` of
/// `alloc_free_68`) the load cannot be forwarded from them and waits for
/// them: 5–9 ns an iteration (docs/how-it-measures.md, "Agreement with
/// Criterion") that the routine does not cost elsewhere.
fn bench<M: Measurement, O>(
    g: &mut BenchmarkGroup<'_, M>,
    name: &str,
    mut routine: impl FnMut() -> O,
) {
    if std::env::var_os("AGREEMENT_RETURN_OUTPUT").is_some() {
        g.bench_function(name, |b| b.iter(&mut routine));
    } else {
        g.bench_function(name, |b| {
            b.iter(|| {
                black_box(routine());
            })
        });
    }
}

fn wall_time(c: &mut Criterion) {
    // perfbench's process has a second thread (its signal watcher), and
    // Criterion's has rayon's after its first analysis: from then on
    // glibc's calloc and free take the arena's lock. One thread started
    // here puts every routine, the first included, in that state.
    std::thread::spawn(|| ()).join().expect("an empty thread");
    routines(c.benchmark_group("wall-time"));
}

fn cpu_time(c: &mut Criterion<ThreadCpuTime>) {
    routines(c.benchmark_group("cpu-time"));
}

/// The measuring thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`).
struct ThreadCpuTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = cpu_time::ThreadTime;
    type Value = Duration;

    fn start(&self) -> Self::Intermediate {
        cpu_time::ThreadTime::now()
    }
    fn end(&self, start: Self::Intermediate) -> Self::Value {
        start.elapsed()
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanoseconds
    }
}

/// Values shown in ns, unscaled: only the estimates.json files are read.
struct Nanoseconds;

impl ValueFormatter for Nanoseconds {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "ns"
    }
    fn scale_throughputs(&self, _: f64, _: &Throughput, _: &mut [f64]) -> &'static str {
        "ns"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

criterion_group!(by_wall_time, wall_time);
criterion_group! {
    name = by_cpu_time;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = cpu_time
}
criterion_main!(by_wall_time, by_cpu_time);
