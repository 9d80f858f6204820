//! The index's first section, "Changed in this run": the run's
//! regressions, then its improvements, each with its interval and what it
//! was compared with, so that a reader of a hundred rows sees at once what
//! moved. Apart from the history's change points
//! (`changed_section.rs`), which look back over the last runs.

use std::fmt::Write as _;

use super::super::page_path;
use super::super::text::{change_interval, esc, id_html, relative_change, target_html};
use super::{write_capped, Index};
use crate::analysis::comparison::{MetricChange, Verdict};
use crate::output::format::count;

/// The section: a row per metric of the run's benchmarks judged regressed,
/// then per one judged improved, each in the index's order; one line where
/// none was.
pub(super) fn run_changes_section(out: &mut String, ix: &Index) {
    let _ = writeln!(out, "<h2 id=\"changed-now\">Changed in this run</h2>");
    let rows: Vec<String> = [Verdict::Regressed, Verdict::Improved]
        .iter()
        .flat_map(|&verdict| changes_judged(ix, verdict))
        .map(|(i, c)| row(ix, i, c))
        .collect();
    if rows.is_empty() {
        let _ = writeln!(out, "<p id=\"nothing-changed\">{}</p>", nothing_changed(ix));
        return;
    }
    let _ = writeln!(
        out,
        "<p>Metrics of this run's benchmarks beyond the noise: regressions first, then \
         improvements; the change is this run's estimate over the other's.</p>\n\
         <table class=\"changed\" id=\"changed-now-table\">\n<tr><th>benchmark</th>\
         <th>metric</th><th>verdict</th><th class=\"num\">change</th>\
         <th>95 % interval</th><th>against</th></tr>"
    );
    write_capped(out, &rows, "changed metric");
}

/// The metrics of the run's benchmarks judged `verdict`, in the index's
/// order, each with its entry.
fn changes_judged<'a>(
    ix: &'a Index,
    verdict: Verdict,
) -> impl Iterator<Item = (usize, &'a MetricChange)> + 'a {
    (0..ix.entries.len())
        .filter(|&i| ix.in_run[i])
        .flat_map(move |i| {
            let changes = ix.entries[i].comparison.as_ref();
            let changes = changes.and_then(|c| c.changes.as_deref()).unwrap_or(&[]);
            changes.iter().map(move |c| (i, c))
        })
        .filter(move |(_, c)| c.verdict == verdict)
}

/// The row of entry `i`'s change `c`.
fn row(ix: &Index, i: usize, c: &MetricChange) -> String {
    let e = ix.entries[i];
    let against = e.comparison.as_ref().map(|c| target_html(&c.against));
    let class = match c.verdict {
        Verdict::Regressed => "regressed",
        _ => "improved",
    };
    format!(
        "<tr class=\"{class}\"><td class=\"id\"><a href=\"{}\">{}</a></td><td>{}</td>\
         <td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
        esc(&page_path(&e.id)),
        id_html(&e.id),
        esc(&c.name),
        c.verdict.as_str(),
        relative_change(c).0,
        change_interval(c).unwrap_or_else(|| "—".into()),
        against.unwrap_or_default()
    )
}

/// The line of a run where nothing regressed or improved: against what,
/// over how many benchmarks.
fn nothing_changed(ix: &Index) -> String {
    let compared = (0..ix.entries.len())
        .filter(|&i| ix.in_run[i])
        .filter(|&i| {
            let c = ix.entries[i].comparison.as_ref();
            c.is_some_and(|c| c.changes.as_ref().is_some_and(|v| !v.is_empty()))
        })
        .count();
    if compared == 0 {
        return format!(
            "Nothing to compare: no benchmark of this run has a stored run in {}.",
            target_html(ix.against)
        );
    }
    format!(
        "Nothing changed beyond the noise against {}: no regression or improvement \
         in {} compared.",
        target_html(ix.against),
        count(compared, "benchmark")
    )
}
