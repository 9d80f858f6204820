//! The HTML report: `report/index.html` under the output directory, with a
//! sortable summary of every stored benchmark and metric, the environment,
//! charts of each metric against the argument for benchmarks with `args`,
//! and a page per benchmark of the run (`report/bench/<folder>.html`) with,
//! per metric, the distribution of per-iteration values, the batch
//! regression, the comparison with the baseline and the statistics.
//!
//! The report is self-contained: CSS and the sorting script are inline, the
//! plots are inline SVG, and every link is relative, so it opens from
//! `file://` without any network. Every string that comes from user code
//! (ids, arguments, event names, baseline names, the CPU model) is
//! HTML-escaped; the script reads its data from the DOM, never from strings
//! of its own. Page names come from [`folder_name`], so no id can write
//! outside `report/`.
//!
//! The statistics are recomputed from the stored raw samples with the
//! default (seeded) bootstrap, so they equal what the run printed; changes
//! against a baseline use the default noise thresholds.

mod plots;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::analysis::compare::{compare_runs, MetricChange, Thresholds, Verdict};
use crate::analysis::Metric;
use crate::analysis::{Analysed, Recording};
use crate::counter::event::Unit;
use crate::measure::environment::Environment;
use crate::output::format::{format_value, percent};
use crate::stats::{analyze_metric, Bootstrap, Estimate, Statistics};
use crate::store::{folder_name, write_atomically, Slot, Store, StoreError};

/// Options of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportOptions {
    /// Plots in the pages and the index; `false` (`--noplot`) writes tables
    /// only.
    pub plots: bool,
    /// What the run compared with. The previous run ([`Slot::Latest`]) has
    /// been replaced by this one by the time the report is written, so it
    /// gives neither changes nor overlays; a baseline gives both, for every
    /// benchmark it holds.
    pub against: Slot,
    /// The noise thresholds the run's verdicts used.
    pub thresholds: Thresholds,
}

/// The report as an output of a run: collects the run's benchmarks and
/// writes the report when the run ends.
pub struct ReportSink {
    store: Store,
    options: ReportOptions,
    ids: Vec<String>,
}

impl ReportSink {
    /// A report under `store`'s root.
    pub fn new(store: Store, options: ReportOptions) -> ReportSink {
        ReportSink {
            store,
            options,
            ids: Vec::new(),
        }
    }

    /// Adds a benchmark of the run.
    pub fn benchmark(&mut self, a: &Analysed) {
        self.ids.push(a.result.id.clone());
    }

    /// Writes the report; returns the path of its index.
    pub fn finish(self) -> Result<PathBuf, StoreError> {
        write_report(&self.store, &self.ids, &self.options)
    }
}

