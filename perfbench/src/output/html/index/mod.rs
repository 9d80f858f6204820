//! The index page: every stored benchmark in a sortable summary, one row
//! each with its metrics as columns, the environments they ran in, and the
//! charts of benchmarks with `args` ([`super::argument_families`]).

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::argument_families::argument_charts;
use changed_section::{changed_section, write_capped};
use run_changes::run_changes_section;
pub(super) use summary_cells::estimate_cell;
use summary_cells::{change_cell, quiet_in};

mod changed_section;
mod run_changes;
mod summary_cells;
use super::group_page::Group;
use super::text::{esc, head, id_html, pinned, target_html, SCRIPT};
use super::{group_link, group_page_path, metric_names, page_path, quiet_everywhere, quiet_list};
use crate::analysis::comparison::{Comparison, Target, Thresholds};
use crate::counter::event::Unit;
use crate::measure::environment::Environment;
use crate::output::format::count;
use crate::store::bench_summary::{BenchSummary as Summary, SampledValues as Values};
use crate::store::{Store, StoreError};

/// What the index shows.
pub(super) struct Index<'a> {
    /// Every benchmark, in natural order of id (`text::natural_cmp`).
    pub entries: &'a [&'a Summary],
    /// Stored results that could not be read.
    pub problems: &'a [String],
    /// The sampled values of each entry's metrics, where a group page
    /// draws them; empty for the others.
    pub values: &'a [Vec<Values>],
    /// Whether each entry has a page.
    pub has_page: &'a [bool],
    /// Whether each entry was measured by this run; the others show their
    /// latest stored run.
    pub in_run: &'a [bool],
    /// Indices of the entries: this run's in its order, then the others.
    pub order: &'a [usize],
    /// The groups with a page.
    pub groups: &'a [Group<'a>],
    /// What the run compared with.
    pub against: &'a Target,
    /// Whether to draw charts.
    pub plots: bool,
    /// The noise thresholds of the verdicts.
    pub thresholds: Thresholds,
}

impl Index<'_> {
    /// The group of `e`, where it has a page.
    fn group_of(&self, e: &Summary) -> Option<&str> {
        let name = e.membership.as_ref()?.group.as_str();
        self.groups.iter().find(|g| g.name == name).map(|g| g.name)
    }

    /// Whether any benchmark was compared, so that the summary has change
    /// columns.
    fn compared(&self) -> bool {
        self.entries.iter().any(|e| e.comparison.is_some())
    }
}

/// Bytes of summary rows a page of the index holds at most, so that no
/// page of the report comes near 2 MB however many benchmarks are stored.
const ROWS_PER_PAGE_BYTES: usize = 1_500_000;

/// Writes the index: `index.html`, and where its summary's rows outgrow
/// one page, `index-2.html` and on with the rest. Returns the path of
/// `index.html`.
pub(super) fn write(store: &Store, ix: &Index) -> Result<PathBuf, StoreError> {
    let dir = Path::new(super::REPORT);
    let cols = columns(ix.entries);
    let rows: Vec<String> = (0..ix.entries.len())
        .map(|i| summary_row(ix, &cols, i))
        .collect();
    // The groups and the charts go on the first page only: its rows get
    // what they leave.
    let extras = first_page_extras(ix);
    let pages = split_rows(&rows, ROWS_PER_PAGE_BYTES.saturating_sub(extras.len()));
    for (k, range) in pages.iter().enumerate().skip(1) {
        let html = continuation(ix, &cols, &rows[range.clone()], k, &pages);
        store.write(&dir.join(index_page(k)), html.as_bytes())?;
    }
    let html = render(ix, &cols, &rows[pages[0].clone()], &pages, &extras);
    let index = dir.join("index.html");
    store.write(&index, html.as_bytes())?;
    Ok(store.root().join(index))
}

/// The file of the index's page `k` (from 0).
fn index_page(k: usize) -> String {
    match k {
        0 => "index.html".to_string(),
        k => format!("index-{}.html", k + 1),
    }
}

/// The groups section and the charts of `args` families, which the first
/// page of the index holds after its rows.
fn first_page_extras(ix: &Index) -> String {
    let mut out = String::new();
    groups_section(&mut out, ix);
    if ix.plots {
        argument_charts(&mut out, ix);
    }
    out
}

