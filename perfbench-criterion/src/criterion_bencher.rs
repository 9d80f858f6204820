//! Criterion's [`Bencher`]: perfbench's own, held by value while a
//! Criterion routine runs, so every method is perfbench's method, compiled
//! around the routine as for a `#[perfbench]` function.

use std::marker::PhantomData;

use crate::measurement::{Measurement, WallTime};
use crate::BatchSize;

/// Handed to each benchmark's closure: call one of its `iter` methods with
/// the routine to measure.
pub struct Bencher<'a, M: Measurement = WallTime> {
    pub(crate) inner: perfbench::Bencher<'a>,
    pub(crate) measurement: PhantomData<fn() -> M>,
}

impl<'a, M: Measurement> Bencher<'a, M> {
    /// Runs `f` with perfbench's bencher `b` as Criterion's, and gives it
    /// back after (after a panic, `b` stays a placeholder that measured
    /// nothing: the benchmark failed).
    pub(crate) fn lend(b: &mut perfbench::Bencher<'a>, f: impl FnOnce(&mut Bencher<'a, M>)) {
        let inner = std::mem::replace(b, perfbench::Bencher::__placeholder());
        let mut lent = Bencher {
            inner,
            measurement: PhantomData,
        };
        f(&mut lent);
        *b = lent.inner;
    }

    /// Measures `routine`; its output is dropped inside the measurement.
    pub fn iter<O, R: FnMut() -> O>(&mut self, routine: R) {
        self.inner.iter(routine);
    }

    /// Measures `routine`, its input made by `setup` outside the
    /// measurement (as `iter_batched` with one input a batch).
    pub fn iter_with_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.inner
            .iter_batched(setup, routine, BatchSize::PerIteration.perfbench());
    }

    /// Measures `routine`, its output dropped outside the measurement.
    pub fn iter_with_large_drop<O, R: FnMut() -> O>(&mut self, mut routine: R) {
        self.inner
            .iter_batched(|| (), |()| routine(), BatchSize::SmallInput.perfbench());
    }

    /// Measures `routine` on inputs `setup` makes outside the measurement,
    /// in batches of `size`.
    pub fn iter_batched<I, O, S, R>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.inner.iter_batched(setup, routine, size.perfbench());
    }

    /// As [`iter_batched`](Self::iter_batched), the routine taking each
    /// input by reference.
    pub fn iter_batched_ref<I, O, S, R>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        self.inner
            .iter_batched_ref(setup, routine, size.perfbench());
    }

    /// Measures a routine that times `n` iterations itself and returns
    /// the time they took. Only with [`WallTime`]: a suite's own
    /// measurement's values are not durations, and the benchmark fails
    /// saying so.
    pub fn iter_custom<R: FnMut(u64) -> M::Value>(&mut self, mut routine: R) {
        self.inner.iter_custom(|n| duration_of::<M>(&routine(n)));
    }

    /// Criterion's deprecated form: [`iter_batched`](Self::iter_batched)
    /// with one batch a sample.
    #[doc(hidden)]
    pub fn iter_with_large_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.inner
            .iter_batched(setup, routine, BatchSize::NumBatches(1).perfbench());
    }
}

/// The duration an `iter_custom` routine measured with `M` returned; a
/// measurement of the suite's own fails the benchmark, saying so.
pub(crate) fn duration_of<M: Measurement>(value: &M::Value) -> std::time::Duration {
    M::__perfbench_duration(value).unwrap_or_else(|| {
        panic!(
            "iter_custom with the measurement `{}`: perfbench reads only durations (WallTime)",
            std::any::type_name::<M>()
        )
    })
}