/// Writes `<store root>/report/index.html` and one page per benchmark of
/// `run_ids` (the benchmarks of this run), with the index listing every
/// benchmark stored under the root (each folder's `latest.json`). Returns
/// the path of `index.html`.
///
/// A stored result that cannot be read is named in the index instead of
/// failing the report; a file of the report that cannot be written is the
/// error.
pub fn write_report(
    store: &Store,
    run_ids: &[String],
    options: &ReportOptions,
) -> Result<PathBuf, StoreError> {
    let dir = store.root().join("report");
    let listed = store.stored_ids();
    let ids: Vec<&String> = listed.iter().filter_map(|r| r.as_ref().ok()).collect();
    let mut problems: Vec<String> = listed
        .iter()
        .filter_map(|r| r.as_ref().err().map(ToString::to_string))
        .collect();
    let loaded = par_map(&ids, |id| {
        load(store, id, &options.against, &options.thresholds)
    });
    let mut entries = Vec::new();
    for result in loaded {
        match result {
            Ok(Some((entry, problem))) => {
                problems.extend(problem);
                entries.push(entry);
            }
            Ok(None) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }

    // The entries are sorted by id. Those of this run, in its order, then
    // the others.
    let mut order: Vec<usize> = Vec::with_capacity(entries.len());
    let mut in_run = vec![false; entries.len()];
    for id in run_ids {
        if let Ok(i) = entries.binary_search_by(|e| e.run.id.as_str().cmp(id)) {
            if !in_run[i] {
                in_run[i] = true;
                order.push(i);
            }
        }
    }
    let to_write: Vec<&Entry> = order.iter().map(|&i| &entries[i]).collect();
    order.extend((0..entries.len()).filter(|&i| !in_run[i]));
    let against = against_name(&options.against);
    let written = par_map(&to_write, |entry| {
        let path = dir.join(page_path(&entry.run.id));
        write_atomically(&path, render_page(entry, against, options.plots).as_bytes())
    });
    for result in written {
        result?;
    }

    // A page written by an earlier run still shows that benchmark's latest
    // run (it changes only when the benchmark runs), so it is linked too.
    let has_page: Vec<bool> = entries
        .iter()
        .map(|e| dir.join(page_path(&e.run.id)).is_file())
        .collect();
    let index = render_index(&Index {
        entries: &entries,
        problems: &problems,
        has_page: &has_page,
        order: &order,
        against,
        plots: options.plots,
        thresholds: options.thresholds,
    });
    let path = dir.join("index.html");
    write_atomically(&path, index.as_bytes())?;
    Ok(path)
}

/// The page of a benchmark, relative to `report/`.
fn page_path(id: &str) -> String {
    format!("bench/{}.html", folder_name(id))
}

/// The baseline's name, if the run compared with one.
fn against_name(slot: &Slot) -> Option<&str> {
    match slot {
        Slot::Latest => None,
        Slot::Baseline(name) => Some(name),
    }
}

/// One stored benchmark, analysed.
struct Entry {
    /// Its latest run.
    run: Recording,
    /// Statistics per series, in the run's order.
    metrics: Vec<Metric>,
    /// The baseline compared with, where it holds this benchmark.
    baseline: Option<Recording>,
    /// Changes per metric against `baseline`.
    changes: Vec<MetricChange>,
}

impl Entry {
    fn change(&self, metric: &str) -> Option<&MetricChange> {
        self.changes.iter().find(|c| c.name == metric)
    }
}

/// Loads and analyses a benchmark's latest run and, if the run compared
/// with a baseline, that baseline; a baseline that cannot be read is a
/// problem to show, not a failure.
fn load(
    store: &Store,
    id: &str,
    against: &Slot,
    thresholds: &Thresholds,
) -> Result<Option<(Entry, Option<String>)>, StoreError> {
    let Some(run) = store.load(id, &Slot::Latest)? else {
        return Ok(None);
    };
    let bootstrap = Bootstrap::default();
    let metrics = run
        .series
        .iter()
        .map(|s| Metric {
            name: s.name.clone(),
            unit: s.unit,
            stats: analyze_metric(&run.iterations, &s.totals, &bootstrap),
            scale: None,
        })
        .collect();
    let (baseline, problem) = match against {
        Slot::Latest => (None, None),
        slot => match store.load(id, slot) {
            Ok(base) => (base, None),
            Err(e) => (None, Some(e.to_string())),
        },
    };
    let changes = baseline.as_ref().map_or_else(Vec::new, |base| {
        compare_runs(base, &run, thresholds, &bootstrap)
    });
    Ok(Some((
        Entry {
            run,
            metrics,
            baseline,
            changes,
        },
        problem,
    )))
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

// ---------------------------------------------------------------- text

/// `s` with `&`, `<`, `>`, `"` and `'` escaped: safe in HTML text and in
/// quoted attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A value with its unit; `n/a` if not finite.
fn value(v: f64, unit: Unit) -> String {
    if v.is_finite() {
        format_value(v, unit)
    } else {
        "n/a".into()
    }
}

/// An interval as `[low, high]`.
fn interval(e: &Estimate, unit: Unit) -> String {
    format!("[{}, {}]", value(e.ci.low, unit), value(e.ci.high, unit))
}

/// A number for a `data-v` sort key, or nothing if it is not finite.
fn sort_key(v: f64) -> String {
    if v.is_finite() {
        format!(" data-v=\"{v}\"")
    } else {
        String::new()
    }
}

/// The CSS class of a verdict.
fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Improved => "improved",
        Verdict::Regressed => "regressed",
        Verdict::WithinNoise => "within-noise",
        Verdict::NoChange => "no-change",
    }
}

