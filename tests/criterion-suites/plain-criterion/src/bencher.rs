//! The loops: each method's routine run `n` times between two reads of
//! `Instant`, in its plainest form. Batched methods make their inputs
//! first (`PLAIN_BATCH` at a time) and time only the routine's calls;
//! outputs are dropped after the clock stops, as Criterion drops them.

use std::future::Future;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use crate::async_executor::AsyncExecutor;
use crate::measurement::{Measurement, WallTime};
use crate::options::options;
use crate::BatchSize;

/// Timed loops per benchmark, sharing `--measurement-time`.
const LOOPS: u32 = 10;

/// Runs `f` for the benchmark `id` if the filter takes it, and prints
/// the ns per iteration of its loops: `plain ID MEDIAN MIN MAX`.
pub(crate) fn run<M: Measurement>(id: &str, f: impl FnOnce(&mut Bencher<'_, M>)) {
    let options = options();
    if options
        .filter
        .as_ref()
        .is_some_and(|f| !id.contains(f.as_str()))
    {
        return;
    }
    if options.list {
        println!("{id}: benchmark");
        return;
    }
    let mut bencher = Bencher {
        per_iteration: Vec::new(),
        measurement: PhantomData,
    };
    f(&mut bencher);
    let mut ns = bencher.per_iteration;
    if ns.is_empty() {
        eprintln!("plain-criterion: {id}: no routine was given to the Bencher");
        std::process::exit(2);
    }
    ns.sort_by(f64::total_cmp);
    let median = (ns[(ns.len() - 1) / 2] + ns[ns.len() / 2]) / 2.0;
    println!(
        "plain\t{id}\t{median:.2}\t{:.2}\t{:.2}",
        ns[0],
        ns[ns.len() - 1]
    );
}

/// Times a routine given by one of Criterion's methods.
pub struct Bencher<'a, M: Measurement = WallTime> {
    per_iteration: Vec<f64>,
    measurement: PhantomData<&'a M>,
}

impl<'a, M: Measurement<Value = Duration>> Bencher<'a, M> {
    /// Doubles the count until `loop_of` has run for the warm-up time,
    /// then times `LOOPS` loops of the count that fills a share of the
    /// measurement time.
    fn time(&mut self, mut loop_of: impl FnMut(u64) -> Duration) {
        let options = options();
        let (mut n, mut spent) = (1u64, Duration::ZERO);
        let last = loop {
            let took = loop_of(n);
            spent += took;
            if spent >= options.warm_up || n == u64::MAX {
                break took;
            }
            n = n.saturating_mul(2);
        };
        let each = last.as_secs_f64().max(1e-9) / n as f64;
        let share = options.measurement.as_secs_f64() / f64::from(LOOPS);
        let n = ((share / each) as u64).max(1);
        self.per_iteration = (0..LOOPS)
            .map(|_| loop_of(n).as_secs_f64() * 1e9 / n as f64)
            .collect();
    }

    /// `routine`, `n` times: in a loop the routine is inlined into, or
    /// with `PLAIN_LOOP=dyn` through `repeat_dyn`, the loop perfbench runs.
    pub fn iter<O, R: FnMut() -> O>(&mut self, mut routine: R) {
        if options().dyn_loop {
            let mut body = || {
                std::hint::black_box(routine());
            };
            return self.time(|n| {
                let start = Instant::now();
                repeat_dyn(&mut body, n);
                start.elapsed()
            });
        }
        self.time(|n| {
            let start = Instant::now();
            for _ in 0..n {
                std::hint::black_box(routine());
            }
            start.elapsed()
        });
    }

    /// `routine`, which times its `n` iterations itself.
    pub fn iter_custom<R: FnMut(u64) -> Duration>(&mut self, mut routine: R) {
        self.time(&mut routine);
    }

    /// `routine` on inputs `setup` made, only its calls timed.
    pub fn iter_batched<I, O, S, R>(&mut self, mut setup: S, mut routine: R, _: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.time(|n| batches(n, |b| timed_calls(inputs(b, &mut setup), &mut routine)));
    }

    /// `routine` on references to inputs `setup` made, only its calls
    /// timed.
    pub fn iter_batched_ref<I, O, S, R>(&mut self, mut setup: S, mut routine: R, _: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        self.time(|n| {
            batches(n, |b| {
                let mut inputs = inputs(b, &mut setup);
                timed_calls(&mut inputs, &mut routine)
            })
        });
    }

