//! [`Bencher::iter_batched`] and [`Bencher::iter_batched_ref`]: routines that
//! take an input made outside the measurement, in batches of a
//! [`BatchSize`].

use std::hint::black_box;
use std::mem::MaybeUninit;

use super::batch_windows::Windows;
use super::bencher::{Bencher, Task};
use super::method::Method;

/// How many inputs [`Bencher::iter_batched`] keeps alive at a time, named
/// as in Criterion: the trade between memory and the cost of a counted
/// window per batch. Fewer, larger batches give tighter intervals.
///
/// Every sample of a benchmark is run in the same number of batches, and
/// every batch makes the same number of inputs, as many as a batch of the
/// largest sample runs; a smaller sample runs the routine on fewer of them
/// and drops the rest unused. So every sample has as many counted windows
/// (the group read around each, `measure::windows`), each after the same
/// setup work, and what a window costs lands in the fixed cost per sample
/// (the intercept), never in the per-iteration estimate.
///
/// ```no_run
/// use perfbench::{perfbench, BatchSize, Bencher};
///
/// #[perfbench]
/// fn sort_shuffled(b: &mut Bencher) {
///     let input: Vec<u32> = (0..1000).rev().collect();
///     b.iter_batched_ref(|| input.clone(), |v| v.sort(), BatchSize::SmallInput);
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchSize {
    /// At most 10,000 inputs at a time: for inputs small enough that
    /// millions would fit in memory. The usual choice.
    SmallInput,
    /// At most 100 inputs at a time: for inputs of which thousands would
    /// strain memory or spill out of the caches.
    LargeInput,
    /// One input at a time: for inputs so large that only one may be alive.
    /// Every iteration then pays a counted window: the intercept takes it,
    /// but the samples get noisier, and [`SmallInput`](Self::SmallInput)
    /// gives a tighter interval. Each iteration also carries the entry of
    /// its batch's loop, which other sizes pay once per sample (a few
    /// instructions); calibration through the same size measures it.
    PerIteration,
    /// This many batches per sample (at least one).
    NumBatches(u64),
    /// At most this many inputs at a time (at least one).
    NumIterations(u64),
}

impl BatchSize {
    /// The size as results name it: `small-input`, `large-input`,
    /// `per-iteration`, `batches=N` or `inputs=N`.
    ///
    /// ```
    /// use perfbench::BatchSize;
    ///
    /// assert_eq!(BatchSize::SmallInput.name(), "small-input");
    /// assert_eq!(BatchSize::NumBatches(10).name(), "batches=10");
    /// assert_eq!(BatchSize::NumIterations(3).name(), "inputs=3");
    /// ```
    pub fn name(self) -> String {
        match self {
            BatchSize::SmallInput => "small-input".to_string(),
            BatchSize::LargeInput => "large-input".to_string(),
            BatchSize::PerIteration => "per-iteration".to_string(),
            BatchSize::NumBatches(n) => format!("batches={n}"),
            BatchSize::NumIterations(n) => format!("inputs={n}"),
        }
    }

    /// The size [`name`](Self::name) gives `name`, if any: what a stored
    /// result's `batch_size` is read back as.
    ///
    /// ```
    /// use perfbench::BatchSize;
    ///
    /// for size in [BatchSize::PerIteration, BatchSize::LargeInput, BatchSize::NumBatches(4)] {
    ///     assert_eq!(BatchSize::from_name(&size.name()), Some(size));
    /// }
    /// assert_eq!(BatchSize::from_name("huge-input"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<BatchSize> {
        let number = |prefix: &str| name.strip_prefix(prefix).and_then(|n| n.parse().ok());
        match name {
            "small-input" => Some(BatchSize::SmallInput),
            "large-input" => Some(BatchSize::LargeInput),
            "per-iteration" => Some(BatchSize::PerIteration),
            _ => number("batches=")
                .map(BatchSize::NumBatches)
                .or_else(|| number("inputs=").map(BatchSize::NumIterations)),
        }
    }

    /// The batches in every sample of a benchmark whose largest sample runs
    /// `largest` iterations: never more than `largest`.
    fn batches(self, largest: u64) -> u64 {
        let largest = largest.max(1);
        let at_most = |inputs: u64| largest.div_ceil(inputs.max(1));
        let batches = match self {
            BatchSize::SmallInput => at_most(10_000),
            BatchSize::LargeInput => at_most(100),
            BatchSize::PerIteration => largest,
            BatchSize::NumBatches(b) => b,
            BatchSize::NumIterations(n) => at_most(n),
        };
        batches.clamp(1, largest)
    }
}

