//! [`Bencher::to_async`] and [`AsyncBencher`]: async routines, whose
//! futures an [`AsyncExecutor`] runs, counted inside its `block_on`.

use std::future::Future;
use std::hint::black_box;
use std::io;
use std::pin::pin;
use std::time::Duration;

use super::async_executor::AsyncExecutor;
use super::async_repeat::{counted, future_in_bracket, in_bracket, in_window, RoutineFutures};
use super::batch_mode::{start_counting, stop_counting, Measured};
use super::batch_windows::Windows;
use super::batched_inputs::{touched_buffer, BatchSize, Batching};
use super::bencher::{Bencher, Task};
use super::method::Method;
use crate::counter::group::CounterGroup;

/// A [`Bencher`] whose routines return futures, run by the executor `E`:
/// made by [`Bencher::to_async`], with the methods of Criterion's
/// `AsyncBencher`.
///
/// Each sample is one call of the executor's `block_on`, and the counters
/// count inside it, from its first poll of perfbench's future to its
/// last: per iteration they count making the routine's future, polling it
/// to its end and dropping it and its output, never the executor's entry
/// or exit. Where a future waits (`Poll::Pending`), the executor's work
/// until it polls again (parking, waking, its other tasks) is counted, as
/// Criterion counts it: it is part of what awaiting costs. The loop
/// around the futures is the same machine code for every routine and
/// executor, and calibration measures it with an empty future (`async
/// {}`, through [`BlockOn`](super::async_executor::BlockOn): a future
/// ready at once never reaches the executor's code), so the cost of
/// measuring is subtracted as for [`Bencher::iter`]. Per-iteration mode
/// calls `block_on` once per iteration, the inline reads inside it.
///
/// Counters count the thread that calls `block_on`: the work a
/// multi-threaded runtime's workers do for the routine (spawned tasks)
/// shows in the wall time, not in the counts.
pub struct AsyncBencher<'b, 'a, E> {
    b: &'b mut Bencher<'a>,
    executor: E,
}

impl<'a> Bencher<'a> {
    /// Measures async routines, their futures run by `executor`: call one
    /// of the returned [`AsyncBencher`]'s methods, as Criterion's
    /// `to_async`. [`BlockOn`](crate::async_executor::BlockOn) is
    /// perfbench's own executor; `async_tokio`, `async_std` and
    /// `async_futures` are the features that add tokio's runtime,
    /// `AsyncStdExecutor` and `FuturesExecutor`.
    ///
    /// ```
    /// use perfbench::{async_executor::BlockOn, black_box, Bencher};
    ///
    /// async fn checksum(data: &[u8]) -> u64 {
    ///     data.iter().map(|&x| u64::from(x)).sum()
    /// }
    ///
    /// fn bench(b: &mut Bencher) {
    ///     let data = vec![7u8; 256];
    ///     b.to_async(BlockOn).iter(|| async { checksum(black_box(&data)).await });
    /// }
    ///
    /// // What `cargo bench -- --test` does: the routine runs once.
    /// perfbench::measure::run_once(bench).unwrap();
    /// ```
    ///
    /// With tokio (feature `async_tokio`), as in Criterion:
    ///
    /// ```
    /// # #[cfg(feature = "async_tokio")] {
    /// use perfbench::Bencher;
    ///
    /// fn bench(b: &mut Bencher) {
    ///     let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    ///     b.to_async(&runtime).iter(|| async { tokio::task::yield_now().await });
    /// }
    /// # perfbench::measure::run_once(bench).unwrap();
    /// # }
    /// ```
    pub fn to_async<E: AsyncExecutor>(&mut self, executor: E) -> AsyncBencher<'_, 'a, E> {
        AsyncBencher { b: self, executor }
    }
}

