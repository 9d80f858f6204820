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

use super::arguments::{family_charts, Arguments, Line};
use super::index::{estimate_cell, Index};
use super::plots::{self, member_color};
use super::text::{esc, figure, head, sort_key};
use super::{metrics_to_draw, page_path};
use crate::analysis::standings::{standings, Cell, Relative, Standing};
use crate::counter::event::Unit;
use crate::output::format::{count, standing_cell};
use crate::store::summary::{Summary, Values, MAX_VALUES};

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
    standing_table(out, here, &shown, standing);
    if draw {
        distributions(out, arg, here, &shown);
    }
    out.push_str("</section>\n");
}

/// A row per member, per metric of `units` its headline (± half its
/// interval, the interval on hover) and, where there is a standing, its
/// ratio to the best.
fn standing_table(
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
    let name = esc(m.name);
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
        let sets: Vec<plots::Values> = here
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                let v = m.values.iter().find(|v| v.name == metric)?;
                Some(plots::Values {
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
mod tests {
    use super::super::plots::tests::{circles, joining};
    use super::super::tests::Temp;
    use super::super::{group_page_path, page_path, write_report, ReportOptions};
    use crate::analysis::comparison::{Target, Thresholds};
    use crate::analysis::{analyze, standings, Analysed, Calibration, Recording};
    use crate::store::{Slot, Store};

    const HOSTILE: &str = "<script>alert(1)</script>";
    const ESCAPED: &str = "&lt;script&gt;alert(1)&lt;/script&gt;";

    /// The recording of member `name` of `group` at `arg`: exactly `faults`
    /// page faults and 200 ns and 50 more per fault per iteration.
    fn recording(group: &str, name: &str, arg: Option<&str>, faults: u64) -> Recording {
        standings::tests::recording(group, name, arg, (200 + 50 * faults, faults))
    }

    /// [`recording`] analysed, as a run hands it to the report.
    fn member(group: &str, name: &str, arg: Option<&str>, faults: u64) -> Analysed {
        let recording = recording(group, name, arg, faults);
        Analysed {
            result: analyze(&recording, &Calibration::default()),
            recording,
            comparison: None,
            baseline: None,
        }
    }

    /// Writes the report of `run` under `tmp`; returns its index.
    fn report(tmp: &Temp, run: &[Analysed], plots: bool) -> String {
        let options = ReportOptions {
            plots,
            against: Target::PreviousRun,
            thresholds: Thresholds::default(),
        };
        let path = write_report(&Store::at(&tmp.0), run, &options)
            .unwrap()
            .index;
        std::fs::read_to_string(path).unwrap()
    }

    /// The report's file at `path`, relative to `report/`.
    fn read(tmp: &Temp, path: &str) -> String {
        let path = tmp.0.join("report").join(path);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The part of `html` from `start` to the next `end`.
    fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
        let from = html
            .find(start)
            .unwrap_or_else(|| panic!("no {start} in {html}"));
        let rest = &html[from..];
        &rest[..rest.find(end).map_or(rest.len(), |i| i + end.len())]
    }

    /// The figures of `html` whose chart is `chart`, each as written.
    fn figures<'a>(html: &'a str, chart: &str) -> Vec<&'a str> {
        let start = format!("<figure data-chart=\"{chart}\"");
        html.match_indices(&start)
            .map(|(i, _)| between(&html[i..], &start, "</figure>"))
            .collect()
    }

    /// The standing's rows of an argument's section: each row's cells'
    /// text, tags removed.
    fn standing_rows(section: &str) -> Vec<Vec<String>> {
        let body = between(section, "<tbody>", "</tbody>");
        body.split("<tr")
            .skip(1)
            .map(|row| {
                row.split("<td")
                    .skip(1)
                    .map(|cell| {
                        let inner = &cell[cell.find('>').unwrap() + 1..cell.find("</td>").unwrap()];
                        let mut text = String::new();
                        let mut in_tag = false;
                        for c in inner.chars() {
                            match c {
                                '<' => in_tag = true,
                                '>' => in_tag = false,
                                c if !in_tag => text.push(c),
                                _ => {}
                            }
                        }
                        text
                    })
                    .collect()
            })
            .collect()
    }

    fn paging() -> Vec<Analysed> {
        vec![
            member("paging", "single", Some("1"), 1),
            member("paging", "single", Some("2"), 2),
            member("paging", "triple", Some("1"), 3),
            member("paging", "triple", Some("2"), 6),
        ]
    }

    #[test]
    fn a_group_page_sets_its_members_side_by_side_at_each_argument() {
        let tmp = Temp::new("group");
        let mut run = paging();
        run.push(member("alone", "only", None, 1));
        let index = report(&tmp, &run, true);
        let page = read(&tmp, "group/paging.html");
        assert!(page.contains("<h1>group paging</h1>"), "{page}");
        assert!(page.contains("<p id=\"members\">2 members: single, triple, in 4 benchmarks."));
        assert!(!page.contains("<script"), "no script on a group page");

        let at_1 = between(
            &page,
            "<section class=\"argument\" id=\"arg-0\"",
            "</section>",
        );
        assert!(
            at_1.contains("data-arg=\"1\">\n<h2>At <code>1</code></h2>"),
            "{at_1}"
        );
        // member | wall-time estimate, × best | page-faults estimate, × best
        let rows = standing_rows(at_1);
        assert_eq!(rows.len(), 2, "{at_1}");
        assert_eq!(rows[0][0], "single");
        assert_eq!(rows[0][3..], ["1 ± 0", "1.00×"]);
        assert_eq!(rows[1][0], "triple");
        assert_eq!(rows[1][3..], ["3 ± 0", "3.00×"]);
        assert_eq!(rows[0][2], "1.00×", "the fewer faults, the faster");
        assert!(at_1.contains(
            "<td class=\"num ratio\" data-v=\"3\" title=\"its estimate over the best \
             member's\">3.00×</td>"
        ));
        assert!(at_1.contains(&format!(
            "<a href=\"../{}\">single</a>",
            page_path("paging::single/1")
        )));
        let at_2 = between(
            &page,
            "<section class=\"argument\" id=\"arg-1\"",
            "</section>",
        );
        assert_eq!(standing_rows(at_2)[1][3..], ["6 ± 0", "3.00×"]);

        // Per metric, one distribution with a set per member.
        let drawn = figures(at_1, "distribution");
        assert_eq!(drawn.len(), 2, "wall time and page faults");
        for (figure, metric) in drawn.iter().zip(["wall-time", "page-faults"]) {
            assert!(figure.contains(&format!("data-metric=\"{metric}\"")));
            assert!(figure.contains("data-arg=\"1\""));
            for label in ["single\n</text>", "triple\n</text>"] {
                assert_eq!(figure.matches(label).count(), 1, "{label} in {figure}");
            }
        }
        assert!(drawn[1].contains("10 samples: 1\n"), "{}", drawn[1]);
        assert!(drawn[1].contains("10 samples: 3\n"));
        assert_eq!(figures(at_2, "distribution").len(), 2);

        // Across the arguments: a chart per metric, a line per member.
        let family = between(&page, "<section id=\"family\"", "</section>");
        assert!(family.contains("(2 arguments, numeric axis)"), "{family}");
        let charts = figures(family, "argument");
        assert_eq!(charts.len(), 2, "{family}");
        for chart in charts {
            let at = circles(chart);
            assert_eq!(at.len(), 4, "two members at two arguments: {chart}");
            assert_eq!(joining(chart, &at), 2, "a line per member: {chart}");
            assert!(chart.contains("single\n</text>") && chart.contains("triple\n</text>"));
        }

        // Linked from the index, its rows and each member's page.
        assert!(index.contains(
            "<ul id=\"groups\">\n<li><a href=\"group/paging.html\">paging</a> \
             <small>(2 members: single, triple)</small></li>\n</ul>"
        ));
        let link = "<a class=\"group-link\" href=\"group/paging.html\">group paging</a>";
        assert_eq!(index.matches(link).count(), 4, "each member's row");
        let triple = read(&tmp, &page_path("paging::triple/1"));
        assert!(triple.contains(
            " · <a class=\"group-link\" href=\"../group/paging.html\">group paging</a></nav>"
        ));
        // A group of one member: no page, no link.
        assert!(!index.contains("group alone") && !index.contains("group/alone"));
        assert!(!read(&tmp, &page_path("alone::only")).contains("class=\"group-link\""));
        let pages: Vec<_> = std::fs::read_dir(tmp.0.join("report/group"))
            .unwrap()
            .flatten()
            .map(|f| f.file_name())
            .collect();
        assert_eq!(pages, ["paging.html"]);
    }

    #[test]
    fn earlier_runs_are_marked_and_hostile_group_names_stay_text() {
        let tmp = Temp::new("group-stale");
        let store = Store::at(&tmp.0);
        let stored = recording(HOSTILE, "<u>", Some("1"), 4);
        let result = analyze(&stored, &Calibration::default());
        store.save(&stored, &Slot::Latest, &result).unwrap();
        let run = [member(HOSTILE, "plain", Some("1"), 2)];
        let index = report(&tmp, &run, true);
        let path = group_page_path(HOSTILE);
        assert!(path.starts_with("group/") && !path.contains('<'), "{path}");
        let page = read(&tmp, &path);
        for html in [&index, &page] {
            assert!(!html.contains(HOSTILE) && !html.contains("<u>"));
        }
        assert!(page.contains(&format!("<h1>group {ESCAPED}</h1>")));
        assert!(index.contains(&format!(">group {ESCAPED}</a>")));
        assert!(page.contains(
            "<p class=\"note\" id=\"stale\"><span class=\"badge stale\">earlier run</span> \
             marks 1 benchmark this run did not measure"
        ));
        let rows = standing_rows(&page);
        assert_eq!(rows[0][0], "plain");
        assert_eq!(rows[1][0], "&lt;u&gt; earlier run");
        assert_eq!(rows[1][3..], ["4 ± 0", "2.00×"]);
        assert!(page.contains("<tr class=\"stale\">"));
        assert!(
            page.contains("&lt;u&gt; (earlier run)\n</text>"),
            "in the legends"
        );
    }

    #[test]
    fn a_member_the_run_does_not_tell_from_the_best_is_marked() {
        let tmp = Temp::new("group-unsettled");
        let mut noisy = recording("g", "noisy", None, 1);
        // 150 ns per iteration in one round and 450 in the other, where the
        // other member takes 250 in both.
        let iterations = noisy.iterations.clone();
        for (k, t) in noisy.series[0].totals.iter_mut().enumerate() {
            *t = iterations[k] * if noisy.rounds[k] == 0 { 150 } else { 450 };
        }
        let noisy = Analysed {
            result: analyze(&noisy, &Calibration::default()),
            recording: noisy,
            comparison: None,
            baseline: None,
        };
        report(&tmp, &[member("g", "exact", None, 1), noisy], false);
        let page = read(&tmp, "group/g.html");
        let rows = standing_rows(&page);
        assert!(rows[1][2].starts_with('≈'), "{:?}", rows[1]);
        assert_eq!(rows[1][4], "1.00×", "exactly as many page faults");
        assert!(page.contains(
            "<p class=\"note unsettled\">≈: its 95 % interval overlaps the best's: this run \
             does not tell them apart.</p>"
        ));
    }

    #[test]
    fn a_metric_zero_for_every_member_is_named_once_not_shown() {
        let tmp = Temp::new("group-zero");
        let run = [member("g", "a", None, 0), member("g", "b", None, 0)];
        report(&tmp, &run, true);
        let page = read(&tmp, "group/g.html");
        assert_eq!(
            page.matches("<p class=\"note zero-metrics\">").count(),
            1,
            "{page}"
        );
        assert!(page.contains(
            "<p class=\"note zero-metrics\">Zero for every member, so not shown: \
             page-faults.</p>\n<table class=\"standing\">"
        ));
        let rows = standing_rows(&page);
        assert_eq!(
            rows[0],
            ["a", "200.0 ns ± 0.000 ns", "1.00×"],
            "wall time only"
        );
        assert_eq!(figures(&page, "distribution").len(), 1);
        assert!(!page.contains("data-metric=\"page-faults\""));
    }

    #[test]
    fn members_apart_each_stand_alone_and_plain_ones_are_not_charted() {
        let tmp = Temp::new("group-apart");
        let run = [
            member("setup", "mix_plain", None, 1),
            member("setup", "mix_batched", Some("small"), 1),
            member("setup", "mix_batched", Some("large"), 1),
        ];
        report(&tmp, &run, true);
        let page = read(&tmp, "group/setup.html");
        let lone = "<p class=\"note lone\">Only mix_plain ran here";
        assert!(page.contains(lone), "{page}");
        assert_eq!(page.matches("class=\"note lone\"").count(), 3);
        assert!(!page.contains("× best"), "no standing without two members");
        assert!(page.contains(
            "<p class=\"note\" id=\"no-argument\">Without an argument, so not charted \
             here: mix_plain.</p>"
        ));
        let family = between(&page, "<section id=\"family\"", "</section>");
        assert!(family.contains("data-axis=\"categorical\""));
        for chart in figures(family, "argument") {
            assert_eq!(circles(chart).len(), 2, "{chart}");
            assert!(!chart.contains("mix_plain"));
        }

        // Without plots: the standings only.
        report(&tmp, &paging(), false);
        let page = read(&tmp, "group/paging.html");
        assert!(!page.contains("<svg") && !page.contains("id=\"family\""));
        assert_eq!(page.matches("<table class=\"standing\">").count(), 2);
    }
}
