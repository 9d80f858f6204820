//! Tests of a benchmark's page: exact counts, the baseline's overlay, a
//! declared throughput, the run's own figures (scale, derived metrics, the
//! cost of measuring), and a page of 500,000 samples.

use crate::analysis::comparison::{self, Target};
use crate::analysis::{analyze, Analysed, Calibration, Recording};
use crate::counter::event::parse_list;
use crate::counter::group::ReadPath;
use crate::measure::environment::Environment;
use crate::measure::Throughput;
use crate::output::html::plots;
use crate::output::html::tests::{
    analysed, attributes, measurement, options, page, report, save, uncompared, write, Run,
    TempStore,
};
use crate::store::{Slot, Store};

#[test]
fn zero_variance_gives_a_marked_value_and_no_nan() {
    let store = TempStore::new("exact");
    let exact = || Run {
        events: "page-faults,minor-faults",
        per_iter: &[16, 0],
        noisy: false,
        ..Run::of("exact")
    };
    save(&store, &Slot::Latest, exact());
    save(&store, &Slot::Baseline("main".into()), exact());
    for against in [Target::PreviousRun, Target::Baseline("main".into())] {
        report(&store, &["exact"], true, against);
        let html = page(&store, "exact");
        assert!(!html.contains("NaN"), "NaN in the page");
        assert!(
            !html.to_lowercase().contains("inf"),
            "an infinity in the page"
        );
        assert_eq!(
            html.matches("class=\"note zero-variance\"").count(),
            3,
            "every metric"
        );
        assert!(html.contains("exactly 16 per iteration"));
        assert_eq!(html.matches("<svg").count(), 6, "two plots per metric");
        assert!(html.contains("20 samples: 16"), "the marked value");
        assert!(html.contains("20 samples: 0"), "a zero count too");
        assert!(html.contains("<td>R²</td><td class=\"num\">1.00000</td>"));
    }
}

/// `id`'s benchmark of the run, as it declared `throughput`.
fn with_throughput(store: &Store, id: &str, throughput: Throughput) -> Analysed {
    let mut a = analysed(store, id, &Target::PreviousRun).unwrap();
    a.recording.throughput = Some(throughput);
    a.result = analyze(&a.recording, &Calibration::default());
    a
}

#[test]
fn a_declared_throughput_is_headlined_and_charted_across_arguments() {
    let store = TempStore::new("throughput");
    let ids = ["copy/64", "copy/4096", "plain"];
    for id in ids {
        let run = Run {
            noisy: false,
            ..Run::of(id)
        };
        save(&store, &Slot::Latest, run);
    }
    let run = [
        with_throughput(&store, "copy/64", Throughput::Bytes(64)),
        with_throughput(&store, "copy/4096", Throughput::Bytes(4096)),
        analysed(&store, "plain", &Target::PreviousRun).unwrap(),
    ];
    let index = write(&store, &run, &options(true, Target::PreviousRun));
    // Exactly 250 ns per iteration: 4096 bytes in it are 16.384e9 B/s.
    assert!(
        page(&store, "copy/4096").contains(
            "<p class=\"throughput\" id=\"throughput\"><b>Throughput: 16.38 GB/s</b> \
             <small>95 % interval [16.38 GB/s, 16.38 GB/s]</small> (4096 bytes per \
             iteration over the wall-time estimate).</p>"
        ),
        "{}",
        page(&store, "copy/4096")
    );
    assert!(page(&store, "copy/64").contains("<b>Throughput: 256.0 MB/s</b>"));
    assert!(!page(&store, "plain").contains("Throughput"));
    let section = &index[index.find("<section class=\"group\"").unwrap()..];
    assert_eq!(
        attributes(section, "data-chart")[0],
        "throughput",
        "the throughput first"
    );
    assert!(section.contains("throughput (bytes/s)"));
    assert!(section.contains("GB/s"), "rates on its axis");
    assert!(section.contains("bytes per second of wall time, with 95 % intervals</figcaption>"));
}

