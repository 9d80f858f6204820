//! Estimates across rounds.
//!
//! A run measures every benchmark in several rounds, interleaved with the
//! other benchmarks, so that a slow spell of the machine (another tenant,
//! a frequency change, a noisy neighbour on the host) lands in one round of
//! many benchmarks rather than in every sample of one. The samples within a
//! round are close in time and share its spell; the rounds are what the
//! next run resembles. So a statistic's uncertainty is taken from its
//! spread across rounds, not from the scatter of samples within them.

use std::collections::BTreeMap;

use super::welch::TwoSided;
use super::{interval_around, mean_var, Estimate};

/// How many rounds samples taken in rounds `rounds` (numbered from 0) make.
pub fn round_count(rounds: &[u32]) -> usize {
    rounds.iter().max().map_or(0, |&r| r as usize + 1)
}

/// A statistic estimated from a whole run and from each of its rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundEstimates {
    /// The estimate from all samples together.
    pub point: f64,
    /// The same estimator applied to each round's samples alone, in round
    /// order.
    pub rounds: Vec<f64>,
}

impl RoundEstimates {
    /// `estimator` applied to all samples and to each round's, where sample
    /// `i` ran `iterations[i]` iterations for `totals[i]` in round
    /// `rounds[i]`.
    ///
    /// ```
    /// use perfbench::stats::{linear_fit, RoundEstimates};
    ///
    /// let slope = |x: &[u64], y: &[u64]| linear_fit(x, y).0;
    /// let r = RoundEstimates::of(&[1, 2, 1, 2], &[10, 20, 12, 24], &[0, 0, 1, 1], slope);
    /// assert_eq!(r.rounds, [10.0, 12.0]);
    /// ```
    pub fn of(
        iterations: &[u64],
        totals: &[u64],
        rounds: &[u32],
        estimator: impl Fn(&[u64], &[u64]) -> f64,
    ) -> RoundEstimates {
        // Grouped in one pass, so the cost follows the samples, not the
        // largest round number (a stored file may claim round 2^32 - 1).
        let mut by_round: BTreeMap<u32, (Vec<u64>, Vec<u64>)> = BTreeMap::new();
        for (&r, (&x, &y)) in rounds.iter().zip(iterations.iter().zip(totals)) {
            let (xs, ys) = by_round.entry(r).or_default();
            xs.push(x);
            ys.push(y);
        }
        let per_round = by_round.values().map(|(x, y)| estimator(x, y)).collect();
        RoundEstimates {
            point: estimator(iterations, totals),
            rounds: per_round,
        }
    }

    /// The variance of the point, estimated from the rounds: their sample
    /// variance over their number. 0 when every round agrees (an exact
    /// count); `None` with fewer than two rounds, which tell nothing of it.
    pub fn variance(&self) -> Option<f64> {
        let n = self.rounds.len();
        (n >= 2).then(|| mean_var(&self.rounds).1 / n as f64)
    }

    /// The point with its interval at `confidence`: Student's t on the
    /// rounds' standard error, widened by the spread of `earlier` runs of
    /// the same statistic beyond what the rounds show ([`between_runs`]),
    /// at the Welch–Satterthwaite degrees of freedom of the two (one fewer
    /// than there are rounds where no earlier run adds to it). Zero-width
    /// when every round and run agrees; `None` with fewer than two rounds.
    pub fn estimate(&self, earlier: &[f64], confidence: f64) -> Option<Estimate> {
        let variance = self.variance()?;
        let runs = between_runs(self, earlier);
        let t = TwoSided::of(
            self.point,
            &[(variance, self.rounds.len()), (runs.variance, runs.runs)],
        );
        Some(interval_around(self.point, t.half_width(confidence)))
    }
}

/// The run-to-run variance of a statistic beyond what one run's rounds
/// show, learned from stored runs, and how many runs it was learned from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BetweenRuns {
    /// The variance of a run's statistic that its rounds do not show.
    pub variance: f64,
    /// Runs it was learned from: the baseline and those stored before it.
    pub runs: usize,
}

impl BetweenRuns {
    /// Nothing learned: the rounds alone decide.
    pub const NONE: BetweenRuns = BetweenRuns {
        variance: 0.0,
        runs: 1,
    };

    /// Of two estimates of the same spread, the one learned from more runs
    /// (`self` where they tie).
    pub fn or_better(self, other: BetweenRuns) -> BetweenRuns {
        if other.runs > self.runs {
            other
        } else {
            self
        }
    }
}

/// What runs add to the spread of `base`: the sample variance of the
/// statistic over `base` and its `earlier` runs, less the variance the
/// baseline's rounds already give its point (never below 0). Zero with no
/// earlier run, or when the runs agree as closely as rounds do.
///
/// ```
/// use perfbench::stats::{between_runs, RoundEstimates};
///
/// let base = RoundEstimates { point: 10.0, rounds: vec![10.0; 4] };
/// let b = between_runs(&base, &[12.0, 8.0]);
/// assert_eq!((b.variance, b.runs), (4.0, 3));
/// assert_eq!(between_runs(&base, &[]).variance, 0.0);
/// ```
pub fn between_runs(base: &RoundEstimates, earlier: &[f64]) -> BetweenRuns {
    let runs = earlier.len() + 1;
    if earlier.is_empty() {
        return BetweenRuns {
            variance: 0.0,
            runs,
        };
    }
    let points: Vec<f64> = earlier.iter().copied().chain([base.point]).collect();
    let (_, spread) = mean_var(&points);
    BetweenRuns {
        variance: (spread - base.variance().unwrap_or(0.0)).max(0.0),
        runs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_round_number_costs_nothing() {
        // Two samples in rounds 0 and 2^32 - 1: two rounds, at once (a loop
        // over the round numbers took about 10 minutes).
        let start = std::time::Instant::now();
        let r = RoundEstimates::of(&[1, 2], &[10, 40], &[u32::MAX, 0], |x, y| {
            y[0] as f64 / x[0] as f64
        });
        assert_eq!(r.rounds, [20.0, 10.0], "in round order");
        assert_eq!(r.point, 10.0);
        assert!(start.elapsed().as_secs() < 1, "{:?}", start.elapsed());
    }
}
