//! Which [`Bencher`] method measured a benchmark: each runs its own code
//! around the routine, so each is calibrated on its own.

use std::hint::black_box;
use std::time::Instant;

use super::async_executor::BlockOn;
use super::batched_inputs::BatchSize;
use super::bencher::Bencher;

/// The [`Bencher`] method a benchmark gave its routine to, with what
/// changes the code around the routine (the batch size, the threads).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// [`Bencher::iter`] (and `iter_shared` on one thread, which is
    /// `iter`): also what results stored before methods were recorded
    /// were measured with.
    #[default]
    Iter,
    /// [`Bencher::iter_batched`] in batches of this size.
    IterBatched(BatchSize),
    /// [`Bencher::iter_batched_ref`] in batches of this size.
    IterBatchedRef(BatchSize),
    /// [`Bencher::iter_custom`].
    IterCustom,
    /// [`Bencher::iter_shared`] on this many threads (more than one).
    IterShared(usize),
    /// [`AsyncBencher::iter`](super::AsyncBencher::iter).
    AsyncIter,
    /// [`AsyncBencher::iter_batched`](super::AsyncBencher::iter_batched)
    /// in batches of this size (also `iter_with_setup`, in
    /// `PerIteration` batches, and `iter_with_large_drop`, on unit inputs
    /// in `SmallInput` ones, as Criterion defines them).
    AsyncIterBatched(BatchSize),
    /// [`AsyncBencher::iter_batched_ref`](super::AsyncBencher::iter_batched_ref)
    /// in batches of this size.
    AsyncIterBatchedRef(BatchSize),
    /// [`AsyncBencher::iter_custom`](super::AsyncBencher::iter_custom).
    AsyncIterCustom,
}

impl Method {
    /// The method's name, as the API spells it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Iter => "iter",
            Method::IterBatched(_) => "iter_batched",
            Method::IterBatchedRef(_) => "iter_batched_ref",
            Method::IterCustom => "iter_custom",
            Method::IterShared(_) => "iter_shared",
            Method::AsyncIter => "async_iter",
            Method::AsyncIterBatched(_) => "async_iter_batched",
            Method::AsyncIterBatchedRef(_) => "async_iter_batched_ref",
            Method::AsyncIterCustom => "async_iter_custom",
        }
    }

    /// The batch size of the `iter_batched` forms.
    pub fn batch_size(self) -> Option<BatchSize> {
        match self {
            Method::IterBatched(size)
            | Method::IterBatchedRef(size)
            | Method::AsyncIterBatched(size)
            | Method::AsyncIterBatchedRef(size) => Some(size),
            _ => None,
        }
    }

    /// The method named `name`, with `size` for the `iter_batched` forms
    /// and `threads` for `iter_shared`; `None` for a name or a combination
    /// that names none.
    pub fn from_parts(name: &str, size: Option<BatchSize>, threads: usize) -> Option<Method> {
        match (name, size) {
            ("iter", None) => Some(Method::Iter),
            ("iter_batched", Some(size)) => Some(Method::IterBatched(size)),
            ("iter_batched_ref", Some(size)) => Some(Method::IterBatchedRef(size)),
            ("iter_custom", None) => Some(Method::IterCustom),
            ("iter_shared", None) if threads > 1 => Some(Method::IterShared(threads)),
            ("async_iter", None) => Some(Method::AsyncIter),
            ("async_iter_batched", Some(size)) => Some(Method::AsyncIterBatched(size)),
            ("async_iter_batched_ref", Some(size)) => Some(Method::AsyncIterBatchedRef(size)),
            ("async_iter_custom", None) => Some(Method::AsyncIterCustom),
            _ => None,
        }
    }

    /// The threads the method's routine runs on.
    pub fn threads(self) -> usize {
        match self {
            Method::IterShared(threads) => threads,
            _ => 1,
        }
    }

    /// Gives `b` an empty routine through this method: what calibration
    /// measures, the method's own code around nothing.
    pub fn run_empty(self, b: &mut Bencher<'_>) {
        match self {
            Method::Iter => b.iter(|| ()),
            // A word in and out, as most routines take and give.
            Method::IterBatched(size) => b.iter_batched(|| 0u64, |x| x, size),
            Method::IterBatchedRef(size) => b.iter_batched_ref(|| 0u64, |x| *x, size),
            // The least a routine that times itself does: loop and read
            // the clock.
            Method::IterCustom => b.iter_custom(|n| {
                let start = Instant::now();
                for i in 0..n {
                    black_box(i);
                }
                start.elapsed()
            }),
            Method::IterShared(threads) => {
                b.set_threads(threads);
                b.iter_shared(|| ());
            }
            // Through perfbench's own executor: the counted window is
            // inside the executor's polls, and a future that is ready at
            // once never reaches the executor's code from there, so the
            // window holds the same machine code through any executor.
            Method::AsyncIter => b.to_async(BlockOn).iter(|| async {}),
            Method::AsyncIterBatched(size) => {
                b.to_async(BlockOn)
                    .iter_batched(|| 0u64, |x| async move { x }, size);
            }
            Method::AsyncIterBatchedRef(size) => {
                let routine = |x: &mut u64| {
                    let x = *x;
                    async move { x }
                };
                b.to_async(BlockOn).iter_batched_ref(|| 0u64, routine, size);
            }
            Method::AsyncIterCustom => b.to_async(BlockOn).iter_custom(|n| async move {
                let start = Instant::now();
                for i in 0..n {
                    black_box(i);
                }
                start.elapsed()
            }),
        }
    }
}
