//! Estimates across rounds.
//!
//! A run measures every benchmark in several rounds, interleaved with the
//! other benchmarks, so that a slow spell of the machine (another tenant,
//! a frequency change, a noisy neighbour on the host) lands in one round of
//! many benchmarks rather than in every sample of one. The samples within a
//! round are close in time and share its spell; the rounds are what the
//! next run resembles. So a statistic's uncertainty is taken from its
//! spread across rounds, not from the scatter of samples within them.

use super::{interval_around, mean_var, t_half_width, Estimate};

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
        let per_round = (0..round_count(rounds))
            .filter_map(|round| {
                let (x, y): (Vec<u64>, Vec<u64>) = rounds
                    .iter()
                    .zip(iterations.iter().zip(totals))
                    .filter(|(&r, _)| r as usize == round)
                    .map(|(_, (&x, &y))| (x, y))
                    .unzip();
                (!x.is_empty()).then(|| estimator(&x, &y))
            })
            .collect();
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

    /// The point with its interval at `confidence`: Student's t with one
    /// degree of freedom fewer than there are rounds, on the rounds'
    /// standard error. Zero-width when every round agrees; `None` with
    /// fewer than two rounds.
    pub fn estimate(&self, confidence: f64) -> Option<Estimate> {
        let variance = self.variance()?;
        if variance == 0.0 {
            return Some(Estimate::exact(self.point));
        }
        let dof = (self.rounds.len() - 1) as f64;
        let half = t_half_width(dof, confidence, variance.sqrt());
        Some(interval_around(self.point, half))
    }
}
