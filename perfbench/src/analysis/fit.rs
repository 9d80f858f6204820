//! Whether a straight line describes a metric's samples, and what is
//! headlined when it does not.
//!
//! Batch mode estimates the cost per iteration as the slope of the
//! least-squares line through the samples' totals. A few disturbed samples
//! (a preemption, an interrupt storm) can drag that slope anywhere; the
//! line then fits badly, and the Theil–Sen slope, which most samples must
//! agree on, is headlined instead, and the outputs say so.

use crate::stats::{theil_sen, Estimate, Statistics};

/// Below this R² the line is a poor description of the samples. Timed
/// metrics on a quiet machine fit at 0.99 and above; exact counts at 1.
pub const MIN_R_SQUARED: f64 = 0.9;

/// A negative intercept beyond this share of the mean sample total is
/// implausible: a sample cannot cost less than nothing, so the samples do
/// not lie on one line through a fixed cost.
pub const MAX_NEGATIVE_INTERCEPT: f64 = 0.1;

/// How well the line fits one metric's samples.
#[derive(Clone, Debug, PartialEq)]
pub enum Fit {
    /// The line describes the samples, or there is no line to fit (every
    /// sample ran as many iterations, as in per-iteration mode): the
    /// least-squares slope is the headline.
    Good,
    /// It does not: the Theil–Sen slope is the headline.
    Poor {
        /// What gave the fit away.
        why: PoorFit,
        /// The Theil–Sen slope and its interval.
        robust: Estimate,
    },
}

/// What made a fit poor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PoorFit {
    /// R² below [`MIN_R_SQUARED`].
    LowRSquared(f64),
    /// An intercept below `-`[`MAX_NEGATIVE_INTERCEPT`] of the mean sample
    /// total.
    NegativeIntercept(f64),
}

impl PoorFit {
    /// Why, in a few words: `R² 0.61` or `intercept -1.6e6 per sample`.
    pub fn describe(&self) -> String {
        match self {
            PoorFit::LowRSquared(r2) => format!("R² {r2:.2}"),
            PoorFit::NegativeIntercept(i) => format!("intercept {i:.3e} per sample"),
        }
    }
}

/// Judges the fit of `stats` to the samples (`iterations[i]`, `totals[i]`).
pub fn assess(iterations: &[u64], totals: &[u64], stats: &Statistics, confidence: f64) -> Fit {
    let Some(why) = poor_fit(iterations, totals, stats) else {
        return Fit::Good;
    };
    match theil_sen(iterations, totals, confidence) {
        Some(robust) => Fit::Poor { why, robust },
        None => Fit::Good,
    }
}

fn poor_fit(iterations: &[u64], totals: &[u64], stats: &Statistics) -> Option<PoorFit> {
    // A rare event (a context switch now and then) leaves most samples at
    // zero: its line is a rate, and R² says nothing about it.
    let zeros = totals.iter().filter(|&&t| t == 0).count();
    if iterations.iter().all(|&i| i == iterations[0]) || 2 * zeros >= totals.len() {
        return None;
    }
    if stats.r_squared < MIN_R_SQUARED {
        return Some(PoorFit::LowRSquared(stats.r_squared));
    }
    let mean_total = totals.iter().map(|&t| t as f64).sum::<f64>() / totals.len() as f64;
    (stats.intercept < -MAX_NEGATIVE_INTERCEPT * mean_total)
        .then_some(PoorFit::NegativeIntercept(stats.intercept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{analyze_metric, Bootstrap};

    fn fit(iterations: &[u64], totals: &[u64]) -> Fit {
        let stats = analyze_metric(iterations, totals, &Bootstrap::default());
        assess(iterations, totals, &stats, 0.95)
    }

    #[test]
    fn clean_lines_and_equal_sample_sizes_fit() {
        let x: Vec<u64> = (1..=20).collect();
        let y: Vec<u64> = x.iter().map(|&i| 50 * i + 300 + i % 3).collect();
        assert_eq!(fit(&x, &y), Fit::Good);
        assert_eq!(fit(&[1, 1, 1, 1], &[5, 90, 3, 7]), Fit::Good);
        // A rare event: one context switch in a few samples.
        let rare: Vec<u64> = x.iter().map(|&i| u64::from(i % 7 == 0)).collect();
        assert_eq!(fit(&x, &rare), Fit::Good);
    }

    #[test]
    fn disturbed_samples_headline_the_robust_slope() {
        let x: Vec<u64> = (1..=20).collect();
        let mut y: Vec<u64> = x.iter().map(|&i| 50 * i + 300).collect();
        y[2] += 5_000;
        y[11] += 9_000;
        let Fit::Poor { why, robust } = fit(&x, &y) else {
            panic!("two large outliers must spoil the fit")
        };
        assert!(matches!(why, PoorFit::LowRSquared(r) if r < MIN_R_SQUARED));
        assert_eq!(robust.point, 50.0);
    }

    #[test]
    fn a_steeply_negative_intercept_is_implausible() {
        // Later samples cost more per iteration than earlier ones: a drift
        // the straight line turns into a negative fixed cost.
        let x: Vec<u64> = (1..=20).collect();
        let y: Vec<u64> = x.iter().map(|&i| 100 * i + 4 * i * i).collect();
        let Fit::Poor { why, .. } = fit(&x, &y) else {
            panic!("a quadratic is no line")
        };
        assert!(
            matches!(why, PoorFit::NegativeIntercept(i) if i < 0.0),
            "{why:?}"
        );
    }
}
