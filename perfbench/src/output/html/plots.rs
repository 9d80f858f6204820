//! The report's plots, drawn with plotters into SVG strings.
//!
//! Text (captions, tick labels, legends) is plotters' own: without its `ttf`
//! feature it lays text out with a fixed-width estimate and writes SVG
//! `<text>` elements in the generic `sans-serif` family, escaped, for the
//! browser to render with whatever font it has. No font is embedded or
//! fetched.
//!
//! Every range is made finite and of non-zero width before plotters sees it,
//! so zero-variance data (an exact counter) never yields an empty plot or a
//! NaN coordinate.

use std::error::Error;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::counter::event::Unit;
use crate::measure::Throughput;
use crate::output::format::{format_rate, format_value, plural};
use crate::stats::kde::{bandwidth, density};
use crate::stats::Estimate;
use crate::store::bench_summary::evenly;

/// The colour of this run.
pub const NEW: RGBColor = RGBColor(31, 100, 180);
/// The colour of the baseline.
pub const BASE: RGBColor = RGBColor(220, 110, 20);
/// The colour of fitted lines.
const FIT: RGBColor = RGBColor(200, 30, 40);

/// The colours of a group's members, this run's and the baseline's first.
const MEMBERS: [RGBColor; 8] = [
    NEW,
    BASE,
    RGBColor(40, 150, 60),
    RGBColor(140, 80, 190),
    RGBColor(140, 90, 60),
    RGBColor(220, 90, 170),
    RGBColor(110, 110, 110),
    RGBColor(20, 170, 190),
];

/// The colour of a group's `i`th member; after eight, they repeat.
pub fn member_color(i: usize) -> RGBColor {
    MEMBERS[i % MEMBERS.len()]
}

const FONT: &str = "sans-serif";

type Plot<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult = Result<(), Box<dyn Error>>;
/// Tick labels of an axis.
type Labels<'a> = dyn Fn(&f64) -> String + 'a;
/// A chart with two linear axes, as every plot here has.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// An SVG of `size` drawn by `draw`; the error as text if plotters fails.
fn svg(size: (u32, u32), draw: impl FnOnce(&Plot) -> DrawResult) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        draw(&root).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

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
fn inside(chart: &Chart, (x, y): (f64, f64)) -> (f64, f64) {
    let (xs, ys) = (chart.x_range(), chart.y_range());
    (x.clamp(xs.start, xs.end), y.clamp(ys.start, ys.end))
}

/// A y range from 0 (or below, for negative values) to a little above the
/// largest of `ys`.
fn y_range(ys: impl Iterator<Item = f64>) -> (f64, f64) {
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
fn tick(v: f64, unit: Unit) -> String {
    if v.is_finite() {
        format_value(v, unit)
    } else {
        String::new()
    }
}

/// The legend box of a chart, where its series are labelled.
fn legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, at: SeriesLabelPosition) -> DrawResult {
    chart
        .configure_series_labels()
        .position(at)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    Ok(())
}

/// Names `label` in the legend with a swatch of `color`.
fn legend_entry(chart: &mut Chart, label: &str, color: RGBColor) -> DrawResult {
    chart
        .draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())?
        .label(label)
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled()));
    Ok(())
}

/// One set of per-iteration values in a distribution plot.
pub struct Values<'a> {
    /// Legend text.
    pub label: &'a str,
    /// The values, one per sample.
    pub values: &'a [f64],
    /// How many samples the values stand for: more than `values` holds
    /// where they are a sample of them ([`crate::store::bench_summary::SampledValues`]).
    pub samples: usize,
    /// Its colour.
    pub color: RGBColor,
}

/// The shape a set of values is drawn as.
enum Shape {
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
    shapes: Vec<Shape>,
    top: f64,
}

