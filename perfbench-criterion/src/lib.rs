//! Criterion's API, measured by perfbench: an existing Criterion suite
//! runs under perfbench by renaming one dependency, keeping every line of
//! its benches.
//!
//! ```toml
//! [dev-dependencies]
//! criterion = { package = "perfbench-criterion", version = "0.1" }
//! ```
//!
//! `cargo bench` then measures every benchmark with perfbench: counters,
//! rounds, stored results, the gate, the report, paired runs and every
//! output format and option, with Criterion's ids (`group/function/parameter`)
//! and flags. What cannot mean the same under perfbench (a custom
//! `Measurement` or `Profiler`, a plotting backend, a per-group noise
//! threshold) compiles, and is named once in one line at run time.
//!
//! ```no_run
//! use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
//! # extern crate perfbench_criterion as criterion;
//!
//! fn fib(n: u64) -> u64 {
//!     if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
//! }
//!
//! fn bench(c: &mut Criterion) {
//!     c.bench_function("fib 20", |b| b.iter(|| fib(black_box(20))));
//!     let mut group = c.benchmark_group("fib");
//!     for n in [10u64, 15] {
//!         group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
//!             b.iter(|| fib(black_box(n)))
//!         });
//!     }
//!     group.finish();
//! }
//!
//! criterion_group!(benches, bench);
//! criterion_main!(benches);
//! ```
//!
//! How it measures: `criterion_main!` hands the group functions to
//! perfbench's runner, which calls them once to list the benchmarks and
//! then once per round, measuring each benchmark's round while its
//! `bench_function` runs; so a suite's setup outside its closures runs
//! once per round too (10 by default), and rounds of different benchmarks
//! interleave as with `#[perfbench]`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod batch_size;
mod benchmark_group;
mod benchmark_id;
mod config_flags;
mod criterion;
mod criterion_async_bencher;
mod criterion_bencher;
mod criterion_suite;
pub mod measurement;

/// The executors `to_async` runs an async routine's futures with, under
/// Criterion's feature names: `FuturesExecutor` (`async_futures`),
/// `SmolExecutor` (`async_smol`), `AsyncStdExecutor` (`async_std`), tokio's
/// `Runtime` and `Handle` (`async_tokio`), and perfbench's own `BlockOn`.
pub mod async_executor {
    pub use perfbench::async_executor::*;
}
mod plotting;
pub mod profiler;
mod said_once;
mod settings;
mod throughput;

pub use batch_size::BatchSize;
pub use benchmark_group::BenchmarkGroup;
pub use benchmark_id::{BenchmarkId, IntoBenchmarkId};
pub use criterion::Criterion;
pub use criterion_async_bencher::AsyncBencher;
pub use criterion_bencher::Bencher;
pub use plotting::{AxisScale, PlotConfiguration, PlottingBackend, SamplingMode};
pub use std::hint::black_box;
pub use throughput::Throughput;

/// Defines a group function `name` that runs `targets` with a `Criterion`
/// made by `config` (else `Criterion::default()`), as Criterion's does.
#[macro_export]
macro_rules! criterion_group {
    (name = $name:ident; config = $config:expr; targets = $( $target:path ),+ $(,)*) => {
        /// The function which runs the benchmarks.
        pub fn $name() {
            let mut criterion: $crate::Criterion<_> = $config.configure_from_args();
            $(
                $target(&mut criterion);
            )+
        }
    };
    ($name:ident, $( $target:path ),+ $(,)*) => {
        $crate::criterion_group! {
            name = $name;
            config = $crate::Criterion::default();
            targets = $( $target ),+
        }
    };
}

/// Defines `main` for a bench target: perfbench runs the benchmarks of
/// every group function given, as the command line asks.
#[macro_export]
macro_rules! criterion_main {
    ( $( $group:path ),+ $(,)* ) => {
        fn main() {
            $crate::__private::main(
                &$crate::__private::BenchTarget {
                    package: env!("CARGO_PKG_NAME"),
                    crate_name: env!("CARGO_CRATE_NAME"),
                    manifest_dir: env!("CARGO_MANIFEST_DIR"),
                },
                &[$( (stringify!($group), $group as fn()) ),+],
            )
        }
    };
}

/// What the macros expand to refers to these; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use perfbench::run::paired::revision::BenchTarget;

    /// Runs the suite of `groups`, bench target `target`, and exits.
    pub fn main(target: &BenchTarget, groups: &[(&'static str, fn())]) -> ! {
        let suite = crate::criterion_suite::CriterionSuite::new(groups);
        perfbench::run::main_of(target, &suite)
    }
}
