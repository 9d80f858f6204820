//! The page of one benchmark of the run: per metric the distribution of
//! per-iteration values and the batch regression (with the stored run it
//! was compared with as an overlay), the statistics, the PMU scale, the
//! measurement's own cost and the change; then the derived metrics, and
//! the flame graphs of its profile where it has one (`flame/`).

use std::fmt::Write as _;

use super::flame::{differential_flame_graph, flame_graph};
use super::plots;
use super::text::{
    change_cells, esc, figure, head, interval, pinned, target_html, target_name_html, value,
};
use super::{change_of, group_link};
use crate::analysis::comparison::{self, MetricChange, Target};
use crate::analysis::derived::{declared_work, rate};
use crate::analysis::notes::notes;
use crate::analysis::{Analysed, Fit, Metric};
use crate::measure::environment::Environment;
use crate::output::format::{count, format_rate, four_digits, printable, relative_text};
use crate::profile::Profile;
use crate::stats::{per_iteration, Estimate, Interval};
use crate::store::history::Trend;

/// A benchmark's profiles for its page.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PageProfiles<'a> {
    /// This run's profile, for its flame graph.
    pub profile: Option<&'a Profile>,
    /// The one compared with and this run's, `(before, after)`, for the
    /// differential flame graph.
    pub change: Option<(&'a Profile, &'a Profile)>,
}

