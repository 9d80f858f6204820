//! The HTML report: `report/index.html` under the output directory, with a
//! sortable summary of every stored benchmark and metric, the environment,
//! charts of each metric against the argument for benchmarks with `args`,
//! a page per benchmark of the run (`report/bench/<folder>.html`) and a
//! page per group of two members or more (`report/group/<folder>.html`).
//!
//! The report is self-contained: the style sheet (`style.css`) and the
//! sorting script (`sort.js`) are inline, the plots are inline SVG, and
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

mod arguments;
mod group;
mod index;
mod page;
mod plots;
mod text;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::analysis::comparison::{Comparison, MetricChange, Target, Thresholds};
use crate::analysis::{analyze, Analysed, Calibration, Recording};
use crate::counter::event::Unit;
use crate::store::summary::{
    decode_summary, decode_values, encode_summary, encode_values, values_of, MetricSummary,
    Summary, Values,
};
use crate::store::{folder_name, Kind, Slot, Store, StoreError};

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
    let fresh: Vec<(Summary, Vec<Values>)> =
        run.iter().map(|a| (Summary::of(a), values_of(a))).collect();
    for written in par_map(&fresh, |(s, v)| write_summary(store, &data, s, v)) {
        written?;
    }
    let run_ids: BTreeSet<&str> = run.iter().map(|a| a.recording.id.as_str()).collect();
    let (stored, problems) = stored_summaries(store, &data, &run_ids);
    let mut entries: Vec<&Summary> = fresh.iter().map(|(s, _)| s).chain(&stored).collect();
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    // Two arguments with the same Display make one id, stored once: one row.
    entries.dedup_by(|a, b| a.id == b.id);
    let order = run_order(&entries, run);
    let in_run: Vec<bool> = entries
        .iter()
        .map(|e| run_ids.contains(e.id.as_str()))
        .collect();
    let groups = group::groups(&entries, &order);
    // Only the groups with a member in the run change.
    let touched: Vec<&group::Group> = groups
        .iter()
        .filter(|g| g.benchmarks.iter().any(|&i| in_run[i]))
        .collect();
    let values = group_values(store, &data, &entries, &touched, &fresh);
    write_pages(store, run, &groups, options.plots)?;
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
        store.write(&path, group::render(&ix, g).as_bytes())
    }) {
        written?;
    }
    let index = index::write(store, &ix)?;
    Ok(Written {
        index,
        left_out: problems,
    })
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

/// The summary file of the benchmark in `folder` under `data`.
fn summary_path(data: &Path, folder: &str) -> PathBuf {
    data.join(format!("{folder}.json"))
}

/// The file of sampled values of the benchmark in `folder` under `data`.
fn values_path(data: &Path, folder: &str) -> PathBuf {
    data.join(format!("{folder}.values.json"))
}

/// Writes a benchmark's summary and sampled values under `data`.
fn write_summary(
    store: &Store,
    data: &Path,
    s: &Summary,
    values: &[Values],
) -> Result<(), StoreError> {
    let folder = folder_name(&s.id);
    store.write(
        &values_path(data, &folder),
        encode_values(values).as_bytes(),
    )?;
    store.write(&summary_path(data, &folder), encode_summary(s).as_bytes())
}

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
    groups: &[&group::Group],
    fresh: &[(Summary, Vec<Values>)],
) -> Vec<Vec<Values>> {
    let mut values: Vec<Vec<Values>> = vec![Vec::new(); entries.len()];
    for &i in groups.iter().flat_map(|g| &g.benchmarks) {
        let id = &entries[i].id;
        values[i] = match fresh.iter().find(|(s, _)| s.id == *id) {
            Some((_, v)) => v.clone(),
            // Only drawn: a file that cannot be read or decoded draws
            // nothing (its summary, read before, names a bad folder).
            None => store
                .read(&values_path(data, &folder_name(id)))
                .ok()
                .flatten()
                .and_then(|text| decode_values(&text).ok())
                .unwrap_or_default(),
        };
    }
    values
}

/// Writes the page of each benchmark of `run` under `dir`, linked to its
/// group's page where that is one of `groups`.
fn write_pages(
    store: &Store,
    run: &[Analysed],
    groups: &[group::Group],
    plots: bool,
) -> Result<(), StoreError> {
    let written = par_map(run, |a| {
        let path = Path::new(REPORT).join(page_path(&a.recording.id));
        let group = a.result.membership.as_ref().map(|m| m.group.as_str());
        let group = group.filter(|g| groups.iter().any(|known| known.name == *g));
        store.write(&path, page::render(a, plots, group).as_bytes())
    });
    written.into_iter().collect()
}

