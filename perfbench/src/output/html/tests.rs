//! Tests of the report as a whole (what it escapes, what it links to, where
//! it writes, what a later run rewrites), and the fixtures every test of
//! the report shares: a store in a temporary folder, runs saved into it,
//! the report written from them, and its files read back. The tests of
//! the index, a benchmark's page and a group's page stand beside those
//! (`index/tests.rs`, `bench_page/tests.rs`, `group_page/tests.rs`).

use std::ops::Deref;
use std::path::{Path, PathBuf};

use super::text::{esc, SCRIPT};
use super::{page_path, write_report, ReportOptions};
use crate::analysis::comparison::{Comparison, Target, Thresholds};
use crate::analysis::standings::Membership;
use crate::analysis::{analyze, Analysed, Calibration, Recording};
use crate::counter::event::parse_list;
use crate::counter::group::Counts;
use crate::measure::environment::Environment;
use crate::measure::{Measurement, Sample};
use crate::store::{Slot, Store};

/// Text from user code that would run as a script if it were not escaped.
pub(super) const HOSTILE: &str = "<script>alert(1)</script>";
/// [`HOSTILE`] as the report writes it.
pub(super) const ESCAPED: &str = "&lt;script&gt;alert(1)&lt;/script&gt;";

use crate::kernel::scratch_dir::ScratchDir;

/// A store in a fresh temporary folder, removed with it on drop; it
/// derefs to the [`Store`].
pub(super) struct TempStore {
    store: Store,
    _dir: ScratchDir,
}

impl TempStore {
    /// A store in a [`ScratchDir`] folder named after `name`.
    pub(super) fn new(name: &str) -> TempStore {
        let dir = ScratchDir::new(name);
        TempStore {
            store: Store::at(dir.root()),
            _dir: dir,
        }
    }
}

impl Deref for TempStore {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

/// A stored run to save.
pub(super) struct Run<'a> {
    /// The benchmark's id.
    pub id: &'a str,
    /// Events measured, as `--events` takes them.
    pub events: &'a str,
    /// Exact count per iteration of each event.
    pub per_iter: &'a [u64],
    /// Whether wall time varies from sample to sample.
    pub noisy: bool,
    /// The CPU model its environment names.
    pub cpu_model: &'a str,
    /// The commit it measured, on `main`, started at noon on 2026-11-25.
    pub commit: Option<&'a str>,
}

impl Default for Run<'_> {
    fn default() -> Self {
        Run {
            id: "x",
            events: "page-faults",
            per_iter: &[16],
            noisy: true,
            cpu_model: "test cpu",
            commit: None,
        }
    }
}

impl<'a> Run<'a> {
    /// The default run of benchmark `id`.
    pub(super) fn of(id: &'a str) -> Run<'a> {
        Run {
            id,
            ..Run::default()
        }
    }

    /// The default run of benchmark `id`, counting `per_iter` of its one
    /// event per iteration.
    pub(super) fn counting(id: &'a str, per_iter: &'a [u64]) -> Run<'a> {
        Run {
            per_iter,
            ..Run::of(id)
        }
    }
}

/// A measurement of one sample per `(iterations, wall_ns, counts)`, each
/// counted all the time it was enabled.
pub(super) fn measurement(samples: impl IntoIterator<Item = (u64, u64, Vec<u64>)>) -> Measurement {
    Measurement {
        samples: samples
            .into_iter()
            .map(|(iterations, wall_ns, values)| Sample {
                iterations,
                wall_ns,
                counts: Counts {
                    time_enabled: 1,
                    time_running: 1,
                    values,
                },
            })
            .collect(),
        throughput: None,
    }
}

/// Saves `r` into `store` at `slot`: 20 samples of 10 to 200 iterations in
/// four rounds of five.
pub(super) fn save(store: &Store, slot: &Slot, r: Run) {
    let events = parse_list(r.events).unwrap();
    let m = measurement((1..=20u64).map(|i| {
        let iterations = 10 * i;
        let jitter = if r.noisy { (i * 7919) % 97 * 13 } else { 0 };
        let values = r.per_iter.iter().map(|p| p * iterations).collect();
        (iterations, 250 * iterations + jitter, values)
    }));
    let env = Environment {
        cpu_model: r.cpu_model.into(),
        kernel: "6.18.0".into(),
        cpu: Some(1),
        commit: r.commit.map(String::from),
        branch: r.commit.map(|_| "main".into()),
        started: r.commit.map(|_| "2026-11-25T12:00:00Z".into()),
        ..Default::default()
    };
    let mut run = Recording::new(r.id, &events, &m, env);
    // Four rounds of five samples.
    run.rounds = (0..20).map(|i| i / 5).collect();
    store
        .save(
            &run,
            slot,
            &analyze(
                &Recording::new(r.id, &events, &m, Default::default()),
                &Default::default(),
            ),
        )
        .unwrap();
}