#[test]
fn the_baseline_overlay_needs_a_baseline_holding_the_benchmark() {
    let store = TempStore::new("overlay");
    for id in ["a", "b"] {
        save(&store, &Slot::Latest, Run::of(id));
    }
    save(
        &store,
        &Slot::Baseline("main".into()),
        Run::counting("a", &[17]),
    );
    let overlay = "Distribution of the per-iteration values (total ÷ iterations of each sample) of this run and of baseline <code>main</code>.";

    report(&store, &["a", "b"], true, Target::Baseline("main".into()));
    let a = page(&store, "a");
    assert_eq!(a.matches(overlay).count(), 2, "both metrics");
    assert!(a.contains("baseline main\n</text>"), "the legend");
    assert!(a.contains(&format!(
        "fill=\"#{:02X}{:02X}{:02X}\"",
        plots::BASE.0,
        plots::BASE.1,
        plots::BASE.2
    )));
    let b = page(&store, "b");
    assert!(!b.contains(overlay) && !b.contains("baseline main"));
    assert!(b.contains("baseline <code>main</code> does not hold this benchmark"));

    report(&store, &["a", "b"], true, Target::PreviousRun);
    let a = page(&store, "a");
    assert!(!a.contains(overlay) && !a.contains("baseline main"));
    assert!(a.contains("New: the previous run does not hold this benchmark."));

    // Compared with its previous run, the run has that run as overlay.
    save(
        &store,
        &Slot::Baseline("previous".into()),
        Run::counting("a", &[15]),
    );
    report(&store, &["a"], true, Target::PreviousRun);
    let a = page(&store, "a");
    assert!(a.contains("Compared with the previous run (20 samples)."));
    assert!(
        a.contains("of this run and of the previous run."),
        "the caption"
    );
    assert!(a.contains("previous run\n</text>"), "the legend");

    report(&store, &["a"], true, Target::Baseline("other".into()));
    assert!(
        !page(&store, "a").contains(overlay),
        "a baseline that does not exist"
    );
}

#[test]
fn a_paired_page_names_the_paired_build_and_what_moved() {
    let store = TempStore::new("paired-page");
    save(&store, &Slot::Latest, Run::counting("a", &[16]));
    save(
        &store,
        &Slot::Baseline("b".into()),
        Run::counting("a", &[15]),
    );
    let recording = store.load("a", &Slot::Latest).unwrap().unwrap();
    let base = store
        .load("a", &Slot::Baseline("b".into()))
        .unwrap()
        .unwrap();
    let target = Target::Paired("./old<bench>\x1b[2J".into());
    let thresholds = Default::default();
    let comparison = comparison::paired(&target, Ok(&base), &recording, &thresholds);
    let run = Analysed {
        result: analyze(&recording, &Calibration::default()),
        recording,
        comparison: Some(comparison),
        compared_with: Some(base),
    };
    write(&store, &[run], &options(true, target));
    let a = page(&store, "a");
    assert!(
        a.contains(
            "Compared with the paired build <code>./old&lt;bench&gt;\\u{1b}[2J</code> (20 samples)."
        ),
        "{a}"
    );
    assert!(
        a.contains("Measured in turn with it in this run: +0 wall-time: page-faults +6.7 %.</p>"),
        "{a}"
    );
    assert!(
        a.contains("paired build ./old&lt;bench&gt;\\u{1b}[2J\n</text>"),
        "the legend"
    );
    assert!(
        !a.contains('\x1b'),
        "no raw escape in the page or its charts"
    );
}

/// A benchmark analysed as a run does it: with events whose ratios and
/// PMU scale are known, and the cost of measuring subtracted.
fn analysed_with_events() -> Analysed {
    let tree = crate::kernel::pmu::tests::intel_hybrid();
    let events =
        crate::counter::event::parse_list_in("instructions,cycles,power/energy-pkg/", tree.root())
            .unwrap();
    let m = measurement((1..=10u64).map(|i| {
        let values = vec![3000 * i, 2000 * i, (1 << 32) * i];
        (i, 1000 * i + 7 * (i % 3), values)
    }));
    let recording = Recording::new("hw", &events, &m, Environment::default());
    let calibration = Calibration::exact(&[("cycles", 100)], true);
    Analysed::of(recording, &calibration)
}

#[test]
fn pages_show_the_run_s_own_figures_scale_derived_metrics_and_overhead() {
    let store = TempStore::new("figures");
    write(
        &store,
        &[analysed_with_events()],
        &options(false, Target::PreviousRun),
    );
    let page = page(&store, "hw");
    // IPC of the figures shown: 3000 / (2000 − the 100 cycles subtracted).
    assert!(
        page.contains("<tr><td>IPC</td><td class=\"num\">1.579</td></tr>"),
        "{page}"
    );
    // 2^32 counts of 2^-32 Joules per iteration.
    assert!(
        page.contains("<tr><td>estimate in Joules</td><td class=\"num\">1.000 Joules</td>"),
        "{page}"
    );
    assert!(
        page.contains("<tr><td>cost of measuring (per iteration)</td><td class=\"num\">100</td>")
    );
    assert!(page.contains("<tr><td>estimate before subtracting it</td><td class=\"num\">2000</td>"));
    assert!(page.contains("<b>estimate</b> (slope)</td><td class=\"num\">1900</td>"));
    assert!(page.contains("Not compared"), "no comparison in memory");
    // The regression line is the raw fit, 2000 cycles per iteration.
    write(
        &store,
        &[analysed_with_events()],
        &options(true, Target::PreviousRun),
    );
    let page = self::page(&store, "hw");
    assert!(page.contains("fit: 2000 per iteration"), "the raw slope");
    assert!(!page.contains("fit: 1900 per iteration"));
}

