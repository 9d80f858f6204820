//! The axes of every chart: ranges made finite, bounded and of non-zero
//! width before plotters sees them (so an exact counter never yields an
//! empty plot, a NaN coordinate or an endless tick search), points held
//! inside them, and tick labels.

use super::Chart;
use crate::counter::event::Unit;
use crate::output::format::format_value;

/// `[lo, hi]` made finite and wide enough to draw: a point gets a margin
/// around it, an interval 5 % on each side.
pub fn span(lo: f64, hi: f64) -> (f64, f64) {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() {
        (lo.min(hi), lo.max(hi))
    } else {
        (0.0, 1.0)
    };
    let width = hi - lo;
    let pad = if width > f64::EPSILON * hi.abs().max(lo.abs()) {
        width * 0.05
    } else if lo != 0.0 {
        lo.abs() * 0.05
    } else {
        1.0
    };
    (lo - pad, hi + pad)
}

/// The largest magnitude an axis reaches: beyond any figure perfbench
/// stores (statistics within ±1e100, values within 10^15), and far from
/// where plotters' arithmetic on a range overflows to an infinite width.
const AXIS_LIMIT: f64 = 1e100;

/// The narrowest an axis is, relative to the magnitude of its ends:
/// plotters looks for tick values by halving steps until enough fit, and
/// on a range narrower than its ends' precision never finds them.
const MIN_RELATIVE_WIDTH: f64 = 1e-9;

/// `lo..hi` as plotters draws it in bounded time: ends finite (NaN as 0)
/// within ±[`AXIS_LIMIT`], and wide enough ([`MIN_RELATIVE_WIDTH`]), so
/// that its tick search ends. What lies outside is drawn at the edge.
pub fn drawable(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let bounded = |v: f64| {
        if v.is_nan() {
            0.0
        } else {
            v.clamp(-AXIS_LIMIT, AXIS_LIMIT)
        }
    };
    let (lo, hi) = (bounded(lo), bounded(hi));
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    let least = (lo.abs().max(hi.abs()) * MIN_RELATIVE_WIDTH).max(1e-300);
    if hi - lo >= least {
        return lo..hi;
    }
    let mid = lo / 2.0 + hi / 2.0;
    mid - least..mid + least
}

/// `p` moved into the chart's ranges, where it is drawn at their edge:
/// plotters' pixel arithmetic overflows on a point far outside them.
pub(super) fn inside(chart: &Chart, (x, y): (f64, f64)) -> (f64, f64) {
    let (xs, ys) = (chart.x_range(), chart.y_range());
    (x.clamp(xs.start, xs.end), y.clamp(ys.start, ys.end))
}

/// A y range from 0 (or below, for negative values) to a little above the
/// largest of `ys`.
pub(super) fn y_range(ys: impl Iterator<Item = f64>) -> (f64, f64) {
    let (y_lo, y_hi) = ys
        .filter(|y| y.is_finite())
        .fold((0.0f64, f64::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
    if y_hi > y_lo {
        (y_lo, y_lo + (y_hi - y_lo) * 1.08)
    } else {
        span(y_lo, y_lo)
    }
}

/// A tick label: the value with its unit, empty if not finite.
pub(super) fn tick(v: f64, unit: Unit) -> String {
    if v.is_finite() {
        format_value(v, unit)
    } else {
        String::new()
    }
}