/// `recording` analysed, as a run hands it to the report when it compared
/// it with nothing.
pub(super) fn uncompared(recording: Recording) -> Analysed {
    Analysed::of(recording, &Calibration::default())
}

/// A benchmark of a run, as the run would have analysed and compared
/// it: its latest stored run against `against` (the previous run is
/// stored as baseline `previous` by these tests).
pub(super) fn analysed(store: &Store, id: &str, against: &Target) -> Option<Analysed> {
    let recording = store.load(id, &Slot::Latest).ok()??;
    let base_slot = match against {
        Target::PreviousRun => Slot::Baseline("previous".into()),
        target => Slot::from(target),
    };
    let base = store.load(id, &base_slot).ok()?;
    let comparison = Comparison::of(against, base.as_ref(), &recording, &Thresholds::default());
    Some(Analysed {
        result: analyze(&recording, &Calibration::default()),
        recording,
        comparison: Some(comparison),
        compared_with: base,
    })
}

/// The report's options: with plots or not, against `against`, with the
/// default thresholds.
pub(super) fn options(plots: bool, against: Target) -> ReportOptions {
    ReportOptions {
        plots,
        against,
        thresholds: Thresholds::default(),
    }
}

/// Writes the report of `run` into `store`; returns its index.
pub(super) fn write(store: &Store, run: &[Analysed], options: &ReportOptions) -> String {
    let path = write_report(store, run, options).unwrap().index;
    assert_eq!(path, store.root().join("report").join("index.html"));
    std::fs::read_to_string(path).unwrap()
}

/// Writes the report of a run of the stored benchmarks `run_ids` (those
/// stored) compared with `against`; returns its index.
pub(super) fn report(store: &Store, run_ids: &[&str], plots: bool, against: Target) -> String {
    let run: Vec<Analysed> = run_ids
        .iter()
        .filter_map(|id| analysed(store, id, &against))
        .collect();
    write(store, &run, &options(plots, against))
}