impl<E: AsyncExecutor> AsyncBencher<'_, '_, E> {
    /// Measures the futures `routine` makes, each awaited to its end: its
    /// output is passed through [`black_box`] and dropped inside the
    /// measurement, as [`Bencher::iter`]'s.
    pub fn iter<O, R, F>(&mut self, mut routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        let AsyncBencher { b, executor } = self;
        if b.refuses_threads("to_async(…).iter") {
            return;
        }
        b.method = Method::AsyncIter;
        let mut slot = pin!(None);
        let done = |output| {
            black_box(output);
        };
        let mut step = RoutineFutures::new(&mut routine, done, slot.as_mut());
        if let Task::PerIter(..) = b.task {
            b.drive_per_iter(|bracket| executor.block_on(in_bracket(bracket, &mut step)));
            return;
        }
        b.drive(|iterations, _, group| {
            executor.block_on(counted(group.as_deref(), &mut step, iterations))
        });
    }

    /// Measures a routine that times itself, as [`Bencher::iter_custom`]:
    /// `routine(n)` makes a future that runs `n` iterations and returns
    /// the time they took. The counters bracket the making and awaiting of
    /// that future inside `block_on`; per iteration its awaiting only (an
    /// async block's making only stores what it captures).
    pub fn iter_custom<R, F>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> F,
        F: Future<Output = Duration>,
    {
        let AsyncBencher { b, executor } = self;
        if b.refuses_threads("to_async(…).iter_custom") {
            return;
        }
        b.method = Method::AsyncIterCustom;
        if let Task::PerIter(..) = b.task {
            b.drive_per_iter(|bracket| {
                let future = pin!(routine(1));
                let took = executor.block_on(future_in_bracket(bracket, future))?;
                bracket.timed(took);
                Ok(())
            });
            return;
        }
        b.drive(|iterations, _, group| {
            executor.block_on(async {
                let group = group.as_deref();
                start_counting(group)?;
                let took = routine(iterations).await;
                stop_counting(group)?;
                Ok(took.into())
            })
        });
    }

    /// Measures `routine`'s futures, their outputs dropped outside the
    /// measurement, as Criterion's: `iter_batched` on unit inputs in
    /// [`BatchSize::SmallInput`] batches.
    pub fn iter_with_large_drop<O, R, F>(&mut self, mut routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(|| (), |()| routine(), BatchSize::SmallInput);
    }

    /// Measures `routine`'s futures on inputs `setup` makes outside the
    /// measurement, one at a time, as Criterion's: `iter_batched` in
    /// [`BatchSize::PerIteration`] batches.
    pub fn iter_with_setup<I, O, S, R, F>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// Measures the futures `routine` makes of inputs `setup` makes outside
    /// the measurement, `size` inputs at a time, as
    /// [`Bencher::iter_batched`]: the outputs are dropped outside, each
    /// batch counted in a window opened inside `block_on` (setup runs
    /// inside it too, outside the windows, as in Criterion).
    pub fn iter_batched<I, O, S, R, F>(&mut self, setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        // From the end: which of a batch's equal inputs goes first does
        // not matter, and popping borrows nothing across iterations.
        let make = |inputs: &mut Vec<I>, _: usize| {
            let input = inputs.pop().expect("an input per run");
            routine(black_box(input))
        };
        let method = (Method::AsyncIterBatched(size), "to_async(…).iter_batched");
        self.batched(method, setup, make);
    }

