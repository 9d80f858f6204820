//! End to end: the HTML report of a `cargo bench` run, opened in headless
//! Chromium (tests/browser/check.mjs). CI installs Chromium and the checker;
//! elsewhere the browser part is skipped with a message when they are absent.

mod common;

use std::path::{Path, PathBuf};

use common::browser::check_in_browser;
use common::json::Fields;
use common::{bench_target_with_env, bench_with_env, counted, Run, QUICK};
use serde_json::Value;

const HOSTILE: &str = "<script>alert(1)</script>";

fn home(name: &str) -> PathBuf {
    common::fresh_dir("report", name)
}

fn bench(home: &Path, args: &[&str]) -> Run {
    let all: Vec<&str> = QUICK.iter().chain(args).copied().collect();
    bench_with_env(&all, &[("PERFBENCH_HOME", home.to_str().unwrap())])
}

/// `cargo bench --bench forms` (tests/benches/forms.rs) with short times,
/// counting page faults, its results under `home`.
fn forms(home: &Path, args: &[&str]) -> Run {
    let all: Vec<&str> = QUICK
        .iter()
        .chain(&["--events", "page-faults"])
        .chain(args)
        .copied()
        .collect();
    let run = bench_target_with_env("forms", &all, &[("PERFBENCH_HOME", home.to_str().unwrap())]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

/// Every HTML file under `dir`, recursively.
fn html_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(html_files(&path));
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn the_report_opens_cleanly_in_a_browser_and_shows_hostile_names_as_text() {
    let home = home("browser");
    let run = bench(
        &home,
        &[
            "--exact",
            "touch_16",
            "text/ascii",
            &format!("text/{HOSTILE}"),
            "--events",
            "task-clock,page-faults",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = home.join("report");
    let index = report.join("index.html");
    assert!(index.is_file(), "no report at {}", index.display());
    let pages = html_files(&report);
    assert!(
        pages.len() >= 4,
        "an index and a page per benchmark: {pages:?}"
    );
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        assert!(
            !html.contains(HOSTILE),
            "unescaped name in {}",
            page.display()
        );
        assert!(
            page.starts_with(&report),
            "{} outside the report",
            page.display()
        );
    }
    let hostile_pages: Vec<PathBuf> = pages
        .iter()
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("&lt;script&gt;alert(1)&lt;/script&gt;")
        })
        .cloned()
        .collect();
    assert!(
        hostile_pages.contains(&index),
        "the index lists the hostile id"
    );
    assert!(
        hostile_pages.len() >= 2,
        "the hostile benchmark has its own page: {hostile_pages:?}"
    );

    if let Some(results) = check_in_browser(&hostile_pages, &[HOSTILE]) {
        assert_eq!(results.len(), hostile_pages.len());
        for r in &results {
            assert_eq!(r["ok"], true, "{r}");
            assert_eq!(r["scripts_with_alert"], 0, "{r}");
        }
        let index_result = results
            .iter()
            .find(|r| r.str_at("file").ends_with("report/index.html"))
            .unwrap();
        assert!(index_result.u64_at("rows") >= 3, "{index_result}");
        let page = results
            .iter()
            .find(|r| !r.str_at("file").ends_with("report/index.html"))
            .unwrap();
        assert!(
            page.u64_at("svgs") + page.u64_at("images") > 0,
            "a page with plots: {page}"
        );
    }
    let others: Vec<PathBuf> = pages
        .into_iter()
        .filter(|p| !hostile_pages.contains(p))
        .collect();
    if let Some(results) = check_in_browser(&others, &[]) {
        assert!(results.iter().all(|r| r["ok"] == true), "{results:?}");
    }
}

#[test]
fn noplot_writes_tables_without_plots() {
    let home = home("noplot");
    let run = bench(
        &home,
        &["--exact", "touch_16", "--events", "page-faults", "--noplot"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let pages = html_files(&home.join("report"));
    assert!(!pages.is_empty());
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        assert!(!html.contains("<svg"), "a plot in {}", page.display());
        assert!(html.contains("touch_16"), "{}", page.display());
    }
}

/// The fixtures' events here: `alignment-faults` never happens in these
/// routines, so it is zero for every benchmark.
const EVENTS: &str = "task-clock,page-faults,alignment-faults";

/// The names of [`EVENTS`] as this environment counts them (as nobody,
/// `page-faults:u`); every one is counted where page faults are.
fn here() -> [String; 3] {
    ["task-clock", "page-faults", "alignment-faults"]
        .map(|e| counted(e).unwrap_or_else(|| panic!("{e} is not counted here")))
}

/// The first item of the JSON array `list` whose `key` is `value`.
fn item<'a>(list: &'a Value, key: &str, value: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|v| v[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value} in {list}"))
}

/// The figures of the chart of `metric` in `chart` whose section is `section`.
fn chart<'a>(page: &'a Value, chart: &str, metric: &str, section: &str) -> &'a Value {
    page.array_at("figures")
        .iter()
        .find(|f| f["chart"] == chart && f["metric"] == metric && f["section"] == section)
        .unwrap_or_else(|| panic!("no {chart} chart of {metric} in {section}: {page}"))
}