/// The report's file at `path`, relative to `report/`.
pub(super) fn read(store: &Store, path: &str) -> String {
    let path = store.root().join("report").join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The page of benchmark `id`.
pub(super) fn page(store: &Store, id: &str) -> String {
    read(store, &page_path(id))
}

/// Every file under `dir`, recursively.
pub(super) fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The report's pages (not its data for later runs), with their text.
pub(super) fn report_files(store: &Store) -> Vec<(PathBuf, String)> {
    files(&store.root().join("report"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

/// The values of every `name="…"` attribute in `html`.
pub(super) fn attributes<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(" {name}=\"");
    html.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

/// The rows of a table's `html` (each starting at `row_start`), each as
/// its cells' text, tags removed.
pub(super) fn cell_texts(html: &str, row_start: &str) -> Vec<Vec<String>> {
    html.split(row_start)
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

/// The part of `html` from `start` to the next `end`.
pub(super) fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {html}"));
    let rest = &html[from..];
    &rest[..rest.find(end).map_or(rest.len(), |i| i + end.len())]
}

#[test]
fn hostile_ids_args_event_names_and_cpu_models_are_escaped() {
    let store = TempStore::new("hostile");
    let arg = format!("grp/{HOSTILE}");
    for id in [HOSTILE, arg.as_str(), "grp/ascii"] {
        let latest = Run {
            cpu_model: HOSTILE,
            ..Run::of(id)
        };
        save(&store, &Slot::Latest, latest);
        save(&store, &Slot::Baseline("main".into()), Run::of(id));
    }
    // An event name from user code: a series stored under a hostile name.
    let events = parse_list("page-faults").unwrap();
    let mut run = store.load("grp/ascii", &Slot::Latest).unwrap().unwrap();
    run.series[1].name = HOSTILE.into();
    let m = measurement(
        run.iterations
            .iter()
            .zip(&run.series[1].totals)
            .zip(&run.series[0].totals)
            .map(|((&iterations, &v), &wall_ns)| (iterations, wall_ns, vec![v])),
    );
    let mut result = analyze(
        &Recording::new(&run.id, &events, &m, Default::default()),
        &Default::default(),
    );
    result.metrics[1].name = HOSTILE.into();
    store.save(&run, &Slot::Latest, &result).unwrap();

    let ids = [HOSTILE, arg.as_str(), "grp/ascii"];
    let index = report(&store, &ids, true, Target::Baseline("main".into()));
    for (path, text) in report_files(&store) {
        assert!(
            !text.contains(HOSTILE),
            "raw hostile text in {}",
            path.display()
        );
        // The only script is the report's own, which carries no data.
        let scripts = text.matches("<script").count();
        if path.ends_with("index.html") {
            assert_eq!(scripts, 1, "{}", path.display());
            assert!(text.contains(&format!("<script>\n{SCRIPT}</script>")));
        } else {
            assert_eq!(scripts, 0, "{}", path.display());
        }
    }
    assert!(index.contains(&format!(">{ESCAPED}<")), "the id, as text");
    assert!(
        index.contains(&format!("grp/{ESCAPED}")),
        "the arg, as text"
    );
    assert!(
        index.contains(&format!("<td>{ESCAPED}</td>")),
        "the event name"
    );
    assert!(
        index.contains(&format!("<td>{ESCAPED}</td><td>6.18.0</td>")),
        "the CPU model"
    );
    assert!(index.contains("<svg"), "the group's charts");
    let hostile_page = page(&store, HOSTILE);
    assert!(hostile_page.contains(&format!("<h1>{ESCAPED}</h1>")));
    assert!(hostile_page.contains(&format!("<title>{ESCAPED} — perfbench</title>")));
    let ascii = page(&store, "grp/ascii");
    assert!(
        ascii.contains(&format!("<h2>{ESCAPED} <small>")),
        "the event name on its page"
    );
    // The group's category labels inside the SVG, escaped by plotters.
    let arg_page = page(&store, &arg);
    assert!(arg_page.contains(&format!("<h1>grp/{ESCAPED}</h1>")));
    assert!(
        index.contains("&lt;script&gt;alert…"),
        "a shortened category label"
    );
}

#[test]
fn no_file_references_anything_outside() {
    let store = TempStore::new("offline");
    for id in ["a", "g/1", "g/2"] {
        save(&store, &Slot::Latest, Run::of(id));
        save(
            &store,
            &Slot::Baseline("main".into()),
            Run::counting(id, &[17]),
        );
    }
    report(&store, &["a", "g/1"], true, Target::Baseline("main".into()));
    let written = report_files(&store);
    assert_eq!(written.len(), 3, "index and two pages: {written:?}");
    const SVG_NS: &str = "xmlns=\"http://www.w3.org/2000/svg\"";
    for (path, text) in &written {
        let p = path.display();
        // The SVG namespace names a vocabulary; it is never fetched.
        let svgs = text.matches("<svg").count();
        assert!(svgs > 0, "{p}");
        assert_eq!(text.matches(SVG_NS).count(), svgs, "{p}");
        let rest = text.replace(SVG_NS, "");
        for remote in [
            "http:", "https:", "//", "url(", "@import", "<link", "<img", "<iframe", " src=",
        ] {
            assert!(!rest.contains(remote), "{remote} in {p}");
        }
        for href in attributes(text, "href") {
            assert!(
                !href.contains(':') && !href.starts_with('/') && !href.is_empty(),
                "href {href} in {p}"
            );
            let target = href.split('#').next().unwrap();
            if !target.is_empty() {
                let resolved = path.parent().unwrap().join(target);
                assert!(resolved.is_file(), "dangling link {href} in {p}");
            }
        }
    }
}

#[test]
fn hostile_ids_write_only_inside_report() {
    let tmp = ScratchDir::new("escape");
    let store = Store::at(tmp.root().join("a").join("b").join("store"));
    let ids = ["../../x", "/abs", "..", "a/../../../y", "index", "bench"];
    for id in ids {
        save(&store, &Slot::Latest, Run::of(id));
    }
    let before = files(tmp.root());
    report(&store, &ids, true, Target::PreviousRun);
    let report_dir = store.root().join("report");
    let new: Vec<PathBuf> = files(tmp.root())
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();
    let pages = new
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "html"));
    assert_eq!(pages.count(), ids.len() + 1, "{new:?}");
    // A summary and its sampled values per benchmark of the run.
    assert_eq!(new.len(), 3 * ids.len() + 1, "{new:?}");
    for f in &new {
        assert!(
            f.starts_with(&report_dir),
            "{} outside the report",
            f.display()
        );
        assert!(!f.components().any(|c| c == std::path::Component::ParentDir));
    }
    // Every id has its own page; the one called `index` does not replace
    // the index.
    for id in ids {
        assert!(
            page(&store, id).contains(&format!("<h1>{}</h1>", esc(id))),
            "{id}"
        );
    }
    assert!(std::fs::read_to_string(report_dir.join("index.html"))
        .unwrap()
        .starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"));
    assert!(page(&store, "index").contains("<nav>"));
}

#[test]
fn noplot_writes_tables_and_no_svg() {
    let store = TempStore::new("noplot");
    for id in ["a", "g/1", "g/2"] {
        save(&store, &Slot::Latest, Run::of(id));
    }
    report(&store, &["a", "g/1", "g/2"], false, Target::PreviousRun);
    let written = report_files(&store);
    assert_eq!(written.len(), 4);
    for (path, text) in &written {
        assert_ne!(path.extension().unwrap(), "svg");
        assert!(!text.contains("<svg"), "a plot in {}", path.display());
        assert!(text.contains("<table"), "{}", path.display());
    }
    assert!(page(&store, "a").contains("<table class=\"stats\">"));
    assert!(!written[0].1.contains("Benchmarks with arguments"));
}

/// The stored run of `id` with `faults` page faults per iteration, and
/// the run that measured it as the report is handed it.
fn stored(store: &Store, id: &str, faults: u64) -> Analysed {
    let events = parse_list("page-faults").unwrap();
    let m = measurement((1..=10u64).map(|i| (i, 100 * i, vec![faults * i])));
    let mut recording = Recording::new(id, &events, &m, Default::default());
    recording.membership = id.split_once("::").map(|(group, member)| Membership {
        group: group.into(),
        member: member.into(),
        arg: None,
    });
    let result = analyze(&recording, &Calibration::default());
    store.save(&recording, &Slot::Latest, &result).unwrap();
    let comparison = Comparison::of(
        &Target::PreviousRun,
        None,
        &recording,
        &Thresholds::default(),
    );
    Analysed {
        recording,
        result,
        comparison: Some(comparison),
        compared_with: None,
    }
}

/// The text and modification time of each file under `dir`.
fn snapshot(dir: &Path) -> Vec<(PathBuf, String, std::time::SystemTime)> {
    files(dir)
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
            (path, text, modified)
        })
        .collect()
}

#[test]
fn a_run_rewrites_only_its_own_pages_and_lists_the_rest_from_summaries() {
    let store = TempStore::new("incremental");
    let options = options(true, Target::PreviousRun);
    let run: Vec<Analysed> = [("g::a", 16), ("g::b", 7), ("other", 5)]
        .iter()
        .map(|&(id, f)| stored(&store, id, f))
        .collect();
    write(&store, &run, &options);
    let before = snapshot(&store.root().join("report"));
    assert!(before.iter().any(|(p, _, _)| p.ends_with("group/g.html")));
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = [stored(&store, "other", 6)];
    let index = write(&store, &again, &options);
    let after = snapshot(&store.root().join("report"));
    let changed: Vec<String> = after
        .iter()
        .filter(|f| !before.contains(f))
        .map(|(p, _, _)| {
            p.strip_prefix(store.root().join("report"))
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(
        changed,
        [
            "bench/other.html",
            "data/other.json",
            "data/other.values.json",
            "index.html"
        ],
        "the group page of g and the pages of its members are untouched"
    );
    for (id, faults) in [("g::a", 16), ("g::b", 7), ("other", 6)] {
        let row = &index[index.find(&format!("data-s=\"{id}\"")).unwrap()..];
        let row = &row[..row.find("</tr>").unwrap()];
        assert!(
            row.contains(&format!(">{faults} <small>± 0</small>")),
            "{row}"
        );
    }
    assert!(index.contains("3 benchmarks stored in this output directory, 1 of them"));
}

#[test]
fn results_stored_without_a_summary_are_summarised_once() {
    let store = TempStore::new("older");
    let options = options(true, Target::PreviousRun);
    // Stored by an older perfbench: no report at all.
    stored(&store, "old", 16);
    let run = [stored(&store, "new", 2)];
    let index = write(&store, &run, &options);
    assert!(index.contains(
        "<span><span class=\"seg\">old</span></span> <span class=\"badge stale\">earlier run</span>"
    ));
    assert!(index.contains(">16 <small>± 0</small>"));
    let summary = store.root().join("report/data/old.json");
    let made = std::fs::metadata(&summary).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(&store, &run, &options);
    assert_eq!(
        std::fs::metadata(&summary).unwrap().modified().unwrap(),
        made,
        "made once"
    );
    // A run stored after its summary (a report that failed) is summarised again.
    stored(&store, "old", 17);
    let index = write(&store, &run, &options);
    assert!(index.contains(">17 <small>± 0</small>"));
}
