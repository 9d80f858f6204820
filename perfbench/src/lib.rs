//! perfbench: microbenchmarks measured with Linux performance counters.
//!
//! Put `#[perfbench]` on functions in a bench target with `harness = false`,
//! end it with [`main!`], and `cargo bench` reports per-iteration cycles,
//! instructions, branch and cache misses (or, without a hardware PMU, the
//! kernel's software events) alongside wall time.
//!
//! ```no_run
//! use perfbench::{black_box, perfbench, Bencher};
//!
//! fn fib(n: u64) -> u64 {
//!     if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
//! }
//!
//! #[perfbench] // a plain function: its body is the routine
//! fn fib_20() -> u64 {
//!     fib(black_box(20))
//! }
//!
//! #[perfbench] // with a Bencher: setup outside the routine
//! fn sum_1000(b: &mut Bencher) {
//!     let v: Vec<u64> = (0..1000).collect();
//!     b.iter(|| v.iter().sum::<u64>());
//! }
//!
//! #[perfbench(args = [64, 4096])] // one benchmark per argument
//! fn zeroed(b: &mut Bencher, len: usize) {
//!     b.iter(|| vec![0u8; len]);
//! }
//!
//! perfbench::main!();
//! ```
//!
//! A bench target that installs [`CountingAllocator`] as its global
//! allocator (one line) also counts allocations, bytes, deallocations and
//! reallocations per iteration.
//!
//! The public API is what this page shows: [`perfbench`](macro@perfbench),
//! [`group`](macro@group) (a module's benchmarks' shared settings),
//! [`Bencher`] (async routines through [`Bencher::to_async`], with the
//! executors of [`async_executor`]), [`Throughput`], [`CountingAllocator`],
//! [`black_box`] and [`main!`]. The modules
//! behind it are hidden: they are perfbench's own layers, from the kernel
//! up (kernel, counter, measure, stats, analysis, store, output, run; see
//! ARCHITECTURE.md), public only so that perfbench's benches, fuzz target
//! and tests can reach them, and they may change in any release.
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[doc(hidden)]
pub mod analysis;
#[doc(hidden)]
pub mod counter;
#[doc(hidden)]
pub mod fixtures;
#[doc(hidden)]
pub mod kernel;
#[doc(hidden)]
pub mod measure;
#[doc(hidden)]
pub mod output;
#[doc(hidden)]
pub mod profile;
#[doc(hidden)]
pub mod run;
#[doc(hidden)]
pub mod stats;
#[doc(hidden)]
pub mod store;

pub use kernel::alloc::CountingAllocator;
pub use measure::{AsyncBencher, AsyncExecutor, BatchSize, Bencher, Throughput};
pub use perfbench_macros::{group, perfbench};
pub use std::hint::black_box;

/// The executors [`Bencher::to_async`] runs async routines' futures with,
/// as Criterion's module of the same name: [`BlockOn`](async_executor::BlockOn),
/// perfbench's own, always; `FuturesExecutor` with the feature
/// `async_futures`, `AsyncStdExecutor` with `async_std`, `SmolExecutor`
/// with `async_smol`, and tokio's `Runtime` and `Handle` (owned or
/// borrowed) with `async_tokio`.
pub mod async_executor {
    pub use crate::measure::async_executor::*;
}

/// Defines `main` for a bench target: runs every `#[perfbench]` function of
/// the binary as the command line asks (`cargo bench -- --help`). Once, at
/// the end of the bench file; the target needs `harness = false` in
/// Cargo.toml.
///
/// ```no_run
/// #[perfbench::perfbench]
/// fn answer() -> u64 {
///     perfbench::black_box(42)
/// }
///
/// perfbench::main!();
/// ```
#[macro_export]
macro_rules! main {
    () => {
        fn main() {
            $crate::run::main(&$crate::run::paired::revision::BenchTarget {
                package: env!("CARGO_PKG_NAME"),
                crate_name: env!("CARGO_CRATE_NAME"),
                manifest_dir: env!("CARGO_MANIFEST_DIR"),
            })
        }
    };
}

/// What `#[perfbench]` expands to refers to these; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::measure::Bencher;
    pub use crate::run::case_args::{
        nth_arg, Amount, ArgId, ArgRef, IntoArg, ViaDebug, ViaDisplay,
    };
    pub use crate::run::registry::{cases, with_threads, Benchmark, Case, Settings};
    pub use inventory;
}