/// Lays out the sets of a distribution plot on common axes.
fn layout(sets: &[Values]) -> Layout {
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
    let shapes: Vec<Shape> = sets
        .iter()
        .zip(&ranges)
        .map(|(s, r)| match r.2 {
            Some(h) => Shape::Density(density(&kde_sample(s.values), h, x0, x1, DENSITY_POINTS)),
            None => Shape::Spike(r.0),
        })
        .collect();
    let top = shapes
        .iter()
        .filter_map(|s| match s {
            Shape::Density(points) => points.iter().map(|p| p.1).reduce(f64::max),
            Shape::Spike(_) => None,
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
pub fn distribution(sets: &[Values], unit: Unit) -> Result<String, String> {
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
    set: &Values,
    shape: &Shape,
    i: usize,
    top: f64,
    unit: Unit,
) -> DrawResult {
    let color = set.color;
    let v = match shape {
        Shape::Density(points) => {
            let points: Vec<(f64, f64)> = points.iter().map(|&p| inside(chart, p)).collect();
            chart.draw_series(
                AreaSeries::new(points, 0.0, color.mix(0.2)).border_style(color.stroke_width(2)),
            )?;
            return Ok(());
        }
        Shape::Spike(v) => inside(chart, (*v, 0.0)).0,
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
fn draw_sample_ticks(chart: &mut Chart, set: &Values, top: f64) -> DrawResult {
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

/// The colour of a fitted line's confidence band.
const BAND: RGBColor = RGBColor(240, 150, 150);

/// The batch regression: each sample's iterations against its total, the
/// fitted line `intercept + slope · iterations`, and the band between the
/// lines of the slope interval's two ends.
pub fn regression(
    iterations: &[u64],
    totals: &[u64],
    slope: &Estimate,
    intercept: f64,
    unit: Unit,
) -> Result<String, String> {
    let max_x = iterations.iter().copied().max().unwrap_or(1) as f64;
    let line = |slope: f64, x: f64| intercept + slope * x;
    let ends = [slope.point, slope.ci.low, slope.ci.high].map(|s| line(s, max_x));
    let ys = totals
        .iter()
        .map(|&t| t as f64)
        .chain([intercept])
        .chain(ends);
    let (y0, y1) = y_range(ys);
    svg((460, 270), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(72)
            .build_cartesian_2d(drawable(0.0, max_x * 1.05), drawable(y0, y1))?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|v| tick(*v, Unit::Count))
            .y_label_formatter(&|v| tick(*v, unit))
            .x_desc("iterations")
            .y_desc("sample total")
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 13))
            .draw()?;
        if ends.iter().all(|y| y.is_finite()) && intercept.is_finite() {
            draw_band(&mut chart, slope, intercept, max_x)?;
        }
        let points = one_per_pixel(&chart, iterations, totals);
        chart
            .draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 3, NEW.mix(0.7).filled())),
            )?
            .label("samples")
            .legend(|(x, y)| Circle::new((x + 8, y), 3, NEW.filled()));
        if ends[0].is_finite() && intercept.is_finite() {
            let line = vec![
                inside(&chart, (0.0, intercept)),
                inside(&chart, (max_x, ends[0])),
            ];
            chart
                .draw_series(std::iter::once(PathElement::new(line, FIT.stroke_width(2))))?
                .label(format!("fit: {} per iteration", tick(slope.point, unit)))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], FIT.stroke_width(2)));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })
}

/// Most points a scatter plot draws: a few thousand keep a page small
/// however many samples a run took.
pub const MAX_POINTS: usize = 2000;

/// The samples `(iterations, total)` as points, one per pixel they fall
/// on (a circle drawn twice on one pixel shows nothing more), and where
/// more than [`MAX_POINTS`] pixels remain, an evenly spaced choice of them.
fn one_per_pixel(chart: &Chart, iterations: &[u64], totals: &[u64]) -> Vec<(f64, f64)> {
    let mut seen = std::collections::HashSet::new();
    let points: Vec<(f64, f64)> = iterations
        .iter()
        .zip(totals)
        .map(|(&x, &y)| inside(chart, (x as f64, y as f64)))
        .filter(|p| seen.insert(chart.backend_coord(p)))
        .collect();
    evenly(&points, MAX_POINTS)
}

