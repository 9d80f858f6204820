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

    /// The smallest interval holding both `self` and `other`: it covers
    /// whatever either covers.
    pub fn hull(self, other: Interval) -> Interval {
        Interval {
            low: self.low.min(other.low),
            high: self.high.max(other.high),
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
    pub fn exact(value: f64) -> Estimate {
        Estimate {
            point: value,
            ci: Interval::point(value),
        }
    }

    /// The estimate of a quantity known to be `floor` or above: the point
    /// and both bounds raised to `floor` where below it. The point is then
    /// nearer the truth, and an interval that held the truth still does.
    ///
    /// ```
    /// use perfbench::stats::{Estimate, Interval};
    ///
    /// let e = Estimate { point: -0.5, ci: Interval { low: -2.0, high: 1.0 } };
    /// let cut = e.at_least(0.0);
    /// assert_eq!((cut.point, cut.ci.low, cut.ci.high), (0.0, 0.0, 1.0));
    /// ```
    pub fn at_least(self, floor: f64) -> Estimate {
        Estimate {
            point: self.point.max(floor),
            ci: Interval {
                low: self.ci.low.max(floor),
                high: self.ci.high.max(floor),
            },
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
