//! Criterion's [`BatchSize`], with Criterion's meaning: how many of a
//! sample's inputs are made before the routine runs on them.

/// How `iter_batched` and `iter_batched_ref` batch a sample's inputs, as
/// Criterion does: its variants batch as Criterion's, which perfbench's
/// own `BatchSize` of the same names does not (perfbench's `SmallInput`
/// makes up to 10,000 inputs at a time, Criterion's a tenth of the
/// sample's). The batching decides how many inputs are alive, and how
/// warm each is in the caches, when the routine runs on it: a routine of
/// string-interner's suite read 1.1–2.8× Criterion's time with
/// perfbench's batching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchSize {
    /// Ten batches a sample.
    SmallInput,
    /// A thousand batches a sample (one input each, for fewer iterations).
    LargeInput,
    /// One input a batch.
    PerIteration,
    /// This many batches a sample.
    NumBatches(u64),
    /// This many inputs a batch.
    NumIterations(u64),
}

impl BatchSize {
    /// perfbench's batch size that batches as this one does in Criterion.
    pub(crate) fn perfbench(self) -> perfbench::BatchSize {
        match self {
            BatchSize::SmallInput => perfbench::BatchSize::NumBatches(10),
            BatchSize::LargeInput => perfbench::BatchSize::NumBatches(1000),
            BatchSize::PerIteration => perfbench::BatchSize::PerIteration,
            BatchSize::NumBatches(n) => perfbench::BatchSize::NumBatches(n),
            BatchSize::NumIterations(n) => perfbench::BatchSize::NumIterations(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_size_batches_as_criterion_does() {
        use perfbench::BatchSize as P;
        let sizes = [
            BatchSize::SmallInput,
            BatchSize::LargeInput,
            BatchSize::PerIteration,
            BatchSize::NumBatches(3),
            BatchSize::NumIterations(7),
        ];
        assert_eq!(
            sizes.map(BatchSize::perfbench),
            [
                P::NumBatches(10),
                P::NumBatches(1000),
                P::PerIteration,
                P::NumBatches(3),
                P::NumIterations(7)
            ]
        );
    }
}
