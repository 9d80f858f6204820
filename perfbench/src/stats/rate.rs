//! The rate of a rare event: its total count over the iterations of every
//! sample, with an exact Poisson interval on that total.
//!
//! A slope fitted to counts that are mostly zero (a context switch now and
//! then) says little and can go below zero, which a count per iteration
//! never is. The ratio of the totals cannot; and a few events spread at
//! random over many iterations are what a Poisson count describes, whose
//! exact (Garwood) interval never reaches below zero either.

use statrs::function::gamma::gamma_lr;

use super::regression::exact_ratio;
use super::{check_confidence, check_samples, Estimate, Interval};

/// Above this many events the Poisson interval is taken from the
/// Wilson–Hilferty approximation of the Gamma quantiles, which is then
/// far closer than the interval is wide, instead of searching the
/// incomplete Gamma function, whose series grows with the count.
const EXACT_UP_TO: u64 = 10_000;

/// The total of `totals` over the total of `iterations`, with the exact
/// Poisson interval at `confidence` of the total count, divided by the
/// iterations: both never below 0. Where every sample counts the same per
/// iteration (none at all, say) the rate is exact and its interval zero
/// wide, as every exact count's.
///
/// ```
/// use perfbench::stats::rate;
///
/// let r = rate(&[500_000, 500_000], &[0, 3], 0.95);
/// assert_eq!(r.point, 3e-6);
/// assert!(0.0 < r.ci.low && r.ci.low < r.point && r.point < r.ci.high);
/// assert_eq!(rate(&[10, 20], &[0, 0], 0.95).ci.high, 0.0);
/// ```
///
/// # Panics
///
/// If the slices differ in length or are empty, an iteration count is 0, or
/// the confidence is not strictly between 0 and 1.
pub fn rate(iterations: &[u64], totals: &[u64], confidence: f64) -> Estimate {
    check_samples(iterations, totals);
    check_confidence(confidence);
    let sum = |v: &[u64]| v.iter().map(|&t| u128::from(t)).sum::<u128>();
    // At most 2^64 samples of 2^64 each: well within i128.
    let (events, runs) = (sum(totals), sum(iterations));
    let point = exact_ratio(events as i128, runs as i128);
    let steady = iterations.iter().zip(totals).all(|(&x, &y)| {
        u128::from(y) * u128::from(iterations[0]) == u128::from(totals[0]) * u128::from(x)
    });
    if steady {
        return Estimate::exact(point);
    }
    let counts = poisson_interval(events as f64, confidence);
    Estimate {
        point,
        ci: Interval {
            low: counts.low / runs as f64,
            high: counts.high / runs as f64,
        },
    }
}

/// The exact (Garwood) interval at `confidence` of the mean of a Poisson
/// count observed as `k`: the means under which a count as low, or as
/// high, is no likelier than half the rest. From 0 when `k` is 0.
pub fn poisson_interval(k: f64, confidence: f64) -> Interval {
    let tail = (1.0 - confidence) / 2.0;
    let low = if k > 0.0 {
        gamma_quantile(k, tail)
    } else {
        0.0
    };
    Interval {
        low,
        high: gamma_quantile(k + 1.0, 1.0 - tail),
    }
}

/// The `p` quantile of the Gamma distribution of shape `a` (> 0) and
/// scale 1.
fn gamma_quantile(a: f64, p: f64) -> f64 {
    if a > EXACT_UP_TO as f64 {
        return wilson_hilferty(a, p);
    }
    let mut high = a + 20.0 * a.sqrt() + 40.0;
    // Bounded: far tails of a confidence near 1 only double it a few times.
    for _ in 0..64 {
        if gamma_lr(a, high) >= p {
            break;
        }
        high *= 2.0;
    }
    let mut low = 0.0;
    // Halving a bracket of at most 2^64 times `a` reaches f64's precision
    // in far fewer than 200 steps.
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if mid <= low || mid >= high {
            break;
        }
        if gamma_lr(a, mid) < p {
            low = mid;
        } else {
            high = mid;
        }
    }
    (low + high) / 2.0
}

/// The Wilson–Hilferty approximation of the Gamma quantile: the cube root
/// of a Gamma variable is nearly normal.
fn wilson_hilferty(a: f64, p: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    let z = Normal::standard().inverse_cdf(p);
    let c = 1.0 / (9.0 * a);
    (a * (1.0 - c + z * c.sqrt()).powi(3)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_intervals_match_the_tables() {
        // Garwood's 95 % limits (e.g. Ulm 1990, table 1).
        for (k, low, high) in [
            (0.0, 0.0, 3.689),
            (1.0, 0.0253, 5.572),
            (3.0, 0.6187, 8.767),
            (10.0, 4.795, 18.39),
            (100.0, 81.36, 121.6),
        ] {
            let i = poisson_interval(k, 0.95);
            let near = |a: f64, b: f64| (a - b).abs() <= 1e-3 * b.max(1.0);
            assert!(near(i.low, low) && near(i.high, high), "{k}: {i:?}");
        }
    }

    #[test]
    fn large_counts_take_the_approximation_smoothly() {
        let exact = poisson_interval(EXACT_UP_TO as f64, 0.95);
        let approx = |q: f64| wilson_hilferty(EXACT_UP_TO as f64, q);
        assert!((exact.low - approx(0.025)).abs() < 0.01, "{exact:?}");
        // Far beyond: the normal interval, k ± 1.96 √k.
        let i = poisson_interval(1e15, 0.95);
        let half = 1.959_964 * 1e15f64.sqrt();
        assert!((i.low - (1e15 - half)).abs() < 1e-3 * half, "{i:?}");
        assert!((i.high - (1e15 + half)).abs() < 1e-3 * half, "{i:?}");
    }

    #[test]
    fn a_rare_count_gives_its_exact_ratio_within_a_nonnegative_interval() {
        // 3 events in 10^6 iterations, in 3 of 100 samples.
        let x = vec![10_000; 100];
        let mut y = vec![0; 100];
        (y[7], y[40], y[93]) = (1, 1, 1);
        let r = rate(&x, &y, 0.95);
        assert_eq!(r.point, 3e-6);
        assert!(0.0 <= r.ci.low && r.ci.low < r.point && r.point < r.ci.high);
        // Garwood's limits for 3 events, per 10^6 iterations.
        assert!((r.ci.low - 0.6187e-6).abs() < 1e-9 && (r.ci.high - 8.767e-6).abs() < 1e-8);
    }

    #[test]
    fn steady_counts_are_exact() {
        assert_eq!(rate(&[1, 2, 3], &[0, 0, 0], 0.95), Estimate::exact(0.0));
        assert_eq!(rate(&[1, 2, 3], &[1, 2, 3], 0.95), Estimate::exact(1.0));
        assert_eq!(rate(&[4, 8], &[1, 2], 0.95), Estimate::exact(0.25));
    }

    #[test]
    fn extreme_totals_and_confidences_stay_finite() {
        let r = rate(&[u64::MAX; 3], &[u64::MAX, 0, 0], 0.999_999);
        assert!(r.ci.low.is_finite() && r.ci.high.is_finite(), "{r:?}");
        let r = rate(&[1, 1], &[0, 1], 1e-9);
        assert!(r.ci.low <= r.point && r.point <= r.ci.high, "{r:?}");
    }
}