    /// `iter_batched` with one input each time.
    pub fn iter_with_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// `iter_batched` with no input: the outputs are dropped untimed.
    pub fn iter_with_large_drop<O, R: FnMut() -> O>(&mut self, mut routine: R) {
        self.iter_batched(|| (), |()| routine(), BatchSize::SmallInput);
    }

    /// The same methods for routines that return futures, each loop one
    /// `runner.block_on`.
    pub fn to_async<'b, A: AsyncExecutor>(&'b mut self, runner: A) -> AsyncBencher<'a, 'b, A, M> {
        AsyncBencher {
            bencher: self,
            runner,
        }
    }
}

/// `body`, `n` times, through a pointer, in a loop neither inlined nor
/// generic: the shape of perfbench's `repeat`, which no routine is inlined
/// into.
#[inline(never)]
fn repeat_dyn(body: &mut dyn FnMut(), n: u64) {
    for _ in 0..n {
        body();
    }
}

/// The sum of `timed` over batches of `PLAIN_BATCH` iterations, `n` in all.
fn batches(n: u64, mut timed: impl FnMut(u64) -> Duration) -> Duration {
    let batch = options().batch;
    let mut left = n;
    let mut took = Duration::ZERO;
    while left > 0 {
        let b = left.min(batch);
        took += timed(b);
        left -= b;
    }
    took
}

/// The time of `routine`'s calls on each of `inputs`; the outputs are
/// dropped after the clock stops.
fn timed_calls<T, O>(
    inputs: impl IntoIterator<Item = T>,
    mut routine: impl FnMut(T) -> O,
) -> Duration {
    let inputs = inputs.into_iter();
    let mut outputs = Vec::with_capacity(inputs.size_hint().0);
    let start = Instant::now();
    for input in inputs {
        outputs.push(routine(input));
    }
    let took = start.elapsed();
    drop(std::hint::black_box(outputs));
    took
}

fn inputs<I>(b: u64, setup: &mut impl FnMut() -> I) -> Vec<I> {
    std::hint::black_box((0..b).map(|_| setup()).collect())
}

/// A `Bencher` whose routines return futures.
pub struct AsyncBencher<'a, 'b, A: AsyncExecutor, M: Measurement = WallTime> {
    bencher: &'b mut Bencher<'a, M>,
    runner: A,
}

impl<A: AsyncExecutor, M: Measurement<Value = Duration>> AsyncBencher<'_, '_, A, M> {
    /// `routine`'s futures, `n` awaited one after the other.
    pub fn iter<O, R, F>(&mut self, mut routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        self.bencher.time(|n| {
            runner.block_on(async {
                let start = Instant::now();
                for _ in 0..n {
                    std::hint::black_box(routine().await);
                }
                start.elapsed()
            })
        });
    }

    /// `routine`'s future, which times its `n` iterations itself.
    pub fn iter_custom<R, F>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> F,
        F: Future<Output = Duration>,
    {
        let runner = &self.runner;
        self.bencher.time(|n| runner.block_on(routine(n)));
    }

    /// `routine`'s futures on inputs `setup` made, only their awaits timed.
    pub fn iter_batched<I, O, S, R, F>(&mut self, mut setup: S, mut routine: R, _: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        self.bencher.time(|n| {
            batches(n, |b| {
                let inputs = inputs(b, &mut setup);
                runner.block_on(async {
                    let mut outputs = Vec::with_capacity(inputs.len());
                    let start = Instant::now();
                    for input in inputs {
                        outputs.push(routine(input).await);
                    }
                    let took = start.elapsed();
                    drop(std::hint::black_box(outputs));
                    took
                })
            })
        });
    }

    /// `routine`'s futures on references to inputs `setup` made, only
    /// their awaits timed.
    pub fn iter_batched_ref<I, O, S, R, F>(&mut self, mut setup: S, mut routine: R, _: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        self.bencher.time(|n| {
            batches(n, |b| {
                let mut inputs = inputs(b, &mut setup);
                runner.block_on(async {
                    let mut outputs = Vec::with_capacity(inputs.len());
                    let start = Instant::now();
                    for input in &mut inputs {
                        outputs.push(routine(input).await);
                    }
                    let took = start.elapsed();
                    drop(std::hint::black_box(outputs));
                    took
                })
            })
        });
    }
}
