//! Order statistics, dispersion and Tukey outliers of per-iteration values.

/// The median of sorted values (the mean of the middle two for an even count).
pub fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Tukey's fences over per-iteration values, with the quartiles `Q1` and
/// `Q3` interpolated linearly between order statistics: counts below
/// `Q1 - 3 IQR` (`low_severe`), in `[Q1 - 3 IQR, Q1 - 1.5 IQR)`
/// (`low_mild`), in `(Q3 + 1.5 IQR, Q3 + 3 IQR]` (`high_mild`) and above
/// `Q3 + 3 IQR` (`high_severe`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outliers {
    /// Values below `Q1 - 3 IQR`.
    pub low_severe: usize,
    /// Values in `[Q1 - 3 IQR, Q1 - 1.5 IQR)`.
    pub low_mild: usize,
    /// Values in `(Q3 + 1.5 IQR, Q3 + 3 IQR]`.
    pub high_mild: usize,
    /// Values above `Q3 + 3 IQR`.
    pub high_severe: usize,
}

/// Scale of the MAD that makes it a consistent estimator of the standard
/// deviation of normal data (1 / Φ⁻¹(3/4)), as Criterion uses.
pub(super) const MAD_SCALE: f64 = 1.4826;

/// Mean and sample variance (divisor `n - 1`; 0 for one sample). Values
/// that are all equal give that value and exactly 0.
pub(super) fn mean_var(values: &[f64]) -> (f64, f64) {
    let n = values.len();
    if values.iter().all(|&v| v == values[0]) {
        return (values[0], 0.0);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ss: f64 = values.iter().map(|&v| (v - mean) * (v - mean)).sum();
    (mean, ss / (n - 1) as f64)
}

/// The per-iteration statistics that get bootstrap intervals.
pub(super) struct SampleStats {
    mean: f64,
    median: f64,
    std_dev: f64,
    mad: f64,
}

impl SampleStats {
    /// Statistics of sorted, non-empty values, in O(n).
    pub(super) fn of_sorted(sorted: &[f64]) -> SampleStats {
        let n = sorted.len();
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let std_dev = if n < 2 {
            0.0
        } else {
            let ss: f64 = sorted.iter().map(|&v| (v - mean) * (v - mean)).sum();
            (ss / (n - 1) as f64).sqrt()
        };
        let median = median_of_sorted(sorted);
        SampleStats {
            mean,
            median,
            std_dev,
            mad: MAD_SCALE * median_deviation_of_sorted(sorted, median),
        }
    }

    pub(super) fn values(&self) -> [f64; 4] {
        [self.mean, self.median, self.std_dev, self.mad]
    }
}

/// The median of `|v - median|` over sorted values, in O(log n).
pub(super) fn median_deviation_of_sorted(sorted: &[f64], median: f64) -> f64 {
    let n = sorted.len();
    let lo = smallest_deviation(sorted, median, (n - 1) / 2);
    if n % 2 == 1 {
        lo
    } else {
        (lo + smallest_deviation(sorted, median, n / 2)) / 2.0
    }
}

/// The `k`-th smallest (from 0) of `|v - m|` over sorted values. The `k + 1`
/// values closest to `m` form a window of the sorted values; a binary search
/// finds its start (where moving right no longer brings a value closer),
/// and the answer is the farther of its two ends.
pub(super) fn smallest_deviation(sorted: &[f64], m: f64, k: usize) -> f64 {
    let (mut start, mut end) = (0, sorted.len() - 1 - k);
    while start < end {
        let mid = (start + end) / 2;
        if m - sorted[mid] > sorted[mid + k + 1] - m {
            start = mid + 1;
        } else {
            end = mid;
        }
    }
    (m - sorted[start]).max(sorted[start + k] - m)
}

/// Tukey outlier counts of sorted values.
pub(super) fn tukey(sorted: &[f64]) -> Outliers {
    let q1 = quantile_of_sorted(sorted, 0.25);
    let q3 = quantile_of_sorted(sorted, 0.75);
    let iqr = q3 - q1;
    let (low_severe, low_mild) = (q1 - 3.0 * iqr, q1 - 1.5 * iqr);
    let (high_mild, high_severe) = (q3 + 1.5 * iqr, q3 + 3.0 * iqr);
    let mut o = Outliers::default();
    for &v in sorted {
        if v < low_severe {
            o.low_severe += 1;
        } else if v < low_mild {
            o.low_mild += 1;
        } else if v > high_severe {
            o.high_severe += 1;
        } else if v > high_mild {
            o.high_mild += 1;
        }
    }
    o
}

/// Quantile `q` of sorted values: linear interpolation at rank `q (n - 1)`.
pub(super) fn quantile_of_sorted(sorted: &[f64], q: f64) -> f64 {
    let rank = q * (sorted.len() - 1) as f64;
    let k = rank.floor() as usize;
    match sorted.get(k + 1) {
        Some(&next) => interpolate(sorted[k], next, rank - k as f64),
        None => sorted[sorted.len() - 1],
    }
}

/// Like [`quantile_of_sorted`] on unsorted values, which it reorders: two
/// selections instead of a sort.
pub(super) fn quantile_of_unsorted(values: &mut [f64], q: f64) -> f64 {
    let rank = q * (values.len() - 1) as f64;
    let k = rank.floor() as usize;
    let frac = rank - k as f64;
    let (_, &mut at_k, above) = values.select_nth_unstable_by(k, f64::total_cmp);
    match above.iter().copied().min_by(f64::total_cmp) {
        Some(next) if frac > 0.0 => interpolate(at_k, next, frac),
        _ => at_k,
    }
}

/// `a + (b - a) frac` for `a <= b`, exact when `a == b`, and without NaN
/// for infinite bounds.
pub(super) fn interpolate(a: f64, b: f64, frac: f64) -> f64 {
    if a == b || frac == 0.0 {
        a
    } else if a.is_finite() && b.is_finite() {
        (a + (b - a) * frac).min(b)
    } else if frac < 0.5 {
        a
    } else {
        b
    }
}
