//! The HTML report: `report/index.html` under the output directory, with a
//! sortable summary of every stored benchmark and metric, the environment,
//! charts of each metric against the argument for benchmarks with `args`,
//! a page per benchmark of the run (`report/bench/<folder>.html`) and a
//! page per group of two members or more (`report/group/<folder>.html`).
//!
//! The report is self-contained: the style sheet (`style.css`), the
//! sorting script (`sort.js`) and the flame graphs' (`flame/flame.js`) are
//! inline, the plots and flame graphs are inline SVG, and
//! every link is relative, so it opens from `file://` without any network.
//! Every string that comes from user code (ids, arguments, event names,
//! baseline names, the CPU model) is HTML-escaped; the script reads its data
//! from the DOM, never from strings of its own. Page names come from
//! [`folder_name`], so no id can write outside `report/`.
//!
//! The benchmarks of the run are shown as the run analysed and compared
//! them (the figures of the terminal and the JSON lines, with the PMU
//! scale, derived metrics and the cost of measuring). Benchmarks stored by
//! earlier runs are analysed from their stored samples by the same
//! analysis and, where the run compared with a named baseline, compared
//! with it.

mod argument_families;
mod bench_page;
mod flame;
mod group_page;
mod index;
mod plots;
mod text;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::analysis::comparison::{Comparison, MetricChange, Target, Thresholds};
use crate::analysis::quiet::is_quiet;
use crate::analysis::Analysed;
use crate::counter::event::Unit;
use crate::store::bench_summary::{
    values_of, BenchSummary as Summary, MetricSummary, SampledValues as Values,
};
use crate::store::history::{recent_changes, Trend};
use crate::store::par_map::par_map;
use crate::store::report_cache::{stored_summaries, stored_values, write_summary};
use crate::store::{folder_name, Kind, Store, StoreError};

pub use flame::{differential_flame_graph, flame_graph, MAX_DRAWN, MIN_SHARE_OF};

/// Options of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportOptions {
    /// Plots in the pages and the index; `false` (`--noplot`) writes tables
    /// only.
    pub plots: bool,
    /// What the run compared with; stored benchmarks that were not run are
    /// compared with it too where it is a named baseline.
    pub against: Target,
    /// The noise thresholds the run's verdicts used.
    pub thresholds: Thresholds,
}

/// The report as an output of a run: keeps the run's analysed benchmarks
/// and writes the report when the run ends.
pub struct ReportSink {
    store: Store,
    options: ReportOptions,
    run: Vec<Analysed>,
}

impl ReportSink {
    /// A report under `store`'s root.
    pub fn new(store: Store, options: ReportOptions) -> ReportSink {
        ReportSink {
            store,
            options,
            run: Vec::new(),
        }
    }

    /// Adds a benchmark of the run.
    pub fn benchmark(&mut self, a: &Analysed) {
        self.run.push(a.clone());
    }

    /// Writes the report.
    pub fn finish(self) -> Result<Written, StoreError> {
        write_report(&self.store, &self.run, &self.options)
    }
}

/// Writes `<store root>/report/index.html`, one page per benchmark of
/// `run` (the benchmarks of this run, analysed), the page of each group of
/// two members or more with a member in `run`, and the index listing every
/// benchmark stored under the root. Returns the path of `index.html`
/// and the stored results it left out.
///
/// The cost is that of the run, not of the store: a benchmark of the run
/// leaves its summary in `report/data/` (estimates and change for the
/// index, a bounded sample of its values for group pages), and the others
/// are listed from theirs. A stored run without a summary (stored by an
/// older perfbench, or newer than its summary) gets one, once. A stored
/// result that cannot be read is named in the index instead of failing the
/// report; a file of the report that cannot be written is the error.
pub fn write_report(
    store: &Store,
    run: &[Analysed],
    options: &ReportOptions,
) -> Result<Written, StoreError> {
    let dir = Path::new(REPORT);
    let data = dir.join("data");
    // Only the run's benchmarks' histories changed: only theirs are read.
    let trends = par_map(run, |a| {
        let history = store.history(&a.recording.id).ok()?;
        Trend::of(&history, &options.thresholds)
    });
    let fresh = fresh_summaries(run, &trends);
    for written in par_map(&fresh, |(s, v)| write_summary(store, &data, s, v)) {
        written?;
    }
    let run_ids: BTreeSet<&str> = run.iter().map(|a| a.recording.id.as_str()).collect();
    let (stored, problems) = stored_summaries(store, &data, &run_ids);
    let mut entries: Vec<&Summary> = fresh.iter().map(|(s, _)| s).chain(&stored).collect();
    entries.sort_by(|a, b| text::natural_cmp(&a.id, &b.id));
    // Two arguments with the same Display make one id, stored once: one row.
    entries.dedup_by(|a, b| a.id == b.id);
    let order = run_order(&entries, run);
    let in_run: Vec<bool> = entries
        .iter()
        .map(|e| run_ids.contains(e.id.as_str()))
        .collect();
    let groups = group_page::groups(&entries, &order);
    // Only the groups with a member in the run change.
    let touched: Vec<&group_page::Group> = groups
        .iter()
        .filter(|g| g.benchmarks.iter().any(|&i| in_run[i]))
        .collect();
    let values = group_values(store, &data, &entries, &touched, &fresh);
    write_pages(store, run, &trends, &groups, options.plots)?;
    let has_page = pages_of(store, &entries);
    let ix = index::Index {
        entries: &entries,
        problems: &problems,
        values: &values,
        has_page: &has_page,
        in_run: &in_run,
        order: &order,
        groups: &groups,
        against: &options.against,
        plots: options.plots,
        thresholds: options.thresholds,
    };
    for written in par_map(&touched, |g| {
        let path = dir.join(group_page_path(g.name));
        store.write(&path, group_page::render(&ix, g).as_bytes())
    }) {
        written?;
    }
    let index = index::write(store, &ix)?;
    Ok(Written {
        index,
        left_out: problems,
    })
}