/// The change cells of a metric: the relative change with its interval, and
/// the verdict with the p-value.
fn change_cells(c: &MetricChange) -> String {
    let class = verdict_class(c.verdict);
    let ch = &c.change;
    let (relative, key) = match ch.relative {
        Some(r) => (percent(r), sort_key(r)),
        None => ("from 0".to_string(), String::new()),
    };
    let ci = ch
        .ci
        .map(|ci| {
            format!(
                " <small>[{}, {}]</small>",
                percent(ci.low),
                percent(ci.high)
            )
        })
        .unwrap_or_default();
    format!(
        "<td class=\"change {class}\"{key}>{relative}{ci}</td><td class=\"verdict {class}\">{} <small>p = {:.3}</small></td>",
        c.verdict.as_str(),
        ch.p_value
    )
}

fn pinned(env: &Environment) -> String {
    env.cpu
        .map_or_else(|| "not pinned".to_string(), |c| format!("CPU {c}"))
}

const CSS: &str = r#"
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto; max-width: 1100px; padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.5em; word-break: break-all; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; word-break: break-all; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { padding: .25em .7em; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; user-select: none; white-space: nowrap; }
table.sortable th[aria-sort="ascending"]::after { content: " \25B2"; }
table.sortable th[aria-sort="descending"]::after { content: " \25BC"; }
td.id { word-break: break-all; max-width: 28em; }
.regressed { color: #a50e1e; background: #fde8ea; }
.improved { color: #0b6b2c; background: #e4f5e9; }
.within-noise, .no-change { color: #555; }
small { color: inherit; opacity: .75; }
.note { background: #f6f6f6; border-left: 3px solid #999; padding: .4em .8em; }
.problem { background: #fff4e5; border-left: 3px solid #e08a00; padding: .4em .8em; word-break: break-all; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; }
figcaption { font-size: .9em; color: #555; max-width: 460px; }
svg { max-width: 100%; height: auto; }
input[type=search] { font: inherit; padding: .2em .4em; width: 20em; }
nav { margin-bottom: 1em; }
"#;

/// Sorts `table.sortable` by the clicked header (numbers by their `data-v`,
/// else the text) and filters the summary by benchmark. No data of its own.
const SCRIPT: &str = r##"
(function () {
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, col) {
      th.tabIndex = 0;
      var sort = function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var key = function (row) {
          var cell = row.cells[col];
          if (!cell) { return ""; }
          var v = cell.getAttribute("data-v");
          return v === null ? cell.textContent : parseFloat(v);
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (typeof x === "number" && typeof y === "number") { return (x - y) * dir; }
          if (typeof x === "number") { return -1; }
          if (typeof y === "number") { return 1; }
          return x.localeCompare(y) * dir;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
  });
  var filter = document.getElementById("filter");
  if (filter) {
    filter.addEventListener("input", function () {
      var q = filter.value.toLowerCase();
      var rows = document.querySelectorAll("#summary tbody tr");
      Array.prototype.forEach.call(rows, function (row) {
        row.hidden = q !== "" && row.cells[0].textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  }
})();
"##;

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(title)
    );
}

/// A plot in a figure, or a note of why it is missing.
fn figure(out: &mut String, svg: Result<String, String>, caption: &str) {
    match svg {
        Ok(svg) => {
            let _ = write!(
                out,
                "<figure>\n{svg}<figcaption>{caption}</figcaption>\n</figure>\n"
            );
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "<p class=\"problem\">{caption}: not drawn ({})</p>",
                esc(&e)
            );
        }
    }
}

// ---------------------------------------------------------------- index

struct Index<'a> {
    /// Sorted by id.
    entries: &'a [Entry],
    problems: &'a [String],
    /// Whether each entry has a page.
    has_page: &'a [bool],
    /// Indices of the entries: this run's in its order, then the others.
    order: &'a [usize],
    against: Option<&'a str>,
    plots: bool,
    thresholds: Thresholds,
}

fn render_index(ix: &Index) -> String {
    let mut out = String::with_capacity(64 * 1024);
    head(&mut out, "perfbench report");
    let n = ix.entries.len();
    let _ = write!(
        out,
        "<h1>perfbench report</h1>\n<p>{n} benchmark{} stored in this output directory.",
        if n == 1 { "" } else { "s" }
    );
    match ix.against {
        Some(name) => {
            let t = ix.thresholds;
            let _ = writeln!(
                out,
                " Changes are against baseline <code>{}</code>, with noise thresholds \
                 ({:.0} % for times, {:.0} % for counts) and p &lt; {}.</p>",
                esc(name),
                t.time * 100.0,
                t.count * 100.0,
                t.significance
            );
        }
        None => out.push_str(
            "</p>\n<p class=\"note\">This run was compared with the previous run, which it has \
             replaced, so this report shows no changes; the terminal output and JSON lines have \
             them. To see changes here, save a baseline (<code>--save-baseline NAME</code>) and \
             compare with it (<code>--baseline NAME</code>).</p>\n",
        ),
    }
    environment_section(&mut out, ix.entries);
    if !ix.problems.is_empty() {
        out.push_str("<h2>Results not shown</h2>\n");
        for p in ix.problems {
            let _ = writeln!(out, "<p class=\"problem\">{}</p>", esc(p));
        }
    }
    summary_table(&mut out, ix);
    if ix.plots {
        argument_charts(&mut out, ix);
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

fn environment_section(out: &mut String, entries: &[Entry]) {
    // Each record once, in the order of the benchmarks, with their ids.
    let mut envs: Vec<(&Environment, Vec<&str>)> = Vec::new();
    for e in entries {
        let env = &e.run.environment;
        match envs.iter_mut().find(|(known, _)| *known == env) {
            Some((_, ids)) => ids.push(&e.run.id),
            None => envs.push((env, vec![&e.run.id])),
        }
    }
    out.push_str("<h2>Environment</h2>\n");
    if envs.is_empty() {
        out.push_str("<p>No stored results.</p>\n");
        return;
    }
    if envs.len() > 1 {
        out.push_str(
            "<p class=\"note\">The stored results come from more than one environment: \
             compare counts across them with care.</p>\n",
        );
    }
    out.push_str(
        "<table id=\"environment\">\n<thead><tr><th>CPU model</th><th>kernel</th>\
         <th>pinned to</th><th>benchmarks</th></tr></thead>\n<tbody>\n",
    );
    for (env, ids) in &envs {
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
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{benchmarks}</td></tr>",
            esc(&env.cpu_model),
            esc(&env.kernel),
            pinned(env)
        );
    }
    out.push_str("</tbody>\n</table>\n");
}

fn summary_table(out: &mut String, ix: &Index) {
    out.push_str(
        "<h2>Summary</h2>\n<p>Per-iteration estimates (the slope of each sample's total \
         against its iterations) with their 95 % intervals. Click a header to sort.</p>\n\
         <p><input type=\"search\" id=\"filter\" placeholder=\"filter benchmarks\" \
         aria-label=\"filter benchmarks\"></p>\n\
         <table class=\"sortable\" id=\"summary\">\n<thead><tr><th>benchmark</th><th>metric</th>\
         <th class=\"num\">estimate</th><th class=\"num\">95 % CI</th>",
    );
    if ix.against.is_some() {
        out.push_str("<th class=\"num\">change</th><th>verdict</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (e, &has_page) in ix.entries.iter().zip(ix.has_page) {
        let id = &e.run.id;
        let name = if has_page {
            format!("<a href=\"{}\">{}</a>", esc(&page_path(id)), esc(id))
        } else {
            esc(id)
        };
        for m in &e.metrics {
            let s = &m.stats;
            let width = s.slope.ci.high - s.slope.ci.low;
            let _ = write!(
                out,
                "<tr><td class=\"id\">{name}</td><td>{}</td><td class=\"num\"{}>{}</td>\
                 <td class=\"num\"{}>{}</td>",
                esc(&m.name),
                sort_key(s.slope.point),
                value(s.slope.point, m.unit),
                sort_key(width),
                interval(&s.slope, m.unit)
            );
            if let Some(against) = ix.against {
                match (e.change(&m.name), &e.baseline) {
                    (Some(c), _) => out.push_str(&change_cells(c)),
                    (None, Some(_)) => out.push_str(
                        "<td class=\"change\">—</td><td class=\"verdict\">not in the baseline</td>",
                    ),
                    (None, None) => {
                        let _ = write!(
                            out,
                            "<td class=\"change\">—</td><td class=\"verdict\">new: not in <code>{}</code></td>",
                            esc(against)
                        );
                    }
                }
            }
            out.push_str("</tr>\n");
        }
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The group (before the first `/`) and argument of an id with one.
fn split_arg(id: &str) -> Option<(&str, &str)> {
    id.split_once('/')
}

fn argument_charts(out: &mut String, ix: &Index) {
    // Groups in the order of their first member; members in the order of
    // this run, then by id (the order of the stored results).
    let mut groups: Vec<(&str, Vec<(&str, &Entry)>)> = Vec::new();
    for e in ix.order.iter().map(|&i| &ix.entries[i]) {
        let Some((group, arg)) = split_arg(&e.run.id) else {
            continue;
        };
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, members)) => members.push((arg, e)),
            None => groups.push((group, vec![(arg, e)])),
        }
    }
    if groups.is_empty() {
        return;
    }
    out.push_str("<h2>Benchmarks with arguments</h2>\n");
    for (gi, (group, members)) in groups.iter().enumerate() {
        let numbers: Option<Vec<f64>> = members
            .iter()
            .map(|(arg, _)| arg.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
            .collect();
        let names: Vec<String> = members.iter().map(|(arg, _)| arg.to_string()).collect();
        let (axis, xs, how) = match &numbers {
            Some(xs) => {
                let (lo, hi) = xs
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                        (l.min(v), h.max(v))
                    });
                let log = lo > 0.0 && hi / lo >= 100.0;
                (
                    plots::ArgAxis::Numeric { log },
                    xs.clone(),
                    if log {
                        "logarithmic axis"
                    } else {
                        "numeric axis"
                    },
                )
            }
            None => (
                plots::ArgAxis::Categorical(&names),
                (0..members.len()).map(|i| i as f64).collect(),
                "in the order of the run",
            ),
        };
        let _ = write!(
            out,
            "<section class=\"group\" id=\"group-{gi}\">\n<h3>{} <small>({} argument{}, {how})</small></h3>\n<div class=\"plots\">\n",
            esc(group),
            members.len(),
            if members.len() == 1 { "" } else { "s" }
        );
        let mut metric_names: Vec<(&str, Unit)> = Vec::new();
        for (_, e) in members {
            for m in &e.metrics {
                if !metric_names.iter().any(|(n, _)| *n == m.name) {
                    metric_names.push((&m.name, m.unit));
                }
            }
        }
        for (metric, unit) in metric_names {
            let points: Vec<plots::ArgPoint> = members
                .iter()
                .zip(&xs)
                .filter_map(|((_, e), &x)| {
                    let m = e.metrics.iter().find(|m| m.name == metric)?;
                    Some(plots::ArgPoint {
                        x,
                        estimate: m.stats.slope,
                    })
                })
                .collect();
            let caption = format!(
                "{} of <code>{}</code> against the argument, with 95 % intervals",
                esc(metric),
                esc(group)
            );
            figure(
                out,
                plots::by_argument(metric, &points, &axis, unit),
                &caption,
            );
        }
        out.push_str("</div>\n</section>\n");
    }
}

// ---------------------------------------------------------------- pages

/// Per-iteration values of a series of `run`.
fn per_iteration(run: &Recording, totals: &[u64]) -> Vec<f64> {
    run.iterations
        .iter()
        .zip(totals)
        .map(|(&x, &y)| y as f64 / x as f64)
        .collect()
}

fn render_page(e: &Entry, against: Option<&str>, plots: bool) -> String {
    let run = &e.run;
    let mut out = String::with_capacity(256 * 1024);
    head(&mut out, &format!("{} — perfbench", run.id));
    let env = &run.environment;
    let iterations: u64 = run.iterations.iter().sum();
    let _ = write!(
        out,
        "<nav><a href=\"../index.html\">← all benchmarks</a></nav>\n<h1>{}</h1>\n\
         <p>{} samples, {} iterations in all. {}, kernel {}, {}.</p>\n",
        esc(&run.id),
        run.iterations.len(),
        iterations,
        esc(&env.cpu_model),
        esc(&env.kernel),
        pinned(env)
    );
    match (against, &e.baseline) {
        (None, _) => out.push_str(
            "<p class=\"note\">Compared with the previous run, which this run replaced: no \
             overlay here; the terminal output has the changes.</p>\n",
        ),
        (Some(name), None) => {
            let _ = writeln!(
                out,
                "<p class=\"note\">New: baseline <code>{}</code> does not hold this benchmark.</p>",
                esc(name)
            );
        }
        (Some(name), Some(base)) => {
            let _ = write!(
                out,
                "<p>Compared with baseline <code>{}</code> ({} samples)",
                esc(name),
                base.iterations.len()
            );
            match env.mismatch(&base.environment) {
                Some(why) => {
                    let _ = writeln!(
                        out,
                        ".</p>\n<p class=\"problem\">The baseline was recorded on {}.</p>",
                        esc(&why)
                    );
                }
                None => out.push_str(".</p>\n"),
            }
        }
    }
    out.push_str("<p>Metrics: ");
    let links: Vec<String> = e
        .metrics
        .iter()
        .enumerate()
        .map(|(i, m)| format!("<a href=\"#metric-{i}\">{}</a>", esc(&m.name)))
        .collect();
    out.push_str(&links.join(" · "));
    out.push_str("</p>\n");

    let base_label = against.map(|name| format!("baseline {name}"));
    for (i, m) in e.metrics.iter().enumerate() {
        let s = &m.stats;
        let series = run.series.iter().find(|x| x.name == m.name);
        let _ = write!(
            out,
            "<section id=\"metric-{i}\">\n<h2>{} <small>({})</small></h2>\n",
            esc(&m.name),
            m.unit.symbol()
        );
        if s.min == s.max {
            let _ = writeln!(
                out,
                "<p class=\"note zero-variance\">Every sample gives exactly {} per iteration: \
                 zero variance, so every interval has zero width.</p>",
                value(s.min, m.unit)
            );
        }
        if let (true, Some(series)) = (plots, series) {
            let values = per_iteration(run, &series.totals);
            let base_values = e
                .baseline
                .as_ref()
                .and_then(|b| Some((b, b.series(&m.name)?)))
                .map(|(b, bs)| per_iteration(b, &bs.totals));
            let mut sets = vec![plots::Values {
                label: "this run",
                values: &values,
                color: plots::NEW,
            }];
            if let (Some(bv), Some(label)) = (&base_values, &base_label) {
                sets.push(plots::Values {
                    label,
                    values: bv,
                    color: plots::BASE,
                });
            }
            out.push_str("<div class=\"plots\">\n");
            let caption = if sets.len() > 1 {
                format!(
                    "Distribution of the per-iteration values (total ÷ iterations of each sample) \
                     of this run and of baseline <code>{}</code>.",
                    esc(against.unwrap_or_default())
                )
            } else {
                "Distribution of the per-iteration values (total ÷ iterations of each sample)."
                    .to_string()
            };
            figure(
                &mut out,
                plots::distribution(&sets, m.unit),
                &format!("<span class=\"distribution\">{caption}</span>"),
            );
            figure(
                &mut out,
                plots::regression(&run.iterations, &series.totals, s.slope.point, s.intercept, m.unit),
                "Batch regression: each sample's total against its iterations, and the fitted line \
                 whose slope is the estimate.",
            );
            out.push_str("</div>\n");
        }
        stats_table(&mut out, m, e.change(&m.name), against);
        out.push_str("</section>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn stats_table(out: &mut String, m: &Metric, change: Option<&MetricChange>, against: Option<&str>) {
    let s: &Statistics = &m.stats;
    let u = m.unit;
    out.push_str(
        "<table class=\"stats\">\n<thead><tr><th>statistic</th><th class=\"num\">value</th>\
         <th class=\"num\">95 % CI</th></tr></thead>\n<tbody>\n",
    );
    let row = |out: &mut String, name: &str, v: String, ci: String| {
        let _ = writeln!(
            out,
            "<tr><td>{name}</td><td class=\"num\">{v}</td><td class=\"num\">{ci}</td></tr>"
        );
    };
    row(
        out,
        "<b>estimate</b> (slope)",
        value(s.slope.point, u),
        interval(&s.slope, u),
    );
    row(
        out,
        "R²",
        if s.r_squared.is_finite() {
            format!("{:.5}", s.r_squared)
        } else {
            "n/a".into()
        },
        String::new(),
    );
    row(
        out,
        "intercept (per sample)",
        value(s.intercept, u),
        String::new(),
    );
    row(out, "mean", value(s.mean.point, u), interval(&s.mean, u));
    row(
        out,
        "median",
        value(s.median.point, u),
        interval(&s.median, u),
    );
    row(
        out,
        "std dev",
        value(s.std_dev.point, u),
        interval(&s.std_dev, u),
    );
    row(out, "MAD", value(s.mad.point, u), interval(&s.mad, u));
    row(out, "min", value(s.min, u), String::new());
    row(out, "max", value(s.max, u), String::new());
    let o = &s.outliers;
    let parts: Vec<String> = [
        (o.low_severe, "low severe"),
        (o.low_mild, "low mild"),
        (o.high_mild, "high mild"),
        (o.high_severe, "high severe"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    let outliers = if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    };
    row(out, "outliers (Tukey)", outliers, String::new());
    if let (Some(c), Some(name)) = (change, against) {
        let _ = writeln!(
            out,
            "<tr><td>change vs <code>{}</code></td>{}</tr>",
            esc(name),
            change_cells(c)
        );
    }
    out.push_str("</tbody>\n</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::event::parse_list;
    use crate::counter::group::Counts;
    use crate::measure::{Measurement, Sample};
    use std::path::Path;

    const HOSTILE: &str = "<script>alert(1)</script>";
    const ESCAPED: &str = "&lt;script&gt;alert(1)&lt;/script&gt;";

    /// A fresh folder under the system's temporary folder, removed on drop.
    struct Temp(PathBuf);

    impl Temp {
        fn new(name: &str) -> Temp {
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
        let run = Recording::new(r.id, &events, &m, env);
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

    fn report(store: &Store, run_ids: &[&str], plots: bool, against: Slot) -> String {
        let ids: Vec<String> = run_ids.iter().map(|s| s.to_string()).collect();
        let path = write_report(
            store,
            &ids,
            &ReportOptions {
                plots,
                against,
                thresholds: Thresholds::default(),
            },
        )
        .unwrap();
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

    fn report_files(store: &Store) -> Vec<(PathBuf, String)> {
        files(&store.root().join("report"))
            .into_iter()
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

    /// The summary row of `id`'s `metric`.
    fn summary_row<'a>(index: &'a str, id: &str, metric: &str) -> &'a str {
        index
            .split("<tr>")
            .find(|row| {
                row.contains(&format!(">{}<", esc(id)))
                    && row.contains(&format!("<td>{metric}</td>"))
            })
            .unwrap_or_else(|| panic!("no row of {id} {metric}"))
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
        let index = report(&store, &ids, true, Slot::Baseline("main".into()));
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
                assert!(text.contains(&format!("<script>{SCRIPT}</script>")));
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
        report(&store, &["a", "g/1"], true, Slot::Baseline("main".into()));
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
        report(&store, &ids, true, Slot::Latest);
        let report_dir = store.root().join("report");
        let new: Vec<PathBuf> = files(&tmp.0)
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        assert_eq!(new.len(), ids.len() + 1, "{new:?}");
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
        for against in [Slot::Latest, Slot::Baseline("main".into())] {
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
        report(&store, &["a", "g/1", "g/2"], false, Slot::Latest);
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

        let index = report(&store, &["in_run", "never_stored"], true, Slot::Latest);
        for id in ["in_run", "not_in_run", "also/1"] {
            assert!(index.contains(&format!(">{id}<")), "{id} listed");
            // Two rows per benchmark: wall time and page faults.
            assert!(summary_row(&index, id, "wall-time").contains("class=\"num\""));
            assert!(summary_row(&index, id, "page-faults").contains(">16<"));
        }
        assert_eq!(index.matches("<tr><td class=\"id\">").count(), 6);
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
        let index = report(&store, &["not_in_run"], true, Slot::Latest);
        assert_eq!(
            links(&index),
            [page_path("in_run"), page_path("not_in_run")]
        );
        assert!(!summary_row(&index, "also/1", "wall-time").contains("<a "));
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
        let index = report(&store, &ids, true, Slot::Latest);
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

        report(&store, &["a", "b"], true, Slot::Baseline("main".into()));
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

        report(&store, &["a", "b"], true, Slot::Latest);
        let a = page(&store, "a");
        assert!(!a.contains(overlay) && !a.contains("baseline main"));
        assert!(a.contains("Compared with the previous run"));

        report(&store, &["a"], true, Slot::Baseline("other".into()));
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
            main.clone(),
        );
        let worse = summary_row(&index, "worse", "page-faults");
        assert!(
            worse.contains("<td class=\"change regressed\" data-v=\"0.0625\">+6.25%"),
            "{worse}"
        );
        assert!(
            worse.contains("<td class=\"verdict regressed\">regressed"),
            "{worse}"
        );
        let better = summary_row(&index, "better", "page-faults");
        assert!(
            better.contains("<td class=\"change improved\" data-v=\"-0.0625\">-6.25%"),
            "{better}"
        );
        let same = summary_row(&index, "same", "page-faults");
        assert!(same.contains("class=\"change no-change\""), "{same}");
        // Identical wall times: no change either.
        assert!(summary_row(&index, "worse", "wall-time").contains("class=\"change no-change\""));
        assert!(summary_row(&index, "new", "page-faults").contains("new: not in <code>main</code>"));
        assert!(page(&store, "worse").contains("<td class=\"change regressed\""));

        // Against the previous run there is nothing to compare: no column.
        let index = report(&store, &["worse"], true, Slot::Latest);
        assert!(!index.contains("class=\"change"));
        assert!(!index.contains("<th class=\"num\">change</th>"));
    }
}