/// A per-iteration run of `n` iterations: varying wall time and exactly
/// 3 page faults each.
fn per_iteration_run(id: &str, n: u64) -> Analysed {
    let events = parse_list("page-faults").unwrap();
    let m = measurement((0..n).map(|i| (1, 700 + (i * 7919) % 301, vec![3])));
    let mut recording = Recording::new(id, &events, &m, Default::default());
    recording.rounds = (0..n).map(|i| (10 * i / n) as u32).collect();
    recording.read_path = Some(ReadPath::Syscall);
    uncompared(recording)
}

#[test]
fn a_page_of_500_000_samples_stays_small_and_exact() {
    let store = TempStore::new("big");
    let run = [per_iteration_run("big", 500_000)];
    write(&store, &run, &options(true, Target::PreviousRun));
    let page = std::fs::read_to_string(store.root().join("report/bench/big.html")).unwrap();
    assert!(page.len() < 2_000_000, "{} bytes", page.len());
    assert!(page.contains("<p>500000 samples, 500000 iterations in all."));
    assert!(page.contains("Every sample gives exactly 3 per iteration"));
    assert!(
        page.contains("500000 samples: 3"),
        "the spike names every sample"
    );
    let circles = page.matches("<circle").count();
    assert!(
        circles <= 2 * plots::regression_chart::MAX_POINTS,
        "{circles} circles"
    );
    let data = std::fs::read_to_string(store.root().join("report/data/big.values.json")).unwrap();
    assert!(
        data.len() < 64 * 1024,
        "{} bytes of sampled values",
        data.len()
    );
}

#[test]
fn a_history_is_charted_on_its_page_and_a_recent_step_listed_in_the_index() {
    use crate::store::history::tests::write_history;
    let store = TempStore::new("history-page");
    for id in ["stepped", "flat", "alone"] {
        save(&store, &Slot::Latest, Run::of(id));
    }
    // Steps of +10 % at run 601 and at the 7th run from the end.
    let stepped: Vec<f64> = (0..1000)
        .map(|i| match i {
            0..600 => 100.0,
            600..993 => 110.0,
            _ => 121.0,
        } * (1.0 + [0.0, 0.003, -0.002][i % 3]))
        .collect();
    write_history(&store, "stepped", &stepped);
    let flat: Vec<f64> = (0..1000).map(|i| 100.0 + (i % 7) as f64 * 0.2).collect();
    write_history(&store, "flat", &flat);
    write_history(&store, "alone", &[100.0]);
    let index = report(
        &store,
        &["stepped", "flat", "alone"],
        true,
        Target::PreviousRun,
    );
    let html = page(&store, "stepped");
    assert_eq!(attributes(&html, "data-change-points"), ["601,994"]);
    assert_eq!(attributes(&html, "data-history-runs"), ["1000"]);
    assert_eq!(html.matches("<g class=\"change-point\"").count(), 2);
    assert!(
        html.contains("<td>601</td><td>0000258</td><td>main</td>"),
        "{html}"
    );
    let flat = page(&store, "flat");
    assert!(flat.contains("id=\"history\"") && flat.contains("no change point"));
    assert_eq!(attributes(&flat, "data-change-points"), [""]);
    assert!(
        !page(&store, "alone").contains("id=\"history\""),
        "one run: no chart"
    );
    // The index lists the recent step only, linked to the page.
    let changed = crate::output::html::tests::between(&index, "id=\"changed\"", "</table>");
    assert_eq!(changed.matches("<tr><td>").count(), 1, "{changed}");
    assert!(
        changed.contains("href=\"bench/stepped.html\"><span class=\"seg\">stepped</span></a>"),
        "{changed}"
    );
    assert!(
        changed.contains("110.0 ns → 121.0 ns") && changed.contains("6 runs ago"),
        "{changed}"
    );
    // A run of another benchmark lists it still, from its summary.
    let index = report(&store, &["flat"], true, Target::PreviousRun);
    let later = crate::output::html::tests::between(&index, "id=\"changed\"", "</table>");
    assert_eq!(later, changed);
    // And where its summary is gone, from its history, read once.
    std::fs::remove_file(store.root().join("report/data/stepped.json")).unwrap();
    let index = report(&store, &["flat"], true, Target::PreviousRun);
    let remade = crate::output::html::tests::between(&index, "id=\"changed\"", "</table>");
    assert_eq!(remade, changed);
    // Without plots: the table of change points, no chart.
    report(&store, &["stepped"], false, Target::PreviousRun);
    let html = page(&store, "stepped");
    assert!(!html.contains("<svg") && html.contains("<td>994</td>"));
}