/// The page of `e`; `group` names its group where that has a page,
/// `trend` is its history where it has one, and `profiles` its profiles.
pub(super) fn render(
    e: &Analysed,
    plots: bool,
    group: Option<&str>,
    trend: Option<&Trend>,
    profiles: PageProfiles<'_>,
) -> String {
    let mut out = String::with_capacity(256 * 1024);
    head(&mut out, &format!("{} — perfbench", e.recording.id));
    nav(&mut out, group);
    about(&mut out, e);
    throughput_headline(&mut out, e);
    comparison_note(&mut out, e);
    if let Some(trend) = trend.filter(|t| t.runs.len() >= 2) {
        history_section(&mut out, trend, plots);
    }
    out.push_str("<p>Metrics: ");
    let links: Vec<String> = e
        .result
        .metrics
        .iter()
        .enumerate()
        .map(|(i, m)| format!("<a href=\"#metric-{i}\">{}</a>", esc(&m.name)))
        .collect();
    out.push_str(&links.join(" · "));
    out.push_str("</p>\n");
    for (i, m) in e.result.metrics.iter().enumerate() {
        metric_section(&mut out, e, i, m, plots);
    }
    derived_section(&mut out, e);
    if let Some(p) = profiles.profile {
        out.push_str(&flame_graph(p));
    }
    if let Some((before, after)) = profiles.change {
        out.push_str(&differential_flame_graph(before, after));
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The history: the chart of the runs of the latest's metric on this
/// machine, and a row per change point.
fn history_section(out: &mut String, trend: &Trend, plots: bool) {
    let latest = trend.runs.last().expect("two runs at least");
    let _ = writeln!(
        out,
        "<section id=\"history\">\n<h2>History</h2>\n<p>{} of {} on this machine, \
         the last of {} stored; {}.</p>",
        count(trend.runs.len(), "run"),
        esc(&latest.metric),
        count(*trend.numbers.last().expect("numbered"), "run"),
        match trend.changes.len() {
            0 => "no change point".to_string(),
            n => format!("{} where it stepped", count(n, "change point")),
        }
    );
    if plots {
        let at: Vec<String> = trend
            .changes
            .iter()
            .map(|c| trend.numbers[c.index].to_string())
            .collect();
        figure(
            out,
            plots::history(trend),
            "Headline per run with its 95 % interval; dashed: change points",
            &[
                ("chart", "history"),
                ("metric", &latest.metric),
                ("history-runs", &trend.runs.len().to_string()),
                ("change-points", &at.join(",")),
            ],
        );
    }
    if !trend.changes.is_empty() {
        out.push_str(
            "<table class=\"change-points\">\n<tr><th>run</th><th>commit</th><th>branch</th>\
             <th>started</th><th>before</th><th>after</th><th>step</th></tr>\n",
        );
        for c in &trend.changes {
            let run = &trend.runs[c.index];
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                trend.numbers[c.index],
                esc(&run.short_commit().unwrap_or_default()),
                esc(run.branch.as_deref().unwrap_or_default()),
                esc(run.started.as_deref().unwrap_or_default()),
                value(c.before, run.unit),
                value(c.after, run.unit),
                esc(&relative_text(c.relative()))
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str("</section>\n");
}

/// Links to the index and, where it has a page, to the benchmark's group.
fn nav(out: &mut String, group: Option<&str>) {
    out.push_str("<nav><a href=\"../index.html\">← all benchmarks</a>");
    if let Some(g) = group {
        let _ = write!(out, " · {}", group_link(g, "../"));
    }
    out.push_str("</nav>\n");
}

/// What was measured and when: `Measured at 92d5b55+dirty on main,
/// started 2026-11-25T22:42:00Z.`, of what is known.
fn origin(env: &Environment) -> Option<String> {
    match (env.origin_summary(), &env.started) {
        (Some(at), Some(t)) => Some(format!("Measured {at}, started {t}.")),
        (Some(at), None) => Some(format!("Measured {at}.")),
        (None, Some(t)) => Some(format!("Started {t}.")),
        (None, None) => None,
    }
}

/// The title and how the benchmark was measured, and where.
fn about(out: &mut String, e: &Analysed) {
    let run = &e.recording;
    let env = &run.environment;
    let iterations = run.total_iterations();
    let _ = write!(
        out,
        "<h1>{}</h1>\n<p>{}, {} in all. {}, kernel {}, {}.</p>\n",
        esc(&run.id),
        count(run.iterations.len(), "sample"),
        count(iterations as usize, "iteration"),
        esc(&env.cpu_model),
        esc(&env.kernel),
        pinned(env)
    );
    if let Some(origin) = origin(env) {
        let _ = writeln!(out, "<p id=\"origin\">{}</p>", esc(&origin));
    }
    if let Some(path) = run.read_path {
        let _ = writeln!(
            out,
            "<p>Per-iteration mode: each iteration bracketed by counter reads with {}.</p>",
            path.name()
        );
    }
    for note in notes(e.view()) {
        let _ = writeln!(out, "<p class=\"problem\">Note: {}.</p>", esc(&note));
    }
}

/// The declared throughput per second of wall time, with its interval.
fn throughput_headline(out: &mut String, e: &Analysed) {
    let Some(r) = rate(e.view()) else {
        return;
    };
    let s = r.per_second;
    let per_iteration = declared_work(e.recording.throughput).map_or(String::new(), |w| {
        format!(
            " ({} per iteration over the wall-time estimate)",
            count(w.amount() as usize, w.noun())
        )
    });
    let _ = writeln!(
        out,
        "<p class=\"throughput\" id=\"throughput\"><b>Throughput: {}</b> \
         <small>95 % interval [{}, {}]</small>{per_iteration}.</p>",
        format_rate(s.point, r.work),
        format_rate(s.ci.low, r.work),
        format_rate(s.ci.high, r.work),
    );
}

/// What the benchmark was compared with, or why it was not.
fn comparison_note(out: &mut String, e: &Analysed) {
    let Some(comparison) = &e.comparison else {
        out.push_str(
            "<p class=\"note\">Not compared: the stored run to compare with could not be read.</p>\n",
        );
        return;
    };
    let target = target_html(&comparison.against);
    if let Some(why) = &comparison.unfair {
        let _ = writeln!(
            out,
            "<p class=\"problem\">Not compared with {target}: {}.</p>",
            esc(why)
        );
        return;
    }
    let Some(base) = &e.compared_with else {
        let _ = writeln!(
            out,
            "<p class=\"note\">New: {target} does not hold this benchmark.</p>"
        );
        return;
    };
    let _ = write!(
        out,
        "<p>Compared with {target} ({})",
        count(base.iterations.len(), "sample")
    );
    match e.recording.environment.mismatch(&base.environment) {
        Some(why) => {
            let _ = writeln!(
                out,
                ".</p>\n<p class=\"problem\">It was recorded on {}.</p>",
                esc(&why)
            );
        }
        None => out.push_str(".</p>\n"),
    }
    if let (Target::Paired(_), Some(why)) =
        (&comparison.against, comparison::why(comparison, &e.result))
    {
        let _ = writeln!(
            out,
            "<p>Measured in turn with it in this run: {}.</p>",
            esc(&why)
        );
    }
}

/// One metric's section: notes, plots and statistics.
fn metric_section(out: &mut String, e: &Analysed, i: usize, m: &Metric, plots: bool) {
    let s = &m.stats;
    let _ = write!(
        out,
        "<section id=\"metric-{i}\">\n<h2>{} <small>({})</small></h2>\n",
        esc(&m.name),
        m.unit.symbol()
    );
    if s.min == s.max {
        let _ = writeln!(
            out,
            "<p class=\"note zero-variance\">Every sample gives exactly {} per iteration: \
             zero variance, so every interval has zero width.</p>",
            value(s.min, m.unit)
        );
    }
    if plots {
        metric_plots(out, e, m);
    }
    stats_table(out, e, m);
    out.push_str("</section>\n");
}

/// The distribution (with the compared run's as an overlay) and the batch
/// regression of a metric.
fn metric_plots(out: &mut String, e: &Analysed, m: &Metric) {
    let run = &e.recording;
    let Some(series) = run.series(&m.name) else {
        return;
    };
    let values = per_iteration(&run.iterations, &series.totals);
    let base_values = e
        .compared_with
        .as_ref()
        .and_then(|b| Some((b, b.series(&m.name)?)))
        .map(|(b, bs)| per_iteration(&b.iterations, &bs.totals));
    let against = e.comparison.as_ref().map(|c| &c.against);
    let base_label = match against {
        // The chart's legend, which plotters writes as it is given.
        Some(Target::Baseline(name)) => format!("baseline {}", printable(name)),
        Some(Target::Paired(name)) => format!("paired build {}", printable(name)),
        _ => "previous run".to_string(),
    };
    let mut sets = vec![plots::DistributionSet {
        label: "this run",
        values: &values,
        samples: values.len(),
        color: plots::NEW,
    }];
    if let (Some(bv), Some(_)) = (&base_values, against) {
        sets.push(plots::DistributionSet {
            label: &base_label,
            values: bv,
            samples: bv.len(),
            color: plots::BASE,
        });
    }
    out.push_str("<div class=\"plots\">\n");
    let caption = distribution_caption(against.filter(|_| sets.len() > 1));
    let data = [("chart", "distribution"), ("metric", m.name.as_str())];
    figure(
        out,
        plots::distribution(&sets, m.unit),
        &format!("<span class=\"distribution\">{caption}</span>"),
        &data,
    );
    let data = [("chart", "regression"), ("metric", m.name.as_str())];
    figure(
        out,
        plots::regression(
            &run.iterations,
            &series.totals,
            &as_measured(e, m),
            m.stats.intercept,
            m.unit,
        ),
        "Batch regression: each sample's total against its iterations, the fitted line \
         whose slope is the estimate, and the band its 95 % interval spans.",
        &data,
    );
    out.push_str("</div>\n");
}

/// The caption of a distribution chart, overlaid with the run of `against`
/// where given.
fn distribution_caption(against: Option<&Target>) -> String {
    let what = "Distribution of the per-iteration values (total ÷ iterations of each sample)";
    match against {
        Some(target) => format!("{what} of this run and of {}.", target_html(target)),
        None => format!("{what}."),
    }
}

/// The headline of `m` with its interval as the samples were measured: a
/// cost of measuring that `--subtract-overhead` took off is still in them,
/// so it is added back to draw the line through them.
fn as_measured(e: &Analysed, m: &Metric) -> Estimate {
    let s = *m.estimate();
    let taken_off = e
        .result
        .overhead
        .iter()
        .find(|o| o.metric == m.name)
        .map_or(0.0, |o| o.raw_estimate - s.point);
    Estimate {
        point: s.point + taken_off,
        ci: Interval {
            low: s.ci.low + taken_off,
            high: s.ci.high + taken_off,
        },
    }
}

/// A row of a statistics table: name, value, interval.
type Row = (String, String, String);

/// The statistics of a metric, with its scaled estimate, the measurement's
/// cost and the change where there are any.
fn stats_table(out: &mut String, e: &Analysed, m: &Metric) {
    out.push_str(
        "<table class=\"stats\">\n<thead><tr><th>statistic</th><th class=\"num\">value</th>\
         <th class=\"num\">95 % CI</th></tr></thead>\n<tbody>\n",
    );
    let mut rows = statistics_rows(m);
    rows.extend(scaled_rows(m));
    rows.extend(overhead_rows(e, m));
    for (name, v, ci) in rows {
        let _ = writeln!(
            out,
            "<tr><td>{name}</td><td class=\"num\">{v}</td><td class=\"num\">{ci}</td></tr>"
        );
    }
    if let (Some(c), Some(comparison)) = (change_of(e.comparison.as_ref(), &m.name), &e.comparison)
    {
        change_row(out, c, &comparison.against);
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The statistics every metric has.
fn statistics_rows(m: &Metric) -> Vec<Row> {
    let s = &m.stats;
    let u = m.unit;
    let row = |name: &str, v: String, ci: String| (name.to_string(), v, ci);
    let r_squared = if s.r_squared.is_finite() {
        format!("{:.5}", s.r_squared)
    } else {
        "n/a".into()
    };
    let estimate = m.estimate();
    let mut rows = vec![row(
        &format!("<b>estimate</b> ({})", m.estimator()),
        value(estimate.point, u),
        interval(estimate, u),
    )];
    if let Fit::Poor { why, .. } = &m.fit {
        rows.push(row(
            &format!("least-squares slope (poor fit: {})", esc(&why.describe())),
            value(s.slope.point, u),
            interval(&s.slope, u),
        ));
    }
    rows.extend([
        row("R²", r_squared, String::new()),
        row(
            "intercept (per sample)",
            value(s.intercept, u),
            String::new(),
        ),
        row("mean", value(s.mean.point, u), interval(&s.mean, u)),
        row("median", value(s.median.point, u), interval(&s.median, u)),
        row(
            "std dev",
            value(s.std_dev.point, u),
            interval(&s.std_dev, u),
        ),
        row("MAD", value(s.mad.point, u), interval(&s.mad, u)),
        row("min", value(s.min, u), String::new()),
        row("max", value(s.max, u), String::new()),
        row("outliers (Tukey)", outliers(m), String::new()),
    ]);
    rows
}

/// Tukey's outlier counts, or `none`.
fn outliers(m: &Metric) -> String {
    let o = &m.stats.outliers;
    let parts: Vec<String> = [
        (o.low_severe, "low severe"),
        (o.low_mild, "low mild"),
        (o.high_mild, "high mild"),
        (o.high_severe, "high severe"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

/// The estimate in the unit of the PMU's `.scale` and `.unit`.
fn scaled_rows(m: &Metric) -> Vec<Row> {
    let Some(scale) = &m.scale else {
        return Vec::new();
    };
    let scaled = |v: f64| format!("{} {}", four_digits(v * scale.factor), esc(&scale.unit));
    let ci = &m.estimate().ci;
    vec![(
        format!("estimate in {}", esc(&scale.unit)),
        scaled(m.estimate().point),
        format!("[{}, {}]", scaled(ci.low), scaled(ci.high)),
    )]
}

/// The calibrated cost of measuring, and the estimate before it was
/// subtracted where it was.
fn overhead_rows(e: &Analysed, m: &Metric) -> Vec<Row> {
    let Some(o) = e.result.overhead.iter().find(|o| o.metric == m.name) else {
        return Vec::new();
    };
    let mut rows = vec![(
        "cost of measuring (per iteration)".to_string(),
        value(o.per_iteration, m.unit),
        String::new(),
    )];
    if o.raw_estimate != m.estimate().point {
        rows.push((
            "estimate before subtracting it".to_string(),
            value(o.raw_estimate, m.unit),
            String::new(),
        ));
    }
    rows
}

/// The change row of a metric.
fn change_row(out: &mut String, c: &MetricChange, target: &Target) {
    let against = target_name_html(target);
    let _ = writeln!(
        out,
        "<tr><td>change vs {against}</td>{}</tr>",
        change_cells(c)
    );
}

/// The ratios and per-byte or per-element figures derived from the metrics.
fn derived_section(out: &mut String, e: &Analysed) {
    if e.result.derived.is_empty() {
        return;
    }
    out.push_str(
        "<section id=\"derived\">\n<h2>Derived</h2>\n<table class=\"stats\">\n<thead><tr>\
         <th>metric</th><th class=\"num\">value</th></tr></thead>\n<tbody>\n",
    );
    for (name, v) in &e.result.derived {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td></tr>",
            esc(name),
            four_digits(*v)
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

#[cfg(test)]
mod tests;