/// How every sample of one benchmark is batched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Batching {
    /// Batches per sample.
    batches: u64,
    /// Inputs made for every batch.
    pub(super) inputs: u64,
}

impl Batching {
    /// The batching of `size` for samples of at most `largest` iterations.
    pub(super) fn new(size: BatchSize, largest: u64) -> Self {
        let batches = size.batches(largest);
        Batching {
            batches,
            inputs: largest.max(1).div_ceil(batches),
        }
    }

    /// How many of each batch's inputs a sample of `iterations` runs: as
    /// even as can be (they differ by at most one), never more than
    /// [`inputs`](Self::inputs) for a sample up to the largest.
    pub(super) fn runs(self, iterations: u64) -> impl Iterator<Item = u64> {
        let b = self.batches;
        (0..b).map(move |k| iterations / b + u64::from(k < iterations % b))
    }
}

impl Bencher<'_> {
    /// Measures `routine` on inputs made by `setup`, which runs outside the
    /// measurement, `size` inputs at a time. The routine's outputs are
    /// dropped outside it too; inputs it consumes are dropped inside
    /// (return them to keep that out).
    ///
    /// In per-iteration mode every iteration gets its own input, made and
    /// dropped outside the bracket of reads; `size` does not matter there.
    ///
    /// ```no_run
    /// use perfbench::{perfbench, BatchSize, Bencher};
    ///
    /// #[perfbench]
    /// fn parse_number(b: &mut Bencher) {
    ///     b.iter_batched(|| "12345".to_string(), |s| s.parse::<u32>(), BatchSize::SmallInput);
    /// }
    /// ```
    ///
    /// An input so large that only one may be alive at a time, consumed by
    /// the routine (returned, so that freeing it stays outside):
    ///
    /// ```no_run
    /// use perfbench::{perfbench, BatchSize, Bencher};
    ///
    /// #[perfbench]
    /// fn reverse_64_mib(b: &mut Bencher) {
    ///     b.iter_batched(
    ///         || vec![1u8; 64 << 20],
    ///         |mut v| {
    ///             v.reverse();
    ///             v
    ///         },
    ///         BatchSize::PerIteration,
    ///     );
    /// }
    /// ```
    pub fn iter_batched<I, O, S, R>(&mut self, mut setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        if self.refuses_threads("iter_batched") {
            return;
        }
        self.method = Method::IterBatched(size);
        if let Task::PerIter(..) = self.task {
            self.drive_per_iter(|b| {
                let input = setup();
                let output = b.bracket_once(|| routine(black_box(input)))?;
                drop(black_box(output));
                Ok(())
            });
            return;
        }
        self.drive_batches(size, setup, |inputs, outputs| {
            // Drained, not consumed: the buffer is freed outside the
            // window, where the allocator's varying cost belongs to no one.
            for input in inputs.drain(..) {
                outputs.push(routine(black_box(input)));
            }
        });
    }

    /// [`iter_batched`](Self::iter_batched) for routines that take their
    /// input by reference: inputs and outputs are both dropped outside the
    /// measurement.
    ///
    /// ```no_run
    /// use perfbench::{perfbench, BatchSize, Bencher};
    ///
    /// #[perfbench]
    /// fn sort_1000(b: &mut Bencher) {
    ///     let input: Vec<u32> = (0..1000).rev().collect();
    ///     b.iter_batched_ref(|| input.clone(), |v| v.sort_unstable(), BatchSize::SmallInput);
    /// }
    /// ```
    pub fn iter_batched_ref<I, O, S, R>(&mut self, mut setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        if self.refuses_threads("iter_batched_ref") {
            return;
        }
        self.method = Method::IterBatchedRef(size);
        if let Task::PerIter(..) = self.task {
            self.drive_per_iter(|b| {
                let mut input = setup();
                let output = b.bracket_once(|| routine(black_box(&mut input)))?;
                drop(black_box(output));
                drop(input);
                Ok(())
            });
            return;
        }
        self.drive_batches(size, setup, |inputs, outputs| {
            for input in inputs.iter_mut() {
                outputs.push(routine(black_box(input)));
            }
        });
    }

    /// Batch mode of both forms: every batch makes its inputs with `setup`,
    /// and `window(inputs, outputs)` runs the routine on all of `inputs`
    /// (those the sample runs) inside one counted window ([`Windows`]),
    /// pushing to `outputs`; inputs left unused, the inputs' buffer and the
    /// outputs are dropped outside the window.
    fn drive_batches<I, O>(
        &mut self,
        size: BatchSize,
        mut setup: impl FnMut() -> I,
        mut window: impl FnMut(&mut Vec<I>, &mut Vec<O>),
    ) {
        self.drive(|iterations, largest, group| {
            let batching = Batching::new(size, largest);
            let mut windows = Windows::start(group)?;
            for runs in batching.runs(iterations) {
                let runs = usize::try_from(runs).expect("a batch's runs fit in memory");
                let mut inputs: Vec<I> = (0..batching.inputs).map(|_| setup()).collect();
                let unused = inputs.split_off(runs);
                let mut outputs = touched_buffer(runs);
                windows.count(|| window(&mut inputs, &mut outputs))?;
                drop(black_box(outputs));
                drop((inputs, unused));
            }
            windows.finish()
        });
    }
}

