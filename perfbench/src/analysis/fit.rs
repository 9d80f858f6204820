//! Whether a straight line describes a metric's samples, and what is
//! headlined when it does not.
//!
//! Batch mode estimates the cost per iteration as the slope of the
//! least-squares line through the samples' totals. A few disturbed samples
//! (a preemption, an interrupt storm) can drag that slope anywhere; the
//! line then fits badly, and the Theil–Sen slope, which most samples must
//! agree on, is headlined instead, and the outputs say so. A rare event,
//! which most samples do not count at all, has no line: its rate is
//! headlined.

use crate::counter::event::Unit;
use crate::stats::{rate, theil_sen, Estimate, Statistics};

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
    /// A count of a rare event ([`rare`]): the samples are mostly 0, the
    /// line says nothing, and its slope can go below zero, which a count
    /// never does. Its rate, the total count over the total iterations,
    /// is the headline ([`crate::stats::rate`]).
    Rare {
        /// The rate and its interval, never below 0.
        rate: Estimate,
    },
    /// A time measured iteration by iteration (per-iteration mode): one
    /// iteration's time has a long tail to the right (an interrupt, or a
    /// preemption of a millisecond among iterations of 250 ns), which drags
    /// a mean and its interval, seen down to -2 µs for a 250 ns routine on
    /// a busy machine. The median of the iterations is the headline, its
    /// interval from the rounds' medians.
    Median {
        /// The median and its interval.
        median: Estimate,
    },
}

impl Fit {
    /// The headline where it is not the least-squares slope
    /// (`Statistics::slope`): the Theil–Sen slope or the rate.
    pub fn own_headline_mut(&mut self) -> Option<&mut Estimate> {
        match self {
            Fit::Good => None,
            Fit::Poor { robust, .. } => Some(robust),
            Fit::Rare { rate } => Some(rate),
            Fit::Median { median } => Some(median),
        }
    }
}

/// Whether a metric of `unit` whose samples totalled `totals` counts a
/// rare event: it is a count (not a time), and at least half of its
/// samples counted nothing. A context switch now and then, a page fault
/// of the measuring itself: their line is a rate, R² says nothing about
/// it, and a slope fitted through it may well be negative.
pub fn rare(unit: Unit, totals: &[u64]) -> bool {
    unit == Unit::Count && 2 * zeros(totals) >= totals.len()
}

/// Whether a metric of `unit` over samples of `iterations` is a time
/// measured iteration by iteration: every sample one iteration.
pub fn per_iteration_time(unit: Unit, iterations: &[u64]) -> bool {
    unit == Unit::Nanoseconds && !iterations.is_empty() && iterations.iter().all(|&i| i == 1)
}

fn zeros(totals: &[u64]) -> usize {
    totals.iter().filter(|&&t| t == 0).count()
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

/// Judges the fit of `stats` to the samples (`iterations[i]`, `totals[i]`)
/// of a metric of `unit`.
pub fn assess(
    unit: Unit,
    (iterations, totals): (&[u64], &[u64]),
    stats: &Statistics,
    confidence: f64,
) -> Fit {
    if rare(unit, totals) {
        return Fit::Rare {
            rate: rate(iterations, totals, confidence),
        };
    }
    if per_iteration_time(unit, iterations) {
        return Fit::Median {
            median: stats.median,
        };
    }
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
    // A time that is mostly 0 (a clock too coarse for the routine) has no
    // line either.
    if iterations.iter().all(|&i| i == iterations[0]) || 2 * zeros(totals) >= totals.len() {
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
        assess(Unit::Nanoseconds, (iterations, totals), &stats, 0.95)
    }

    #[test]
    fn clean_lines_and_equal_sample_sizes_fit() {
        let x: Vec<u64> = (1..=20).collect();
        let y: Vec<u64> = x.iter().map(|&i| 50 * i + 300 + i % 3).collect();
        assert_eq!(fit(&x, &y), Fit::Good);
        // Equal sample sizes (of one iteration each: see the median).
        assert_eq!(fit(&[2, 2, 2, 2], &[5, 90, 3, 7]), Fit::Good);
        // A time mostly 0: no line to judge.
        let rare: Vec<u64> = x.iter().map(|&i| u64::from(i % 7 == 0)).collect();
        assert_eq!(fit(&x, &rare), Fit::Good);
    }

    #[test]
    fn a_count_mostly_zero_headlines_its_rate() {
        // One context switch in 2 of 20 samples, early ones: the slope is
        // negative, the rate is not.
        let x: Vec<u64> = (1..=20).map(|i| 1000 * i).collect();
        let mut y = vec![0; 20];
        (y[0], y[2]) = (1, 1);
        let stats = analyze_metric(&x, &y, &Bootstrap::default());
        assert!(stats.slope.point < 0.0, "{:?}", stats.slope);
        let Fit::Rare { rate } = assess(Unit::Count, (&x, &y), &stats, 0.95) else {
            panic!("a count mostly 0 is rare")
        };
        assert_eq!(rate.point, 2.0 / 210_000.0);
        assert!(0.0 < rate.ci.low && rate.ci.high > rate.point, "{rate:?}");
        // Half the samples count something: rare still; fewer zeros: not.
        let half: Vec<u64> = (0..20).map(|i| i % 2).collect();
        assert!(rare(Unit::Count, &half));
        assert!(!rare(Unit::Count, &half[1..]));
        assert!(!rare(Unit::Nanoseconds, &y));
    }

    #[test]
    fn a_time_iteration_by_iteration_headlines_its_median() {
        // 250 ns iterations and one preempted for a millisecond: the mean
        // is 4× the routine, the median is the routine.
        let x = vec![1; 301];
        let mut y = vec![250; 301];
        y[7] = 1_000_000;
        let Fit::Median { median } = fit(&x, &y) else {
            panic!("per-iteration times headline the median")
        };
        assert_eq!(median.point, 250.0);
        // Counts iteration by iteration, and times in batches, do not.
        let stats = analyze_metric(&x, &y, &Bootstrap::default());
        assert_eq!(assess(Unit::Count, (&x, &y), &stats, 0.95), Fit::Good);
        assert!(!per_iteration_time(Unit::Nanoseconds, &[1, 2, 3]));
        assert!(!per_iteration_time(Unit::Nanoseconds, &[]));
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
