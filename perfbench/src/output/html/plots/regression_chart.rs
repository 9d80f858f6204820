//! The regression chart of a batch-mode metric: each sample's total
//! against its iterations, the fitted line and the band of the slope's
//! interval, with at most one point per pixel.

use plotters::prelude::*;

use super::axes::{drawable, inside, tick, y_range};
use super::{legend, svg, Chart, DrawResult, PlotError, FONT, NEW};
use crate::counter::event::Unit;
use crate::stats::Estimate;
use crate::store::bench_summary::evenly;

/// The colour of fitted lines.
const FIT: RGBColor = RGBColor(200, 30, 40);

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
) -> Result<String, PlotError> {
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
