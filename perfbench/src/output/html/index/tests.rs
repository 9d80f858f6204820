//! Tests of the index: its summary's rows, columns and change cells, the
//! metrics it folds, the charts of `args` families, and its split into
//! pages. The summary is read back cell by cell ([`summary_cell`]).

use std::ops::Range;

use super::{split_rows, ROWS_PER_PAGE_BYTES};
use crate::analysis::comparison::Target;
use crate::output::html::page_path;
use crate::output::html::tests::{
    attributes, between, cell_texts, page, report, save, Run, TempStore,
};
use crate::output::html::text::{esc, id_html};
use crate::store::Slot;

/// The summary table.
fn summary(index: &str) -> &str {
    let table = &index[index
        .find("<table class=\"sortable\" id=\"summary\">")
        .unwrap()..];
    &table[..table.find("</table>").unwrap()]
}

/// The summary's rows, each from its `<tr` to its `</tr>`.
fn summary_rows(index: &str) -> Vec<&str> {
    let table = summary(index);
    let body = &table[table.find("<tbody>").unwrap()..];
    body.split("<tr").skip(1).collect()
}

/// The summary row of `id`.
fn summary_row<'a>(index: &'a str, id: &str) -> &'a str {
    let rows: Vec<&str> = summary_rows(index)
        .into_iter()
        .filter(|row| row.contains(&format!(" data-s=\"{}\">", esc(id))))
        .collect();
    assert_eq!(rows.len(), 1, "one row of {id}");
    rows[0]
}

/// The metrics the summary has columns for, in order.
fn summary_metrics(index: &str) -> Vec<String> {
    let table = summary(index);
    let head = &table[table.find("<thead>").unwrap()..table.find("</thead>").unwrap()];
    let first = &head[..head.find("</tr>").unwrap()];
    first
        .split("<th ")
        .skip(2)
        .map(|th| {
            let text = &th[th.find('>').unwrap() + 1..];
            text[..text.find('<').unwrap()].to_string()
        })
        .collect()
}

/// The estimate cell of `id`'s `metric`, and its change cell where the
/// summary has change columns.
fn summary_cell<'a>(index: &'a str, id: &str, metric: &str) -> (&'a str, Option<&'a str>) {
    let metrics = summary_metrics(index);
    let k = metrics
        .iter()
        .position(|m| m == metric)
        .unwrap_or_else(|| panic!("no column of {metric} in {metrics:?}"));
    let cells: Vec<&str> = summary_row(index, id).split("<td").skip(2).collect();
    let per_metric = cells.len() / metrics.len();
    assert_eq!(cells.len(), per_metric * metrics.len(), "{cells:?}");
    (
        cells[k * per_metric],
        (per_metric == 2).then(|| cells[k * per_metric + 1]),
    )
}

/// The change cell of `id`'s `metric`.
fn change_cell<'a>(index: &'a str, id: &str, metric: &str) -> &'a str {
    summary_cell(index, id, metric).1.expect("change columns")
}

#[test]
fn rows_fill_what_the_first_page_leaves_then_whole_pages() {
    let row = "x".repeat(400_000);
    let rows = vec![row; 9];
    // The first page's groups and charts leave room for two rows.
    assert_eq!(
        split_rows(&rows, ROWS_PER_PAGE_BYTES - 600_000),
        [0..2, 2..5, 5..8, 8..9]
    );
    // A row larger than a page still gets one, and no rows one page.
    assert_eq!(split_rows(&rows[..1], 0), vec![Range { start: 0, end: 1 }]);
    assert_eq!(split_rows(&[], 0), vec![Range { start: 0, end: 0 }]);
}

