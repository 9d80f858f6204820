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
//!
//! One file per chart family: [`distribution_chart`] (per-iteration values
//! as density curves or marked values), [`regression_chart`] (samples
//! against iterations with the fitted line), [`argument_chart`]
//! (estimates against a family's arguments) and [`history_chart`] (a
//! benchmark's headline over its stored runs, with its change points);
//! [`axes`] makes their ranges
//! drawable, and this file holds what they share: colours, the SVG canvas
//! and the legend.

use std::error::Error;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

pub use argument_chart::{by_argument, ArgAxis, ArgPoint, ArgSeries, Measure};
pub use distribution_chart::{distribution, DistributionSet};
pub use history_chart::history;
pub use regression_chart::regression;

pub mod argument_chart;
pub mod axes;
pub mod distribution_chart;
pub mod history_chart;
pub mod regression_chart;

/// The colour of this run.
pub const NEW: RGBColor = RGBColor(31, 100, 180);
/// The colour of the baseline.
pub const BASE: RGBColor = RGBColor(220, 110, 20);

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

/// The generic family of every text: the browser renders it with a font
/// of its own, so none is embedded or fetched.
const FONT: &str = "sans-serif";

/// The SVG canvas a chart is drawn on.
type Plot<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// What drawing returns: plotters' errors, made a [`PlotError`] by [`svg`].
type DrawResult = Result<(), Box<dyn Error>>;

/// Why a plot was not drawn, one line.
#[derive(Debug)]
pub enum PlotError {
    /// plotters failed.
    Draw(Box<dyn Error>),
    /// A history without runs.
    NoRuns,
    /// plotters wrote no `</svg>` to add marks before.
    NoSvg,
}

impl std::fmt::Display for PlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlotError::Draw(e) => write!(f, "{e}"),
            PlotError::NoRuns => f.write_str("no runs"),
            PlotError::NoSvg => f.write_str("no SVG"),
        }
    }
}

impl Error for PlotError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            PlotError::Draw(e) => Some(e.as_ref()),
            _ => None,
        }
    }
}
/// A chart with two linear axes, as every plot here has.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// An SVG of `size` drawn by `draw`, or plotters' error.
fn svg(size: (u32, u32), draw: impl FnOnce(&Plot) -> DrawResult) -> Result<String, PlotError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        let drawn = (root.fill(&WHITE).map_err(Box::from))
            .and_then(|()| draw(&root))
            .and_then(|()| root.present().map_err(Box::from));
        drawn.map_err(PlotError::Draw)?;
    }
    Ok(out)
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

#[cfg(test)]
pub(super) mod tests;
