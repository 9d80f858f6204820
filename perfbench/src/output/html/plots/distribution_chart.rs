//! The distribution chart: the per-iteration values of one or more sets
//! (this run, its baseline, a group's members) on common axes, each a
//! kernel density curve with its samples as ticks below, or a single
//! marked value where they are all equal.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::{drawable, inside, span, tick};
use super::{legend, legend_entry, svg, Chart, DrawResult, PlotError, FONT};
use crate::counter::event::Unit;
use crate::output::format::plural;
use crate::stats::kde::{bandwidth, density};
use crate::store::bench_summary::evenly;

/// One set of per-iteration values in a distribution plot.
pub struct DistributionSet<'a> {
    /// Legend text.
    pub label: &'a str,
    /// The values, one per sample.
    pub values: &'a [f64],
    /// How many samples the values stand for: more than `values` holds
    /// where they are a sample of them (the report's bounded sample of a
    /// run's values).
    pub samples: usize,
    /// Its colour.
    pub color: RGBColor,
}

/// The shape a set of values is drawn as.
enum DrawnAs {
    /// Every value equal: a single marked value.
    Spike(f64),
    /// A kernel density estimate: points of the curve.
    Density(Vec<(f64, f64)>),
}

/// Points of the estimated density per set, evaluated at this many x.
const DENSITY_POINTS: usize = 160;

/// Most values a density curve is estimated from: beyond it, the values at
/// evenly spaced ranks, whose curve is indistinguishable at the plot's size
/// and whose cost stays bounded (a per-iteration run has 500,000).
const DENSITY_SAMPLE: usize = 10_000;

/// The values a density is estimated from: all of them, or where there are
/// more than [`DENSITY_SAMPLE`], that many at evenly spaced ranks.
fn kde_sample(values: &[f64]) -> Vec<f64> {
    if values.len() <= DENSITY_SAMPLE {
        return values.to_vec();
    }
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    evenly(&sorted, DENSITY_SAMPLE)
}

/// The x range a set needs and its bandwidth, the density's range left
/// open until all sets are known; no bandwidth for a set that is one value.
fn shape_of(values: &[f64]) -> (f64, f64, Option<f64>) {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else {
        return (0.0, 0.0, None);
    };
    let h = bandwidth(&sorted);
    if min == max || !(h > 0.0 && h.is_finite()) {
        return (min, max, None);
    }
    let lo = min - 3.0 * h;
    // Counts and times are never negative: no tail below zero.
    let lo = if min >= 0.0 { lo.max(0.0) } else { lo };
    (lo, max + 3.0 * h, Some(h))
}

/// The sets' shapes on a common x range, and the height of the highest
/// density.
struct Layout {
    x: (f64, f64),
    shapes: Vec<DrawnAs>,
    top: f64,
}

/// Lays out the sets of a distribution plot on common axes.
fn layout(sets: &[DistributionSet]) -> Layout {
    let ranges: Vec<(f64, f64, Option<f64>)> = sets.iter().map(|s| shape_of(s.values)).collect();
    let lo = ranges.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
    let hi = ranges.iter().map(|r| r.1).fold(f64::NEG_INFINITY, f64::max);
    // A marked value never sits on the border of the plot.
    let any_spike = ranges.iter().any(|r| r.2.is_none());
    let (x0, x1) = if hi > lo && !any_spike {
        (lo, hi)
    } else {
        span(lo, hi)
    };
    let std::ops::Range { start: x0, end: x1 } = drawable(x0, x1);
    let shapes: Vec<DrawnAs> = sets
        .iter()
        .zip(&ranges)
        .map(|(s, r)| match r.2 {
            Some(h) => DrawnAs::Density(density(&kde_sample(s.values), h, x0, x1, DENSITY_POINTS)),
            None => DrawnAs::Spike(r.0),
        })
        .collect();
    let top = shapes
        .iter()
        .filter_map(|s| match s {
            DrawnAs::Density(points) => points.iter().map(|p| p.1).reduce(f64::max),
            DrawnAs::Spike(_) => None,
        })
        .filter(|d| d.is_finite() && *d > 0.0)
        .reduce(f64::max)
        .unwrap_or(1.0);
    Layout {
        x: (x0, x1),
        shapes,
        top,
    }
}

