//! A run compared with a baseline: the relative change of a statistic, its
//! interval and p-value, all from one t statistic on the rounds of both and
//! the spread of earlier runs.

use super::{check_confidence, t_half_width, t_sf, BetweenRuns, Interval, RoundEstimates};

/// A change between a baseline and a new run of one metric.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    /// `(new - base) / base` of the estimates; `None` when the baseline's is
    /// 0 and the new one is not, 0.0 when both are 0.
    pub relative: Option<f64>,
    /// `new - base` of the estimates, in the metric's unit per iteration.
    pub difference: f64,
    /// Interval of the relative change: Welch's interval of the difference
    /// `new - base` (each run's variance from its rounds and, once each,
    /// the run-to-run variance earlier runs show; Student's t at the
    /// Welch–Satterthwaite degrees of freedom) over the baseline.
    /// Zero-width when every round of both runs agrees (exact counts);
    /// `None` where `relative` is.
    pub ci: Option<Interval>,
    /// Two-sided p-value of the same t statistic, so that `p < 1 -
    /// confidence` exactly when the interval excludes 0. From 0 to a
    /// count, the t-test of the difference. When neither run varies: 1.0 if
    /// their estimates are equal, else 0.0.
    pub p_value: f64,
    /// The runs whose spread the interval takes in ([`BetweenRuns::runs`]):
    /// 1 where the rounds alone decide.
    pub runs: usize,
}

impl Change {
    /// Whether the change is known without error: every round of both runs
    /// (and every earlier run) gave the same statistic, as an exact count
    /// does.
    pub fn is_exact(&self) -> bool {
        match self.ci {
            Some(ci) => ci.low == ci.high,
            None => self.p_value == 0.0,
        }
    }
}

/// Compares a baseline with a new run of the same statistic, at
/// `confidence` (0.95 for a 95 % interval). `runs` is the run-to-run
/// variance learned from earlier runs ([`between_runs`](super::between_runs)), which each of
/// the two runs carries: what a machine that changes speed for seconds or
/// minutes at a time adds, and no single run sees.
///
/// A side with fewer than two rounds has no variance to contribute: it is
/// taken as exact. Callers judge such comparisons unfair instead.
///
/// ```
/// use perfbench::stats::{between_runs, compare, BetweenRuns, RoundEstimates};
///
/// let base = RoundEstimates { point: 100.0, rounds: vec![98.0, 100.0, 102.0] };
/// let new = RoundEstimates { point: 130.0, rounds: vec![127.0, 130.0, 133.0] };
/// let c = compare(&base, &new, BetweenRuns::NONE, 0.95);
/// assert_eq!(c.relative, Some(0.3));
/// assert!(c.ci.unwrap().low > 0.0 && c.p_value < 0.05);
/// // Earlier runs of the baseline from 70 to 130: a change of 30 % is
/// // within what runs of the same code differ by.
/// let runs = between_runs(&base, &[70.0, 130.0, 85.0, 115.0]);
/// let c = compare(&base, &new, runs, 0.95);
/// assert!(c.ci.unwrap().low < 0.0 && c.p_value > 0.05);
/// assert_eq!(c.runs, 5);
/// ```
pub fn compare(
    base: &RoundEstimates,
    new: &RoundEstimates,
    runs: BetweenRuns,
    confidence: f64,
) -> Change {
    check_confidence(confidence);
    let (b, n) = (base.point, new.point);
    let (vb, vn) = (
        base.variance().unwrap_or(0.0),
        new.variance().unwrap_or(0.0),
    );
    // Each run carries the run-to-run variance once.
    let parts = |scale: f64| {
        let s2 = scale * scale;
        [
            (vn / s2, new.rounds.len()),
            (vb / s2, base.rounds.len()),
            (2.0 * runs.variance / s2, runs.runs),
        ]
    };
    let Some(relative) = relative_change(b, n) else {
        // From zero: no ratio; the difference tells whether it moved.
        let t = TwoSided::of(n - b, &parts(1.0));
        return Change {
            relative: None,
            difference: n - b,
            ci: None,
            p_value: t.p_value(),
            runs: runs.runs,
        };
    };
    if b == 0.0 {
        return Change {
            relative: Some(0.0),
            difference: 0.0,
            ci: Some(Interval::point(0.0)),
            p_value: 1.0,
            runs: runs.runs,
        };
    }
    // Welch's test of the difference, in units of the baseline: the
    // interval is the difference's over `|b|`, so it excludes 0 exactly
    // when the test rejects no change.
    let t = TwoSided::of(relative, &parts(b.abs()));
    let half = t.half_width(confidence);
    Change {
        relative: Some(relative),
        difference: n - b,
        ci: Some(Interval {
            low: relative - half,
            high: relative + half,
        }),
        p_value: t.p_value(),
        runs: runs.runs,
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

/// A difference `value` over its standard error, with Welch–Satterthwaite
/// degrees of freedom from its variance `parts`, each with the number of
/// rounds (or runs) it was estimated from.
pub(super) struct TwoSided {
    value: f64,
    variance: f64,
    dof: f64,
}

impl TwoSided {
    /// `value` over the standard error of its variance `parts`, each
    /// `(variance, rounds it was estimated from)`.
    pub(super) fn of(value: f64, parts: &[(f64, usize)]) -> TwoSided {
        let variance: f64 = parts.iter().map(|(v, _)| v).sum();
        // Weights scaled by the total to avoid underflow; a part without
        // variance contributes no term.
        let term = |&(v, rounds): &(f64, usize)| {
            if v > 0.0 && rounds > 1 {
                (v / variance) * (v / variance) / (rounds - 1) as f64
            } else {
                0.0
            }
        };
        let dof = 1.0 / parts.iter().map(term).sum::<f64>();
        TwoSided {
            value,
            variance,
            dof,
        }
    }

    /// Half the width of the interval around `value` at `confidence`.
    pub(super) fn half_width(&self, confidence: f64) -> f64 {
        if self.variance == 0.0 {
            return 0.0;
        }
        t_half_width(self.dof, confidence, self.variance.sqrt())
    }

    /// The two-sided p-value of `value` being 0.
    pub(super) fn p_value(&self) -> f64 {
        if self.variance == 0.0 {
            return if self.value == 0.0 { 1.0 } else { 0.0 };
        }
        let t = self.value.abs() / self.variance.sqrt();
        (2.0 * t_sf(self.dof, t)).clamp(0.0, 1.0)
    }
}