/// An empty buffer for `n` values whose memory is written once already:
/// pushing to fresh memory inside a window would count its page faults
/// (the allocator takes new pages as it grows its heap), one now and then,
/// never the routine's.
pub(super) fn touched_buffer<T>(n: usize) -> Vec<T> {
    let mut buffer = Vec::with_capacity(n);
    // `take`: a buffer of zero-sized values has room for `usize::MAX`.
    for slot in buffer.spare_capacity_mut().iter_mut().take(n) {
        *slot = MaybeUninit::zeroed();
    }
    // So that the writes are not left out as unread.
    black_box(buffer.spare_capacity_mut().as_mut_ptr());
    buffer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_runs_near_equal_parts_of_every_batch_and_none_past_its_iterations() {
        let batching = |batches, inputs| Batching { batches, inputs };
        for (iterations, batches) in [(10u64, 10u64), (11, 10), (19, 10), (1000, 10), (12_345, 7)] {
            let runs: Vec<u64> = batching(batches, 0).runs(iterations).collect();
            assert_eq!(runs.len() as u64, batches, "{iterations}");
            assert_eq!(runs.iter().sum::<u64>(), iterations);
            let (min, max) = (runs.iter().min().unwrap(), runs.iter().max().unwrap());
            assert!(max - min <= 1, "{iterations}: {runs:?}");
        }
        assert_eq!(batching(5, 1).runs(3).collect::<Vec<_>>(), [1, 1, 1, 0, 0]);
        assert_eq!(batching(2, 1).runs(0).collect::<Vec<_>>(), [0, 0]);
    }

    #[test]
    fn batch_sizes_are_named_and_read_back() {
        for size in [
            BatchSize::SmallInput,
            BatchSize::LargeInput,
            BatchSize::PerIteration,
            BatchSize::NumBatches(3),
            BatchSize::NumIterations(70),
        ] {
            assert_eq!(BatchSize::from_name(&size.name()), Some(size));
        }
        assert_eq!(BatchSize::NumBatches(3).name(), "batches=3");
        for junk in ["", "small", "batches=", "inputs=-1", "batches=x"] {
            assert_eq!(BatchSize::from_name(junk), None, "{junk}");
        }
    }

    #[test]
    fn every_size_batches_all_samples_alike_within_its_bound() {
        let largest = 2500;
        let of = |size| Batching::new(size, largest);
        let batching = |batches, inputs| Batching { batches, inputs };
        assert_eq!(of(BatchSize::SmallInput), batching(1, 2500));
        assert_eq!(
            Batching::new(BatchSize::SmallInput, 25_001),
            batching(3, 8334)
        );
        assert_eq!(of(BatchSize::LargeInput), batching(25, 100));
        assert_eq!(of(BatchSize::PerIteration), batching(2500, 1));
        assert_eq!(of(BatchSize::NumBatches(3)), batching(3, 834));
        assert_eq!(of(BatchSize::NumBatches(0)), batching(1, 2500));
        assert_eq!(of(BatchSize::NumIterations(7)), batching(358, 7));
        assert_eq!(of(BatchSize::NumIterations(0)), batching(2500, 1));
        // Fewer iterations than batches: one input per batch, no empty ones.
        assert_eq!(Batching::new(BatchSize::NumBatches(10), 4), batching(4, 1));
        assert_eq!(Batching::new(BatchSize::SmallInput, 0), batching(1, 1));
        for size in [
            BatchSize::SmallInput,
            BatchSize::LargeInput,
            BatchSize::PerIteration,
            BatchSize::NumBatches(3),
            BatchSize::NumIterations(7),
        ] {
            let b = of(size);
            for m in [1, 7, 999, 2500] {
                assert!(b.runs(m).all(|r| r <= b.inputs), "{size:?}, {m}");
            }
        }
    }
}