#[test]
fn the_index_lists_every_stored_benchmark_and_links_only_to_pages() {
    let store = TempStore::new("index");
    for id in ["in_run", "not_in_run", "also/1"] {
        save(&store, &Slot::Latest, Run::of(id));
    }
    let damaged = store.path("damaged", &Slot::Latest);
    std::fs::create_dir_all(damaged.parent().unwrap()).unwrap();
    std::fs::write(&damaged, "{").unwrap();
    let links = |index: &str| -> Vec<String> {
        let mut links: Vec<String> = attributes(index, "href")
            .into_iter()
            .map(String::from)
            .collect();
        links.dedup();
        links
    };

    let index = report(
        &store,
        &["in_run", "never_stored"],
        true,
        Target::PreviousRun,
    );
    assert_eq!(summary_metrics(&index), ["wall-time", "page-faults"]);
    assert_eq!(summary_rows(&index).len(), 3, "one row per benchmark");
    for id in ["in_run", "not_in_run", "also/1"] {
        assert!(index.contains(&id_html(id)), "{id} listed");
        let (wall, change) = summary_cell(&index, id, "wall-time");
        assert!(wall.starts_with(" class=\"num\" data-v=\"250.0"), "{wall}");
        assert!(wall.contains(">250.0 ns <small>± "), "{wall}");
        let (faults, _) = summary_cell(&index, id, "page-faults");
        assert!(
            faults.contains("title=\"95 % interval [16, 16]\">16 <small>± 0</small>"),
            "{faults}"
        );
        assert!(change.unwrap().contains(">—<"), "nothing to compare with");
    }
    // The benchmarks of the run, and the others, marked.
    assert!(!summary_row(&index, "in_run").contains("earlier run"));
    for id in ["not_in_run", "also/1"] {
        let row = summary_row(&index, id);
        assert!(row.starts_with(" class=\"stale\">"), "{row}");
        assert!(row.contains("<span class=\"badge stale\">earlier run</span>"));
    }
    assert!(index.contains(
        "marks 2 benchmarks this run did not measure (left out by a filter, or no longer in \
         the code): their figures, and the change, are from each one's latest stored \
         run, as that run compared it."
    ));
    assert!(index.contains("3 benchmarks stored in this output directory, 1 of them measured"));
    assert_eq!(links(&index), [page_path("in_run")]);
    assert!(!index.contains("never_stored"));
    assert!(
        index.contains(&esc(&damaged.display().to_string())),
        "the damaged file is named"
    );
    assert!(index.contains("not valid JSON"));
    for href in links(&index) {
        assert!(store.root().join("report").join(href).is_file());
    }

    // A later run of another benchmark: both pages exist, both linked.
    let index = report(&store, &["not_in_run"], true, Target::PreviousRun);
    assert_eq!(
        links(&index),
        [page_path("in_run"), page_path("not_in_run")]
    );
    assert!(!summary_row(&index, "also/1").contains("<a "));
    assert!(summary_row(&index, "in_run").contains("earlier run"));
    assert!(!summary_row(&index, "not_in_run").contains("earlier run"));
}

#[test]
fn benchmarks_with_args_get_a_chart_per_metric() {
    let store = TempStore::new("args");
    let ids = [
        "zeroed/64",
        "zeroed/4096",
        "zeroed/65536",
        "parse/emoji 🦀",
        "parse/ascii",
        "plain",
    ];
    for (i, id) in ids.iter().enumerate() {
        save(&store, &Slot::Latest, Run::counting(id, &[i as u64 + 1]));
    }
    let index = report(&store, &ids, true, Target::PreviousRun);
    let section = |name: &str| -> &str {
        let start = index
            .find(&format!("<h3>{name} <small>"))
            .unwrap_or_else(|| panic!("no {name}"));
        let rest = &index[start..];
        &rest[..rest.find("</section>").unwrap()]
    };
    let zeroed = section("zeroed");
    assert!(
        zeroed.contains("(3 arguments, logarithmic axis)"),
        "{zeroed}"
    );
    assert_eq!(
        zeroed.matches("<svg").count(),
        2,
        "wall time and page faults"
    );
    assert!(zeroed.contains("page-faults of <code>zeroed</code> against the argument"));
    let parse = section("parse");
    assert!(parse.contains("(2 arguments, in the order of the run)"));
    assert_eq!(parse.matches("<svg").count(), 2);
    let (emoji, ascii) = (
        parse.find("emoji 🦀").unwrap(),
        parse.find("ascii").unwrap(),
    );
    assert!(emoji < ascii, "categories keep the run's order");
    assert!(!index.contains("<h3>plain"), "no chart without args");
    assert_eq!(index.matches("<svg").count(), 4);
}

