//! Statistics over the samples of one metric.
//!
//! Sums are taken in exact integer arithmetic, so an exactly linear series
//! (a counter that counts the same per iteration) gives an exact slope: 16
//! page faults per iteration come out as `16.0`, not `15.999999999999998`.
//!
//! [`analyze_metric`] adds confidence intervals, dispersion and Tukey outlier
//! counts, [`compare`](fn@compare) a baseline with a new run, and
//! [`compare_paired`] two builds measured in alternating rounds. Intervals of the
//! per-iteration statistics come from a percentile bootstrap with a seeded,
//! hand-written generator (SplitMix64), so the same data and seed give
//! bit-identical results. Zero-variance data (an exact counter) skips the
//! resampling and gives exact figures with zero-width intervals.

mod bootstrap;
mod change_points;
mod descriptive;
mod estimate;
pub mod kde;
mod paired;
mod rate;
mod regression;
mod robust;
mod rounds;
mod signed_rank;
mod welch;

pub use bootstrap::*;
pub use change_points::*;
pub use descriptive::*;
pub use estimate::*;
pub use paired::*;
pub use rate::*;
pub use regression::*;
pub use robust::*;
pub use rounds::*;
pub use signed_rank::*;
pub use welch::*;

/// Full statistics of one metric in batch mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Statistics {
    /// Per-iteration cost: the least-squares slope of total against
    /// iterations ([`linear_fit`]), its interval from Student's t with
    /// `n - 2` degrees of freedom on the slope's standard error. When every
    /// sample ran the same number of iterations the slope is the ratio of the
    /// sums and its interval is Student's t on the mean per-iteration value
    /// (`n - 1` degrees of freedom).
    pub slope: Estimate,
    /// Fixed cost per sample: the intercept of the same line.
    pub intercept: f64,
    /// Coefficient of determination of the line: 1.0 for a perfect fit,
    /// including totals that do not vary; 0.0 when all samples ran the same
    /// number of iterations but their totals differ.
    pub r_squared: f64,
    /// Mean of the per-iteration values (total / iterations), with a
    /// percentile-bootstrap interval.
    pub mean: Estimate,
    /// Median of the per-iteration values, with a bootstrap interval.
    pub median: Estimate,
    /// Sample standard deviation (divisor `n - 1`; 0 for one sample) of the
    /// per-iteration values, with a bootstrap interval.
    pub std_dev: Estimate,
    /// Median absolute deviation of the per-iteration values from their
    /// median, scaled by 1.4826 (like Criterion) to estimate the standard
    /// deviation of normal data, with a bootstrap interval.
    pub mad: Estimate,
    /// Smallest per-iteration value.
    pub min: f64,
    /// Largest per-iteration value.
    pub max: f64,
    /// First and third quartiles (p25, p75) of the per-iteration values.
    pub quartiles: (f64, f64),
    /// Tukey outlier counts of the per-iteration values.
    pub outliers: Outliers,
}

/// Statistics of samples that ran `iterations[i]` iterations for a total of
/// `totals[i]`.
///
/// With fewer than three samples, or `resamples == 0`, every interval is
/// the point itself. Zero-variance data (all per-iteration values equal)
/// gives exact figures and zero-width intervals without resampling.
///
/// # Panics
///
/// If the slices differ in length or are empty, an iteration count is 0, or
/// the confidence is not strictly between 0 and 1.
pub fn analyze_metric(iterations: &[u64], totals: &[u64], bootstrap: &Bootstrap) -> Statistics {
    check_samples(iterations, totals);
    check_confidence(bootstrap.confidence);
    let n = iterations.len();
    let (slope, intercept) = linear_fit(iterations, totals);
    let (slope, r_squared) = regression(iterations, totals, slope, bootstrap.confidence);
    let mut sorted = per_iteration(iterations, totals);
    sorted.sort_unstable_by(f64::total_cmp);
    let (min, max) = (sorted[0], sorted[n - 1]);
    if min == max {
        // Zero variance: every statistic is exact, and so is every resample.
        return Statistics {
            slope,
            intercept,
            r_squared,
            mean: Estimate::exact(min),
            median: Estimate::exact(min),
            std_dev: Estimate::exact(0.0),
            mad: Estimate::exact(0.0),
            min,
            max,
            quartiles: (min, max),
            outliers: Outliers::default(),
        };
    }
    let point = SampleStats::of_sorted(&sorted);
    let [mean, median, std_dev, mad] = if n < 3 || bootstrap.resamples == 0 {
        point.values().map(Estimate::exact)
    } else {
        bootstrap_sample_stats(&sorted, &point, bootstrap)
    };
    Statistics {
        slope,
        intercept,
        r_squared,
        mean,
        median,
        std_dev,
        mad,
        min,
        max,
        quartiles: (
            quantile_of_sorted(&sorted, 0.25),
            quantile_of_sorted(&sorted, 0.75),
        ),
        outliers: tukey(&sorted),
    }
}

/// Panics unless there is a sample, each ran iterations, and each has its
/// total: a caller's mistake, which no figure should hide.
pub(super) fn check_samples(iterations: &[u64], totals: &[u64]) {
    assert_eq!(
        iterations.len(),
        totals.len(),
        "iterations and totals differ in length"
    );
    assert!(!iterations.is_empty(), "no samples");
    assert!(
        iterations.iter().all(|&i| i > 0),
        "a sample ran no iterations"
    );
}

/// Panics unless `confidence` is a level an interval can have, strictly
/// between 0 and 1.
pub(super) fn check_confidence(confidence: f64) {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence} is not strictly between 0 and 1"
    );
}

/// The per-iteration values `totals[i] / iterations[i]`, in sample order;
/// a sample of no iterations (a stored file may hold one) counts as one.
pub fn per_iteration(iterations: &[u64], totals: &[u64]) -> Vec<f64> {
    iterations
        .iter()
        .zip(totals)
        .map(|(&x, &y)| y as f64 / x.max(1) as f64)
        .collect()
}

#[cfg(test)]
mod tests;