/// `(x, y)` pairs of a JSON array of arrays.
fn xy(points: &Value) -> Vec<(f64, f64)> {
    points
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p.f64_at(0), p.f64_at(1)))
        .collect()
}

/// The polylines of a chart with a vertex on two or more of its circles.
fn joining_lines(figure: &Value) -> usize {
    let circles = xy(&figure["circles"]);
    figure
        .array_at("polylines")
        .iter()
        .filter(|line| {
            let vertices = xy(line);
            let through = circles
                .iter()
                .filter(|c| {
                    vertices
                        .iter()
                        .any(|v| (c.0 - v.0).abs() < 1.0 && (c.1 - v.1).abs() < 1.0)
                })
                .count();
            through >= 2
        })
        .count()
}

/// The id of the section of the group `title` on the index.
fn group_id<'a>(index: &'a Value, title: &str) -> &'a str {
    item(&index["groups"], "title", title).str_at("id")
}

/// A rate as a page writes it (`1.234 GB/s`, decimal as libtest's MB/s),
/// in bytes per second.
fn bytes_per_second(text: &str) -> f64 {
    let (number, unit) = text.split_once(' ').unwrap();
    let power = ["B/s", "kB/s", "MB/s", "GB/s", "TB/s"]
        .iter()
        .position(|u| *u == unit)
        .unwrap_or_else(|| panic!("unit of {text}"));
    number.parse::<f64>().unwrap() * 1000f64.powi(power as i32)
}