/// The positions in `entries` (sorted by id) of the run's benchmarks in the
/// run's order, then of the others.
fn run_order(entries: &[&Summary], run: &[Analysed]) -> Vec<usize> {
    let mut order = Vec::with_capacity(entries.len());
    let mut in_run = vec![false; entries.len()];
    for a in run {
        let id = a.recording.id.as_str();
        if let Ok(i) = entries.binary_search_by(|e| e.id.as_str().cmp(id)) {
            if !in_run[i] {
                in_run[i] = true;
                order.push(i);
            }
        }
    }
    order.extend((0..entries.len()).filter(|&i| !in_run[i]));
    order
}

/// The summaries of the benchmarks stored under the root that are not in
/// the run, and the stored results that could not be read.
fn stored_summaries(
    store: &Store,
    data: &Path,
    run: &BTreeSet<&str>,
) -> (Vec<Summary>, Vec<String>) {
    let run_folders: BTreeSet<String> = run.iter().map(|id| folder_name(id)).collect();
    let listed = store.list(Path::new("")).map_err(|e| e.to_string());
    let (mut entries, mut problems) = (Vec::new(), Vec::new());
    // Folders perfbench made have ASCII names; no other holds its results.
    let mut folders = Vec::new();
    for (name, kind) in listed.unwrap_or_else(|e| {
        problems.push(e);
        Vec::new()
    }) {
        if name.starts_with('.') || run_folders.contains(&name) {
            continue;
        }
        // A link is walked into like a folder, so that the walk names it.
        if matches!(kind, Kind::Dir | Kind::Link) {
            folders.push(name);
        }
    }
    for found in par_map(&folders, |folder| stored_summary(store, data, folder)) {
        match found {
            Ok(Some(s)) => entries.push(s),
            Ok(None) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    (entries, problems)
}

/// The summary of the benchmark stored in `folder`: its summary file where
/// that is at least as new as its latest run, else one made from the
/// latest run (and written for the next report); `None` where the folder
/// holds no latest run.
fn stored_summary(store: &Store, data: &Path, folder: &str) -> Result<Option<Summary>, StoreError> {
    let latest = Path::new(folder).join("latest.json");
    let Some(stored_at) = store.modified(&latest)? else {
        return Ok(None);
    };
    let path = summary_path(data, folder);
    // A summary that cannot be read is made again, and replaced.
    let summarised_at = store.modified(&path).ok().flatten();
    if summarised_at.is_some_and(|t| t >= stored_at) {
        let summary = store
            .read(&path)
            .ok()
            .flatten()
            .and_then(|text| decode_summary(&text).ok());
        if let Some(s) = summary.filter(|s| folder_name(&s.id) == folder) {
            return Ok(Some(s));
        }
    }
    let Some(recording) = store.stored_run(folder)? else {
        return Ok(None);
    };
    let a = analysed_stored(store, recording)?;
    let summary = Summary::of(&a);
    write_summary(store, data, &summary, &values_of(&a))?;
    Ok(Some(summary))
}

/// A stored latest run, analysed and compared with the run before it (kept
/// as `previous.json`), as its own run compared it.
fn analysed_stored(store: &Store, recording: Recording) -> Result<Analysed, StoreError> {
    let result = analyze(&recording, &Calibration::default());
    let base = store.load(&recording.id, &Slot::Previous)?;
    let comparison = Comparison::of(
        &Target::PreviousRun,
        base.as_ref(),
        &recording,
        &Thresholds::default(),
    );
    Ok(Analysed {
        recording,
        result,
        comparison: Some(comparison),
        baseline: None,
    })
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

/// Whether `metric` is exactly zero, with an interval of `[0, 0]`, in every
/// one of `entries` that has it: nothing to chart or compare, so the report
/// names it once instead.
fn zero_everywhere<'a>(entries: impl IntoIterator<Item = &'a Summary>, metric: &str) -> bool {
    entries
        .into_iter()
        .filter_map(|e| metric_of(e, metric))
        .all(|m| {
            let s = &m.estimate;
            s.point == 0.0 && s.ci.low == 0.0 && s.ci.high == 0.0
        })
}

/// The metrics of the benchmarks `entries` gives, with their units, less
/// those zero in every one of them ([`zero_everywhere`]), which one note
/// names instead: "Zero for every `each`, so not `drawn`: …".
fn metrics_to_draw<'a, I>(
    out: &mut String,
    entries: impl Fn() -> I,
    each: &str,
    drawn: &str,
) -> Vec<(&'a str, Unit)>
where
    I: Iterator<Item = &'a Summary>,
{
    let (zero, shown): (Vec<_>, Vec<_>) = metric_names(entries())
        .into_iter()
        .partition(|(name, _)| zero_everywhere(entries(), name));
    if !zero.is_empty() {
        let zero: Vec<String> = zero.iter().map(|(n, _)| text::esc(n)).collect();
        let _ = writeln!(
            out,
            "<p class=\"note zero-metrics\">Zero for every {each}, so not {drawn}: {}.</p>",
            zero.join(", ")
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

/// `f` over `items` on every available core, in order.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            let done = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (i, r) in done {
                out[i] = Some(r);
            }
        }
    });
    out.into_iter()
        .map(|r| r.expect("every item was mapped"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::text::{esc, sort_key, value, SCRIPT};
    use super::*;
    use crate::analysis::Recording;
    use crate::counter::event::parse_list;
    use crate::counter::event::Unit;
    use crate::counter::group::Counts;
    use crate::measure::environment::Environment;
    use crate::measure::{Measurement, Sample, Throughput};
    use crate::output::format::percent;
    use std::path::Path;

    const HOSTILE: &str = "<script>alert(1)</script>";
    const ESCAPED: &str = "&lt;script&gt;alert(1)&lt;/script&gt;";

    /// A fresh folder under the system's temporary folder, removed on drop.
    pub(crate) struct Temp(pub PathBuf);

    impl Temp {
        pub(crate) fn new(name: &str) -> Temp {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "perfbench-html-{name}-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            Temp(dir)
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A stored run to save.
    struct Run<'a> {
        id: &'a str,
        /// Events measured, as `--events` takes them.
        events: &'a str,
        /// Exact count per iteration of each event.
        per_iter: &'a [u64],
        /// Whether wall time varies from sample to sample.
        noisy: bool,
        cpu_model: &'a str,
    }

    impl Default for Run<'_> {
        fn default() -> Self {
            Run {
                id: "x",
                events: "page-faults",
                per_iter: &[16],
                noisy: true,
                cpu_model: "test cpu",
            }
        }
    }

    fn save(store: &Store, slot: &Slot, r: Run) {
        let events = parse_list(r.events).unwrap();
        let m = Measurement {
            samples: (1..=20u64)
                .map(|i| {
                    let iterations = 10 * i;
                    let jitter = if r.noisy { (i * 7919) % 97 * 13 } else { 0 };
                    Sample {
                        iterations,
                        wall_ns: 250 * iterations + jitter,
                        counts: Counts {
                            time_enabled: 1,
                            time_running: 1,
                            values: r.per_iter.iter().map(|p| p * iterations).collect(),
                        },
                    }
                })
                .collect(),
            throughput: None,
        };
        let env = Environment {
            cpu_model: r.cpu_model.into(),
            kernel: "6.18.0".into(),
            cpu: Some(1),
            ..Default::default()
        };
        let mut run = Recording::new(r.id, &events, &m, env);
        // Four rounds of five samples.
        run.rounds = (0..20).map(|i| i / 5).collect();
        store
            .save(
                &run,
                slot,
                &crate::analysis::analyze(
                    &crate::analysis::Recording::new(r.id, &events, &m, Default::default()),
                    &Default::default(),
                ),
            )
            .unwrap();
    }

    /// A benchmark of a run, as the run would have analysed and compared
    /// it: its latest stored run against `against` (the previous run is
    /// stored as baseline `previous` by these tests).
    fn analysed(store: &Store, id: &str, against: &Target) -> Option<Analysed> {
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
            baseline: base,
        })
    }

    fn report(store: &Store, run_ids: &[&str], plots: bool, against: Target) -> String {
        let run: Vec<Analysed> = run_ids
            .iter()
            .filter_map(|id| analysed(store, id, &against))
            .collect();
        let options = ReportOptions {
            plots,
            against,
            thresholds: Thresholds::default(),
        };
        let path = write_report(store, &run, &options).unwrap().index;
        assert_eq!(path, store.root().join("report").join("index.html"));
        std::fs::read_to_string(path).unwrap()
    }

    fn page(store: &Store, id: &str) -> String {
        let path = store.root().join("report").join(page_path(id));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Every file under `dir`, recursively.
    fn files(dir: &Path) -> Vec<PathBuf> {
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
    fn report_files(store: &Store) -> Vec<(PathBuf, String)> {
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
    fn attributes<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
        let needle = format!(" {name}=\"");
        html.match_indices(&needle)
            .map(|(i, _)| {
                let rest = &html[i + needle.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect()
    }

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
            .filter(|row| row.contains(&format!(">{}<", esc(id))))
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
    fn text_helpers_escape_and_never_print_nan() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(percent(0.0625), "+6.25%");
        assert_eq!(percent(-0.5), "-50.00%");
        assert_eq!(percent(f64::INFINITY), "+∞");
        assert_eq!(percent(-0.000_001), "+0.00%");
        assert_eq!(value(f64::NAN, Unit::Count), "n/a");
        assert_eq!(value(4512.3, Unit::Nanoseconds), "4.512 µs");
        assert_eq!(sort_key(f64::NAN), "");
        assert_eq!(sort_key(1.5), " data-v=\"1.5\"");
    }

    #[test]
    fn hostile_ids_args_event_names_and_cpu_models_are_escaped() {
        let tmp = Temp::new("hostile");
        let store = Store::at(&tmp.0);
        let arg = format!("grp/{HOSTILE}");
        for id in [HOSTILE, arg.as_str(), "grp/ascii"] {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    cpu_model: HOSTILE,
                    ..Run::default()
                },
            );
            save(
                &store,
                &Slot::Baseline("main".into()),
                Run {
                    id,
                    ..Run::default()
                },
            );
        }
        // An event name from user code: a series stored under a hostile name.
        let events = parse_list("page-faults").unwrap();
        let mut run = store.load("grp/ascii", &Slot::Latest).unwrap().unwrap();
        run.series[1].name = HOSTILE.into();
        let m = Measurement {
            samples: run
                .iterations
                .iter()
                .zip(&run.series[1].totals)
                .zip(&run.series[0].totals)
                .map(|((&iterations, &v), &wall_ns)| Sample {
                    iterations,
                    wall_ns,
                    counts: Counts {
                        time_enabled: 1,
                        time_running: 1,
                        values: vec![v],
                    },
                })
                .collect(),
            throughput: None,
        };
        let mut result = crate::analysis::analyze(
            &crate::analysis::Recording::new(&run.id, &events, &m, Default::default()),
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
        let tmp = Temp::new("offline");
        let store = Store::at(&tmp.0);
        for id in ["a", "g/1", "g/2"] {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    ..Run::default()
                },
            );
            save(
                &store,
                &Slot::Baseline("main".into()),
                Run {
                    id,
                    per_iter: &[17],
                    ..Run::default()
                },
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
        let tmp = Temp::new("escape");
        let store = Store::at(tmp.0.join("a").join("b").join("store"));
        let ids = ["../../x", "/abs", "..", "a/../../../y", "index", "bench"];
        for id in ids {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    ..Run::default()
                },
            );
        }
        let before = files(&tmp.0);
        report(&store, &ids, true, Target::PreviousRun);
        let report_dir = store.root().join("report");
        let new: Vec<PathBuf> = files(&tmp.0)
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
    fn zero_variance_gives_a_marked_value_and_no_nan() {
        let tmp = Temp::new("exact");
        let store = Store::at(&tmp.0);
        save(
            &store,
            &Slot::Latest,
            Run {
                id: "exact",
                events: "page-faults,minor-faults",
                per_iter: &[16, 0],
                noisy: false,
                ..Run::default()
            },
        );
        save(
            &store,
            &Slot::Baseline("main".into()),
            Run {
                id: "exact",
                events: "page-faults,minor-faults",
                per_iter: &[16, 0],
                noisy: false,
                ..Run::default()
            },
        );
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

    #[test]
    fn noplot_writes_tables_and_no_svg() {
        let tmp = Temp::new("noplot");
        let store = Store::at(&tmp.0);
        for id in ["a", "g/1", "g/2"] {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    ..Run::default()
                },
            );
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

    #[test]
    fn the_index_lists_every_stored_benchmark_and_links_only_to_pages() {
        let tmp = Temp::new("index");
        let store = Store::at(&tmp.0);
        for id in ["in_run", "not_in_run", "also/1"] {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    ..Run::default()
                },
            );
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
            assert!(index.contains(&format!(">{id}<")), "{id} listed");
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
        let tmp = Temp::new("args");
        let store = Store::at(&tmp.0);
        let ids = [
            "zeroed/64",
            "zeroed/4096",
            "zeroed/65536",
            "parse/emoji 🦀",
            "parse/ascii",
            "plain",
        ];
        for (i, id) in ids.iter().enumerate() {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    per_iter: &[i as u64 + 1],
                    ..Run::default()
                },
            );
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
        let tmp = Temp::new("fold");
        let store = Store::at(&tmp.0);
        let events = "page-faults,major-faults,alignment-faults";
        for (id, per_iter) in [("a", [16, 0, 0]), ("b", [0, 0, 1]), ("c", [3, 0, 0])] {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    events,
                    per_iter: &per_iter,
                    ..Run::default()
                },
            );
        }
        let index = report(&store, &["a", "b", "c"], true, Target::PreviousRun);
        // Zero in two of three is not zero everywhere: it stays.
        assert_eq!(
            summary_metrics(&index),
            ["wall-time", "page-faults", "alignment-faults"]
        );
        assert!(
            index.contains(
                "<p class=\"note\" id=\"folded\">Not shown, as every benchmark counts exactly \
                 0 of it (interval [0, 0]): major-faults.</p>"
            ),
            "{index}"
        );
        assert_eq!(summary_rows(&index).len(), 3);
        assert!(summary_cell(&index, "b", "page-faults")
            .0
            .contains(">0 <small>± 0</small>"));

        // Nothing zero everywhere: no note.
        let tmp = Temp::new("nofold");
        let store = Store::at(&tmp.0);
        save(&store, &Slot::Latest, Run::default());
        let index = report(&store, &["x"], true, Target::PreviousRun);
        assert!(!index.contains("id=\"folded\""));
        assert_eq!(summary_metrics(&index), ["wall-time", "page-faults"]);
    }

    #[test]
    fn a_group_charts_no_metric_that_is_zero_for_every_argument() {
        let tmp = Temp::new("groupzero");
        let store = Store::at(&tmp.0);
        let ids = ["g/1", "g/17", "g/100"];
        for (i, id) in ids.iter().enumerate() {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    events: "page-faults,major-faults,minor-faults",
                    per_iter: &[i as u64 + 1, 0, 0],
                    ..Run::default()
                },
            );
        }
        let index = report(&store, &ids, true, Target::PreviousRun);
        let section = &index[index.find("<section class=\"group\"").unwrap()..];
        assert!(section.starts_with(
            "<section class=\"group\" id=\"group-0\" data-axis=\"log\">\n\
             <h3>g <small>(3 arguments, logarithmic axis)</small></h3>\n\
             <p class=\"note zero-metrics\">Zero for every argument, so not charted: \
             major-faults, minor-faults.</p>"
        ));
        assert_eq!(
            attributes(section, "data-metric"),
            ["wall-time", "page-faults"]
        );
        assert_eq!(section.matches("<svg").count(), 2);
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
        let tmp = Temp::new("throughput");
        let store = Store::at(&tmp.0);
        let ids = ["copy/64", "copy/4096", "plain"];
        for id in ids {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    noisy: false,
                    ..Run::default()
                },
            );
        }
        let run = [
            with_throughput(&store, "copy/64", Throughput::Bytes(64)),
            with_throughput(&store, "copy/4096", Throughput::Bytes(4096)),
            analysed(&store, "plain", &Target::PreviousRun).unwrap(),
        ];
        let options = ReportOptions {
            plots: true,
            against: Target::PreviousRun,
            thresholds: Thresholds::default(),
        };
        let index = write_report(&store, &run, &options).unwrap().index;
        let index = std::fs::read_to_string(index).unwrap();
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
        let tmp = Temp::new("overlay");
        let store = Store::at(&tmp.0);
        for id in ["a", "b"] {
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    ..Run::default()
                },
            );
        }
        save(
            &store,
            &Slot::Baseline("main".into()),
            Run {
                id: "a",
                per_iter: &[17],
                ..Run::default()
            },
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
            Run {
                id: "a",
                per_iter: &[15],
                ..Run::default()
            },
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
    fn change_cells_carry_the_verdict_class() {
        let tmp = Temp::new("verdicts");
        let store = Store::at(&tmp.0);
        let main = Slot::Baseline("main".into());
        for (id, before, now) in [("worse", 16, 17), ("better", 16, 15), ("same", 16, 16)] {
            save(
                &store,
                &main,
                Run {
                    id,
                    per_iter: &[before],
                    ..Run::default()
                },
            );
            save(
                &store,
                &Slot::Latest,
                Run {
                    id,
                    per_iter: &[now],
                    ..Run::default()
                },
            );
        }
        save(
            &store,
            &Slot::Latest,
            Run {
                id: "new",
                ..Run::default()
            },
        );
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
        save(
            &store,
            &Slot::Previous,
            Run {
                id: "better",
                per_iter: &[16],
                ..Run::default()
            },
        );
        save(
            &store,
            &Slot::Baseline("previous".into()),
            Run {
                id: "worse",
                per_iter: &[16],
                ..Run::default()
            },
        );
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
        assert!(
            index.contains("Changes of the benchmarks of this run are against the previous run")
        );
        let page = page(&store, "worse");
        assert!(
            page.contains("<tr><td>change vs the previous run</td><td class=\"change regressed\"")
        );
    }

    /// A benchmark analysed as a run does it: with events whose ratios and
    /// PMU scale are known, and the cost of measuring subtracted.
    fn analysed_with_events() -> Analysed {
        let tree = crate::kernel::pmu::tests::intel_hybrid();
        let events = crate::counter::event::parse_list_in(
            "instructions,cycles,power/energy-pkg/",
            tree.root(),
        )
        .unwrap();
        let m = Measurement {
            samples: (1..=10u64)
                .map(|i| Sample {
                    iterations: i,
                    wall_ns: 1000 * i + 7 * (i % 3),
                    counts: Counts {
                        time_enabled: 1,
                        time_running: 1,
                        values: vec![3000 * i, 2000 * i, (1 << 32) * i],
                    },
                })
                .collect(),
            throughput: None,
        };
        let recording = Recording::new("hw", &events, &m, Environment::default());
        let calibration = Calibration::exact(&[("cycles", 100)], true);
        Analysed {
            result: analyze(&recording, &calibration),
            recording,
            comparison: None,
            baseline: None,
        }
    }

    #[test]
    fn pages_show_the_run_s_own_figures_scale_derived_metrics_and_overhead() {
        let tmp = Temp::new("figures");
        let store = Store::at(&tmp.0);
        let options = ReportOptions {
            plots: false,
            against: Target::PreviousRun,
            thresholds: Thresholds::default(),
        };
        write_report(&store, &[analysed_with_events()], &options).unwrap();
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
        assert!(page
            .contains("<tr><td>cost of measuring (per iteration)</td><td class=\"num\">100</td>"));
        assert!(
            page.contains("<tr><td>estimate before subtracting it</td><td class=\"num\">2000</td>")
        );
        assert!(page.contains("<b>estimate</b> (slope)</td><td class=\"num\">1900</td>"));
        assert!(page.contains("Not compared"), "no comparison in memory");
        // The regression line is the raw fit, 2000 cycles per iteration.
        let options = ReportOptions {
            plots: true,
            ..options
        };
        write_report(&store, &[analysed_with_events()], &options).unwrap();
        let page = self::page(&store, "hw");
        assert!(page.contains("fit: 2000 per iteration"), "the raw slope");
        assert!(!page.contains("fit: 1900 per iteration"));
    }
}

