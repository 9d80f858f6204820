//! A page per group of two members or more (`report/group/<folder>.html`),
//! as Criterion's `benchmark_group` pages set its functions side by side:
//! across the arguments, a chart per metric with a line per member; at
//! each argument, the standing (each metric against the best member, from
//! [`standings`]) with every member's headline, and per metric the
//! distributions of the members' per-iteration values on common axes.
//!
//! Every figure comes from the analysed benchmarks; the page only lays
//! them out.

use std::fmt::Write as _;

use super::argument_families::{family_charts, Arguments, Line};
use super::index::{estimate_cell, Index};
use super::plots::{self, member_color};
use super::text::{esc, figure, head, id_html, sort_key};
use super::{metrics_to_draw, page_path};
use crate::analysis::standings::{standings, Cell, Relative, Standing};
use crate::counter::event::Unit;
use crate::output::format::{count, standing_cell};
use crate::store::bench_summary::{BenchSummary as Summary, SampledValues as Values, MAX_VALUES};

/// A group of benchmarks with two members or more.
pub(super) struct Group<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its members' names, in the order of the run.
    pub members: Vec<&'a str>,
    /// Its benchmarks, as positions in the index's entries, in the order of
    /// the run.
    pub benchmarks: Vec<usize>,
}

/// The groups of `entries` with two members or more, in the order of their
/// first benchmark in `order`; a group of one member has no page, as there
/// is nothing to set beside it.
pub(super) fn groups<'a>(entries: &[&'a Summary], order: &[usize]) -> Vec<Group<'a>> {
    let mut groups: Vec<Group> = Vec::new();
    for &i in order {
        let Some(m) = &entries[i].membership else {
            continue;
        };
        let at = groups.iter().position(|g| g.name == m.group);
        let g = match at {
            Some(at) => &mut groups[at],
            None => {
                groups.push(Group {
                    name: &m.group,
                    members: Vec::new(),
                    benchmarks: Vec::new(),
                });
                groups.last_mut().expect("just pushed")
            }
        };
        if !g.members.contains(&m.member.as_str()) {
            g.members.push(&m.member);
        }
        g.benchmarks.push(i);
    }
    groups.retain(|g| g.members.len() > 1);
    groups
}

/// One benchmark of a group as its page shows it.
struct Member<'a> {
    e: &'a Summary,
    /// Its member's name.
    name: &'a str,
    /// Its argument, where it has one.
    arg: Option<&'a str>,
    /// Its member's position in the group, which gives its colour.
    index: usize,
    /// Whether this run measured it.
    in_run: bool,
    /// Whether it has a page.
    has_page: bool,
    /// The sampled values of its metrics.
    values: &'a [Values],
}

impl Member<'_> {
    /// Its member's name, marked where it is from an earlier run.
    fn label(&self) -> String {
        if self.in_run {
            self.name.to_string()
        } else {
            format!("{} (earlier run)", self.name)
        }
    }
}

/// The benchmarks of `g`, in the order of the run.
fn members_of<'a>(ix: &Index<'a>, g: &Group<'a>) -> Vec<Member<'a>> {
    g.benchmarks
        .iter()
        .filter_map(|&i| {
            let e = ix.entries[i];
            let m = e.membership.as_ref()?;
            Some(Member {
                e,
                name: &m.member,
                arg: m.arg.as_deref(),
                index: g.members.iter().position(|n| *n == m.member)?,
                in_run: ix.in_run[i],
                has_page: ix.has_page[i],
                values: &ix.values[i],
            })
        })
        .collect()
}

