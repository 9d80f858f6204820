//! The index page: every stored benchmark in a sortable summary, the
//! environments they ran in, and charts of each metric against the argument
//! for benchmarks with `args`.

use std::fmt::Write as _;

use super::plots;
use super::text::{
    change_cells, esc, figure, head, interval, no_change_cells, pinned, sort_key, target_html,
    target_name_html, value, SCRIPT,
};
use super::{change_of, page_path};
use crate::analysis::compare::{Target, Thresholds};
use crate::analysis::Analysed;
use crate::counter::event::Unit;
use crate::measure::environment::Environment;
use crate::output::format::plural;

/// What the index shows.
pub(super) struct Index<'a> {
    /// Every benchmark, sorted by id.
    pub entries: &'a [&'a Analysed],
    /// Stored results that could not be read.
    pub problems: &'a [String],
    /// Whether each entry has a page.
    pub has_page: &'a [bool],
    /// Indices of the entries: this run's in its order, then the others.
    pub order: &'a [usize],
    /// What the run compared with.
    pub against: &'a Target,
    /// Whether to draw charts.
    pub plots: bool,
    /// The noise thresholds of the verdicts.
    pub thresholds: Thresholds,
}

impl Index<'_> {
    /// Whether any benchmark was compared, so that the summary has change
    /// columns.
    fn compared(&self) -> bool {
        self.entries.iter().any(|e| e.comparison.is_some())
    }
}

/// The index page.
pub(super) fn render(ix: &Index) -> String {
    let mut out = String::with_capacity(64 * 1024);
    head(&mut out, "perfbench report");
    intro(&mut out, ix);
    environment_section(&mut out, ix.entries);
    if !ix.problems.is_empty() {
        out.push_str("<h2>Results not shown</h2>\n");
        for p in ix.problems {
            let _ = writeln!(out, "<p class=\"problem\">{}</p>", esc(p));
        }
    }
    summary_table(&mut out, ix);
    if ix.plots {
        argument_charts(&mut out, ix);
    }
    let _ = write!(out, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

/// The title, how many benchmarks, and what their changes are against.
fn intro(out: &mut String, ix: &Index) {
    let n = ix.entries.len();
    let _ = write!(
        out,
        "<h1>perfbench report</h1>\n<p>{n} benchmark{} stored in this output directory.",
        plural(n)
    );
    let t = ix.thresholds;
    let whose = match ix.against {
        Target::PreviousRun => "Changes of the benchmarks of this run are against",
        Target::Baseline(_) => "Changes are against",
    };
    if ix.compared() {
        let _ = write!(
            out,
            " {whose} {}, with noise thresholds ({:.0} % for times, {:.0} % for counts) and p &lt; {}.",
            target_html(ix.against),
            t.time * 100.0,
            t.count * 100.0,
            t.significance
        );
    }
    out.push_str("</p>\n");
}

/// Each environment record once, in the order of the benchmarks, with
/// their ids.
fn environment_section(out: &mut String, entries: &[&Analysed]) {
    let mut envs: Vec<(&Environment, Vec<&str>)> = Vec::new();
    for e in entries {
        let env = &e.recording.environment;
        match envs.iter_mut().find(|(known, _)| *known == env) {
            Some((_, ids)) => ids.push(&e.recording.id),
            None => envs.push((env, vec![&e.recording.id])),
        }
    }
    out.push_str("<h2>Environment</h2>\n");
    if envs.is_empty() {
        out.push_str("<p>No stored results.</p>\n");
        return;
    }
    if envs.len() > 1 {
        out.push_str(
            "<p class=\"note\">The stored results come from more than one environment: \
             compare counts across them with care.</p>\n",
        );
    }
    out.push_str(
        "<table id=\"environment\">\n<thead><tr><th>CPU model</th><th>kernel</th>\
         <th>pinned to</th><th>benchmarks</th></tr></thead>\n<tbody>\n",
    );
    for (env, ids) in &envs {
        let benchmarks = if envs.len() == 1 {
            format!("all {}", ids.len())
        } else {
            let list: Vec<String> = ids.iter().map(|id| esc(id)).collect();
            format!(
                "<details><summary>{}</summary>{}</details>",
                ids.len(),
                list.join("<br>")
            )
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{benchmarks}</td></tr>",
            esc(&env.cpu_model),
            esc(&env.kernel),
            pinned(env)
        );
    }
    out.push_str("</tbody>\n</table>\n");
}

/// A row per benchmark and metric: estimate, interval and, where anything
/// was compared, the change.
fn summary_table(out: &mut String, ix: &Index) {
    out.push_str(
        "<h2>Summary</h2>\n<p>Per-iteration estimates (the slope of each sample's total \
         against its iterations) with their 95 % intervals. Click a header to sort.</p>\n\
         <p><input type=\"search\" id=\"filter\" placeholder=\"filter benchmarks\" \
         aria-label=\"filter benchmarks\"></p>\n\
         <table class=\"sortable\" id=\"summary\">\n<thead><tr><th>benchmark</th><th>metric</th>\
         <th class=\"num\">estimate</th><th class=\"num\">95 % CI</th>",
    );
    let compared = ix.compared();
    if compared {
        out.push_str("<th class=\"num\">change</th><th>verdict</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (e, &has_page) in ix.entries.iter().zip(ix.has_page) {
        let id = &e.recording.id;
        let name = if has_page {
            format!("<a href=\"{}\">{}</a>", esc(&page_path(id)), esc(id))
        } else {
            esc(id)
        };
        for m in &e.result.metrics {
            let s = m.estimate();
            let width = s.ci.high - s.ci.low;
            let _ = write!(
                out,
                "<tr><td class=\"id\">{name}</td><td>{}</td><td class=\"num\"{}>{}</td>\
                 <td class=\"num\"{}>{}</td>",
                esc(&m.name),
                sort_key(s.point),
                value(s.point, m.unit),
                sort_key(width),
                interval(s, m.unit)
            );
            if compared {
                out.push_str(&comparison_cells(e, &m.name));
            }
            out.push_str("</tr>\n");
        }
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The change cells of a benchmark's metric, or why it has none.
fn comparison_cells(e: &Analysed, metric: &str) -> String {
    let Some(comparison) = &e.comparison else {
        return no_change_cells("not compared");
    };
    if comparison.unfair.is_some() {
        return no_change_cells("not compared");
    }
    let target = target_name_html(&comparison.against);
    match (change_of(e, metric), &comparison.changes) {
        (Some(c), _) => change_cells(c),
        (None, Some(_)) if comparison.against == Target::PreviousRun => {
            no_change_cells("not in the previous run")
        }
        (None, Some(_)) => no_change_cells("not in the baseline"),
        (None, None) => no_change_cells(&format!("new: not in {target}")),
    }
}

/// The group (before the first `/`) and argument of an id with one.
fn split_arg(id: &str) -> Option<(&str, &str)> {
    id.split_once('/')
}

/// The benchmarks of a group, with their arguments.
type Members<'a> = Vec<(&'a str, &'a Analysed)>;

/// Groups in the order of their first member; members in the order of this
/// run, then by id (the order of the stored results).
fn argument_groups<'a>(ix: &Index<'a>) -> Vec<(&'a str, Members<'a>)> {
    let mut groups: Vec<(&str, Members)> = Vec::new();
    for e in ix.order.iter().map(|&i| ix.entries[i]) {
        let Some((group, arg)) = split_arg(&e.recording.id) else {
            continue;
        };
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, members)) => members.push((arg, e)),
            None => groups.push((group, vec![(arg, e)])),
        }
    }
    groups
}

/// A chart per metric of each group of benchmarks with arguments.
fn argument_charts(out: &mut String, ix: &Index) {
    let groups = argument_groups(ix);
    if groups.is_empty() {
        return;
    }
    out.push_str("<h2>Benchmarks with arguments</h2>\n");
    for (gi, (group, members)) in groups.iter().enumerate() {
        group_section(out, gi, group, members);
    }
}

/// The axis of a group's arguments: numbers where every argument is one
/// (logarithmic over two decades or more), else categories in run order.
fn argument_axis<'a>(
    members: &Members,
    names: &'a [String],
) -> (plots::ArgAxis<'a>, Vec<f64>, &'static str) {
    let numbers: Option<Vec<f64>> = members
        .iter()
        .map(|(arg, _)| arg.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect();
    match numbers {
        Some(xs) => {
            let (lo, hi) = xs
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                    (l.min(v), h.max(v))
                });
            let log = lo > 0.0 && hi / lo >= 100.0;
            let how = if log {
                "logarithmic axis"
            } else {
                "numeric axis"
            };
            (plots::ArgAxis::Numeric { log }, xs, how)
        }
        None => (
            plots::ArgAxis::Categorical(names),
            (0..members.len()).map(|i| i as f64).collect(),
            "in the order of the run",
        ),
    }
}

