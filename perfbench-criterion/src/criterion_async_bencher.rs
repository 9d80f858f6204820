//! Criterion's [`AsyncBencher`]: perfbench's own, so an async routine's
//! futures are polled by perfbench's counted loop inside one `block_on` a
//! sample, as for a `#[perfbench]` function's `to_async`.

use std::future::Future;
use std::marker::PhantomData;

use perfbench::async_executor::AsyncExecutor;

use crate::measurement::{Measurement, WallTime};
use crate::{BatchSize, Bencher};

/// Measures async routines, their futures run by the executor `A`
/// ([`Bencher::to_async`]).
pub struct AsyncBencher<'a, 'b, A: AsyncExecutor, M: Measurement = WallTime> {
    inner: perfbench::AsyncBencher<'b, 'a, A>,
    measurement: PhantomData<fn() -> M>,
}

impl<'a, M: Measurement> Bencher<'a, M> {
    /// Measures async routines, their futures run by `runner`:
    /// `b.to_async(&runtime).iter(|| async { … })`.
    pub fn to_async<'b, A: AsyncExecutor>(&'b mut self, runner: A) -> AsyncBencher<'a, 'b, A, M> {
        AsyncBencher {
            inner: self.inner.to_async(runner),
            measurement: PhantomData,
        }
    }
}

impl<A: AsyncExecutor, M: Measurement> AsyncBencher<'_, '_, A, M> {
    /// Measures the futures `routine` makes, each awaited to its end.
    pub fn iter<O, R, F>(&mut self, routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        self.inner.iter(routine);
    }

    /// Measures a routine whose future runs `n` iterations and returns the
    /// time they took; with [`WallTime`] only, as
    /// [`Bencher::iter_custom`].
    pub fn iter_custom<R, F>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> F,
        F: Future<Output = M::Value>,
    {
        self.inner.iter_custom(|n| {
            let future = routine(n);
            async move { crate::criterion_bencher::duration_of::<M>(&future.await) }
        });
    }

    /// Measures the futures `routine` makes from inputs `setup` makes
    /// outside the measurement, one input a batch.
    pub fn iter_with_setup<I, O, S, R, F>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// Measures the futures `routine` makes, their outputs dropped outside
    /// the measurement.
    pub fn iter_with_large_drop<O, R, F>(&mut self, routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        let mut routine = routine;
        self.iter_batched(|| (), |()| routine(), BatchSize::SmallInput);
    }

    /// Criterion's deprecated form: [`iter_batched`](Self::iter_batched)
    /// with one batch a sample.
    #[doc(hidden)]
    pub fn iter_with_large_setup<I, O, S, R, F>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(setup, routine, BatchSize::NumBatches(1));
    }

    /// Measures the futures `routine` makes from inputs `setup` makes
    /// outside the measurement, in batches of `size`.
    pub fn iter_batched<I, O, S, R, F>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.inner.iter_batched(setup, routine, size.perfbench());
    }

    /// As [`iter_batched`](Self::iter_batched), the routine taking each
    /// input by reference.
    pub fn iter_batched_ref<I, O, S, R, F>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
        F: Future<Output = O>,
    {
        self.inner
            .iter_batched_ref(setup, routine, size.perfbench());
    }
}
