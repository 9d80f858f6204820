//! The history chart of a benchmark: its headline in each stored run over
//! the run's number, with the run's 95 % interval as an error bar, and a
//! vertical line labelled with the step's size at each change point. Each
//! drawn run carries a tooltip (an SVG `<title>`) with its number, commit,
//! time and branch, all escaped: a history is stored text. A long history
//! is thinned to at most [`MAX_DRAWN`] runs, never dropping the runs on
//! either side of a change point or the latest.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::axes::{drawable, span, tick};
use super::{svg, PlotError, FONT, NEW};
use crate::output::format::relative_text;
use crate::output::html::text::{esc, interval, value};
use crate::stats::ChangePoint;
use crate::store::bench_summary::evenly;
use crate::store::history::{HistoryRun, Trend};

/// Most runs the chart draws: enough to see a thousand runs' shape in
/// 600 pixels, and a page of a few hundred kilobytes.
pub const MAX_DRAWN: usize = 300;

/// The colour of change points, as the fitted lines of other charts.
const STEP: &str = "#c81e28";

/// The chart's size in pixels.
const SIZE: (u32, u32) = (720, 300);

/// The history chart of `trend`.
pub fn history(trend: &Trend) -> Result<String, PlotError> {
    let drawn = drawn_runs(trend);
    let runs = &trend.runs;
    let unit = runs.last().ok_or(PlotError::NoRuns)?.unit;
    let x = |i: usize| trend.numbers[i] as f64;
    let (lo, hi) = drawn.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &i| {
        let e = &runs[i].estimate;
        (lo.min(e.ci.low), hi.max(e.ci.high))
    });
    let (y0, y1) = span(lo, hi);
    let (x0, x1) = span(x(drawn[0]), x(*drawn.last().expect("one run at least")));
    let mut marks = Marks::default();
    let mut out = svg(SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .margin_top(24)
            .x_label_area_size(36)
            .y_label_area_size(72)
            .build_cartesian_2d(drawable(x0, x1), drawable(y0, y1))?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(8)
            .y_labels(6)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| tick(*v, unit))
            .x_desc("run")
            .y_desc(format!("{} per iteration", runs[0].metric))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 13))
            .draw()?;
        chart.draw_series(drawn.iter().map(|&i| {
            let e = &runs[i].estimate;
            PathElement::new(vec![(x(i), e.ci.low), (x(i), e.ci.high)], NEW.mix(0.5))
        }))?;
        chart.draw_series(
            drawn
                .iter()
                .map(|&i| Circle::new((x(i), runs[i].estimate.point), 2, NEW.filled())),
        )?;
        let at = |p: (f64, f64)| chart.backend_coord(&p);
        marks.runs = drawn
            .iter()
            .map(|&i| (i, at((x(i), runs[i].estimate.point))))
            .collect();
        marks.steps = trend
            .changes
            .iter()
            .map(|c| {
                let mid = (x(c.index - 1) + x(c.index)) / 2.0;
                (*c, at((mid, y1)), at((mid, y0)))
            })
            .collect();
        Ok(())
    })?;
    let end = out.rfind("</svg>").ok_or(PlotError::NoSvg)?;
    out.insert_str(end, &marks.svg(trend));
    Ok(out)
}

/// What is drawn over plotters' chart by hand, in pixels: each drawn run's
/// point, and each change point's line from top to bottom.
#[derive(Default)]
struct Marks {
    /// Each drawn run's index and point.
    runs: Vec<(usize, Pixel)>,
    /// Each change point with its line's top and bottom.
    steps: Vec<(ChangePoint, Pixel, Pixel)>,
}

/// A point of the SVG, in pixels.
type Pixel = (i32, i32);

impl Marks {
    /// The change points' lines and labels, and a tooltip over each run.
    fn svg(&self, trend: &Trend) -> String {
        let mut out = String::new();
        for (c, (x, top), (_, bottom)) in &self.steps {
            let run = &trend.runs[c.index];
            let size = esc(&relative_text(c.relative()));
            let right = *x > SIZE.0 as i32 * 2 / 3;
            let _ = writeln!(
                out,
                "<g class=\"change-point\" data-run=\"{}\"><title>step of {size} at run {}: {} → {}{}</title>\
                 <line x1=\"{x}\" y1=\"{top}\" x2=\"{x}\" y2=\"{bottom}\" stroke=\"{STEP}\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\
                 <text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-family=\"{FONT}\" font-size=\"13\" fill=\"{STEP}\">{size}</text></g>",
                trend.numbers[c.index],
                trend.numbers[c.index],
                esc(&value(c.before, run.unit)),
                esc(&value(c.after, run.unit)),
                commit_text(run).map_or(String::new(), |t| format!(", {t}")),
                // Left of a line in the right third, so that it is not cut.
                if right { x - 4 } else { x + 4 },
                top - 6,
                if right { "end" } else { "start" },
            );
        }
        for &(i, (x, y)) in &self.runs {
            let _ = writeln!(
                out,
                "<circle class=\"run\" cx=\"{x}\" cy=\"{y}\" r=\"5\" fill=\"transparent\"><title>{}</title></circle>",
                tooltip(trend.numbers[i], &trend.runs[i])
            );
        }
        out
    }
}

/// The runs the chart draws: evenly spaced up to [`MAX_DRAWN`], and the
/// runs on both sides of each change point and the latest always.
fn drawn_runs(trend: &Trend) -> Vec<usize> {
    let all: Vec<usize> = (0..trend.runs.len()).collect();
    let mut drawn = evenly(&all, MAX_DRAWN);
    for c in &trend.changes {
        drawn.extend([c.index - 1, c.index]);
    }
    drawn.extend(all.last());
    drawn.sort_unstable();
    drawn.dedup();
    drawn
}

/// The commit of a run as people read it, and its branch: `commit
/// 9fceb02+dirty on main`; `None` where neither is known.
fn commit_text(run: &HistoryRun) -> Option<String> {
    let commit = run.short_commit().map(|c| format!("commit {}", esc(&c)));
    let branch = run.branch.as_deref().map(|b| format!("on {}", esc(b)));
    let parts: Vec<String> = commit.into_iter().chain(branch).collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// A run's tooltip: its number, headline and interval, commit, branch and
/// time, escaped.
fn tooltip(number: usize, run: &HistoryRun) -> String {
    let mut t = format!(
        "run {number}: {} {}",
        esc(&value(run.estimate.point, run.unit)),
        esc(&interval(&run.estimate, run.unit))
    );
    if let Some(c) = commit_text(run) {
        let _ = write!(t, ", {c}");
    }
    if let Some(started) = &run.started {
        let _ = write!(t, ", {}", esc(started));
    }
    if run.quick {
        t.push_str(", --quick");
    }
    t
}