    /// [`iter_batched`](Self::iter_batched) for routines that take their
    /// input by reference: inputs and outputs are both dropped outside the
    /// measurement.
    pub fn iter_batched_ref<I, O, S, R, F>(&mut self, setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
        F: Future<Output = O>,
    {
        let make = |inputs: &mut Vec<I>, k: usize| routine(black_box(&mut inputs[k]));
        let method = (
            Method::AsyncIterBatchedRef(size),
            "to_async(…).iter_batched_ref",
        );
        self.batched(method, setup, make);
    }

    /// Both `iter_batched` forms, `method` and its name in messages:
    /// `make(inputs, k)` makes the future of the `k`th run of a batch of
    /// `inputs`.
    fn batched<I, F>(
        &mut self,
        (method, name): (Method, &'static str),
        mut setup: impl FnMut() -> I,
        mut make: impl FnMut(&mut Vec<I>, usize) -> F,
    ) where
        F: Future,
    {
        let AsyncBencher { b, executor } = self;
        if b.refuses_threads(name) {
            return;
        }
        b.method = method;
        let size = method.batch_size().expect("a batched method has a size");
        if let Task::PerIter(..) = b.task {
            b.drive_per_iter(|bracket| {
                let mut inputs = vec![setup()];
                let mut output = None;
                let mut slot = pin!(None);
                let one = || make(&mut inputs, 0);
                let mut step = RoutineFutures::new(one, |o| output = Some(o), slot.as_mut());
                executor.block_on(in_bracket(bracket, &mut step))?;
                drop(black_box(output));
                Ok(())
            });
            return;
        }
        b.drive(|iterations, largest, group| {
            let batching = Batching::new(size, largest);
            let sample = (iterations, batching);
            executor.block_on(batched_sample(group, sample, &mut setup, &mut make))
        });
    }
}

/// One sample of `iterations` in batches, as `Bencher::iter_batched`'s:
/// every batch's inputs made, then its runs in one window, its outputs,
/// its unused inputs and their buffers dropped after.
async fn batched_sample<I, F: Future>(
    group: Option<&mut CounterGroup>,
    (iterations, batching): (u64, Batching),
    setup: &mut impl FnMut() -> I,
    make: &mut impl FnMut(&mut Vec<I>, usize) -> F,
) -> io::Result<Measured> {
    let mut windows = Windows::start(group)?;
    for runs in batching.runs(iterations) {
        let count = usize::try_from(runs).expect("a batch's runs fit in memory");
        let mut inputs: Vec<I> = (0..batching.inputs).map(|_| setup()).collect();
        let unused = inputs.split_off(count);
        let mut outputs = touched_buffer(count);
        let mut k = 0;
        let mut slot = pin!(None);
        let next = || {
            let future = make(&mut inputs, k);
            k += 1;
            future
        };
        let mut step = RoutineFutures::new(next, |o| outputs.push(o), slot.as_mut());
        in_window(&mut windows, &mut step, runs).await?;
        drop(black_box(outputs));
        drop((inputs, unused));
    }
    windows.finish()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::task::{Context, Poll};

    use super::super::async_executor::BlockOn;
    use super::super::tests::quick;
    use super::super::*;
    use super::*;
    use crate::counter::event::parse_list;
    use crate::fixtures::touch_fresh_pages;

    /// Pending once, having woken itself, then ready: an `.await` that
    /// goes back to the executor.
    struct YieldOnce(bool);

    impl Future for YieldOnce {
        type Output = ();

        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.0 {
                return Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    /// Touches `pages` fresh pages after an `.await` that yields: only a
    /// future awaited to its end faults them.
    async fn faults_after_a_yield(pages: usize) -> u64 {
        YieldOnce(false).await;
        touch_fresh_pages(pages)
    }

    fn page_faults() -> CounterGroup {
        CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap()
    }

    /// A fixed plan of 10 samples of 3 to 30 iterations.
    fn ten_samples(bench: impl FnOnce(&mut Bencher<'_>)) -> (Measurement, Method) {
        let plan = SamplingPlan {
            shape: Shape::Linear,
            step: 3,
            samples: 10,
            rounds: 1,
        };
        let mut group = page_faults();
        let (m, _, method) =
            measure_pass(&quick(), &mut group, Planning::Round(plan, 0), bench).unwrap();
        let iterations: Vec<u64> = m.samples.iter().map(|s| s.iterations).collect();
        assert_eq!(iterations, (1..=10).map(|i| 3 * i).collect::<Vec<_>>());
        (m, method)
    }

    /// Each sample's page faults per iteration.
    fn per_iteration(m: &Measurement) -> Vec<u64> {
        let exact = |s: &Sample| s.counts.values[0] % s.iterations == 0;
        assert!(m.samples.iter().all(exact), "{:?}", m.samples);
        m.samples
            .iter()
            .map(|s| s.counts.values[0] / s.iterations)
            .collect()
    }

    #[test]
    fn an_async_iter_awaits_every_planned_iteration_in_the_window() {
        let (m, method) = ten_samples(|b| b.to_async(BlockOn).iter(|| faults_after_a_yield(4)));
        assert_eq!(method, Method::AsyncIter);
        assert_eq!(per_iteration(&m), [4; 10]);
    }

    #[test]
    fn async_iter_batched_keeps_setup_out_and_awaits_each_input() {
        let sizes = [
            BatchSize::SmallInput,
            BatchSize::PerIteration,
            BatchSize::NumBatches(4),
            BatchSize::NumIterations(7),
        ];
        for size in sizes {
            let (m, method) = ten_samples(|b| {
                let setup = || touch_fresh_pages(5);
                let routine = |x| async move { x + faults_after_a_yield(3).await };
                b.to_async(BlockOn).iter_batched(setup, routine, size);
            });
            assert_eq!(method, Method::AsyncIterBatched(size));
            assert_eq!(per_iteration(&m), [3; 10], "{size:?}");
            let (m, method) = ten_samples(|b| {
                let setup = || touch_fresh_pages(5);
                let routine = |x: &mut u64| {
                    let x = *x;
                    async move { x + faults_after_a_yield(2).await }
                };
                b.to_async(BlockOn).iter_batched_ref(setup, routine, size);
            });
            assert_eq!(method, Method::AsyncIterBatchedRef(size));
            assert_eq!(per_iteration(&m), [2; 10], "ref, {size:?}");
        }
    }

    #[test]
    fn iter_with_setup_and_with_large_drop_are_batched_as_in_criterion() {
        let (m, method) = ten_samples(|b| {
            let setup = || touch_fresh_pages(5);
            b.to_async(BlockOn)
                .iter_with_setup(setup, |_| faults_after_a_yield(1));
        });
        assert_eq!(method, Method::AsyncIterBatched(BatchSize::PerIteration));
        assert_eq!(per_iteration(&m), [1; 10]);
        // An output whose drop faults 5 pages: dropped outside the
        // measurement here, inside it by `iter`.
        let (m, method) = ten_samples(|b| {
            b.to_async(BlockOn).iter_with_large_drop(|| async {
                faults_after_a_yield(1).await;
                FaultsOnDrop
            });
        });
        assert_eq!(method, Method::AsyncIterBatched(BatchSize::SmallInput));
        assert_eq!(per_iteration(&m), [1; 10]);
        let (m, _) = ten_samples(|b| {
            b.to_async(BlockOn).iter(|| async {
                faults_after_a_yield(1).await;
                FaultsOnDrop
            });
        });
        assert_eq!(per_iteration(&m), [6; 10]);
    }

    /// Faults 5 fresh pages when dropped.
    struct FaultsOnDrop;

    impl Drop for FaultsOnDrop {
        fn drop(&mut self) {
            touch_fresh_pages(5);
        }
    }

    /// `n` iterations of 2 fresh pages after a yield each, reported as
    /// exactly 1 µs apiece.
    async fn timed_by_hand(n: u64) -> Duration {
        for _ in 0..n {
            faults_after_a_yield(2).await;
        }
        Duration::from_micros(n)
    }

    #[test]
    fn async_iter_custom_takes_the_routines_time_and_counts_its_future() {
        let (m, method) = ten_samples(|b| b.to_async(BlockOn).iter_custom(timed_by_hand));
        assert_eq!(method, Method::AsyncIterCustom);
        assert_eq!(per_iteration(&m), [2; 10]);
        for s in &m.samples {
            assert_eq!(s.wall_ns, 1000 * s.iterations, "{s:?}");
        }
        let mut group = page_faults();
        let m = measure_per_iter(&quick(), &mut group, |b| {
            b.to_async(BlockOn).iter_custom(timed_by_hand)
        })
        .unwrap();
        assert_eq!(m.method, Method::AsyncIterCustom);
        assert!(!m.per_iteration.is_empty());
        for it in &m.per_iteration {
            assert_eq!((it.wall_ns, it.values[0]), (1000, 2), "{it:?}");
        }
    }

    #[test]
    fn per_iter_mode_brackets_each_awaited_iteration() {
        type Bench<'f> = &'f dyn Fn(&mut Bencher<'_>);
        let forms: [(Method, Bench<'_>); 3] = [
            (Method::AsyncIter, &|b| {
                b.to_async(BlockOn).iter(|| faults_after_a_yield(4));
            }),
            (Method::AsyncIterBatched(BatchSize::SmallInput), &|b| {
                let routine = |x| async move { x + faults_after_a_yield(4).await };
                let setup = || touch_fresh_pages(5);
                b.to_async(BlockOn)
                    .iter_batched(setup, routine, BatchSize::SmallInput);
            }),
            (Method::AsyncIterBatchedRef(BatchSize::LargeInput), &|b| {
                let routine = |_: &mut u64| faults_after_a_yield(4);
                let setup = || touch_fresh_pages(5);
                b.to_async(BlockOn)
                    .iter_batched_ref(setup, routine, BatchSize::LargeInput);
            }),
        ];
        for (method, bench) in forms {
            let mut group = page_faults();
            let m = measure_per_iter(&quick(), &mut group, bench).unwrap();
            assert_eq!(m.method, method);
            assert_eq!(m.per_iteration.len() as u64, 10 * m.iterations_per_sample);
            for it in &m.per_iteration {
                assert_eq!(it.values, [4], "{method:?}: {it:?}");
            }
        }
    }

    #[test]
    fn test_mode_runs_and_awaits_the_routine_once() {
        let awaited = Cell::new(0);
        let routine = || async {
            YieldOnce(false).await;
            awaited.set(awaited.get() + 1);
        };
        run_once(|b| b.to_async(BlockOn).iter(routine)).unwrap();
        assert_eq!(awaited.get(), 1);
        let setup = || 5;
        let awaited = &awaited;
        let routine = |x| async move {
            YieldOnce(false).await;
            awaited.set(awaited.get() + x);
        };
        run_once(|b| {
            b.to_async(BlockOn)
                .iter_batched(setup, routine, BatchSize::SmallInput)
        })
        .unwrap();
        assert_eq!(awaited.get(), 6);
    }

    #[test]
    fn profile_time_runs_as_many_awaited_iterations_as_it_says() {
        let awaited = Cell::new(0u64);
        let routine = || async {
            YieldOnce(false).await;
            awaited.set(awaited.get() + 1);
        };
        let ran = profile(Duration::from_millis(20), |b| {
            b.to_async(BlockOn).iter(routine)
        })
        .unwrap();
        assert!(ran.iterations > 1, "{ran:?}");
        assert_eq!(awaited.get(), ran.iterations);
    }

    #[test]
    fn misuse_of_the_async_bencher_is_reported() {
        let e = run_once(|b| {
            b.to_async(BlockOn).iter(|| async {});
            b.to_async(BlockOn).iter(|| async {});
        })
        .unwrap_err();
        assert!(matches!(e, MeasureError::IteratedTwice), "{e}");
        let e = run_once(|b| {
            b.set_threads(2);
            b.to_async(BlockOn).iter(|| async {});
        })
        .unwrap_err();
        let expected = "to_async(…).iter";
        assert!(
            matches!(e, MeasureError::OneThreadRoutine { method, threads: 2 } if method == expected),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "`threads` asks for 2 threads, but `Bencher::to_async(…).iter` runs its routine on \
             one, and async routines have no shared form: measure them without `threads`"
        );
    }

    #[cfg(feature = "async_futures")]
    #[test]
    fn the_futures_executor_measures_exactly() {
        let executor = crate::async_executor::FuturesExecutor;
        let (m, _) = ten_samples(|b| b.to_async(executor).iter(|| faults_after_a_yield(4)));
        assert_eq!(per_iteration(&m), [4; 10]);
    }

    #[cfg(feature = "async_std")]
    #[test]
    fn the_async_std_executor_measures_exactly() {
        let executor = crate::async_executor::AsyncStdExecutor;
        let (m, _) = ten_samples(|b| b.to_async(executor).iter(|| faults_after_a_yield(4)));
        assert_eq!(per_iteration(&m), [4; 10]);
    }

    #[cfg(feature = "async_tokio")]
    #[test]
    fn a_tokio_runtime_measures_exactly_owned_or_borrowed() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (m, _) = ten_samples(|b| b.to_async(&runtime).iter(|| faults_after_a_yield(4)));
        assert_eq!(per_iteration(&m), [4; 10]);
        let (m, _) = ten_samples(|b| {
            b.to_async(runtime).iter(|| async {
                tokio::task::yield_now().await;
                touch_fresh_pages(3)
            })
        });
        assert_eq!(per_iteration(&m), [3; 10]);
    }
}