/// The summaries and bounded values of the run's benchmarks, each with the
/// changes its history `trends` found in its last runs.
fn fresh_summaries(run: &[Analysed], trends: &[Option<Trend>]) -> Vec<(Summary, Vec<Values>)> {
    run.iter()
        .zip(trends)
        .map(|(a, trend)| {
            let mut s = Summary::of(a);
            s.changed = trend.as_ref().map(recent_changes).unwrap_or_default();
            (s, values_of(a))
        })
        .collect()
}

/// What [`write_report`] wrote.
#[derive(Debug)]
pub struct Written {
    /// The path of `index.html`.
    pub index: PathBuf,
    /// Stored results of benchmarks outside the run that could not be
    /// read, each named with why: left out of the report (and its index
    /// says so), no reason to fail the run.
    pub left_out: Vec<String>,
}

/// The report's folder in the store's root.
const REPORT: &str = "report";

/// Whether each of `entries` has a page, from one listing of the pages:
/// a page written by an earlier run still shows that benchmark's latest
/// run (it changes only when the benchmark runs), so it is linked too.
fn pages_of(store: &Store, entries: &[&Summary]) -> Vec<bool> {
    let listed = store.list(&Path::new(REPORT).join("bench"));
    let pages: BTreeSet<String> = listed
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, kind)| *kind == Kind::File)
        .map(|(name, _)| name)
        .collect();
    entries
        .iter()
        .map(|e| pages.contains(&format!("{}.html", folder_name(&e.id))))
        .collect()
}

/// The sampled values of the members of `groups` (the run's from `fresh`,
/// the others' from their files), and none for the other entries.
fn group_values(
    store: &Store,
    data: &Path,
    entries: &[&Summary],
    groups: &[&group_page::Group],
    fresh: &[(Summary, Vec<Values>)],
) -> Vec<Vec<Values>> {
    let mut values: Vec<Vec<Values>> = vec![Vec::new(); entries.len()];
    for &i in groups.iter().flat_map(|g| &g.benchmarks) {
        let id = &entries[i].id;
        values[i] = match fresh.iter().find(|(s, _)| s.id == *id) {
            Some((_, v)) => v.clone(),
            None => stored_values(store, data, id),
        };
    }
    values
}

/// Writes the page of each benchmark of `run` under `dir`, with its
/// history's trend from `trends`, linked to its group's page where that
/// is one of `groups`.
fn write_pages(
    store: &Store,
    run: &[Analysed],
    trends: &[Option<Trend>],
    groups: &[group_page::Group],
    plots: bool,
) -> Result<(), StoreError> {
    let pages: Vec<(&Analysed, Option<&Trend>)> =
        run.iter().zip(trends.iter().map(Option::as_ref)).collect();
    let written = par_map(&pages, |&(a, trend)| {
        let path = Path::new(REPORT).join(page_path(&a.recording.id));
        let group = a.recording.membership.as_ref().map(|m| m.group.as_str());
        let group = group.filter(|g| groups.iter().any(|known| known.name == *g));
        // A flame graph where the run has a profile, and a differential one
        // where the run it was compared with has one too.
        let after = a.recording.profile.as_ref();
        let before = a.compared_with.as_ref().and_then(|c| c.profile.as_ref());
        let profile = bench_page::PageProfiles {
            profile: after,
            change: before.zip(after),
        };
        let html = bench_page::render(a, plots, group, trend, profile);
        store.write(&path, html.as_bytes())
    });
    written.into_iter().collect()
}

