//! The index's section of benchmarks whose history changed lately: each
//! change point among a benchmark's last runs (`history::RECENT_RUNS`),
//! with its size, the commit it came with, and a link to the page whose
//! chart marks it. Read from the summaries, so it costs no history read.

use std::fmt::Write as _;

use super::super::page_path;
use super::super::text::{esc, id_html, value};
use super::Index;
use crate::output::format::{count, relative_text};
use crate::store::history::RECENT_RUNS;

/// Most rows the section lists: the first page of the index stays small
/// however many benchmarks changed at once.
const MAX_ROWS: usize = 200;

/// The section, where any benchmark changed in its last runs.
pub(super) fn changed_section(out: &mut String, ix: &Index) {
    let rows: Vec<String> = ix
        .order
        .iter()
        .flat_map(|&i| ix.entries[i].changed.iter().map(move |c| (i, c)))
        .map(|(i, c)| {
            let e = ix.entries[i];
            let name = if ix.has_page[i] || ix.in_run[i] {
                format!("<a href=\"{}\">{}</a>", esc(&page_path(&e.id)), id_html(&e.id))
            } else {
                id_html(&e.id)
            };
            format!(
                "<tr><td>{name}</td><td>{}</td><td>{}</td><td>{} → {}</td><td>{}</td><td>{}</td></tr>",
                esc(&c.metric),
                esc(&relative_text(c.relative())),
                value(c.before, c.unit),
                value(c.after, c.unit),
                esc(&c.short_commit().unwrap_or_default()),
                match c.runs_ago {
                    0 => "this run".to_string(),
                    n => format!("{} ago", count(n, "run")),
                }
            )
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h2 id=\"changed\">Changed in the last {RECENT_RUNS} runs</h2>\n<p>Change points of \
         each benchmark's history (its headline over its stored runs) among its last \
         {RECENT_RUNS} runs.</p>\n<table class=\"changed\">\n<tr><th>benchmark</th><th>metric</th>\
         <th>step</th><th>level</th><th>commit</th><th>since</th></tr>"
    );
    write_capped(out, &rows, "change point");
}

/// The first [`MAX_ROWS`] of `rows` and the table's end, then how many
/// more `what`s there were, so that the first page of the index stays
/// small however much changed at once.
pub(super) fn write_capped(out: &mut String, rows: &[String], what: &str) {
    for row in rows.iter().take(MAX_ROWS) {
        out.push_str(row);
        out.push('\n');
    }
    out.push_str("</table>\n");
    if rows.len() > MAX_ROWS {
        let _ = writeln!(
            out,
            "<p class=\"note\">And {} more.</p>",
            count(rows.len() - MAX_ROWS, what)
        );
    }
}