#[test]
fn metrics_zero_in_every_benchmark_are_folded_and_named() {
    let store = TempStore::new("fold");
    let events = "page-faults,major-faults,alignment-faults";
    for (id, per_iter) in [("a", [16, 0, 0]), ("b", [0, 0, 1]), ("c", [3, 0, 0])] {
        let run = Run {
            events,
            per_iter: &per_iter,
            ..Run::of(id)
        };
        save(&store, &Slot::Latest, run);
    }
    let index = report(&store, &["a", "b", "c"], true, Target::PreviousRun);
    // Zero in two of three is not zero everywhere: it stays.
    assert_eq!(
        summary_metrics(&index),
        ["wall-time", "page-faults", "alignment-faults"]
    );
    assert!(
        index.contains(
            "<p class=\"note\" id=\"folded\">Not shown, as every benchmark counts it 0 or \
             under one per 1,000 iterations (the largest rate in brackets; a regression or an \
             improvement of it is listed under Changed in this run): major-faults (0).</p>"
        ),
        "{index}"
    );
    assert_eq!(summary_rows(&index).len(), 3);
    // Quiet in b alone: its estimate without the ± of noise around nothing.
    let (quiet, _) = summary_cell(&index, "b", "page-faults");
    assert!(
        quiet.starts_with(" class=\"num quiet\" data-v=\"0\""),
        "{quiet}"
    );
    assert!(quiet.ends_with(">0</td>"), "{quiet}");
    assert!(index.contains("<p class=\"note\" id=\"quiet\">"));

    // Nothing zero everywhere: no note.
    let store = TempStore::new("nofold");
    save(&store, &Slot::Latest, Run::default());
    let index = report(&store, &["x"], true, Target::PreviousRun);
    assert!(!index.contains("id=\"folded\""));
    assert_eq!(summary_metrics(&index), ["wall-time", "page-faults"]);
}

#[test]
fn a_group_charts_no_metric_that_is_zero_for_every_argument() {
    let store = TempStore::new("groupzero");
    let ids = ["g/1", "g/17", "g/100"];
    for (i, id) in ids.iter().enumerate() {
        let run = Run {
            events: "page-faults,major-faults,minor-faults",
            per_iter: &[i as u64 + 1, 0, 0],
            ..Run::of(id)
        };
        save(&store, &Slot::Latest, run);
    }
    let index = report(&store, &ids, true, Target::PreviousRun);
    let section = &index[index.find("<section class=\"group\"").unwrap()..];
    assert!(section.starts_with(
        "<section class=\"group\" id=\"group-0\" data-axis=\"log\">\n\
         <h3>g <small>(3 arguments, logarithmic axis)</small></h3>\n\
         <p class=\"note zero-metrics\">Zero or rare (under one per 1,000 iterations) for \
         every argument, so not charted (the largest rate in brackets): major-faults (0), \
         minor-faults (0).</p>"
    ));
    assert_eq!(
        attributes(section, "data-metric"),
        ["wall-time", "page-faults"]
    );
    assert_eq!(section.matches("<svg").count(), 2);
}