/// The wedge between the lines of the slope interval's ends, which meet at
/// the intercept.
fn draw_band(chart: &mut Chart, slope: &Estimate, intercept: f64, max_x: f64) -> DrawResult {
    let at = |s: f64| (max_x, intercept + s * max_x);
    let wedge = [(0.0, intercept), at(slope.ci.high), at(slope.ci.low)];
    let wedge: Vec<(f64, f64)> = wedge.into_iter().map(|p| inside(chart, p)).collect();
    chart
        .draw_series(std::iter::once(Polygon::new(
            wedge,
            BAND.mix(0.45).filled(),
        )))?
        .label("95 % interval of the slope")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], BAND.filled()));
    Ok(())
}

/// How the arguments of a group lie on the x axis.
pub enum ArgAxis<'a> {
    /// Numbers, on a logarithmic axis when `log`.
    Numeric {
        /// Whether the axis is logarithmic.
        log: bool,
    },
    /// Categories, in this order; points carry their index.
    Categorical(&'a [String]),
}

/// One benchmark of a group: the argument's x and the metric's estimate.
#[derive(Clone, Copy)]
pub struct ArgPoint {
    /// The argument as a number, or the index of its category.
    pub x: f64,
    /// The estimate with its interval.
    pub estimate: Estimate,
}

/// The x axis of an argument chart: its range, how many labels, and how
/// a label is written.
struct XAxis<'a> {
    range: std::ops::Range<f64>,
    labels: usize,
    format: Box<Labels<'a>>,
}

/// What the values of an argument chart are, for its tick labels.
#[derive(Clone, Copy)]
pub enum Measure {
    /// A metric's per-iteration values, in its unit.
    Metric(Unit),
    /// A declared throughput per second, of bytes or elements.
    Rate(Throughput),
}

impl Measure {
    /// A tick label for `v`, empty if it is not finite.
    fn label(self, v: f64) -> String {
        match self {
            Measure::Metric(unit) => tick(v, unit),
            Measure::Rate(_) if !v.is_finite() => String::new(),
            Measure::Rate(work) => format_rate(v, work),
        }
    }
}

/// One line of an argument chart: the estimates of one function's
/// benchmarks against their arguments.
pub struct ArgSeries<'a> {
    /// Legend text, shown where the chart has more than one line.
    pub label: &'a str,
    /// Its colour.
    pub color: RGBColor,
    /// Its estimates.
    pub points: Vec<ArgPoint>,
}

/// Estimates against the argument, a line per series (with a legend where
/// there are several), the confidence intervals as bars; numbers joined
/// from left to right, categories standing apart.
pub fn by_argument(
    title: &str,
    series: &[ArgSeries],
    axis: &ArgAxis,
    measure: Measure,
) -> Result<String, String> {
    let all = || series.iter().flat_map(|s| &s.points);
    let y = y_range(all().flat_map(|p| [p.estimate.point, p.estimate.ci.low, p.estimate.ci.high]));
    let std::ops::Range { start: y0, end: y1 } = drawable(y.0, y.1);
    let y = (y0, y1);
    let log = matches!(axis, ArgAxis::Numeric { log: true })
        && all().all(|p| p.x > 0.0 && p.x.is_finite());
    // A logarithmic axis is a linear one over log10 of the arguments, with
    // labels at the powers of ten.
    let on_axis = |points: &[ArgPoint]| -> Vec<ArgPoint> {
        points
            .iter()
            .map(|p| ArgPoint {
                x: if log { p.x.log10() } else { p.x },
                estimate: p.estimate,
            })
            .collect()
    };
    let lines: Vec<Vec<ArgPoint>> = series.iter().map(|s| on_axis(&s.points)).collect();
    let x = x_axis(axis, &lines.concat(), log);
    let joined = matches!(axis, ArgAxis::Numeric { .. });
    let size = if series.len() > 1 {
        (460, 290)
    } else {
        (380, 250)
    };
    svg(size, |root| {
        let mut chart = args_chart(root, title, x, y, measure)?;
        for (s, points) in series.iter().zip(&lines) {
            draw_arg_points(&mut chart, points, joined, y, s.color)?;
        }
        if series.len() > 1 {
            for s in series {
                legend_entry(&mut chart, s.label, s.color)?;
            }
            legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        }
        Ok(())
    })
}