#[test]
fn the_index_and_charts_show_what_the_run_measured_in_a_browser() {
    // The charts are of counts and task-clock.
    if common::page_faults().is_none() {
        return;
    }
    let home = home("charts");
    // touch_n is measured once, then left out: an earlier run's benchmark.
    let first = bench(&home, &["--exact", "touch_n", "--events", EVENTS]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let ids = [
        "touch_16",
        "touch_batched/1",
        "touch_batched/17",
        "text/ascii",
        "text/emoji 🦀",
        "text/<script>alert(1)</script>",
    ];
    let mut args = vec!["--output-format", "json", "--events", EVENTS, "--exact"];
    args.extend(ids);
    let run = bench(&home, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.json();
    let line = |id: &str| lines.iter().find(|l| l["id"] == id).unwrap().clone();

    let report = home.join("report");
    let page_of = |id: &str| {
        let id_html = id.replace('<', "&lt;").replace('>', "&gt;");
        html_files(&report)
            .into_iter()
            .find(|p| {
                std::fs::read_to_string(p)
                    .unwrap()
                    .contains(&format!("<h1>{id_html}</h1>"))
            })
            .unwrap_or_else(|| panic!("no page of {id}"))
    };
    let pages = [
        report.join("index.html"),
        page_of("touch_16"),
        page_of("text/ascii"),
    ];
    let Some(results) = check_in_browser(&pages, &[]) else {
        return;
    };
    for r in &results {
        assert_eq!(r["ok"], true, "{r}");
    }
    let (index, touch_16, ascii) = (&results[0], &results[1], &results[2]);
    index_shows_a_row_per_benchmark(index);
    argument_charts_fit_their_arguments(index);
    regression_band_is_the_slope_interval(touch_16, &line("touch_16"));
    throughput_is_the_bytes_over_the_wall_time(ascii, index, &line("text/ascii"));
}

/// One row per benchmark, the metrics as columns but the one zero
/// everywhere, folded away and named; touch_n marked as from an earlier
/// run; the table across the page and sortable.
fn index_shows_a_row_per_benchmark(index: &Value) {
    let summary = &index["summary"];
    let [clock, faults, alignment] = here();
    assert_eq!(
        summary["metrics"],
        serde_json::json!(["wall-time", clock, faults])
    );
    let folded = index.str_at("folded");
    assert!(folded.ends_with(&format!(": {alignment} (0).")), "{folded}");
    let rows = summary.array_at("rows");
    assert_eq!(rows.len(), 7, "one row per benchmark: {rows:?}");
    let stale: Vec<&Value> = rows.iter().filter(|r| r["stale"] == true).collect();
    assert_eq!(stale.len(), 1, "{rows:?}");
    assert_eq!(stale[0]["id"], "touch_n");
    assert_eq!(stale[0]["stale_badge"], "earlier run", "a visible mark");
    let note = index.str_at("stale_note");
    assert!(
        note.starts_with("earlier run marks 1 benchmark this run did not measure"),
        "{note}"
    );
    let touch_16 = item(&summary["rows"], "id", "touch_16");
    // page-faults' estimate: the third metric, after an estimate and a
    // change for each of the two before it.
    assert_eq!(touch_16["cells"][4], "16 ± 0", "{touch_16}");
    let (width, body) = (summary.f64_at("width"), summary.f64_at("body_width"));
    assert!(width >= 0.95 * body, "the table takes {width} of {body} px");
    let sorted: Vec<f64> = summary
        .array_at("sorted")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert!(
        sorted.windows(2).all(|w| w[0] <= w[1]),
        "ascending after a click: {sorted:?}"
    );
}

/// touch_batched (1 and 17 pages) on a logarithmic axis, its points joined;
/// text's categories apart; no chart of a metric zero for every argument.
fn argument_charts_fit_their_arguments(index: &Value) {
    let [clock, faults, alignment] = here();
    let batched = group_id(index, "touch_batched");
    let faults = chart(index, "argument", &faults, batched);
    assert_eq!(faults["axis"], "log");
    let mut points = xy(&faults["circles"]);
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(points.len(), 2, "{faults}");
    // The x axis' label 10, below the chart (the y axis may have one too).
    let ten = faults
        .array_at("texts")
        .iter()
        .filter(|t| t["text"] == "10")
        .max_by(|a, b| a.f64_at("y").total_cmp(&b.f64_at("y")))
        .unwrap_or_else(|| panic!("a tick at 10: {faults}"));
    // On a log axis 10 lies log(10)/log(17) = 81 % of the way from 1 to 17;
    // on a linear one 9/16 = 56 %.
    let share = (ten.f64_at("x") - points[0].0) / (points[1].0 - points[0].0);
    assert!((share - 0.8127).abs() < 0.03, "10 at {share} of the way");
    assert_eq!(joining_lines(faults), 1, "numbers are joined");
    // 17 faults sit higher than 1.
    assert!(points[1].1 < points[0].1);

    let text = group_id(index, "text");
    let time = chart(index, "argument", &clock, text);
    assert_eq!(time["axis"], "categorical");
    let mut xs: Vec<f64> = xy(&time["circles"]).iter().map(|c| c.0).collect();
    xs.sort_by(f64::total_cmp);
    assert_eq!(xs.len(), 3, "{time}");
    assert!(
        ((xs[1] - xs[0]) - (xs[2] - xs[1])).abs() <= 1.0,
        "evenly apart: {xs:?}"
    );
    assert_eq!(joining_lines(time), 0, "categories are not joined: {time}");

    for group in [batched, text] {
        let zero = item(&index["groups"], "id", group)["zero"]
            .as_str()
            .unwrap_or_default();
        assert!(zero.contains(&alignment), "{group}: {zero}");
    }
    assert!(
        !index
            .array_at("figures")
            .iter()
            .any(|f| f["metric"] == alignment.as_str()),
        "no chart of a metric zero everywhere"
    );
}

/// The band's height where the line ends, against the line's rise, is the
/// slope interval's width against the slope (the JSON line's figures); an
/// exact count's band has no height.
fn regression_band_is_the_slope_interval(page: &Value, line: &Value) {
    let band_and_line = |metric: &str| {
        let figure = chart(page, "regression", metric, &section_of(page, metric));
        let bands = figure.array_at("polygons");
        assert_eq!(bands.len(), 1, "{figure}");
        let band = xy(&bands[0]);
        let fit = figure
            .array_at("polylines")
            .iter()
            .map(xy)
            .find(|l| l.len() == 2 && l[0] == band[0])
            .unwrap_or_else(|| panic!("the line from the band's apex: {figure}"));
        (band, fit)
    };
    let [clock, faults, _] = here();
    let (band, fit) = band_and_line(&clock);
    let m = &line["metrics"][&clock];
    let (slope, low, high) = (m.f64_at("estimate"), m["ci"].f64_at(0), m["ci"].f64_at(1));
    let rise = fit[0].1 - fit[1].1;
    let height = band[2].1 - band[1].1;
    let expected = rise * (high - low) / slope;
    assert!(
        (height - expected).abs() <= 2.0,
        "band {height} px, interval {low}..{high} of {slope} gives {expected} px"
    );
    assert!(
        band[1].1 <= fit[1].1 && fit[1].1 <= band[2].1,
        "the line inside"
    );

    let (band, _) = band_and_line(&faults);
    assert_eq!(band[1], band[2], "16 page faults exactly: no band");
}

/// The `metric-N` section of a page's metric.
fn section_of(page: &Value, metric: &str) -> String {
    item(&page["figures"], "metric", metric)
        .str_at("section")
        .to_string()
}

/// text/ascii declared 5 bytes per iteration: its page's rate is 5 bytes
/// over the wall-time estimate, and the index charts text's rates.
fn throughput_is_the_bytes_over_the_wall_time(page: &Value, index: &Value, line: &Value) {
    let shown = page.str_at("throughput");
    let headline = shown
        .strip_prefix("Throughput: ")
        .and_then(|t| t.split(" 95 % interval").next())
        .unwrap_or_else(|| panic!("{shown}"));
    let ns = line["metrics"]["wall-time"].f64_at("estimate");
    let expected = 5.0 * 1e9 / ns;
    let got = bytes_per_second(headline);
    assert!(
        (got / expected - 1.0).abs() < 1e-3,
        "{shown}: {got} B/s, 5 bytes in {ns} ns are {expected}"
    );
    assert!(shown.contains("(5 bytes per iteration"), "{shown}");
    let rates = chart(index, "throughput", "throughput", group_id(index, "text"));
    assert_eq!(xy(&rates["circles"]).len(), 3, "{rates}");
    assert!(rates
        .array_at("texts")
        .iter()
        .any(|t| t.str_at("text").ends_with("B/s")));
}

/// The texts of a chart, as the browser laid them out.
fn texts(figure: &Value) -> Vec<&str> {
    figure
        .array_at("texts")
        .iter()
        .map(|t| t.str_at("text"))
        .collect()
}

/// The x of the text `text` in a chart.
fn text_x(figure: &Value, text: &str) -> f64 {
    item(&figure["texts"], "text", text).f64_at("x")
}

#[test]
fn a_group_page_sets_its_members_side_by_side_in_a_browser() {
    // The standings set page-fault counts side by side.
    if common::page_faults().is_none() {
        return;
    }
    let home = home("groups");
    // paging::triple is measured first, then left out: an earlier run's
    // member (1 and 3 page faults per iteration at argument 1, exactly).
    forms(&home, &["--exact", "paging::triple/1", "paging::triple/2"]);
    forms(
        &home,
        &[
            "--exact",
            "paging::single/1",
            "paging::single/2",
            "light",
            "elsewhere::heavy",
        ],
    );
    let report = home.join("report");
    let mut groups: Vec<String> = std::fs::read_dir(report.join("group"))
        .unwrap()
        .map(|f| f.unwrap().file_name().into_string().unwrap())
        .collect();
    groups.sort();
    assert_eq!(groups, ["named.html", "paging.html"]);
    let pages = [
        report.join("index.html"),
        report.join("group/paging.html"),
        report.join("group/named.html"),
        html_files(&report.join("bench"))
            .into_iter()
            .find(|p| p.to_str().unwrap().contains("paging.single_1"))
            .unwrap(),
    ];
    let Some(results) = check_in_browser(&pages, &[]) else {
        return;
    };
    for r in &results {
        assert_eq!(r["ok"], true, "{r}");
    }
    groups_are_linked(&results[0], &results[3]);
    paging_stands_at_each_argument(&results[1]);
    paging_is_charted_across_its_arguments(&results[1]);
    let named = &results[2];
    let standing = &named["standings"][0];
    assert_eq!(standing["arg"], Value::Null, "{named}");
    let cells = |member: &str| item(&standing["rows"], "member", member)["cells"].clone();
    assert_eq!(cells("light")[3], "1.00×", "{standing}");
    assert_eq!(cells("heavy")[2], "5 ± 0");
    assert_eq!(cells("heavy")[3], "2.50×", "5 page faults against 2");
    assert!(
        named
            .array_at("figures")
            .iter()
            .all(|f| f["chart"] == "distribution"),
        "no arguments, so no chart across them: {named}"
    );
}

/// The index lists both groups and names the group in each member's row;
/// a member's page links to its group.
fn groups_are_linked(index: &Value, single: &Value) {
    let links = index.array_at("group_links");
    let listed: Vec<(&str, &str)> = links
        .iter()
        .filter(|l| l["listed"] == true)
        .map(|l| (l.str_at("text"), l.str_at("href")))
        .collect();
    assert_eq!(
        listed,
        [
            ("paging", "group/paging.html"),
            ("named", "group/named.html")
        ]
    );
    let in_rows: Vec<(&str, &str)> = links
        .iter()
        .filter(|l| l["listed"] == false)
        .map(|l| (l.str_at("row"), l.str_at("text")))
        .collect();
    assert_eq!(
        in_rows,
        [
            ("elsewhere::heavy", "group named"),
            ("light", "group named"),
            ("paging::single/1", "group paging"),
            ("paging::single/2", "group paging"),
            ("paging::triple/1", "group paging"),
            ("paging::triple/2", "group paging"),
        ]
    );
    let nav = &single["group_links"][0];
    assert_eq!(nav["href"], "../group/paging.html", "{single}");
}

/// At argument 1: a standing with the run's single and the earlier run's
/// triple, 3.00x single's exact page faults; a distribution per metric with
/// a set per member, triple's spike to the right of single's.
fn paging_stands_at_each_argument(page: &Value) {
    let standings = page.array_at("standings");
    assert_eq!(standings.len(), 2, "{page}");
    let at_1 = item(&page["standings"], "arg", "1");
    let faults = counted("page-faults").unwrap();
    assert_eq!(at_1["metrics"], serde_json::json!(["wall-time", faults]));
    let rows = at_1.array_at("rows");
    let members: Vec<&str> = rows.iter().map(|r| r.str_at("member")).collect();
    assert_eq!(members, ["single", "triple"]);
    assert_eq!(rows[0]["stale"], false);
    assert_eq!(rows[1]["stale_badge"], "earlier run", "{at_1}");
    // member | wall-time estimate, x best | page-faults estimate, x best
    assert_eq!(rows[0]["cells"][2], "1 ± 0");
    assert_eq!(rows[0]["cells"][3], "1.00×");
    assert_eq!(rows[1]["cells"][2], "3 ± 0");
    assert_eq!(rows[1]["cells"][3], "3.00×");
    let at_2 = item(&page["standings"], "arg", "2");
    assert_eq!(
        at_2["rows"][1]["cells"][3], "3.00×",
        "6 page faults against 2"
    );

    let section = at_1.str_at("section");
    let drawn: Vec<&Value> = page
        .array_at("figures")
        .iter()
        .filter(|f| f["chart"] == "distribution" && f["section"] == section)
        .collect();
    assert_eq!(drawn.len(), 2, "one per metric: {drawn:?}");
    for figure in &drawn {
        assert_eq!(figure["arg"], "1");
        let texts = texts(figure);
        for label in ["single", "triple (earlier run)"] {
            assert_eq!(
                texts.iter().filter(|t| **t == label).count(),
                1,
                "{label} in the legend: {texts:?}"
            );
        }
    }
    let faults = drawn
        .iter()
        .find(|f| f["metric"] == faults.as_str())
        .unwrap();
    assert!(
        text_x(faults, "10 samples: 3") > text_x(faults, "10 samples: 1"),
        "{faults}"
    );
}

/// Across the arguments: a chart per metric, page faults with a line per
/// member through its two points.
fn paging_is_charted_across_its_arguments(page: &Value) {
    let charts: Vec<&Value> = page
        .array_at("figures")
        .iter()
        .filter(|f| f["section"] == "family")
        .collect();
    let metrics: Vec<&str> = charts.iter().map(|f| f.str_at("metric")).collect();
    let faults = counted("page-faults").unwrap();
    assert_eq!(metrics, ["wall-time", faults.as_str()]);
    let faults = chart(page, "argument", &faults, "family");
    assert_eq!(faults["axis"], "linear", "1 and 2");
    assert_eq!(xy(&faults["circles"]).len(), 4, "{faults}");
    assert_eq!(joining_lines(faults), 2, "a line per member: {faults}");
    let texts = texts(faults);
    assert!(
        texts.contains(&"single") && texts.contains(&"triple (earlier run)"),
        "the legend: {texts:?}"
    );
}

/// The history scenario, run once for the tests that read it: `touch_16`
/// and `text/ascii` measured once; then each given a `history.jsonl` of
/// 1,000 runs of the metric, unit and machine of that real run (the file's
/// format is docs/baselines-and-store.md's): `touch_16`'s steps ×2 at run
/// 601 and ×10 at run 993, `text/ascii`'s flat (1 % wobble, A/A); then
/// both measured once more, which appends a 1,001st run and drops the
/// oldest. The levels are set around the first real run's figure, and
/// the steps large, so that a second real run (a quick one, of wall time
/// where no instructions are counted) never makes or hides a step.
fn history_scenario() -> &'static Path {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let home = home("history");
        let ids = ["--exact", "touch_16", "text/ascii"];
        let first = bench(&home, &ids);
        assert_eq!(first.code, 0, "{}", first.stderr);
        // The last level stands far above any time the real run appended
        // after it can take on a loaded machine (4.7 times the first run's
        // once): that run is one outlier below it, which cannot hide the
        // step, where one at the same level's scale inflated the last
        // stretch's variance until neither step was significant.
        write_history(&history_file(&home, "touch_16"), |i, v| match i {
            0..600 => v / 20.0,
            600..992 => v / 10.0,
            _ => v * 100.0,
        });
        write_history(&history_file(&home, "text/ascii"), |_, v| v);
        let second = bench(&home, &ids);
        assert_eq!(second.code, 0, "{}", second.stderr);
        home
    })
}