/// One group's section: a chart of each metric against the argument.
fn group_section(out: &mut String, gi: usize, group: &str, members: &Members) {
    let names: Vec<String> = members.iter().map(|(arg, _)| arg.to_string()).collect();
    let (axis, xs, how) = argument_axis(members, &names);
    let _ = write!(
        out,
        "<section class=\"group\" id=\"group-{gi}\">\n<h3>{} <small>({} argument{}, {how})</small></h3>\n<div class=\"plots\">\n",
        esc(group),
        members.len(),
        plural(members.len())
    );
    let mut metric_names: Vec<(&str, Unit)> = Vec::new();
    for (_, e) in members {
        for m in &e.result.metrics {
            if !metric_names.iter().any(|(n, _)| *n == m.name) {
                metric_names.push((&m.name, m.unit));
            }
        }
    }
    for (metric, unit) in metric_names {
        let points: Vec<plots::ArgPoint> = members
            .iter()
            .zip(&xs)
            .filter_map(|((_, e), &x)| {
                let m = e.result.metrics.iter().find(|m| m.name == metric)?;
                Some(plots::ArgPoint {
                    x,
                    estimate: *m.estimate(),
                })
            })
            .collect();
        let caption = format!(
            "{} of <code>{}</code> against the argument, with 95 % intervals",
            esc(metric),
            esc(group)
        );
        figure(
            out,
            plots::by_argument(metric, &points, &axis, unit),
            &caption,
        );
    }
    out.push_str("</div>\n</section>\n");
}