/// The distribution of per-iteration values of one or more sets on the same
/// axes: a density curve per set, with the samples as ticks below it; a set
/// whose values are all equal is a single marked value. A legend names the
/// sets when there are several.
pub fn distribution(sets: &[DistributionSet], unit: Unit) -> Result<String, PlotError> {
    let Layout { x, shapes, top } = layout(sets);
    let (height, headroom) = distribution_frame(sets.len());
    svg((460, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(24)
            .build_cartesian_2d(x.0..x.1, drawable(0.0, top * headroom))?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(6)
            .x_label_formatter(&|v| tick(*v, unit))
            .y_labels(0)
            .y_label_formatter(&|_| String::new())
            .x_desc("per iteration")
            .y_desc("density")
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 13))
            .draw()?;
        // The legend in the order of the sets.
        for set in sets {
            legend_entry(&mut chart, set.label, set.color)?;
        }
        // The first set (this run) is drawn last, on top.
        for (i, (set, shape)) in sets.iter().zip(&shapes).enumerate().rev() {
            draw_shape(&mut chart, set, shape, i, top, unit)?;
            draw_sample_ticks(&mut chart, set, top)?;
        }
        if sets.len() > 1 {
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    })
}

/// A distribution plot's height in pixels, and the top of its y range over
/// the highest density: room for the values written above the spikes of
/// `sets` sets, each a row higher, and where there are several, a band
/// above them for the legend, so that it hides no spike.
fn distribution_frame(sets: usize) -> (u32, f64) {
    // The data's share of a plot 270 px high, less margins and x labels.
    const DATA_PX: u32 = 214;
    let labels = (1.04 + 0.08 * sets as f64).max(1.2);
    if sets < 2 {
        return (270, labels);
    }
    // The legend's rows of 13 px text, with its padding.
    let legend_px = 14 + 18 * sets as u32;
    let share = f64::from(DATA_PX + legend_px) / f64::from(DATA_PX);
    (270 + legend_px, labels * share)
}

/// A density as a filled curve, or a single value as a marked spike with
/// its value written above; the spike of a later set (`i`) is wider, so
/// that equal values stay visible.
fn draw_shape(
    chart: &mut Chart,
    set: &DistributionSet,
    shape: &DrawnAs,
    i: usize,
    top: f64,
    unit: Unit,
) -> DrawResult {
    let color = set.color;
    let v = match shape {
        DrawnAs::Density(points) => {
            let points: Vec<(f64, f64)> = points.iter().map(|&p| inside(chart, p)).collect();
            chart.draw_series(
                AreaSeries::new(points, 0.0, color.mix(0.2)).border_style(color.stroke_width(2)),
            )?;
            return Ok(());
        }
        DrawnAs::Spike(v) => inside(chart, (*v, 0.0)).0,
    };
    let n = set.samples;
    let text = format!("{} sample{}: {}", n, plural(n), tick(v, unit));
    let label = Text::new(
        text,
        (v, top * (1.02 + 0.08 * i as f64)),
        TextStyle::from((FONT, 12).into_font())
            .color(&color)
            .pos(Pos::new(HPos::Center, VPos::Bottom)),
    );
    chart.draw_series(std::iter::once(label))?;
    let width = 3 + 4 * i as u32;
    chart.draw_series(std::iter::once(Circle::new(
        (v, top),
        width + 1,
        color.filled(),
    )))?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(v, 0.0), (v, top)],
        color.stroke_width(width),
    )))?;
    Ok(())
}

/// The samples of a set as ticks along the x axis, one per pixel column.
fn draw_sample_ticks(chart: &mut Chart, set: &DistributionSet, top: f64) -> DrawResult {
    let mut ticks: Vec<f64> = set
        .values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    ticks
        .iter_mut()
        .for_each(|v| *v = inside(chart, (*v, 0.0)).0);
    ticks.sort_unstable_by(f64::total_cmp);
    ticks.dedup_by_key(|v| chart.backend_coord(&(*v, 0.0)).0);
    let color = set.color;
    chart.draw_series(
        ticks
            .into_iter()
            .map(|v| PathElement::new(vec![(v, 0.0), (v, top * 0.04)], color.stroke_width(1))),
    )?;
    Ok(())
}