/// The history file of `id` under `home`.
fn history_file(home: &Path, id: &str) -> PathBuf {
    home.join(perfbench::store::folder_name(id))
        .join("history.jsonl")
}

/// Replaces the one-line history at `path` by 1,000 runs like its line:
/// run `i` at `level(i, v)` (`v` the real run's figure) with a wobble of
/// at most 1 %, each with its own commit and time.
fn write_history(path: &Path, level: impl Fn(usize, f64) -> f64) {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let template: Value = serde_json::from_str(text.trim()).unwrap();
    let v = template["estimate"].f64_at(0);
    let lines: String = (0..1000)
        .map(|i| {
            let point = level(i, v) * (1.0 + [0.0, 0.01, -0.007, 0.004][i % 4]);
            let mut line = template.clone();
            line["estimate"] = serde_json::json!([point, point * 0.99, point * 1.01]);
            line["commit"] = format!("{i:07x}{}", "f".repeat(33)).into();
            line["dirty"] = (i % 10 == 3).into();
            line["started"] = format!(
                "2026-11-{:02}T{:02}:{:02}:00Z",
                1 + i / 60 % 24,
                i / 60 % 24,
                i % 60
            )
            .into();
            line["branch"] = "main".into();
            format!("{line}\n")
        })
        .collect();
    std::fs::write(path, lines).unwrap();
}

