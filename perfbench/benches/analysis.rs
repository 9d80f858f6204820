//! The cost of the statistics: `analyze_metric` over synthetic data shaped
//! like a full run, 100 benchmarks × 6 metrics × 100 samples in batch mode
//! (sample `i` runs `i · d` iterations). Three metrics are noisy like times,
//! so they are bootstrapped; three are exact like counters (the same count
//! every iteration), which skip the resampling. Timed sequentially and split
//! over the available cores. Prints figures; asserts nothing.
//!
//! `cargo bench -p perfbench --bench analysis`

use std::hint::black_box;
use std::thread;
use std::time::{Duration, Instant};

mod common;

use common::Noise;
use perfbench::stats::{
    analyze_metric, compare, linear_fit, BetweenRuns, Bootstrap, RoundEstimates, Statistics,
};

const BENCHMARKS: usize = 100;
const SAMPLES: u64 = 100;

/// One metric's samples.
struct Series {
    iterations: Vec<u64>,
    totals: Vec<u64>,
    noisy: bool,
}

fn synthetic(noise: &mut Noise, scale: u64) -> Vec<Series> {
    let mut all = Vec::new();
    for b in 0..BENCHMARKS as u64 {
        let d = 1 + b % 7;
        let iterations: Vec<u64> = (1..=SAMPLES).map(|i| i * d).collect();
        // Noisy: a per-iteration cost, a fixed cost per sample, noise that
        // grows with the sample and now and then a large outlier.
        for (per_iter, fixed) in [(250 + 10 * b, 900), (800 + 30 * b, 60), (40 + b, 5_000)] {
            let per_iter = per_iter * scale / 100;
            let totals = iterations
                .iter()
                .map(|&x| {
                    let base = (per_iter * x + fixed) as f64;
                    let mut y = base * (1.0 + 0.02 * noise.centred());
                    if noise.next() % 50 == 0 {
                        y *= 1.5;
                    }
                    y.max(0.0) as u64
                })
                .collect();
            all.push(Series {
                iterations: iterations.clone(),
                totals,
                noisy: true,
            });
        }
        // Exact: a constant count per iteration (one of them zero).
        for per_iter in [16, 3 + b, 0] {
            all.push(Series {
                totals: iterations.iter().map(|&x| per_iter * x).collect(),
                iterations: iterations.clone(),
                noisy: false,
            });
        }
    }
    all
}

fn analyze_all<'a>(
    series: impl IntoIterator<Item = &'a Series>,
    bootstrap: &Bootstrap,
) -> Vec<Statistics> {
    series
        .into_iter()
        .map(|s| analyze_metric(black_box(&s.iterations), black_box(&s.totals), bootstrap))
        .collect()
}

fn analyze_parallel(series: &[Series], bootstrap: &Bootstrap, threads: usize) -> Vec<Statistics> {
    let chunk = series.len().div_ceil(threads);
    thread::scope(|scope| {
        let handles: Vec<_> = series
            .chunks(chunk)
            .map(|part| scope.spawn(move || analyze_all(part, bootstrap)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("analysis thread panicked"))
            .collect()
    })
}

/// The fastest of `runs` timings of `f`.
fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        let r = black_box(f());
        best = best.min(start.elapsed());
        out = Some(r);
    }
    (best, out.expect("runs > 0"))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        // `cargo test --all-targets` runs benches once as tests: nothing to
        // check here, and the figures only mean something under `cargo bench`.
        return;
    }
    let mut noise = Noise(0x9E37_79B9_7F4A_7C15);
    let series = synthetic(&mut noise, 100);
    let bootstrap = Bootstrap::default();
    let threads = thread::available_parallelism().map_or(1, |n| n.get());
    let (noisy, exact): (Vec<&Series>, Vec<&Series>) = series.iter().partition(|s| s.noisy);
    println!(
        "{} metrics ({BENCHMARKS} benchmarks × 6, {} noisy, {} exact) × {SAMPLES} samples, {} resamples",
        series.len(),
        noisy.len(),
        exact.len(),
        bootstrap.resamples
    );

    let (seq, stats) = best_of(3, || analyze_all(&series, &bootstrap));
    println!(
        "sequential:            {:>9}  ({:.1} µs per metric)",
        ms(seq),
        seq.as_secs_f64() * 1e6 / series.len() as f64
    );
    let (par, par_stats) = best_of(3, || analyze_parallel(&series, &bootstrap, threads));
    println!(
        "{threads} threads:             {:>9}  (speed-up {:.2})",
        ms(par),
        seq.as_secs_f64() / par.as_secs_f64()
    );
    assert!(stats == par_stats, "threads changed the figures");

    let (t_noisy, _) = best_of(3, || analyze_all(noisy.iter().copied(), &bootstrap));
    let (t_exact, _) = best_of(3, || analyze_all(exact.iter().copied(), &bootstrap));
    println!(
        "noisy metrics only:    {:>9}  ({:.1} µs each)",
        ms(t_noisy),
        t_noisy.as_secs_f64() * 1e6 / noisy.len() as f64
    );
    println!(
        "exact metrics only:    {:>9}  ({:.2} µs each)",
        ms(t_exact),
        t_exact.as_secs_f64() * 1e6 / exact.len() as f64
    );

    // Baselines: the same shapes 3 % slower, compared metric by metric
    // over five rounds of consecutive samples.
    let newer = synthetic(&mut noise, 103);
    let rounds: Vec<u32> = (0..SAMPLES as u32)
        .map(|i| 5 * i / SAMPLES as u32)
        .collect();
    let slope = |x: &[u64], y: &[u64]| linear_fit(x, y).0;
    let (t_cmp, changes) = best_of(3, || {
        series
            .iter()
            .zip(&newer)
            .map(|(a, b)| {
                compare(
                    &RoundEstimates::of(&a.iterations, &a.totals, &rounds, slope),
                    &RoundEstimates::of(&b.iterations, &b.totals, &rounds, slope),
                    BetweenRuns::NONE,
                    bootstrap.confidence,
                )
            })
            .collect::<Vec<_>>()
    });
    println!(
        "compare, sequential:   {:>9}  ({:.1} µs per metric)",
        ms(t_cmp),
        t_cmp.as_secs_f64() * 1e6 / changes.len() as f64
    );

    let s = &stats[0];
    println!(
        "example, noisy: slope {:.2} [{:.2}, {:.2}], R² {:.5}, mean {:.2} [{:.2}, {:.2}], MAD {:.2}, outliers {:?}",
        s.slope.point, s.slope.ci.low, s.slope.ci.high, s.r_squared, s.mean.point, s.mean.ci.low, s.mean.ci.high, s.mad.point, s.outliers
    );
    let s = &stats[3];
    println!(
        "example, exact: slope {} [{}, {}], mean {} [{}, {}]",
        s.slope.point, s.slope.ci.low, s.slope.ci.high, s.mean.point, s.mean.ci.low, s.mean.ci.high
    );
    let c = &changes[0];
    println!(
        "example change (+3 %): {:?} {:?} p = {:.3e}",
        c.relative, c.ci, c.p_value
    );
}
