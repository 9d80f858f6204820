//! Point estimates with their confidence intervals.

use super::quantile_of_unsorted;

/// A confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl Interval {
    /// The zero-width interval `[value, value]`.
    pub(super) fn point(value: f64) -> Interval {
        Interval {
            low: value,
            high: value,
        }
    }
}

/// A point estimate with its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The estimate from all samples.
    pub point: f64,
    /// Its confidence interval.
    pub ci: Interval,
}

impl Estimate {
    /// An estimate known exactly: its interval has zero width.
    pub(super) fn exact(value: f64) -> Estimate {
        Estimate {
            point: value,
            ci: Interval::point(value),
        }
    }
}

pub(super) fn interval_around(point: f64, half_width: f64) -> Estimate {
    Estimate {
        point,
        ci: Interval {
            low: point - half_width,
            high: point + half_width,
        },
    }
}

/// The percentile interval `[q(α/2), q(1 - α/2)]` of a bootstrap
/// distribution, which it reorders.
pub(super) fn percentile_interval(dist: &mut [f64], alpha: f64) -> Interval {
    Interval {
        low: quantile_of_unsorted(dist, alpha / 2.0),
        high: quantile_of_unsorted(dist, 1.0 - alpha / 2.0),
    }
}