/// The page of `g`.
pub(super) fn render(ix: &Index, g: &Group) -> String {
    let members = members_of(ix, g);
    let mut out = String::with_capacity(128 * 1024);
    head(&mut out, &format!("group {} — perfbench", g.name));
    intro(&mut out, g, &members);
    if ix.plots && members.iter().any(|m| m.arg.is_some()) {
        family_section(&mut out, g, &members);
    }
    let results: Vec<&Summary> = members.iter().map(|m| m.e).collect();
    let standings = standings(&results);
    let mut args: Vec<Option<&str>> = Vec::new();
    for m in &members {
        if !args.contains(&m.arg) {
            args.push(m.arg);
        }
    }
    for (k, arg) in args.into_iter().enumerate() {
        let here: Vec<&Member> = members.iter().filter(|m| m.arg == arg).collect();
        let standing = standings.iter().find(|s| s.arg.as_deref() == arg);
        argument_section(&mut out, k, arg, &here, standing, ix.plots);
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The title, the members, and what marks a benchmark of an earlier run.
fn intro(out: &mut String, g: &Group, members: &[Member]) {
    let names: Vec<String> = g.members.iter().map(|n| esc(n)).collect();
    let _ = write!(
        out,
        "<nav><a href=\"../index.html\">← all benchmarks</a></nav>\n\
         <h1>group {}</h1>\n<p id=\"members\">{}: {}, in {}. At each argument every metric \
         of each member is set against the best member's (the lowest estimate): \
         <b>1.00×</b> is the best, and where the best is 0 the value itself is shown.</p>\n",
        esc(g.name),
        count(g.members.len(), "member"),
        names.join(", "),
        count(members.len(), "benchmark"),
    );
    let stale = members.iter().filter(|m| !m.in_run).count();
    if stale > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\" id=\"stale\"><span class=\"badge stale\">earlier run</span> \
             marks {} this run did not measure: {} figures are from {} latest stored run.</p>",
            count(stale, "benchmark"),
            if stale == 1 { "its" } else { "their" },
            if stale == 1 { "its" } else { "each one's" },
        );
    }
}

/// Each metric against the argument, a line per member with arguments.
fn family_section(out: &mut String, g: &Group, members: &[Member]) {
    let mut lines: Vec<Line> = Vec::new();
    for (index, name) in g.members.iter().enumerate() {
        let own: Vec<&Member> = members.iter().filter(|m| m.index == index).collect();
        let with_args: Vec<(&str, &Summary)> =
            own.iter().filter_map(|m| Some((m.arg?, m.e))).collect();
        if with_args.is_empty() {
            continue;
        }
        let stale = own.iter().filter(|m| !m.in_run).count();
        let label = match stale {
            0 => name.to_string(),
            n if n == own.len() => format!("{name} (earlier run)"),
            _ => format!("{name} (partly earlier run)"),
        };
        lines.push(Line {
            label,
            color: member_color(index),
            members: with_args,
        });
    }
    let a = Arguments::of(g.name, &lines);
    let _ = write!(
        out,
        "<section id=\"family\" data-axis=\"{}\">\n<h2>Across the arguments <small>({})\
         </small></h2>\n",
        a.axis_name(),
        a.describe()
    );
    let without: Vec<String> = g
        .members
        .iter()
        .enumerate()
        .filter(|(i, _)| !members.iter().any(|m| m.index == *i && m.arg.is_some()))
        .map(|(_, n)| esc(n))
        .collect();
    if !without.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"note\" id=\"no-argument\">Without an argument, so not charted here: \
             {}.</p>",
            without.join(", ")
        );
    }
    family_charts(out, &a);
    out.push_str("</section>\n");
}

/// The members at one argument: their standing and distributions.
fn argument_section(
    out: &mut String,
    k: usize,
    arg: Option<&str>,
    here: &[&Member],
    standing: Option<&Standing>,
    draw: bool,
) {
    let (data, title) = match arg {
        Some(arg) => (
            format!(" data-arg=\"{}\"", esc(arg)),
            format!("At <code>{}</code>", esc(arg)),
        ),
        None => (String::new(), "Without an argument".to_string()),
    };
    let _ = writeln!(
        out,
        "<section class=\"argument\" id=\"arg-{k}\"{data}>\n<h2>{title}</h2>"
    );
    if here.len() == 1 {
        let _ = writeln!(
            out,
            "<p class=\"note lone\">Only {} ran here: no other member to set beside it.</p>",
            esc(here[0].name)
        );
    }
    // Metrics 0 for every member here are named once, as the table folds them.
    let shown = metrics_to_draw(out, || here.iter().map(|m| m.e), "member", "shown");
    standing_section(out, here, &shown, standing);
    if draw {
        distributions(out, arg, here, &shown);
    }
    out.push_str("</section>\n");
}