/// The rows of each page of the index: as many as fit `first` bytes on
/// the first page and [`ROWS_PER_PAGE_BYTES`] on the others, at least one;
/// one page where there are none.
fn split_rows(rows: &[String], first: usize) -> Vec<Range<usize>> {
    let mut pages = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let budget = if pages.is_empty() {
            first
        } else {
            ROWS_PER_PAGE_BYTES
        };
        if i > start && bytes + row.len() > budget {
            pages.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += row.len();
    }
    pages.push(start..rows.len());
    pages
}

/// Links to the pages of the index where there are several, naming the
/// rows each holds.
fn page_links(out: &mut String, pages: &[Range<usize>], here: usize) {
    if pages.len() < 2 {
        return;
    }
    let links: Vec<String> = pages
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let rows = format!("{}–{}", r.start + 1, r.end);
            if k == here {
                format!("<b>{rows}</b>")
            } else {
                format!("<a href=\"{}\">{rows}</a>", index_page(k))
            }
        })
        .collect();
    let _ = writeln!(
        out,
        "<p class=\"pages\" id=\"pages\">The summary's rows are split over {} pages, \
         so that each stays small; sorting and the filter work within a page: {}.</p>",
        pages.len(),
        links.join(" · ")
    );
}

/// A page of the index after the first: the rest of the summary's rows.
fn continuation(
    ix: &Index,
    cols: &Columns,
    rows: &[String],
    k: usize,
    pages: &[Range<usize>],
) -> String {
    let mut out = String::with_capacity(ROWS_PER_PAGE_BYTES + 64 * 1024);
    head(&mut out, "perfbench report");
    out.push_str("<nav><a href=\"index.html\">← the report</a></nav>\n");
    summary_table(&mut out, ix, cols, rows);
    page_links(&mut out, pages, k);
    let _ = write!(out, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

/// The index page, with the summary's `rows` of its first page and the
/// `extras` of [`first_page_extras`].
fn render(
    ix: &Index,
    cols: &Columns,
    rows: &[String],
    pages: &[Range<usize>],
    extras: &str,
) -> String {
    let mut out = String::with_capacity(64 * 1024);
    head(&mut out, "perfbench report");
    intro(&mut out, ix);
    // What changed first: this run's verdicts, then its history's steps.
    run_changes_section(&mut out, ix);
    changed_section(&mut out, ix);
    environment_section(&mut out, ix.entries);
    if !ix.problems.is_empty() {
        out.push_str("<h2>Results not shown</h2>\n");
        for p in ix.problems {
            let _ = writeln!(out, "<p class=\"problem\">{}</p>", esc(p));
        }
    }
    summary_table(&mut out, ix, cols, rows);
    page_links(&mut out, pages, 0);
    out.push_str(extras);
    let _ = write!(out, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

/// The title, how many benchmarks, and what their changes are against.
fn intro(out: &mut String, ix: &Index) {
    let n = ix.entries.len();
    let measured = ix.in_run.iter().filter(|&&b| b).count();
    let _ = write!(
        out,
        "<h1>perfbench report</h1>\n<p>{} stored in this output directory, {measured} of them \
         measured by this run.",
        count(n, "benchmark")
    );
    let t = ix.thresholds;
    let whose = match ix.against {
        Target::PreviousRun => "Changes of the benchmarks of this run are against",
        Target::Baseline(_) | Target::Paired(_) => "Changes are against",
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

/// A machine and the commit measured on it.
type MachineCommit = (Environment, Option<String>);

/// Each machine and commit once, in the order of the benchmarks, with
/// their ids; a note where the benchmarks come from more than one machine
/// (more than one commit is the history of a store, and no concern).
fn environment_section(out: &mut String, entries: &[&Summary]) {
    let mut envs: Vec<(MachineCommit, Vec<&str>)> = Vec::new();
    for e in entries {
        let key = (e.environment.machine(), e.environment.commit_label());
        match envs.iter_mut().find(|(known, _)| *known == key) {
            Some((_, ids)) => ids.push(&e.id),
            None => envs.push((key, vec![&e.id])),
        }
    }
    out.push_str("<h2>Environment</h2>\n");
    if envs.is_empty() {
        out.push_str("<p>No stored results.</p>\n");
        return;
    }
    let first_machine = &envs[0].0 .0;
    if envs
        .iter()
        .any(|((machine, _), _)| machine != first_machine)
    {
        out.push_str(
            "<p class=\"note\">The stored results come from more than one environment: \
             compare counts across them with care.</p>\n",
        );
    }
    out.push_str(
        "<table id=\"environment\">\n<thead><tr><th>CPU model</th><th>kernel</th>\
         <th>pinned to</th><th>host</th><th>commit</th><th>benchmarks</th></tr></thead>\n<tbody>\n",
    );
    for ((env, commit), ids) in &envs {
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
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{benchmarks}</td></tr>",
            esc(&env.cpu_model),
            esc(&env.kernel),
            pinned(env),
            esc(env.host.as_deref().unwrap_or("unknown")),
            esc(commit.as_deref().unwrap_or("unknown")),
        );
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The summary's columns: every metric of any benchmark, less those quiet
/// in every benchmark (`analysis::quiet`), which are folded away and named.
struct Columns<'a> {
    shown: Vec<(&'a str, Unit)>,
    folded: Vec<(&'a str, Unit)>,
}

/// The summary's columns for `entries`.
fn columns<'a>(entries: &[&'a Summary]) -> Columns<'a> {
    let (folded, shown) = metric_names(entries.iter().copied())
        .into_iter()
        .partition(|(name, _)| quiet_everywhere(entries.iter().copied(), name));
    Columns { shown, folded }
}

/// A row per benchmark (`rows` of them), a column per metric: the
/// estimate ± half its interval and, where anything was compared, the
/// change.
fn summary_table(out: &mut String, ix: &Index, cols: &Columns, rows: &[String]) {
    let compared = ix.compared();
    summary_intro(out, ix, cols, compared);
    if cols
        .shown
        .iter()
        .any(|&(m, _)| ix.entries.iter().any(|e| quiet_in(e, m)))
    {
        out.push_str(
            "<p class=\"note\" id=\"quiet\">A count under one per 1,000 iterations (or 0) \
             shows no ± or change: only a verdict where it regressed or improved.</p>\n",
        );
    }
    out.push_str(
        "<p><input type=\"search\" id=\"filter\" placeholder=\"filter benchmarks\" \
         aria-label=\"filter benchmarks\"></p>\n<table class=\"sortable\" id=\"summary\">\n",
    );
    summary_header(out, cols, compared);
    out.push_str("<tbody>\n");
    for row in rows {
        out.push_str(row);
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The summary's row of entry `i`.
fn summary_row(ix: &Index, cols: &Columns, i: usize) -> String {
    let e = ix.entries[i];
    let stale = !ix.in_run[i];
    let mut out = format!(
        "<tr{}><td class=\"id\" data-s=\"{}\">{}</td>",
        if stale { " class=\"stale\"" } else { "" },
        esc(&e.id),
        id_cell(e, ix.has_page[i], stale, ix.group_of(e))
    );
    for &(metric, unit) in &cols.shown {
        out.push_str(&estimate_cell(e, metric, unit));
        if ix.compared() {
            out.push_str(&change_cell(e, metric, ix.against));
        }
    }
    out.push_str("</tr>\n");
    out
}

/// What the summary's cells hold, the metrics folded away and what marks
/// a benchmark this run did not measure.
fn summary_intro(out: &mut String, ix: &Index, cols: &Columns, compared: bool) {
    let _ = write!(
        out,
        "<h2>Summary</h2>\n<p>One row per benchmark. Each metric: the per-iteration estimate \
         (the slope of each sample's total against its iterations) ± half the width of its \
         95 % interval; point at a value for the interval itself.{} Click a header to sort.</p>\n",
        if compared {
            " Beside it the change: in bold where it is beyond the noise, a rise (+, red) \
             regressed and a fall (-, green) improved, as less is better for every metric; \
             point at it for the verdict and its interval."
        } else {
            ""
        }
    );
    if !cols.folded.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"note\" id=\"folded\">Not shown, as every benchmark counts {} 0 or under \
             one per 1,000 iterations (the largest rate in brackets; a regression or an \
             improvement of {} is listed under Changed in this run): {}.</p>",
            if cols.folded.len() == 1 { "it" } else { "each" },
            if cols.folded.len() == 1 { "it" } else { "one" },
            quiet_list(&cols.folded, || ix.entries.iter().copied())
        );
    }
    let stale = ix.in_run.iter().filter(|&&b| !b).count();
    if stale > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\" id=\"stale\"><span class=\"badge stale\">earlier run</span> \
             marks {} this run did not measure (left out by a filter, or no longer in the code): \
             {} figures, and the change, are from {} latest stored run, as that run \
             compared it.</p>",
            count(stale, "benchmark"),
            if stale == 1 { "its" } else { "their" },
            if stale == 1 { "its" } else { "each one's" },
        );
    }
}

/// The header: a column per metric, or where anything was compared, two
/// under each metric's name.
fn summary_header(out: &mut String, cols: &Columns, compared: bool) {
    let rows = if compared { 2 } else { 1 };
    let _ = write!(
        out,
        "<thead><tr><th rowspan=\"{rows}\" data-col=\"0\">benchmark</th>"
    );
    for (i, (metric, _)) in cols.shown.iter().enumerate() {
        if compared {
            let _ = write!(
                out,
                "<th colspan=\"2\" class=\"metric\">{}</th>",
                esc(metric)
            );
        } else {
            let _ = write!(
                out,
                "<th class=\"num\" data-col=\"{}\">{}</th>",
                i + 1,
                esc(metric)
            );
        }
    }
    out.push_str("</tr>\n");
    if compared {
        out.push_str("<tr>");
        for i in 0..cols.shown.len() {
            let _ = write!(
                out,
                "<th class=\"num\" data-col=\"{}\">estimate</th><th class=\"num\" data-col=\"{}\">change</th>",
                2 * i + 1,
                2 * i + 2
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</thead>\n");
}

/// The benchmark's id, linked to its page where it has one, then its
/// group linked to the group's page where that has one, with a badge where
/// it is not from this run or was not compared.
fn id_cell(e: &Summary, has_page: bool, stale: bool, group: Option<&str>) -> String {
    let id = id_html(&e.id);
    let mut cell = if has_page {
        format!("<a href=\"{}\">{id}</a>", esc(&page_path(&e.id)))
    } else {
        format!("<span>{id}</span>")
    };
    if let Some(g) = group {
        let _ = write!(cell, " {}", group_link(g, ""));
    }
    if stale {
        cell.push_str(" <span class=\"badge stale\">earlier run</span>");
    }
    if let Some((badge, why)) = not_compared(e.comparison.as_ref()) {
        let _ = write!(
            cell,
            " <span class=\"badge\" title=\"{}\">{badge}</span>",
            esc(&why)
        );
    }
    cell
}

/// The groups of two members or more, each linked to its page.
fn groups_section(out: &mut String, ix: &Index) {
    if ix.groups.is_empty() {
        return;
    }
    out.push_str(
        "<h2>Groups</h2>\n<p>Each group's page sets its members side by side: at each \
         argument every metric against the best member, and the distributions of their \
         values.</p>\n<ul id=\"groups\">\n",
    );
    for g in ix.groups {
        let members: Vec<String> = g.members.iter().map(|m| esc(m)).collect();
        let _ = writeln!(
            out,
            "<li><a href=\"{}\">{}</a> <small>({}: {})</small></li>",
            esc(&group_page_path(g.name)),
            esc(g.name),
            count(g.members.len(), "member"),
            members.join(", ")
        );
    }
    out.push_str("</ul>\n");
}

/// The badge of a benchmark that was not compared at all, and why; `None`
/// where it was.
fn not_compared(comparison: Option<&Comparison>) -> Option<(&'static str, String)> {
    let Some(c) = comparison else {
        return Some((
            "not compared",
            "the stored run to compare with could not be read".into(),
        ));
    };
    if let Some(why) = &c.unfair {
        return Some(("not compared", why.clone()));
    }
    c.changes
        .is_none()
        .then(|| ("new", format!("not in {}", target_text(&c.against))))
}

/// What a run was compared with, as plain text for an attribute.
fn target_text(target: &Target) -> String {
    match target {
        Target::PreviousRun => "the previous run".into(),
        Target::Baseline(name) => format!("baseline {name}"),
        Target::Paired(name) => format!("the paired build {name}"),
    }
}

#[cfg(test)]
mod tests;