#[test]
fn change_cells_carry_the_verdict_class() {
    let store = TempStore::new("verdicts");
    let main = Slot::Baseline("main".into());
    for (id, before, now) in [("worse", 16, 17), ("better", 16, 15), ("same", 16, 16)] {
        save(&store, &main, Run::counting(id, &[before]));
        save(&store, &Slot::Latest, Run::counting(id, &[now]));
    }
    save(&store, &Slot::Latest, Run::of("new"));
    let index = report(
        &store,
        &["worse", "better", "same", "new"],
        true,
        Target::Baseline("main".into()),
    );
    let worse = change_cell(&index, "worse", "page-faults");
    assert!(
        worse.starts_with(
            " class=\"num change regressed\" data-v=\"0.0625\" title=\"regressed, 95 % \
             interval [+6.25%, +6.25%], p = 0.000\">+6.25%</td>"
        ),
        "{worse}"
    );
    let better = change_cell(&index, "better", "page-faults");
    assert!(
        better.starts_with(" class=\"num change improved\" data-v=\"-0.0625\""),
        "{better}"
    );
    assert!(better.contains(" title=\"improved, 95 % interval [-6.25%, -6.25%]"));
    assert!(better.contains(">-6.25%</td>"), "{better}");
    let same = change_cell(&index, "same", "page-faults");
    assert!(
        same.starts_with(" class=\"num change no-change\""),
        "{same}"
    );
    // Identical wall times: no change either.
    assert!(change_cell(&index, "worse", "wall-time").contains("change no-change"));
    let new = summary_row(&index, "new");
    assert!(
        new.contains("<span class=\"badge\" title=\"not in baseline main\">new</span>"),
        "{new}"
    );
    assert!(change_cell(&index, "new", "page-faults")
        .starts_with(" class=\"num change\" title=\"not in baseline main\">—<"));
    assert!(!summary_row(&index, "worse").contains("badge"));
    assert!(page(&store, "worse").contains("<td class=\"change regressed\""));

    // Against the previous run, the run's benchmarks have their changes
    // (kept in memory), and the others, not run, the change their own
    // run found (here against baseline main), said so on hover.
    save(&store, &Slot::Previous, Run::counting("better", &[16]));
    let previous = Slot::Baseline("previous".into());
    save(&store, &previous, Run::counting("worse", &[16]));
    let index = report(&store, &["worse"], true, Target::PreviousRun);
    assert!(index.contains("<th class=\"num\" data-col=\"2\">change</th>"));
    let worse = change_cell(&index, "worse", "page-faults");
    assert!(
        worse.starts_with(" class=\"num change regressed\" data-v=\"0.0625\""),
        "{worse}"
    );
    let better = change_cell(&index, "better", "page-faults");
    assert!(better.contains(
        " title=\"improved, 95 % interval [-6.25%, -6.25%], p = 0.000; as its own run \
         compared it, against baseline main\">-6.25%</td>"
    ));
    assert!(summary_row(&index, "better").contains("earlier run"));
    let new = summary_row(&index, "new");
    assert!(
        new.contains("<span class=\"badge\" title=\"not in baseline main\">new</span>"),
        "{new}"
    );
    assert!(index.contains("Changes of the benchmarks of this run are against the previous run"));
    let page = page(&store, "worse");
    assert!(page.contains("<tr><td>change vs the previous run</td><td class=\"change regressed\""));
}