/// The page of the benchmark `id` under `home`'s report.
fn bench_page(home: &Path, id: &str) -> PathBuf {
    home.join("report/bench")
        .join(format!("{}.html", perfbench::store::folder_name(id)))
}

#[test]
fn a_step_in_a_history_of_1000_runs_is_marked_and_a_flat_one_is_not() {
    let home = history_scenario();
    // 1,000 lines: the oldest dropped, the real run last.
    let text = std::fs::read_to_string(history_file(home, "touch_16")).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1000);
    assert_eq!(lines[0]["commit"], format!("{:07x}{}", 1, "f".repeat(33)));
    assert_eq!(
        lines[998]["commit"],
        format!("{:07x}{}", 999, "f".repeat(33))
    );
    assert_ne!(lines[999]["commit"], lines[998]["commit"]);
    assert_eq!(lines[999]["metric"], lines[0]["metric"]);
    // Run 1 is the old second: the steps are at runs 600 and 992.
    let page = std::fs::read_to_string(bench_page(home, "touch_16")).unwrap();
    assert!(page.contains(" data-change-points=\"600,992\""), "{page}");
    assert!(page.contains("<g class=\"change-point\" data-run=\"992\">"));
    assert!(
        page.contains("<td>992</td><td>00003e0</td><td>main</td>"),
        "{page}"
    );
    let flat = std::fs::read_to_string(bench_page(home, "text/ascii")).unwrap();
    assert!(flat.contains(" data-change-points=\"\""), "{flat}");
    assert!(!flat.contains("class=\"change-point\""));
    // The index lists the recent step (8 runs ago), not the one at 600.
    let index = std::fs::read_to_string(home.join("report/index.html")).unwrap();
    let changed = &index[index.find("id=\"changed\"").expect("a changed section")..];
    let changed = &changed[..changed.find("</table>").unwrap()];
    assert_eq!(changed.matches("<tr><td>").count(), 1, "{changed}");
    assert!(
        changed.contains("href=\"bench/touch_16.html\"><span class=\"seg\">touch_16</span></a>"),
        "{changed}"
    );
    assert!(
        changed.contains("<td>00003e0</td><td>8 runs ago</td>"),
        "{changed}"
    );
}