#[cfg(test)]
mod scale_tests {
    use super::tests::Temp;
    use super::*;
    use crate::analysis::standings::Membership;
    use crate::counter::event::parse_list;
    use crate::counter::group::{Counts, ReadPath};
    use crate::measure::{Measurement, Sample};

    /// A per-iteration run of `n` iterations: varying wall time and exactly
    /// 3 page faults each.
    fn per_iteration_run(id: &str, n: u64) -> Analysed {
        let events = parse_list("page-faults").unwrap();
        let m = Measurement {
            samples: (0..n)
                .map(|i| Sample {
                    iterations: 1,
                    wall_ns: 700 + (i * 7919) % 301,
                    counts: Counts {
                        time_enabled: 1,
                        time_running: 1,
                        values: vec![3],
                    },
                })
                .collect(),
            throughput: None,
        };
        let mut recording = Recording::new(id, &events, &m, Default::default());
        recording.rounds = (0..n).map(|i| (10 * i / n) as u32).collect();
        recording.read_path = Some(ReadPath::Syscall);
        Analysed {
            result: analyze(&recording, &Calibration::default()),
            recording,
            comparison: None,
            baseline: None,
        }
    }

    fn options() -> ReportOptions {
        ReportOptions {
            plots: true,
            against: Target::PreviousRun,
            thresholds: Thresholds::default(),
        }
    }