/// The environment table's rows.
fn environment_rows(index: &str) -> Vec<&str> {
    let table = &index[index.find("<table id=\"environment\">").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    table.split("<tr><td>").skip(1).collect()
}

#[test]
fn the_environment_lists_each_commit_and_notes_only_another_machine() {
    let store = TempStore::new("index-origin");
    let (a, b) = ("a".repeat(40), "b".repeat(40));
    for (id, commit) in [("one", &a), ("two", &b)] {
        let run = Run {
            commit: Some(commit),
            ..Run::of(id)
        };
        save(&store, &Slot::Latest, run);
    }
    let index = report(&store, &["one", "two"], false, Target::PreviousRun);
    let rows = environment_rows(&index);
    assert_eq!(rows.len(), 2, "{index}");
    assert!(rows[0].contains("<td>aaaaaaa</td>"), "{}", rows[0]);
    assert!(rows[1].contains("<td>bbbbbbb</td>"), "{}", rows[1]);
    assert!(!index.contains("more than one environment"), "{index}");
    let elsewhere = Run {
        commit: Some(&b),
        cpu_model: "another cpu",
        ..Run::of("three")
    };
    save(&store, &Slot::Latest, elsewhere);
    let index = report(&store, &["one", "two", "three"], false, Target::PreviousRun);
    assert_eq!(environment_rows(&index).len(), 3, "{index}");
    assert!(index.contains("more than one environment"), "{index}");
    let page = page(&store, "one");
    let origin = "<p id=\"origin\">Measured at aaaaaaa on main, started 2026-11-25T12:00:00Z.</p>";
    assert!(page.contains(origin), "{page}");
}

/// The rows of the "Changed in this run" table: each row's cells' text.
fn run_changes(index: &str) -> Vec<Vec<String>> {
    let table = between(index, "id=\"changed-now-table\"", "</table>");
    cell_texts(table, "<tr class=")
}

#[test]
fn the_index_leads_with_this_run_s_regressions_then_its_improvements() {
    let store = TempStore::new("run-changes");
    let main = Slot::Baseline("main".into());
    let runs = [
        ("better", 16, 12),
        ("worse/10", 16, 17),
        ("same", 16, 16),
        ("worse/2", 16, 20),
        ("not_run", 16, 32),
    ];
    for (id, before, now) in runs {
        save(&store, &main, Run::counting(id, &[before]));
        save(&store, &Slot::Latest, Run::counting(id, &[now]));
    }
    let against = Target::Baseline("main".into());
    let run = ["better", "worse/10", "same", "worse/2"];
    let index = report(&store, &run, true, against.clone());
    let section = index
        .find("<h2 id=\"changed-now\">Changed in this run</h2>")
        .unwrap();
    assert!(section < index.find("<h2>Environment</h2>").unwrap());
    assert!(section < index.find("<h2>Summary</h2>").unwrap());
    let target = "baseline main";
    assert_eq!(
        run_changes(&index),
        [
            [
                "worse/2",
                "page-faults",
                "regressed",
                "+25.00%",
                "[+25.00%, +25.00%]",
                target
            ],
            [
                "worse/10",
                "page-faults",
                "regressed",
                "+6.25%",
                "[+6.25%, +6.25%]",
                target
            ],
            [
                "better",
                "page-faults",
                "improved",
                "-25.00%",
                "[-25.00%, -25.00%]",
                target
            ],
        ],
        "regressions, then improvements, each in natural order; not_run was not run"
    );
    assert!(index.contains(&format!(
        "<a href=\"{}\">{}</a>",
        page_path("worse/2"),
        id_html("worse/2")
    )));

    // Nothing beyond the noise: one line, against what.
    let index = report(&store, &["same"], true, against.clone());
    assert!(index.contains(
        "<p id=\"nothing-changed\">Nothing changed beyond the noise against baseline \
         <code>main</code>: no regression or improvement in 1 benchmark compared.</p>"
    ));
    assert!(!index.contains("changed-now-table"));
    // Nothing stored to compare with.
    save(&store, &Slot::Latest, Run::of("fresh"));
    let index = report(&store, &["fresh"], true, against);
    assert!(index.contains(
        "<p id=\"nothing-changed\">Nothing to compare: no benchmark of this run has a \
         stored run in baseline <code>main</code>.</p>"
    ));
}

#[test]
fn rows_come_in_natural_order_of_id() {
    let store = TempStore::new("natural");
    let ids = ["t/10", "t/2", "decode/1024", "t/1", "decode/307"];
    for id in ids {
        save(&store, &Slot::Latest, Run::of(id));
    }
    let index = report(&store, &ids, false, Target::PreviousRun);
    let order: Vec<&str> = summary_rows(&index)
        .iter()
        .map(|row| {
            let at = row.find(" data-s=\"").unwrap() + 9;
            &row[at..at + row[at..].find('"').unwrap()]
        })
        .collect();
    assert_eq!(order, ["decode/307", "decode/1024", "t/1", "t/2", "t/10"]);
}

#[test]
fn a_quiet_count_s_change_shows_only_a_verdict_that_matters() {
    let store = TempStore::new("quiet-change");
    let main = Slot::Baseline("main".into());
    save(&store, &main, Run::counting("q", &[16]));
    save(&store, &Slot::Latest, Run::counting("q", &[17]));
    let against = Target::Baseline("main".into());
    let a = crate::output::html::tests::analysed(&store, "q", &against).unwrap();
    let mut e = crate::store::bench_summary::BenchSummary::of(&a);
    // Made rare: 2e-6 page faults per iteration, judged regressed.
    let m = e
        .metrics
        .iter_mut()
        .find(|m| m.name == "page-faults")
        .unwrap();
    m.estimate.point = 2e-6;
    m.estimate.ci.low = -2.771e-5;
    m.estimate.ci.high = 3e-5;
    let unit = m.unit;
    let cell = super::change_cell(&e, "page-faults", &against);
    assert!(
        cell.starts_with("<td class=\"num change regressed\" data-v=\"0.0625\""),
        "{cell}"
    );
    assert!(cell.ends_with(">regressed</td>"), "{cell}");
    let estimate = super::estimate_cell(&e, "page-faults", unit);
    assert!(!estimate.contains('±'), "{estimate}");
    // Within the noise: nothing at all.
    let c = e.comparison.as_mut().unwrap().changes.as_mut().unwrap();
    c.iter_mut()
        .find(|c| c.name == "page-faults")
        .unwrap()
        .verdict = crate::analysis::comparison::Verdict::WithinNoise;
    let cell = super::change_cell(&e, "page-faults", &against);
    assert!(cell.ends_with("\"></td>"), "{cell}");
    assert!(!cell.contains('%'), "{cell}");
}