/// The positions in `entries` (in natural order of id) of the run's benchmarks in the
/// run's order, then of the others.
fn run_order(entries: &[&Summary], run: &[Analysed]) -> Vec<usize> {
    let mut order = Vec::with_capacity(entries.len());
    let mut in_run = vec![false; entries.len()];
    for a in run {
        let id = a.recording.id.as_str();
        if let Ok(i) = entries.binary_search_by(|e| text::natural_cmp(&e.id, id)) {
            if !in_run[i] {
                in_run[i] = true;
                order.push(i);
            }
        }
    }
    order.extend((0..entries.len()).filter(|&i| !in_run[i]));
    order
}

/// The metric of a benchmark by name.
fn metric_of<'a>(e: &'a Summary, name: &str) -> Option<&'a MetricSummary> {
    e.metric(name)
}

/// Every metric of `entries` with its unit, in the order they first appear
/// (wall time first).
fn metric_names<'a>(entries: impl IntoIterator<Item = &'a Summary>) -> Vec<(&'a str, Unit)> {
    let mut names: Vec<(&str, Unit)> = Vec::new();
    for e in entries {
        for m in &e.metrics {
            if !names.iter().any(|(n, _)| *n == m.name) {
                names.push((&m.name, m.unit));
            }
        }
    }
    names
}

/// Whether `metric` is quiet ([`is_quiet`]: a count zero or under one
/// event per thousand iterations) in every one of `entries` that has it:
/// nothing a reader needs a column or a chart for, so the report names it
/// once instead, with [`largest_rate`].
fn quiet_everywhere<'a>(entries: impl IntoIterator<Item = &'a Summary>, metric: &str) -> bool {
    entries
        .into_iter()
        .filter_map(|e| metric_of(e, metric))
        .all(|m| is_quiet(m.unit, &m.estimate))
}

/// The largest estimate of `metric` among `entries`, as a note names it.
fn largest_rate<'a>(entries: impl IntoIterator<Item = &'a Summary>, metric: &str) -> f64 {
    entries
        .into_iter()
        .filter_map(|e| metric_of(e, metric))
        .map(|m| m.estimate.point)
        .fold(0.0, f64::max)
}

/// The quiet metrics `names`, each with its largest rate among `entries`,
/// as HTML: `context-switches (7.320e-7), major-faults (0)`.
fn quiet_list<'a, I>(names: &[(&str, Unit)], entries: impl Fn() -> I) -> String
where
    I: Iterator<Item = &'a Summary>,
{
    let named: Vec<String> = names
        .iter()
        .map(|&(n, unit)| {
            let rate = text::value(largest_rate(entries(), n), unit);
            format!("{} ({rate})", text::esc(n))
        })
        .collect();
    named.join(", ")
}

/// The metrics of the benchmarks `entries` gives, with their units, less
/// those quiet in every one of them ([`quiet_everywhere`]), which one note
/// names instead: "Zero or rare for every `each`, so not `drawn`: …".
fn metrics_to_draw<'a, I>(
    out: &mut String,
    entries: impl Fn() -> I,
    each: &str,
    drawn: &str,
) -> Vec<(&'a str, Unit)>
where
    I: Iterator<Item = &'a Summary>,
{
    let (quiet, shown): (Vec<_>, Vec<_>) = metric_names(entries())
        .into_iter()
        .partition(|(name, _)| quiet_everywhere(entries(), name));
    if !quiet.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"note zero-metrics\">Zero or rare (under one per 1,000 iterations) \
             for every {each}, so not {drawn} (the largest rate in brackets): {}.</p>",
            quiet_list(&quiet, entries)
        );
    }
    shown
}

/// The change of a metric in `comparison`, where it was compared.
fn change_of<'a>(comparison: Option<&'a Comparison>, metric: &str) -> Option<&'a MetricChange> {
    comparison?.change(metric)
}

/// The page of a benchmark, relative to `report/`.
fn page_path(id: &str) -> String {
    format!("bench/{}.html", folder_name(id))
}

/// The page of a group, relative to `report/`.
fn group_page_path(group: &str) -> String {
    format!("group/{}.html", folder_name(group))
}

/// A link to the page of `group` from a page `up` (`""` or `"../"`) below
/// `report/`.
fn group_link(group: &str, up: &str) -> String {
    format!(
        "<a class=\"group-link\" href=\"{up}{}\">group {}</a>",
        text::esc(&group_page_path(group)),
        text::esc(group)
    )
}

#[cfg(test)]
mod tests;
