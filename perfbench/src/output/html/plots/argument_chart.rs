//! The argument chart of an `args` family: estimates with their intervals
//! against the argument, a line per function or group member, on a
//! linear, logarithmic or categorical axis; a metric's values or a
//! declared throughput's rate.

use std::error::Error;

use plotters::prelude::*;

use super::axes::{drawable, inside, span, tick, y_range};
use super::{legend, legend_entry, svg, Chart, DrawResult, Plot, PlotError, FONT};
use crate::counter::event::Unit;
use crate::measure::Throughput;
use crate::output::format::format_rate;
use crate::stats::Estimate;

/// Tick labels of an axis.
type Labels<'a> = dyn Fn(&f64) -> String + 'a;

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
) -> Result<String, PlotError> {
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
