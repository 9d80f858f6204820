//! A slope that outlying samples cannot drag: Theil–Sen.

use statrs::distribution::{ContinuousCDF, Normal};

use super::{
    check_confidence, check_samples, exact_fit, linear_fit, median_of_sorted, Estimate, Interval,
};

/// Most samples [`theil_sen`] takes on: it looks at every pair, so its cost
/// grows with the square of the samples.
pub const THEIL_SEN_MAX_SAMPLES: usize = 2000;

/// The Theil–Sen slope of totals `y` against iterations `x`: the median of
/// the slopes between every two samples with different iteration counts.
/// Up to 29 % of the samples can be arbitrarily far off without moving it
/// far, where one sample can move the least-squares slope anywhere.
///
/// Its interval is Sen's (1968), from the ranks of the pairwise slopes and
/// the normal approximation to Kendall's statistic, at `confidence`.
/// Returns `None` with fewer than three samples, with fewer than two
/// distinct iteration counts, or beyond [`THEIL_SEN_MAX_SAMPLES`]. Points on
/// one line give that line's slope, exactly.
///
/// ```
/// use perfbench::stats::theil_sen;
///
/// // 10 per iteration, and one sample disturbed by 5000.
/// let x = [1, 2, 3, 4, 5, 6, 7];
/// let y = [10, 20, 30, 5040, 50, 60, 70];
/// assert_eq!(theil_sen(&x, &y, 0.95).unwrap().point, 10.0);
/// ```
pub fn theil_sen(x: &[u64], y: &[u64], confidence: f64) -> Option<Estimate> {
    check_samples(x, y);
    check_confidence(confidence);
    let n = x.len();
    if !(3..=THEIL_SEN_MAX_SAMPLES).contains(&n) || x.iter().all(|&v| v == x[0]) {
        return None;
    }
    if exact_fit(x, y) {
        return Some(Estimate::exact(linear_fit(x, y).0));
    }
    let mut slopes = pairwise_slopes(x, y);
    slopes.sort_unstable_by(f64::total_cmp);
    Some(Estimate {
        point: median_of_sorted(&slopes),
        ci: sen_interval(&slopes, n, confidence),
    })
}

/// The slope between every two samples whose iteration counts differ.
fn pairwise_slopes(x: &[u64], y: &[u64]) -> Vec<f64> {
    let mut slopes = Vec::with_capacity(x.len() * (x.len() - 1) / 2);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            if x[i] != x[j] {
                let dy = y[j] as f64 - y[i] as f64;
                slopes.push(dy / (x[j] as f64 - x[i] as f64));
            }
        }
    }
    slopes
}

/// Sen's interval: the pairwise slopes ranked `(N ∓ C)/2` of `N`, where `C`
/// is the normal quantile times the standard deviation of Kendall's
/// statistic for `n` samples.
fn sen_interval(sorted: &[f64], n: usize, confidence: f64) -> Interval {
    let pairs = sorted.len() as f64;
    let n = n as f64;
    let sd = (n * (n - 1.0) * (2.0 * n + 5.0) / 18.0).sqrt();
    let z = Normal::standard().inverse_cdf((1.0 + confidence) / 2.0);
    let c = z * sd;
    let last = sorted.len() - 1;
    // Ranks are 1-based in Sen's statement.
    let low = (((pairs - c) / 2.0).floor() as i64 - 1).clamp(0, last as i64) as usize;
    let high = (((pairs + c) / 2.0).ceil() as i64).clamp(0, last as i64) as usize;
    Interval {
        low: sorted[low],
        high: sorted[high],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outliers_leave_the_slope_where_the_other_samples_put_it() {
        let x: Vec<u64> = (1..=20).collect();
        let mut y: Vec<u64> = x.iter().map(|&i| 100 * i + 7).collect();
        for k in [3, 9, 15] {
            y[k] += 1_000_000;
        }
        let e = theil_sen(&x, &y, 0.95).unwrap();
        assert_eq!(e.point, 100.0);
        assert!(e.ci.low <= 100.0 && e.ci.high >= 100.0, "{e:?}");
        let ls = linear_fit(&x, &y).0;
        assert!(
            (ls - 100.0).abs() > 1000.0,
            "least squares is dragged: {ls}"
        );
    }

    #[test]
    fn exact_lines_give_exact_slopes_and_degenerate_inputs_none() {
        let e = theil_sen(&[1, 2, 3, 4], &[5, 9, 13, 17], 0.95).unwrap();
        assert_eq!((e.point, e.ci.low, e.ci.high), (4.0, 4.0, 4.0));
        assert_eq!(theil_sen(&[1, 2], &[5, 9], 0.95), None);
        assert_eq!(theil_sen(&[3, 3, 3], &[5, 9, 1], 0.95), None);
    }

    #[test]
    fn sen_interval_covers_a_noisy_slope_and_narrows_with_more_samples() {
        // Deterministic noise of ±50 around 10 per iteration.
        let noisy = |n: u64| {
            let x: Vec<u64> = (1..=n).collect();
            let y: Vec<u64> = x
                .iter()
                .map(|&i| 10 * i * 100 + 1000 + (i * 7919 % 101))
                .collect();
            (x, y)
        };
        let (x, y) = noisy(10);
        let small = theil_sen(&x, &y, 0.95).unwrap();
        let (x, y) = noisy(200);
        let large = theil_sen(&x, &y, 0.95).unwrap();
        for e in [small, large] {
            assert!(e.ci.low < 1000.0 && 1000.0 < e.ci.high, "{e:?}");
        }
        assert!(large.ci.high - large.ci.low < small.ci.high - small.ci.low);
    }
}
