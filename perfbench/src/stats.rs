//! Statistics over the samples of one metric.
//!
//! Sums are taken in exact integer arithmetic, so an exactly linear series
//! (a counter that counts the same per iteration) gives an exact slope: 16
//! page faults per iteration come out as `16.0`, not `15.999999999999998`.

/// Summary of one metric over a batch-mode run.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Per-iteration cost: the least-squares slope of total against
    /// iterations.
    pub estimate: f64,
    /// Fixed cost per sample: the intercept of the same line.
    pub intercept: f64,
    /// Mean of the per-iteration values (total / iterations) of the samples.
    pub mean: f64,
    /// Median of the per-iteration values.
    pub median: f64,
    /// Smallest per-iteration value.
    pub min: f64,
    /// Largest per-iteration value.
    pub max: f64,
}

/// Summarises samples that ran `iterations[i]` iterations for a total of
/// `totals[i]`. Both slices have the same, non-zero length; iterations are
/// non-zero.
pub fn summarize(iterations: &[u64], totals: &[u64]) -> Summary {
    assert_eq!(iterations.len(), totals.len());
    assert!(!iterations.is_empty(), "no samples");
    let (estimate, intercept) = linear_fit(iterations, totals);
    let mut per_iter: Vec<f64> = iterations
        .iter()
        .zip(totals)
        .map(|(&x, &y)| y as f64 / x as f64)
        .collect();
    per_iter.sort_by(f64::total_cmp);
    Summary {
        estimate,
        intercept,
        mean: per_iter.iter().sum::<f64>() / per_iter.len() as f64,
        median: median_of_sorted(&per_iter),
        min: per_iter[0],
        max: per_iter[per_iter.len() - 1],
    }
}

/// The median of sorted values (the mean of the middle two for an even count).
pub fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Least-squares `(slope, intercept)` of `y` on `x`. With fewer than two
/// distinct `x` the line goes through the origin.
pub fn linear_fit(x: &[u64], y: &[u64]) -> (f64, f64) {
    let n = x.len() as i128;
    let sx: i128 = x.iter().map(|&v| i128::from(v)).sum();
    let sy: i128 = y.iter().map(|&v| i128::from(v)).sum();
    let sxx: i128 = x.iter().map(|&v| i128::from(v) * i128::from(v)).sum();
    let sxy: i128 = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| i128::from(a) * i128::from(b))
        .sum();
    let den = n * sxx - sx * sx;
    if den == 0 {
        return (exact_ratio(sy, sx), 0.0);
    }
    (
        exact_ratio(n * sxy - sx * sy, den),
        exact_ratio(sy * sxx - sx * sxy, den),
    )
}

/// `num / den` rounded once: exact whenever the quotient is an integer.
fn exact_ratio(num: i128, den: i128) -> f64 {
    let (q, r) = (num.div_euclid(den), num.rem_euclid(den));
    q as f64 + r as f64 / den as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_linear_counts_give_exact_figures() {
        let x: Vec<u64> = (1..=100).map(|i| i * 37).collect();
        let y: Vec<u64> = x.iter().map(|&i| 17 * i + 5).collect();
        let s = summarize(&x, &y);
        assert_eq!(s.estimate, 17.0);
        assert_eq!(s.intercept, 5.0);
        let z: Vec<u64> = x.iter().map(|&i| 16 * i).collect();
        let s = summarize(&x, &z);
        assert_eq!((s.estimate, s.intercept), (16.0, 0.0));
        assert_eq!((s.mean, s.median, s.min, s.max), (16.0, 16.0, 16.0, 16.0));
    }

    #[test]
    fn fit_matches_a_hand_computed_example() {
        // x = 1,2,3,4; y = 3,5,4,8: slope = 1.4, intercept = 1.5
        let (b, a) = linear_fit(&[1, 2, 3, 4], &[3, 5, 4, 8]);
        assert!(
            (b - 1.4).abs() < 1e-12 && (a - 1.5).abs() < 1e-12,
            "{b} {a}"
        );
    }

    #[test]
    fn negative_slopes_and_single_samples_work() {
        let (b, a) = linear_fit(&[1, 2, 3], &[30, 20, 10]);
        assert_eq!((b, a), (-10.0, 40.0));
        let s = summarize(&[10], &[25]);
        assert_eq!((s.estimate, s.mean, s.median), (2.5, 2.5, 2.5));
    }

    #[test]
    fn order_statistics_of_per_iteration_values() {
        let s = summarize(&[1, 2, 4, 1], &[10, 10, 12, 2]);
        // per iteration: 10, 5, 3, 2
        assert_eq!((s.min, s.max, s.median, s.mean), (2.0, 10.0, 4.0, 5.0));
    }
}