/// The x axis for `points` (already on log10 where `log`).
fn x_axis<'a>(axis: &ArgAxis<'a>, points: &[ArgPoint], log: bool) -> XAxis<'a> {
    let xs = points.iter().map(|p| p.x).filter(|x| x.is_finite());
    let x_lo = xs.clone().fold(f64::INFINITY, f64::min);
    let x_hi = xs.fold(f64::NEG_INFINITY, f64::max);
    match axis {
        ArgAxis::Categorical(names) => XAxis {
            range: -0.5..(names.len() as f64 - 0.5),
            labels: names.len(),
            format: Box::new(|v: &f64| {
                let i = v.round();
                if (v - i).abs() > 1e-6 || i < 0.0 {
                    return String::new();
                }
                names.get(i as usize).map_or(String::new(), |s| shorten(s))
            }),
        },
        ArgAxis::Numeric { .. } if log => XAxis {
            range: x_lo - 0.2..x_hi + 0.2,
            // About one tick per power of ten.
            labels: (x_hi - x_lo + 1.4) as usize,
            format: Box::new(|v: &f64| {
                let power = v.round();
                if (v - power).abs() > 1e-6 {
                    return String::new();
                }
                plain(10f64.powf(power))
            }),
        },
        ArgAxis::Numeric { .. } => {
            let (x0, x1) = span(x_lo, x_hi);
            XAxis {
                range: x0..x1,
                labels: 6,
                format: Box::new(|v: &f64| plain(*v)),
            }
        }
    }
}

/// A category label of at most 14 characters.
fn shorten(s: &str) -> String {
    if s.chars().count() <= 14 {
        s.to_string()
    } else {
        let head: String = s.chars().take(13).collect();
        format!("{head}…")
    }
}

/// A number as an axis shows an argument: whole numbers whole.
fn plain(v: f64) -> String {
    if !v.is_finite() {
        String::new()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// An argument chart's axes.
fn args_chart<'a, 'b>(
    root: &'a Plot<'b>,
    title: &str,
    x: XAxis,
    (y0, y1): (f64, f64),
    measure: Measure,
) -> Result<Chart<'a, 'b>, Box<dyn Error>> {
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 14))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(84)
        .build_cartesian_2d(drawable(x.range.start, x.range.end), y0..y1)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_labels(x.labels)
        .y_labels(5)
        .x_label_formatter(&*x.format)
        // A tick meant for zero can come out a rounding error off it.
        .y_label_formatter(&|v| {
            let v = if v.abs() < (y1 - y0) * 1e-9 { 0.0 } else { *v };
            measure.label(v)
        })
        .label_style((FONT, 12))
        .draw()?;
    Ok(chart)
}

