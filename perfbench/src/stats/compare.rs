//! A run compared with a baseline: the relative change of the estimates,
//! with its interval and p-value from one bootstrap.

use super::{
    bootstrap_change, check_confidence, check_samples, exact_fit, linear_fit, Bootstrap, Interval,
};

/// A change between a baseline and a new run of one metric.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    /// `(new - base) / base` of the per-iteration estimates (the slopes);
    /// `None` when the baseline's is 0 and the new one is not, 0.0 when both
    /// are 0.
    pub relative: Option<f64>,
    /// Percentile-bootstrap interval of the relative change: each run's
    /// samples (pairs of iterations and total) are resampled independently
    /// and both slopes refitted. Zero-width when both runs fit their lines
    /// exactly or either has fewer than three samples; `None` where
    /// `relative` is. A resample whose baseline slope is 0 counts as an
    /// infinite change, so a bound may be infinite (never NaN).
    pub ci: Option<Interval>,
    /// Two-sided p-value of no change, from the same resamples as `ci`
    /// (twice the share of resampled changes on the far side of zero), so
    /// that `ci` excludes zero exactly when `p_value` is below
    /// `1 - confidence`. When neither run varies: 1.0 for no change, else
    /// 0.0.
    pub p_value: f64,
}

/// Compares a baseline (`base_iterations`, `base_totals`) with a new run
/// (`iterations`, `totals`) of the same metric.
///
/// # Panics
///
/// Under the same conditions as [`analyze_metric`](super::analyze_metric), for either run.
pub fn compare(
    base_iterations: &[u64],
    base_totals: &[u64],
    iterations: &[u64],
    totals: &[u64],
    bootstrap: &Bootstrap,
) -> Change {
    check_samples(base_iterations, base_totals);
    check_samples(iterations, totals);
    check_confidence(bootstrap.confidence);
    let base_slope = linear_fit(base_iterations, base_totals).0;
    let new_slope = linear_fit(iterations, totals).0;
    let Some(relative) = relative_change(base_slope, new_slope) else {
        return Change {
            relative: None,
            ci: None,
            p_value: 0.0,
        };
    };
    let degenerate = base_iterations.len() < 3
        || iterations.len() < 3
        || bootstrap.resamples == 0
        || (exact_fit(base_iterations, base_totals) && exact_fit(iterations, totals));
    let (ci, p_value) = if degenerate {
        // Nothing varies (or too little to resample): the change is what
        // it is, and it is a change unless it is zero.
        let p = if relative == 0.0 { 1.0 } else { 0.0 };
        (Interval::point(relative), p)
    } else {
        bootstrap_change(base_iterations, base_totals, iterations, totals, bootstrap)
    };
    Change {
        relative: Some(relative),
        ci: Some(ci),
        p_value,
    }
}

/// `(new - base) / base`, with 0 / 0 = 0 and `None` for a change from 0.
pub(super) fn relative_change(base: f64, new: f64) -> Option<f64> {
    if base == 0.0 {
        (new == 0.0).then_some(0.0)
    } else {
        Some((new - base) / base)
    }
}