#[test]
fn the_history_chart_shows_its_change_points_in_a_browser() {
    let home = history_scenario();
    let pages = [bench_page(home, "touch_16"), bench_page(home, "text/ascii")];
    let Some(results) = check_in_browser(&pages, &["History"]) else {
        return;
    };
    let history = |page: &Value| -> Value {
        assert_eq!(page["ok"], true, "{page}");
        let figures = page.array_at("figures");
        figures
            .iter()
            .find(|f| f["chart"] == "history")
            .unwrap_or_else(|| panic!("no history chart: {page}"))
            .clone()
    };
    let stepped = history(&results[0]);
    let steps = stepped.array_at("change_points");
    let runs: Vec<i64> = steps.iter().map(|c| c.i64_at("run")).collect();
    assert_eq!(runs, [600, 992]);
    // Each line stands at the runs on either side of its step, and is
    // labelled with its size.
    let tips = stepped.array_at("tooltips");
    let x_of = |run: usize| {
        let at = format!("run {run}: ");
        tips.iter()
            .find(|t| t.str_at("title").starts_with(&at))
            .unwrap_or_else(|| panic!("no tooltip of run {run}"))
            .f64_at("x")
    };
    for c in steps {
        let run = c.u64_at("run") as usize;
        let x = c.f64_at("x");
        // Runs are 0.6 px apart here: within a pixel of both.
        assert!(
            (x - x_of(run - 1)).abs() <= 1.0 && (x - x_of(run)).abs() <= 1.0,
            "{c}"
        );
        assert!(c.str_at("label").starts_with('+'), "{c}");
    }
    let tip = tips.last().unwrap().str_at("title");
    assert!(tip.starts_with("run 1000: "), "{tip}");
    let flat = history(&results[1]);
    assert_eq!(flat.array_at("change_points").len(), 0);
    assert!(flat.array_at("tooltips").len() >= 300);
}