    #[test]
    fn a_page_of_500_000_samples_stays_small_and_exact() {
        let tmp = Temp::new("big");
        let store = Store::at(&tmp.0);
        let run = [per_iteration_run("big", 500_000)];
        write_report(&store, &run, &options()).unwrap();
        let page = std::fs::read_to_string(tmp.0.join("report/bench/big.html")).unwrap();
        assert!(page.len() < 2_000_000, "{} bytes", page.len());
        assert!(page.contains("<p>500000 samples, 500000 iterations in all."));
        assert!(page.contains("Every sample gives exactly 3 per iteration"));
        assert!(
            page.contains("500000 samples: 3"),
            "the spike names every sample"
        );
        let circles = page.matches("<circle").count();
        assert!(circles <= 2 * plots::MAX_POINTS, "{circles} circles");
        let data = std::fs::read_to_string(tmp.0.join("report/data/big.values.json")).unwrap();
        assert!(
            data.len() < 64 * 1024,
            "{} bytes of sampled values",
            data.len()
        );
    }

    /// The stored run of `id` with `faults` page faults per iteration, and
    /// the run that measured it as the report is handed it.
    fn stored(store: &Store, id: &str, faults: u64) -> Analysed {
        let events = parse_list("page-faults").unwrap();
        let m = Measurement {
            samples: (1..=10u64)
                .map(|i| Sample {
                    iterations: i,
                    wall_ns: 100 * i,
                    counts: Counts {
                        time_enabled: 1,
                        time_running: 1,
                        values: vec![faults * i],
                    },
                })
                .collect(),
            throughput: None,
        };
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
            baseline: None,
        }
    }

    /// The text and modification time of each file under `dir`.
    fn snapshot(dir: &Path) -> Vec<(PathBuf, String, std::time::SystemTime)> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(snapshot(&path));
            } else {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path, text, entry.metadata().unwrap().modified().unwrap()));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_run_rewrites_only_its_own_pages_and_lists_the_rest_from_summaries() {
        let tmp = Temp::new("incremental");
        let store = Store::at(&tmp.0);
        let run: Vec<Analysed> = [("g::a", 16), ("g::b", 7), ("other", 5)]
            .iter()
            .map(|&(id, f)| stored(&store, id, f))
            .collect();
        write_report(&store, &run, &options()).unwrap();
        let before = snapshot(&tmp.0.join("report"));
        assert!(before.iter().any(|(p, _, _)| p.ends_with("group/g.html")));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let again = [stored(&store, "other", 6)];
        let index = write_report(&store, &again, &options()).unwrap().index;
        let after = snapshot(&tmp.0.join("report"));
        let changed: Vec<String> = after
            .iter()
            .filter(|f| !before.contains(f))
            .map(|(p, _, _)| {
                p.strip_prefix(tmp.0.join("report"))
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
        let index = std::fs::read_to_string(index).unwrap();
        for (id, faults) in [("g::a", 16), ("g::b", 7), ("other", 6)] {
            let row = &index[index.find(&format!(">{id}<")).unwrap()..];
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
        let tmp = Temp::new("older");
        let store = Store::at(&tmp.0);
        // Stored by an older perfbench: no report at all.
        stored(&store, "old", 16);
        let run = [stored(&store, "new", 2)];
        let index = write_report(&store, &run, &options()).unwrap().index;
        let index = std::fs::read_to_string(index).unwrap();
        assert!(index.contains("<span>old</span> <span class=\"badge stale\">earlier run</span>"));
        assert!(index.contains(">16 <small>± 0</small>"));
        let summary = tmp.0.join("report/data/old.json");
        let made = std::fs::metadata(&summary).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        write_report(&store, &run, &options()).unwrap();
        assert_eq!(
            std::fs::metadata(&summary).unwrap().modified().unwrap(),
            made,
            "made once"
        );
        // A run stored after its summary (a report that failed) is summarised again.
        stored(&store, "old", 17);
        let index = write_report(&store, &run, &options()).unwrap().index;
        assert!(std::fs::read_to_string(index)
            .unwrap()
            .contains(">17 <small>± 0</small>"));
    }
}