/// A row per member, per metric of `units` its headline (± half its
/// interval, the interval on hover) and, where there is a standing, its
/// ratio to the best.
fn standing_section(
    out: &mut String,
    here: &[&Member],
    units: &[(&str, Unit)],
    standing: Option<&Standing>,
) {
    // Each column's metric and unit, and its place in the standing.
    let columns: Vec<(&str, Unit, usize)> = match standing {
        Some(s) => s
            .metrics
            .iter()
            .enumerate()
            .filter_map(|(k, name)| {
                let (name, unit) = units.iter().find(|(n, _)| n == name)?;
                Some((*name, *unit, k))
            })
            .collect(),
        None => units.iter().map(|&(name, unit)| (name, unit, 0)).collect(),
    };
    let sub = match standing {
        Some(_) => "<th class=\"num\">estimate</th><th class=\"num\">× best</th>",
        None => "<th class=\"num\">estimate</th>",
    };
    out.push_str("<table class=\"standing\">\n<thead><tr><th rowspan=\"2\">member</th>");
    for (metric, _, _) in &columns {
        let _ = write!(
            out,
            "<th colspan=\"{}\" class=\"metric\">{}</th>",
            if standing.is_some() { 2 } else { 1 },
            esc(metric)
        );
    }
    let _ = write!(
        out,
        "</tr>\n<tr>{}</tr>\n</thead>\n<tbody>\n",
        sub.repeat(columns.len())
    );
    for (row, m) in here.iter().enumerate() {
        let stale = if m.in_run { "" } else { " class=\"stale\"" };
        let _ = write!(out, "<tr{stale}><td class=\"id\">{}</td>", member_cell(m));
        for &(metric, unit, k) in &columns {
            out.push_str(&estimate_cell(m.e, metric, unit));
            let cell = standing.and_then(|s| s.members.get(row)?.1.get(k).copied());
            if let Some(c) = cell {
                out.push_str(&ratio_cell(c));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    let cells = || {
        standing
            .into_iter()
            .flat_map(|s| &s.members)
            .flat_map(|(_, c)| c)
    };
    if cells().any(|c| !c.best && !c.apart) {
        let _ = writeln!(out, "<p class=\"note unsettled\">{UNSETTLED}.</p>");
    }
}

/// A member's name, linked to its benchmark's page where it has one, marked
/// where it is from an earlier run.
fn member_cell(m: &Member) -> String {
    let name = id_html(m.name);
    let mut cell = if m.has_page {
        format!("<a href=\"../{}\">{name}</a>", esc(&page_path(&m.e.id)))
    } else {
        format!("<span>{name}</span>")
    };
    if !m.in_run {
        cell.push_str(" <span class=\"badge stale\">earlier run</span>");
    }
    cell
}

/// A metric's estimate over the best member's, bold for the best, marked
/// `≈` where this run does not tell it apart from the best.
fn ratio_cell(c: Cell) -> String {
    let class = if c.best { " best" } else { "" };
    let (key, title) = match c.relative {
        Relative::Ratio(v) => (sort_key(v), "its estimate over the best member's"),
        Relative::Value(_) => (String::new(), "the best member's is 0: its estimate itself"),
    };
    let unsettled = if c.best || c.apart {
        String::new()
    } else {
        format!("; {UNSETTLED}")
    };
    format!(
        "<td class=\"num ratio{class}\"{key} title=\"{title}{unsettled}\">{}</td>",
        esc(&standing_cell(&c))
    )
}

/// What `≈` before a ratio means.
const UNSETTLED: &str = "≈: its 95 % interval overlaps the best's: this run does not tell \
                         them apart";

/// Per metric of `drawn`, the members' per-iteration values on common
/// axes, as each benchmark's page draws its own.
fn distributions(out: &mut String, arg: Option<&str>, here: &[&Member], drawn: &[(&str, Unit)]) {
    let labels: Vec<String> = here.iter().map(|m| m.label()).collect();
    out.push_str("<div class=\"plots\">\n");
    for &(metric, unit) in drawn {
        let sets: Vec<plots::DistributionSet> = here
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                let v = m.values.iter().find(|v| v.name == metric)?;
                Some(plots::DistributionSet {
                    label: &labels[i],
                    values: &v.values,
                    samples: v.samples,
                    color: member_color(m.index),
                })
            })
            .collect();
        let caption = format!(
            "{}: the distribution of each member's per-iteration values (total ÷ \
             iterations of each sample; of a run of more than {MAX_VALUES} samples, \
             {MAX_VALUES} of them at evenly spaced ranks).",
            esc(metric)
        );
        let data = [
            ("chart", "distribution"),
            ("metric", metric),
            ("arg", arg.unwrap_or_default()),
        ];
        figure(out, plots::distribution(&sets, unit), &caption, &data);
    }
    out.push_str("</div>\n");
}

#[cfg(test)]
mod tests;