/// The ids of tests/benches/changes.rs, in natural order.
const CHANGES_IDS: [&str; 5] = [
    "a_rather_long_module_name::decoding_by_table::shrinks/307",
    "a_rather_long_module_name::decoding_by_table::shrinks/1024",
    "grows/2",
    "grows/10",
    "steady",
];

/// `cargo bench --bench changes` counting allocations, its results under
/// `home`; with `after`, the second run, whose counts differ.
fn changes(home: &Path, after: bool) {
    let args: Vec<&str> = QUICK
        .iter()
        .chain(&["--events", "allocs"])
        .copied()
        .collect();
    let mut env = vec![("PERFBENCH_HOME", home.to_str().unwrap())];
    if after {
        env.push(("FIXTURE_CHANGES", "after"));
    }
    let run = bench_target_with_env("changes", &args, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn the_index_leads_with_changes_sorts_naturally_and_breaks_ids_only_at_separators() {
    let home = home("changes");
    changes(&home, false);
    changes(&home, true);
    let index = home.join("report/index.html");
    let Some(results) = check_in_browser(&[index], &["Changed in this run"]) else {
        return;
    };
    let index = &results[0];
    assert_eq!(index["ok"], true, "{index}");

    // Regressions, then improvements, each in natural order; wall time
    // may move too, but never a regression after an improvement.
    let rows = index.array_at("run_changes");
    let verdicts: Vec<&str> = rows.iter().map(|r| r.str_at("verdict")).collect();
    assert!(
        verdicts.windows(2).all(|w| w != ["improved", "regressed"]),
        "{rows:?}"
    );
    let allocs: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r["metric"] == "allocs")
        .map(|r| (r.str_at("id"), r.str_at("verdict")))
        .collect();
    assert_eq!(
        allocs,
        [
            ("grows/2", "regressed"),
            ("grows/10", "regressed"),
            (CHANGES_IDS[0], "improved"),
            (CHANGES_IDS[1], "improved"),
        ]
    );

    // The server's order, and the script's after sorting by another
    // column and back by id: natural both.
    let summary = &index["summary"];
    let served: Vec<&str> = summary
        .array_at("rows")
        .iter()
        .map(|r| r.str_at("id"))
        .collect();
    assert_eq!(served, CHANGES_IDS);
    assert_eq!(summary["ids_by_id"], serde_json::json!(CHANGES_IDS));

    // On a 360 px page the long ids take several lines, each broken only
    // after a separator.
    let wrapping = index.array_at("id_wrapping");
    for cell in wrapping {
        assert_eq!(cell["broken_parts"], serde_json::json!([]), "{cell}");
    }
    let long = wrapping
        .iter()
        .filter(|c| c["table"] == "summary" && c["id"] == CHANGES_IDS[1])
        .collect::<Vec<_>>();
    assert_eq!(long.len(), 1, "{wrapping:?}");
    assert!(long[0].u64_at("lines") >= 2, "{wrapping:?}");
}
