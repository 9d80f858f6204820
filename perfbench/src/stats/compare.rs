//! A run compared with a baseline: the relative change of the estimates,
//! its bootstrap interval and Welch's t-test.

use statrs::distribution::ContinuousCDF;

use super::{
    bootstrap_change, check_confidence, check_samples, exact_fit, linear_fit, mean_var,
    per_iteration, student_t, Bootstrap, Interval,
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
    /// Two-sided Welch's t-test on the per-iteration values of the two runs.
    /// When neither run varies: 1.0 if their values are equal, else 0.0.
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
    let relative = relative_change(base_slope, new_slope);
    let ci = relative.map(|r| {
        let degenerate = base_iterations.len() < 3
            || iterations.len() < 3
            || bootstrap.resamples == 0
            || (exact_fit(base_iterations, base_totals) && exact_fit(iterations, totals));
        if degenerate {
            Interval::point(r)
        } else {
            bootstrap_change(base_iterations, base_totals, iterations, totals, bootstrap)
        }
    });
    let p_value = welch_p_value(
        &per_iteration(base_iterations, base_totals),
        &per_iteration(iterations, totals),
    );
    Change {
        relative,
        ci,
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

/// Two-sided Welch's t-test of equal means.
pub(super) fn welch_p_value(a: &[f64], b: &[f64]) -> f64 {
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (ea, eb) = (va / na, vb / nb);
    let se2 = ea + eb;
    if se2 == 0.0 {
        return if ma == mb { 1.0 } else { 0.0 };
    }
    let t = (ma - mb) / se2.sqrt();
    // Welch–Satterthwaite, with the weights scaled to avoid underflow. A run
    // of one sample has no variance, so contributes no term.
    let term = |e: f64, n: f64| {
        if n > 1.0 {
            (e / se2) * (e / se2) / (n - 1.0)
        } else {
            0.0
        }
    };
    let dof = 1.0 / (term(ea, na) + term(eb, nb));
    (2.0 * student_t(dof).sf(t.abs())).clamp(0.0, 1.0)
}
