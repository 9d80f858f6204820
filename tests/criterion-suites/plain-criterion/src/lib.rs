//! The criterion-suites rig's third oracle: the part of Criterion's API
//! that the rig's suites use, where each routine is timed in a plain loop
//! and nothing else. No statistics, no calibration, no files: `Instant`
//! around `n` iterations, ten times, and the median, minimum and maximum
//! of their ns per iteration printed as one line per benchmark:
//!
//! ```text
//! plain<TAB>ID<TAB>MEDIAN<TAB>MIN<TAB>MAX
//! ```
//!
//! A suite runs under it by the same rename as under perfbench-criterion
//! (`criterion = { package = "plain-criterion", path = "…" }`), so that
//! where Criterion's and perfbench's figures for a routine differ, a
//! third figure of the same machine code says which one is off. The loops
//! are the plainest form of each method, written out in `bencher.rs`.
//!
//! The command line: `--list`; `--warm-up-time S` (1 by default: the
//! loop doubles its count until it has run that long); `--measurement-time
//! S` (2: ten loops share it); a filter, a substring of the id. Every
//! other flag of Criterion is read and ignored. `PLAIN_BATCH=B` sets how
//! many inputs the batched methods make before timing the routine over
//! them (1 by default: every input just made, as hot as it gets).
//! `PLAIN_LOOP=dyn` runs `iter`'s routine through a pointer from a loop
//! that is not inlined, as perfbench's `repeat` does, rather than inlined
//! into the loop as Criterion's is: where the two harnesses differ, this
//! tells whether the loop's shape is why.

mod bencher;
mod id;
mod options;

use std::marker::PhantomData;
use std::path::Path;
use std::time::Duration;

pub use bencher::{AsyncBencher, Bencher};
pub use id::{BenchmarkId, IntoBenchmarkId};
pub use std::hint::black_box;

/// Criterion's measurements: only wall time.
pub mod measurement {
    use std::time::Duration;

    /// What a benchmark measures.
    pub trait Measurement {
        /// One measured value.
        type Value;
    }

    /// Wall time, the one measurement there is.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct WallTime;

    impl Measurement for WallTime {
        type Value = Duration;
    }
}

/// Criterion's executors for `to_async`.
pub mod async_executor {
    use std::future::Future;

    /// Runs a future to completion on the calling thread.
    pub trait AsyncExecutor {
        /// `future`'s output.
        fn block_on<T>(&self, future: impl Future<Output = T>) -> T;
    }

    /// The `futures` crate's `block_on`.
    #[cfg(feature = "async_futures")]
    #[derive(Clone, Copy, Debug)]
    pub struct FuturesExecutor;

    #[cfg(feature = "async_futures")]
    impl AsyncExecutor for FuturesExecutor {
        fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
            futures::executor::block_on(future)
        }
    }
}

use measurement::{Measurement, WallTime};

/// Criterion's batch sizes; `PLAIN_BATCH` decides instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchSize {
    SmallInput,
    LargeInput,
    PerIteration,
    NumBatches(u64),
    NumIterations(u64),
}

/// Criterion's throughputs, accepted and not shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Throughput {
    Bits(u64),
    Bytes(u64),
    BytesDecimal(u64),
    Elements(u64),
    ElementsAndBytes { elements: u64, bytes: u64 },
}

/// Criterion's sampling modes, accepted and without effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplingMode {
    Auto,
    Linear,
    Flat,
}

/// A suite's configuration: every builder method is accepted and has no
/// effect, as the loops take their times from the command line.
pub struct Criterion<M: Measurement = WallTime> {
    measurement: PhantomData<M>,
}

impl Default for Criterion {
    fn default() -> Self {
        Criterion {
            measurement: PhantomData,
        }
    }
}

macro_rules! ignored {
    ($( $name:ident ( $( $arg:ty ),* ) ),* $(,)?) => {
        $(
            #[doc = concat!("Criterion's `", stringify!($name), "`, without effect.")]
            pub fn $name(self, $( _: $arg ),*) -> Self {
                self
            }
        )*
    };
}

impl<M: Measurement> Criterion<M> {
    ignored!(
        sample_size(usize),
        warm_up_time(Duration),
        measurement_time(Duration),
        nresamples(usize),
        noise_threshold(f64),
        confidence_level(f64),
        significance_level(f64),
        with_plots(),
        without_plots(),
        save_baseline(String),
        retain_baseline(String, bool),
        with_output_color(bool),
        output_directory(&Path),
        profile_time(Option<Duration>),
        configure_from_args(),
    );

    /// Criterion's `with_filter`, without effect.
    pub fn with_filter<S: Into<String>>(self, _: S) -> Self {
        self
    }

    /// Times `f`'s routine as the benchmark `id`.
    pub fn bench_function<F>(&mut self, id: &str, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        bencher::run(id, |b| f(b));
        self
    }

    /// Times `f`'s routine on `input` as the benchmark `id`.
    pub fn bench_with_input<I: ?Sized, F>(
        &mut self,
        id: BenchmarkId,
        input: &I,
        mut f: F,
    ) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
    {
        bencher::run(&id.to_string(), |b| f(b, input));
        self
    }

    /// A group whose benchmarks' ids begin with `name/`.
    pub fn benchmark_group<S: Into<String>>(&mut self, name: S) -> BenchmarkGroup<'_, M> {
        BenchmarkGroup {
            name: name.into(),
            criterion: PhantomData,
        }
    }

    /// Criterion's `final_summary`: nothing to sum up.
    pub fn final_summary(&mut self) {}
}

/// Benchmarks whose ids share a group's name.
pub struct BenchmarkGroup<'a, M: Measurement = WallTime> {
    name: String,
    criterion: PhantomData<&'a mut Criterion<M>>,
}

macro_rules! ignored_in_group {
    ($( $name:ident ( $arg:ty ) ),* $(,)?) => {
        $(
            #[doc = concat!("Criterion's `", stringify!($name), "`, without effect.")]
            pub fn $name(&mut self, _: $arg) -> &mut Self {
                self
            }
        )*
    };
}

impl<M: Measurement> BenchmarkGroup<'_, M> {
    ignored_in_group!(
        sample_size(usize),
        warm_up_time(Duration),
        measurement_time(Duration),
        nresamples(usize),
        noise_threshold(f64),
        confidence_level(f64),
        significance_level(f64),
        throughput(Throughput),
        sampling_mode(SamplingMode),
    );

    /// Times `f`'s routine as the benchmark `group/id`.
    pub fn bench_function<ID: IntoBenchmarkId, F>(&mut self, id: ID, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        let id = format!("{}/{}", self.name, id.into_benchmark_id());
        bencher::run(&id, |b| f(b));
        self
    }

    /// Times `f`'s routine on `input` as the benchmark `group/id`.
    pub fn bench_with_input<ID: IntoBenchmarkId, F, I: ?Sized>(
        &mut self,
        id: ID,
        input: &I,
        mut f: F,
    ) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
    {
        let id = format!("{}/{}", self.name, id.into_benchmark_id());
        bencher::run(&id, |b| f(b, input));
        self
    }

    /// Ends the group.
    pub fn finish(self) {}
}

/// `criterion_group!(name, targets…)` or `criterion_group! { name = …;
/// config = …; targets = … }`: a function running each target.
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

/// `main`, running every group given.
#[macro_export]
macro_rules! criterion_main {
    ( $( $group:path ),+ $(,)* ) => {
        fn main() {
            $(
                $group();
            )+
        }
    };
}
