//! Tests of a group's page: its members side by side at each argument and
//! across them, members of earlier runs, members the run does not tell
//! apart, metrics zero for every member, and members apart.

use crate::analysis::comparison::Target;
use crate::analysis::{analyze, standings, Analysed, Calibration, Recording};
use crate::output::html::plots::tests::{circles, joining};
use crate::output::html::tests::{
    between, cell_texts, options, read, uncompared, write, TempStore, ESCAPED, HOSTILE,
};
use crate::output::html::{group_page_path, page_path};
use crate::store::{Slot, Store};

/// The recording of member `name` of `group` at `arg`: exactly `faults`
/// page faults and 200 ns and 50 more per fault per iteration.
fn recording(group: &str, name: &str, arg: Option<&str>, faults: u64) -> Recording {
    standings::tests::recording(group, name, arg, (200 + 50 * faults, faults))
}

/// [`recording`] analysed, as a run hands it to the report.
fn member(group: &str, name: &str, arg: Option<&str>, faults: u64) -> Analysed {
    uncompared(recording(group, name, arg, faults))
}

/// Writes the report of `run`, compared with the previous run; returns
/// its index.
fn report(store: &Store, run: &[Analysed], plots: bool) -> String {
    write(store, run, &options(plots, Target::PreviousRun))
}

/// The figures of `html` whose chart is `chart`, each as written.
fn figures<'a>(html: &'a str, chart: &str) -> Vec<&'a str> {
    let start = format!("<figure data-chart=\"{chart}\"");
    html.match_indices(&start)
        .map(|(i, _)| between(&html[i..], &start, "</figure>"))
        .collect()
}

/// The section of `page` of its `i`th argument.
fn argument_section(page: &str, i: usize) -> &str {
    let start = format!("<section class=\"argument\" id=\"arg-{i}\"");
    between(page, &start, "</section>")
}

/// The standing's rows of an argument's section: each row's cells'
/// text, tags removed.
fn standing_rows(section: &str) -> Vec<Vec<String>> {
    let body = between(section, "<tbody>", "</tbody>");
    cell_texts(body, "<tr")
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
    let store = TempStore::new("group");
    let mut run = paging();
    run.push(member("alone", "only", None, 1));
    let index = report(&store, &run, true);
    let page = read(&store, "group/paging.html");
    assert!(page.contains("<h1>group paging</h1>"), "{page}");
    assert!(page.contains("<p id=\"members\">2 members: single, triple, in 4 benchmarks."));
    assert!(!page.contains("<script"), "no script on a group page");

    let at_1 = argument_section(&page, 0);
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
        "<a href=\"../{}\"><span class=\"seg\">single</span></a>",
        page_path("paging::single/1")
    )));
    let at_2 = argument_section(&page, 1);
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
    let triple = read(&store, &page_path("paging::triple/1"));
    assert!(triple.contains(
        " · <a class=\"group-link\" href=\"../group/paging.html\">group paging</a></nav>"
    ));
    // A group of one member: no page, no link.
    assert!(!index.contains("group alone") && !index.contains("group/alone"));
    assert!(!read(&store, &page_path("alone::only")).contains("class=\"group-link\""));
    let pages = std::fs::read_dir(store.root().join("report/group")).unwrap();
    let pages: Vec<_> = pages.flatten().map(|f| f.file_name()).collect();
    assert_eq!(pages, ["paging.html"]);
}

#[test]
fn earlier_runs_are_marked_and_hostile_group_names_stay_text() {
    let store = TempStore::new("group-stale");
    let stored = recording(HOSTILE, "<u>", Some("1"), 4);
    let result = analyze(&stored, &Calibration::default());
    store.save(&stored, &Slot::Latest, &result).unwrap();
    let run = [member(HOSTILE, "plain", Some("1"), 2)];
    let index = report(&store, &run, true);
    let path = group_page_path(HOSTILE);
    assert!(path.starts_with("group/") && !path.contains('<'), "{path}");
    let page = read(&store, &path);
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
    let store = TempStore::new("group-unsettled");
    let mut noisy = recording("g", "noisy", None, 1);
    // 150 ns per iteration in one round and 450 in the other, where the
    // other member takes 250 in both.
    let iterations = noisy.iterations.clone();
    for (k, t) in noisy.series[0].totals.iter_mut().enumerate() {
        *t = iterations[k] * if noisy.rounds[k] == 0 { 150 } else { 450 };
    }
    let noisy = uncompared(noisy);
    report(&store, &[member("g", "exact", None, 1), noisy], false);
    let page = read(&store, "group/g.html");
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
    let store = TempStore::new("group-zero");
    let run = [member("g", "a", None, 0), member("g", "b", None, 0)];
    report(&store, &run, true);
    let page = read(&store, "group/g.html");
    assert_eq!(
        page.matches("<p class=\"note zero-metrics\">").count(),
        1,
        "{page}"
    );
    assert!(page.contains(
        "<p class=\"note zero-metrics\">Zero or rare (under one per 1,000 iterations) for \
         every member, so not shown (the largest rate in brackets): page-faults (0).</p>\n\
         <table class=\"standing\">"
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
    let store = TempStore::new("group-apart");
    let run = [
        member("setup", "mix_plain", None, 1),
        member("setup", "mix_batched", Some("small"), 1),
        member("setup", "mix_batched", Some("large"), 1),
    ];
    report(&store, &run, true);
    let page = read(&store, "group/setup.html");
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
    report(&store, &paging(), false);
    let page = read(&store, "group/paging.html");
    assert!(!page.contains("<svg") && !page.contains("id=\"family\""));
    assert_eq!(page.matches("<table class=\"standing\">").count(), 2);
}