/// The estimates from left to right in `color`, joined by a line where
/// `joined`, with their intervals as bars; an open end of an interval reaches the edge of
/// the y range `(y0, y1)`.
fn draw_arg_points(
    chart: &mut Chart,
    points: &[ArgPoint],
    joined: bool,
    (y0, y1): (f64, f64),
    color: RGBColor,
) -> DrawResult {
    let moved: Vec<ArgPoint> = points
        .iter()
        .filter(|p| p.x.is_finite())
        .map(|p| {
            let (x, point) = inside(chart, (p.x, p.estimate.point));
            let estimate = Estimate {
                point,
                ..p.estimate
            };
            ArgPoint { x, estimate }
        })
        .collect();
    let mut sorted: Vec<&ArgPoint> = moved.iter().collect();
    sorted.sort_by(|a, b| a.x.total_cmp(&b.x));
    if joined {
        chart.draw_series(LineSeries::new(
            sorted
                .iter()
                .filter(|p| p.estimate.point.is_finite())
                .map(|p| (p.x, p.estimate.point)),
            color.mix(0.6).stroke_width(1),
        ))?;
    }
    chart.draw_series(
        sorted
            .iter()
            .filter(|p| !p.estimate.ci.low.is_nan() && !p.estimate.ci.high.is_nan())
            .map(|p| {
                let clip = |v: f64| v.clamp(y0, y1);
                PathElement::new(
                    vec![
                        (p.x, clip(p.estimate.ci.low)),
                        (p.x, clip(p.estimate.ci.high)),
                    ],
                    color.stroke_width(2),
                )
            }),
    )?;
    chart.draw_series(
        sorted
            .iter()
            .filter(|p| p.estimate.point.is_finite())
            .map(|p| Circle::new((p.x, p.estimate.point), 3, color.filled())),
    )?;
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::stats::Interval;

    fn exact(v: f64) -> Estimate {
        Estimate {
            point: v,
            ci: Interval { low: v, high: v },
        }
    }

    fn around(point: f64, low: f64, high: f64) -> Estimate {
        Estimate {
            point,
            ci: Interval { low, high },
        }
    }

    /// The vertices of every `<tag points="…">` element of `svg`.
    pub(in crate::output::html) fn shapes(svg: &str, tag: &str) -> Vec<Vec<(i32, i32)>> {
        svg.split(&format!("<{tag} "))
            .skip(1)
            .map(|element| {
                let points = element.split("points=\"").nth(1).unwrap();
                points[..points.find('"').unwrap()]
                    .split_whitespace()
                    .map(|xy| {
                        let (x, y) = xy.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }

    /// The centres of the circles of `svg`.
    pub(in crate::output::html) fn circles(svg: &str) -> Vec<(i32, i32)> {
        let attr = |element: &str, name: &str| -> i32 {
            let v = element.split(&format!(" {name}=\"")).nth(1).unwrap();
            v[..v.find('"').unwrap()].parse().unwrap()
        };
        svg.split("<circle")
            .skip(1)
            .map(|c| (attr(c, "cx"), attr(c, "cy")))
            .collect()
    }

    /// The vertical bars of `lines` through `c`.
    fn bar_through(lines: &[Vec<(i32, i32)>], c: (i32, i32)) -> Vec<&Vec<(i32, i32)>> {
        lines
            .iter()
            .filter(|l| {
                l.len() == 2
                    && l[0].0 == c.0
                    && l[1].0 == c.0
                    && l[0].1.min(l[1].1) <= c.1
                    && c.1 <= l[0].1.max(l[1].1)
            })
            .collect()
    }

    /// The polylines through two or more of `points`.
    pub(in crate::output::html) fn joining(svg: &str, points: &[(i32, i32)]) -> usize {
        shapes(svg, "polyline")
            .iter()
            .filter(|line| points.iter().filter(|p| line.contains(p)).count() >= 2)
            .count()
    }

    /// `points` as the one line of a chart.
    fn alone(points: Vec<ArgPoint>) -> Vec<ArgSeries<'static>> {
        vec![ArgSeries {
            label: "",
            color: NEW,
            points,
        }]
    }

    fn numbers_are_finite(svg: &str) {
        for bad in ["NaN", "inf"] {
            assert!(!svg.contains(bad), "{bad} in {svg}");
        }
    }

    /// What `draw` returns, failing where it is still drawing after 10 s
    /// (plotters looped forever on an infinite range).
    fn within_10_s<T: Send + 'static>(draw: impl FnOnce() -> T + Send + 'static) -> T {
        let (done, result) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(draw()));
        let ten = std::time::Duration::from_secs(10);
        result.recv_timeout(ten).expect("drawn within 10 s")
    }

    #[test]
    fn absurd_values_draw_quickly_and_finitely() {
        let huge = [-1e308, f64::NAN, 1e308, 0.0, f64::INFINITY];
        for values in [vec![-1e308, 1e308], vec![0.0, 1e308], huge.to_vec()] {
            let svg = within_10_s(move || {
                let set = |values| Values {
                    label: "this run",
                    values,
                    samples: 3,
                    color: NEW,
                };
                distribution(&[set(&values), set(&[1.0, 2.0])], Unit::Count).unwrap()
            });
            assert!(svg.starts_with("<svg"), "{svg}");
            numbers_are_finite(&svg);
        }
        let svg = within_10_s(|| {
            let slope = around(f64::NAN, -1e308, 1e308);
            regression(&[1, u64::MAX], &[u64::MAX, 0], &slope, 1e308, Unit::Count).unwrap()
        });
        assert!(svg.starts_with("<svg"), "{svg}");
        numbers_are_finite(&svg);
        let svg = within_10_s(|| {
            let points = [
                (1e308, around(1.0, -1e308, 1e308)),
                (f64::NAN, exact(1e308)),
            ]
            .map(|(x, estimate)| ArgPoint { x, estimate });
            let series = [ArgSeries {
                label: "f",
                color: NEW,
                points: points.to_vec(),
            }];
            let metric = Measure::Metric(Unit::Nanoseconds);
            by_argument("f", &series, &ArgAxis::Numeric { log: false }, metric).unwrap()
        });
        assert!(svg.starts_with("<svg"), "{svg}");
        numbers_are_finite(&svg);
    }

    #[test]
    fn axes_are_finite_bounded_and_wide_enough() {
        assert_eq!(drawable(-1e308, 1e308), -1e100..1e100);
        assert_eq!(drawable(f64::NAN, f64::INFINITY), 0.0..1e100);
        assert_eq!(drawable(2.0, 1.0), 1.0..2.0);
        assert_eq!(drawable(1e15, 1e15 + 0.125), 1e15 - 1e6..1e15 + 1e6);
        assert_eq!(drawable(0.0, 0.0), -1e-300..1e-300);
    }

    #[test]
    fn spans_are_finite_and_never_empty() {
        for (lo, hi) in [
            (16.0, 16.0),
            (0.0, 0.0),
            (-3.0, -3.0),
            (1.0, 2.0),
            (f64::NAN, 1.0),
            (1e18, 1e18),
        ] {
            let (a, b) = span(lo, hi);
            assert!(
                a.is_finite() && b.is_finite() && b > a,
                "{lo} {hi} -> {a} {b}"
            );
        }
    }

    #[test]
    fn a_constant_set_is_a_single_marked_value_and_a_varying_one_a_curve() {
        let exact = [16.0; 50];
        let svg = distribution(
            &[Values {
                label: "this run",
                values: &exact,
                samples: exact.len(),
                color: NEW,
            }],
            Unit::Count,
        )
        .unwrap();
        numbers_are_finite(&svg);
        assert!(svg.contains("50 samples: 16"), "{svg}");
        assert!(!svg.contains("<polygon"), "no density area for a constant");

        let varying: Vec<f64> = (0..50).map(|i| 100.0 + f64::from(i % 7)).collect();
        let svg = distribution(
            &[
                Values {
                    label: "this run",
                    values: &varying,
                    samples: varying.len(),
                    color: NEW,
                },
                Values {
                    label: "baseline <main>",
                    values: &exact,
                    samples: exact.len(),
                    color: BASE,
                },
            ],
            Unit::Nanoseconds,
        )
        .unwrap();
        numbers_are_finite(&svg);
        assert!(svg.contains("<polygon"), "a density area");
        assert!(svg.contains("baseline &lt;main&gt;"), "legend, escaped");
        assert!(svg.contains("this run"));
    }

    #[test]
    fn the_regression_has_its_points_and_line() {
        let svg = regression(
            &[1, 2, 3],
            &[10, 20, 30],
            &exact(10.0),
            0.0,
            Unit::Nanoseconds,
        )
        .unwrap();
        numbers_are_finite(&svg);
        assert_eq!(
            svg.matches("<circle").count(),
            3 + 1,
            "3 samples and a legend mark"
        );
        assert!(svg.contains("fit: 10.00 ns per iteration"), "{svg}");
        // One sample size only, and a zero total: still a drawable plot.
        let svg = regression(&[5, 5], &[0, 0], &exact(0.0), 0.0, Unit::Count).unwrap();
        numbers_are_finite(&svg);
    }

    #[test]
    fn the_regression_band_spans_the_slope_interval_from_the_intercept() {
        let iterations = [10, 20, 30, 40];
        let totals = [1000, 2000, 3000, 4000];
        let svg = regression(
            &iterations,
            &totals,
            &around(100.0, 80.0, 120.0),
            0.0,
            Unit::Nanoseconds,
        )
        .unwrap();
        assert!(svg.contains("95 % interval of the slope"), "the legend");
        let bands = shapes(&svg, "polygon");
        assert_eq!(bands.len(), 1, "{svg}");
        let band = &bands[0];
        let fit = shapes(&svg, "polyline")
            .into_iter()
            .find(|l| l.len() == 2 && l[0] == band[0])
            .expect("the fitted line starts where the band does");
        let (left, right) = (fit[0], fit[1]);
        // The band's far side spans 80..120 per iteration at 40 iterations:
        // 40 % of the line's rise, evenly about it.
        let (high, low) = (band[1], band[2]);
        assert_eq!((high.0, low.0), (right.0, right.0));
        let rise = f64::from(left.1 - right.1);
        assert!(
            (f64::from(low.1 - high.1) - 0.4 * rise).abs() <= 2.0,
            "{band:?} {fit:?}"
        );
        assert!(
            ((right.1 - high.1) - (low.1 - right.1)).abs() <= 1,
            "{band:?}"
        );

        // An exact slope: a band of no height.
        let svg = regression(&iterations, &totals, &exact(100.0), 0.0, Unit::Count).unwrap();
        let band = &shapes(&svg, "polygon")[0];
        assert_eq!(band[1], band[2]);
    }

    #[test]
    fn numbers_are_joined_on_a_log_axis_and_categories_stand_apart() {
        let points = |xs: &[f64]| -> Vec<ArgPoint> {
            xs.iter()
                .enumerate()
                .map(|(i, &x)| ArgPoint {
                    x,
                    estimate: around(
                        10.0 * (i + 1) as f64,
                        10.0 * i as f64,
                        10.0 * (i + 2) as f64,
                    ),
                })
                .collect()
        };
        let count = Measure::Metric(Unit::Count);
        let svg = by_argument(
            "page-faults",
            &alone(points(&[64.0, 4096.0, 65536.0])),
            &ArgAxis::Numeric { log: true },
            count,
        )
        .unwrap();
        numbers_are_finite(&svg);
        let at = circles(&svg);
        assert_eq!(at.len(), 3);
        // log10: 1.81, 3.61, 4.82; the middle lies 60 % of the way across,
        // where a linear axis would put it at 6 %.
        let share = f64::from(at[1].0 - at[0].0) / f64::from(at[2].0 - at[0].0);
        assert!((share - 0.6).abs() < 0.02, "{at:?}");
        assert!(svg.contains("\n1000\n"), "a power of ten labelled: {svg}");
        assert_eq!(joining(&svg, &at), 1, "one line through the numbers");

        let names = ["ascii".to_string(), "<b>".to_string(), "c".to_string()];
        let svg = by_argument(
            "wall-time",
            &alone(points(&[0.0, 1.0, 2.0])),
            &ArgAxis::Categorical(&names),
            Measure::Metric(Unit::Nanoseconds),
        )
        .unwrap();
        numbers_are_finite(&svg);
        assert!(svg.contains("ascii") && svg.contains("&lt;b&gt;"), "{svg}");
        assert!(!svg.contains("<b>"));
        let at = circles(&svg);
        assert_eq!(at.len(), 3);
        assert_eq!(joining(&svg, &at), 0, "categories are not joined: {svg}");
        // Each still has its interval as a bar through it.
        let lines = shapes(&svg, "polyline");
        for c in &at {
            assert_eq!(bar_through(&lines, *c).len(), 1, "{c:?} {svg}");
        }
    }

    #[test]
    fn several_lines_each_join_their_own_points_in_their_colour_with_a_legend() {
        let line = |label: &'static str, i: usize, per: f64| ArgSeries {
            label,
            color: member_color(i),
            points: [1.0, 2.0, 4.0]
                .iter()
                .map(|&x| ArgPoint {
                    x,
                    estimate: around(per * x, per * x - 0.5, per * x + 0.5),
                })
                .collect(),
        };
        let series = [line("single", 0, 1.0), line("<triple>", 1, 3.0)];
        let svg = by_argument(
            "page-faults",
            &series,
            &ArgAxis::Numeric { log: false },
            Measure::Metric(Unit::Count),
        )
        .unwrap();
        numbers_are_finite(&svg);
        let at = circles(&svg);
        assert_eq!(at.len(), 6, "three points a line, no mark in the legend");
        let (single, triple) = at.split_at(3);
        assert_eq!(joining(&svg, single), 1);
        assert_eq!(joining(&svg, triple), 1);
        assert_eq!(
            joining(&svg, &at),
            2,
            "no line from one member to the other"
        );
        assert!(
            svg.contains("single") && svg.contains("&lt;triple&gt;"),
            "{svg}"
        );
        let fill = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        assert_eq!(svg.matches(&fill(BASE)).count(), 3 + 1, "points and swatch");

        // Categories: no line at all, the legend still.
        let names = ["1".to_string(), "2".to_string(), "4".to_string()];
        let series = series.map(|mut s| {
            s.points
                .iter_mut()
                .enumerate()
                .for_each(|(i, p)| p.x = i as f64);
            s
        });
        let svg = by_argument(
            "page-faults",
            &series,
            &ArgAxis::Categorical(&names),
            Measure::Metric(Unit::Count),
        )
        .unwrap();
        assert_eq!(joining(&svg, &circles(&svg)), 0);
        assert!(svg.contains("&lt;triple&gt;"));
    }

    #[test]
    fn rates_label_their_axis_and_an_open_interval_reaches_the_top() {
        let gib = 1024.0 * 1024.0 * 1024.0;
        let points = [
            ArgPoint {
                x: 1.0,
                estimate: around(gib, 0.5 * gib, 2.0 * gib),
            },
            ArgPoint {
                x: 100.0,
                estimate: around(3.0 * gib, 2.0 * gib, f64::INFINITY),
            },
        ];
        let svg = by_argument(
            "throughput (bytes/s)",
            &alone(points.into()),
            &ArgAxis::Numeric { log: true },
            Measure::Rate(Throughput::Bytes(1)),
        )
        .unwrap();
        numbers_are_finite(&svg);
        assert!(svg.contains(" GB/s\n"), "{svg}");
        let at = circles(&svg);
        let lines = shapes(&svg, "polyline");
        let bar = bar_through(&lines, at[1])[0];
        // The y axis is the longest vertical line; its top, the chart's.
        let axis_top = lines
            .iter()
            .filter(|l| l.len() == 2 && l[0].0 == l[1].0)
            .max_by_key(|l| (l[0].1 - l[1].1).abs())
            .map(|l| l[0].1.min(l[1].1))
            .unwrap();
        assert_eq!(bar[0].1.min(bar[1].1), axis_top, "{bar:?}");
    }
}
