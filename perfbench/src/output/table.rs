//! The terminal table: a row per benchmark, and its change against the
//! stored run on a line below.

use std::io::IsTerminal;

use super::destination::Destination;
use super::folded::Folded;
use super::format::{
    count, format_rate, format_value, four_digits, percent, printable, relative_text, standing_cell,
};
use super::profile_lines::{said_on_the_paired_line, where_said};
use super::wrap::{comma_list, wrap, wrap_words};
use super::{Color, RunHeader};
use crate::analysis::comparison::{self, Comparison, Verdict};
use crate::analysis::derived::{declared_work, has_ipc, per_unit_name, rate};
use crate::analysis::notes::notes;
use crate::analysis::standings::{self, Relative, Standing};
use crate::analysis::{
    derived_value, metric_names, Analysed, BenchResult, Metric, MetricKey, ResultView, WALL_TIME,
};
use crate::counter::event::Unit;
use crate::counter::group as counter_group;
use crate::store::StoreError;

/// The table as an output of a run: a header describing the run, then a
/// row (and a change line) per benchmark.
pub struct TableSink {
    out: Destination,
    color: bool,
    width: usize,
    table: Option<Table>,
    /// The results so far, for the group standings at the end.
    results: Vec<Analysed>,
    /// `--verbose`: every metric in full, and the cost of measuring.
    verbose: bool,
    /// The quiet metrics so far, named at the end unless verbose.
    folded: Folded,
}

/// Whether to colour: as asked, or with `auto` on a terminal unless
/// `NO_COLOR` is set to a value that is not empty (no-color.org: an empty
/// one is ignored).
fn colored(color: Color, terminal: bool, no_color: Option<std::ffi::OsString>) -> bool {
    match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => terminal && no_color.is_none_or(|v| v.is_empty()),
    }
}

impl TableSink {
    /// A table bound for `out`, coloured as asked on stdout (never in a
    /// file), as wide as `$COLUMNS` (80 without it); `verbose` for the
    /// full block of every benchmark.
    pub fn new(color: Color, verbose: bool, out: Destination) -> TableSink {
        let color = match out.is_stdout() {
            true => colored(
                color,
                std::io::stdout().is_terminal(),
                std::env::var_os("NO_COLOR"),
            ),
            false => false,
        };
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(80);
        TableSink {
            out,
            color,
            width,
            table: None,
            results: Vec::new(),
            verbose,
            folded: Folded::default(),
        }
    }

    /// Prints what the run measures, how, and at what cost, then the
    /// column headers.
    pub fn start(&mut self, h: &RunHeader) {
        let mode = if h.per_iter { "per-iteration" } else { "batch" };
        let at = h.environment.origin_summary().map(|o| format!(" {o}"));
        let first = format!(
            "{}{}, {mode} mode, {} in {}, {}",
            count(h.ids.len(), "benchmark"),
            printable(&at.unwrap_or_default()),
            count(h.sample_count as usize, "sample"),
            count(h.rounds as usize, "round"),
            h.environment
                .cpu
                .map_or("not pinned".into(), |c| format!("pinned to CPU {c}"))
        );
        // A branch's name can be long: the line wraps as the next does.
        self.out.line(&wrap("perfbench: ", &first, self.width));
        // The CPU model, governor and PMU names are the machine's text,
        // printed as any other.
        let summary = h.environment.summary();
        self.out
            .line(&wrap("perfbench: ", &printable(&summary), self.width));
        let names: Vec<String> = metric_names(h.events).into_iter().map(|(n, _)| n).collect();
        let table = Table::new(h.ids, &names, has_ipc(h.events), self.width, self.color);
        // The default block needs no column headers, nor the how of it.
        if self.verbose {
            self.verbose_header(h, &table);
        }
        self.table = Some(table);
    }

    /// The header lines only `--verbose` prints: the counter groups, the
    /// cost of measuring, and the column headers.
    fn verbose_header(&mut self, h: &RunHeader, table: &Table) {
        if !h.passes.is_empty() {
            let prefix = "perfbench: more events than the PMU holds at once, measured in one pass per group: ";
            let together = counter_group::together(&h.passes);
            self.out.line(&wrap(prefix, &together, self.width));
        }
        for line in self.costs_lines(h) {
            self.out.line(&line);
        }
        let header = table.header();
        if !header.is_empty() {
            self.out.line(&header);
        }
    }

    /// What measuring costs: per sample in batch mode (in the intercept,
    /// never in the figures), and per iteration (what `--subtract-overhead`
    /// takes off, with its uncertainty; per-iteration mode takes it off the
    /// wall time always).
    fn costs_lines(&self, h: &RunHeader) -> Vec<String> {
        let units = metric_names(h.events);
        let unit = |name: &str| units.iter().find(|(n, _)| n == name).map(|&(_, u)| u);
        let c = h.calibration;
        let mut lines = Vec::new();
        let per_sample: Vec<String> = c
            .per_sample
            .iter()
            .filter_map(|(n, v)| Some(format!("{n} {}", format_value(*v, unit(n)?))))
            .collect();
        if !per_sample.is_empty() {
            let prefix =
                "perfbench: measuring costs per sample (in the intercept, not the estimates): ";
            lines.push(wrap(prefix, &per_sample.join(", "), self.width));
        }
        let per_iteration: Vec<String> = c
            .per_iteration()
            .into_iter()
            .filter_map(|(n, e)| {
                let u = unit(n)?;
                let half = (e.ci.high - e.ci.low) / 2.0;
                let spread = if half > 0.0 {
                    format!(" ±{}", format_value(half, u))
                } else {
                    String::new()
                };
                Some(format!("{n} {}{spread}", format_value(e.point, u)))
            })
            .collect();
        let what = if c.per_iter { "the reads" } else { "the loop" };
        let done = taken_off(c);
        let prefix = format!("perfbench: measuring costs per iteration ({what}; {done}): ");
        lines.push(wrap(&prefix, &per_iteration.join(", "), self.width));
        lines
    }

    /// Prints a benchmark's row and its change line, ending with where it
    /// changed where both runs have a profile.
    pub fn benchmark(&mut self, a: &Analysed) {
        if a.recording.membership.is_some() {
            self.results.push(a.clone());
        }
        let Some(table) = &self.table else { return };
        let moved = a.comparison.as_ref().and_then(|c| {
            let was = a.compared_with.as_ref().and_then(|w| w.profile.as_ref());
            where_said(c, was, a.recording.profile.as_ref())
        });
        let moved = moved.as_deref();
        if !self.verbose {
            self.folded.add(&a.result);
            let block = table.calm_block(a.view(), a.comparison.as_ref(), moved);
            self.out.line(&block);
            return;
        }
        self.out.line(&table.row(a.view()));
        if let Some(line) = table.throughput_line(a.view()) {
            self.out.line(&line);
        }
        if let Some(line) = table.interval_line(&a.result) {
            self.out.line(&line);
        }
        if let Some(p) = &a.recording.profile {
            self.out.line(&table.top_functions_line(p));
        }
        let Some(comparison) = &a.comparison else {
            return;
        };
        if let Some(line) = table.change_line(&a.result, comparison, moved) {
            self.out.line(&line);
        }
        if let Some(line) = table.paired_line(&a.result, comparison, moved) {
            self.out.line(&line);
        }
    }

    /// Prints each group's standing: its members side by side at each
    /// argument, every metric against the best; writes a file whole.
    pub fn finish(mut self) -> Result<(), StoreError> {
        let results: Vec<&Analysed> = self.results.iter().collect();
        for standing in standings::standings(&results) {
            self.out.line(&format!("\n{}", standing_table(&standing)));
        }
        if let Some((lead, parts)) = self.folded.parts() {
            self.out.line(&comma_list(lead, &parts, self.width, 2));
        }
        self.out.finish()
    }
}

/// A group's standing as a table: a column per member and a row per
/// metric (metric names are long, members few), each cell the member's
/// estimate over the best's (`1.00×` the best), or the estimate itself
/// where the best is 0. Metrics that are 0 for every member are named in
/// one line instead.
pub fn standing_table(s: &Standing) -> String {
    let at = s
        .arg
        .as_ref()
        .map_or(String::new(), |a| format!(" at {}", printable(a)));
    let mut lines = vec![format!(
        "group {}{at}: each metric against the best member",
        printable(&s.group)
    )];
    let all_zero = |k: usize| {
        s.members
            .iter()
            .all(|(_, cells)| cells[k].relative == Relative::Value(0.0))
    };
    let (zero, shown): (Vec<usize>, Vec<usize>) = (0..s.metrics.len()).partition(|&k| all_zero(k));
    let name_width = shown
        .iter()
        .map(|&k| s.metrics[k].chars().count())
        .max()
        .unwrap_or(0);
    // Room for `≈` and the longest value `four_digits` writes (`7.736e-4`).
    let cell = |m: &str| m.chars().count().max(VALUE_WIDTH + 1) + 2;
    let mut header = format!("  {:name_width$}", "");
    for (member, _) in &s.members {
        header.push_str(&format!("{member:>w$}", w = cell(member)));
    }
    lines.push(header);
    for &k in &shown {
        let mut row = format!("  {:<name_width$}", s.metrics[k]);
        for (member, cells) in &s.members {
            row.push_str(&format!(
                "{:>w$}",
                standing_cell(&cells[k]),
                w = cell(member)
            ));
        }
        lines.push(row);
    }
    if !zero.is_empty() {
        let names: Vec<&str> = zero.iter().map(|&k| s.metrics[k].as_str()).collect();
        lines.push(format!("  0 for every member: {}", names.join(", ")));
    }
    let unsettled = s
        .members
        .iter()
        .flat_map(|(_, c)| c)
        .any(|c| !c.best && !c.apart);
    if unsettled {
        lines.push(
            "  ≈: its 95 % interval overlaps the best's: this run does not tell them apart".into(),
        );
    }
    lines.join("\n")
}

/// `vs `main``, and where earlier runs widened the intervals by their
/// spread, from how many: `vs previous run (spread of 5 runs)`.
pub(super) fn vs_label(comparison: &Comparison) -> String {
    let label = comparison.against.label();
    let runs = (comparison.changes.iter().flatten())
        .map(|c| c.change.runs)
        .max();
    match runs {
        Some(runs) if runs > 1 => format!("vs {label} (spread of {runs} runs)"),
        _ => format!("vs {label}"),
    }
}

/// The terminal table: a row per benchmark when the columns fit the width,
/// else each benchmark's id on a line of its own and its figures wrapped
/// below it.
pub struct Table {
    id_width: usize,
    /// Column headers: wall time, the events, then IPC where it applies.
    headers: Vec<String>,
    cell: usize,
    wide: bool,
    pub(super) width: usize,
    pub(super) color: bool,
}

/// Width of a value cell: the longest `format_value` output is 9 characters.
const VALUE_WIDTH: usize = 9;

impl Table {
    /// A table for benchmarks whose ids are `ids`, with one column per
    /// metric in `metrics` (without IPC; `ipc` adds it), fitted to `width`.
    pub fn new(ids: &[&str], metrics: &[String], ipc: bool, width: usize, color: bool) -> Table {
        let mut headers = metrics.to_vec();
        if ipc {
            headers.push(MetricKey::Ipc.to_string());
        }
        let id_width = ids
            .iter()
            .map(|i| printable(i).chars().count())
            .max()
            .unwrap_or(0)
            .max(9);
        let cell = headers
            .iter()
            .map(|h| h.chars().count())
            .max()
            .unwrap_or(0)
            .max(VALUE_WIDTH)
            + 2;
        let wide = id_width + cell * headers.len() <= width;
        Table {
            id_width,
            headers,
            cell,
            wide,
            width,
            color,
        }
    }

    /// The header line (empty when benchmarks are shown stacked).
    pub fn header(&self) -> String {
        if !self.wide {
            return String::new();
        }
        let mut s = format!("{:<w$}", "benchmark", w = self.id_width);
        for h in &self.headers {
            s.push_str(&format!("{h:>w$}", w = self.cell));
        }
        s
    }

    /// The line under a benchmark's row that shows its change against the
    /// stored run, metric by metric, ending with where it changed
    /// (`moved`, [`where_said`]) unless a `paired:` line says it; `None`
    /// when nothing changed at all.
    pub fn change_line(
        &self,
        r: &BenchResult,
        comparison: &Comparison,
        moved: Option<&str>,
    ) -> Option<String> {
        let label = comparison.against.label();
        let Some(changes) = &comparison.changes else {
            return Some(format!("  (new: not in {label})"));
        };
        if let Some(why) = &comparison.unfair {
            return Some(wrap_words(
                &format!("  not compared with {label}: {why}"),
                self.width,
            ));
        }
        if changes.is_empty() {
            return None;
        }
        let parts: Vec<String> = r
            .metrics
            .iter()
            .map(|m| format!("{} {}", m.name, self.change_cell(comparison, &m.name)))
            .collect();
        Some(self.vs_line(comparison, &parts, moved))
    }

    /// `  vs …: part, part`, ending `; where: {moved}` unless a `paired:`
    /// line says where.
    pub(super) fn vs_line(&self, c: &Comparison, parts: &[String], moved: Option<&str>) -> String {
        match moved.filter(|_| !said_on_the_paired_line(c)) {
            Some(moved) => self.listed_with_where(&vs_label(c), parts, moved),
            None => self.listed(&vs_label(c), parts),
        }
    }

    /// In a paired run, what moved, in one line, ending with where
    /// (`moved`, [`where_said`]):
    /// `  paired: +18.0 % wall-time: instructions +0, page-faults ×3.1;
    /// where: parse::light 24 % → 51 %`.
    pub fn paired_line(
        &self,
        r: &BenchResult,
        comparison: &Comparison,
        moved: Option<&str>,
    ) -> Option<String> {
        if !said_on_the_paired_line(comparison) {
            return None;
        }
        let why = comparison::why(comparison, r)?;
        Some(self.why_with_where(&why, moved))
    }

    /// The headline intervals as Criterion prints them, `[low estimate
    /// high]`, for every metric whose interval has a width (an exact count
    /// is its row's figure) but rare events (counts below one per
    /// iteration, whose intervals JSON and the report give); `None` when
    /// there is none.
    pub fn interval_line(&self, r: &BenchResult) -> Option<String> {
        let shown_here = |m: &&Metric| {
            let e = m.estimate();
            e.ci.low < e.ci.high && (m.unit == Unit::Nanoseconds || e.point.abs() >= 1.0)
        };
        let parts: Vec<String> = r
            .metrics
            .iter()
            .filter(shown_here)
            .map(|m| {
                let e = m.estimate();
                let [low, point, high] = [e.ci.low, e.point, e.ci.high].map(|v| shown(m, v));
                format!("{} [{low} {point} {high}]", m.name)
            })
            .collect();
        (!parts.is_empty()).then(|| self.listed("95% CI", &parts))
    }

    /// The declared throughput's rate beside the row, `[low estimate
    /// high]` as the intervals are, and every other metric per byte or
    /// element as analysis derived it (`instructions/byte 10.38`); `None`
    /// where the benchmark declared none.
    pub fn throughput_line(&self, r: ResultView<'_>) -> Option<String> {
        let work = declared_work(r.recording.throughput)?;
        let mut parts = Vec::new();
        if let Some(rate) = rate(r) {
            let e = rate.per_second;
            let [low, point, high] = [e.ci.low, e.point, e.ci.high].map(|v| format_rate(v, work));
            parts.push(if e.ci.low < e.ci.high {
                format!("[{low} {point} {high}]")
            } else {
                point
            });
        }
        for m in r.metrics.iter().filter(|m| m.name != WALL_TIME) {
            let name = per_unit_name(&m.name, work);
            if let Some(v) = derived_value(&r, name.as_str()) {
                parts.push(format!("{name} {}", shown(m, v)));
            }
        }
        (!parts.is_empty()).then(|| self.listed("throughput", &parts))
    }

    /// One metric's change with its interval where it has a width, marked
    /// and coloured by its verdict; `-` where the metric was not compared.
    pub(super) fn change_cell(&self, comparison: &Comparison, metric: &str) -> String {
        let Some(c) = comparison.change(metric) else {
            return "-".into();
        };
        let interval = match c.change.ci {
            Some(ci) if ci.low < ci.high => format!(" [{}, {}]", percent(ci.low), percent(ci.high)),
            _ => String::new(),
        };
        let text = format!(
            "{}{interval}{}",
            relative_text(c.change.relative),
            mark(c.verdict)
        );
        match (self.color, c.verdict) {
            (true, Verdict::Regressed) => format!("\x1b[31m{text}\x1b[0m"),
            (true, Verdict::Improved) => format!("\x1b[32m{text}\x1b[0m"),
            _ => text,
        }
    }

    /// `  lead: part, part, …` wrapped to the width, continuation lines
    /// indented by four.
    pub(super) fn listed(&self, lead: &str, parts: &[String]) -> String {
        comma_list(&format!("  {lead}:"), parts, self.width, 4)
    }

    /// The lines of one benchmark's result.
    pub fn row(&self, r: ResultView<'_>) -> String {
        let mut names: Vec<String> = r.metrics.iter().map(|m| m.name.clone()).collect();
        let mut values: Vec<String> = r
            .metrics
            .iter()
            .map(|m| shown(m, m.estimate().point))
            .collect();
        let ipc = derived_value(&r, MetricKey::Ipc);
        if self.headers.len() > values.len() || ipc.is_some() {
            names.push(MetricKey::Ipc.to_string());
            values.push(ipc.map_or("-".into(), |v| format!("{v:.2}")));
        }
        let printed = printable(&r.recording.id);
        let id = if self.color {
            format!("\x1b[1m{printed}\x1b[0m")
        } else {
            printed.to_string()
        };
        // A benchmark measured with its own events has its own columns.
        let mut s = if self.wide && names == self.headers {
            let pad = self.id_width.saturating_sub(printed.chars().count());
            let mut line = format!("{id}{}", " ".repeat(pad));
            for v in &values {
                line.push_str(&format!("{v:>w$}", w = self.cell));
            }
            line
        } else {
            self.stacked(id, &names, &values)
        };
        for note in notes(r) {
            s.push('\n');
            s.push_str(&wrap_words(&format!("  note: {note}"), self.width));
        }
        s
    }
}

impl Table {
    /// A row as the id on a line of its own and each metric's name and
    /// value wrapped below it.
    fn stacked(&self, id: String, names: &[String], values: &[String]) -> String {
        let name_width = names.iter().map(|h| h.chars().count()).max().unwrap_or(0);
        let cell = name_width + 1 + VALUE_WIDTH + 3;
        let per_line = ((self.width.saturating_sub(2)) / cell).max(1);
        let mut out = id;
        for (i, (h, v)) in names.iter().zip(values).enumerate() {
            if i % per_line == 0 {
                out.push_str("\n  ");
            }
            out.push_str(&format!("{h:<name_width$} {v:>VALUE_WIDTH$}   "));
        }
        out.lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A per-iteration value of metric `m` for people: in its PMU's unit where
/// it has one.
pub(super) fn shown(m: &Metric, v: f64) -> String {
    match &m.scale {
        Some(s) => format!("{} {}", four_digits(v * s.factor), s.unit),
        None => format_value(v, m.unit),
    }
}

/// The mark a verdict gets in the table.
fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Regressed => " ▲",
        Verdict::Improved => " ▼",
        Verdict::WithinNoise => " ~",
        Verdict::NoChange => "",
    }
}

/// What the header says was done with the cost of measuring per iteration.
fn taken_off(c: &crate::analysis::Calibration) -> &'static str {
    if c.subtract {
        "subtracted, with its ± in the intervals"
    } else if c.subtracts(crate::analysis::WALL_TIME) {
        "subtracted from wall time, with its ± in the interval; counts not"
    } else {
        "not subtracted"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::standings::Cell;

    #[test]
    fn no_color_set_and_not_empty_turns_colour_off() {
        let set = |v: &str| Some(std::ffi::OsString::from(v));
        assert!(colored(Color::Auto, true, None));
        assert!(colored(Color::Auto, true, set("")), "empty is ignored");
        assert!(!colored(Color::Auto, true, set("1")));
        assert!(!colored(Color::Auto, false, None), "not a terminal");
        assert!(colored(Color::Always, false, set("1")));
        assert!(!colored(Color::Never, true, None));
    }

    #[test]
    fn notes_wrap_at_spaces_within_the_width() {
        let text = "  note: samples far off a line for wall-time (R² 0.59), task-clock (R² 0.62): showing the Theil-Sen slope";
        let wrapped = wrap_words(text, 40);
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= 40),
            "{wrapped}"
        );
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert!(wrapped.starts_with("  note: samples"));
        assert!(wrapped.lines().skip(1).all(|l| l.starts_with("    ")));
    }

    #[test]
    fn long_header_lines_wrap_at_commas() {
        let text = "AMD EPYC, kernel 6.18.44, CPU 1, virtual machine, PMUs: msr power software, perf_event_paranoid 2";
        let out = wrap("perfbench: ", text, 40);
        assert!(out.lines().all(|l| l.chars().count() <= 40), "{out}");
        assert_eq!(out.replace("\n  ", " "), format!("perfbench: {text}"));
        assert_eq!(wrap("p: ", "a, b", 80), "p: a, b");
    }
    use crate::analysis::test_support::exact_result as result;
    use crate::counter::event::Unit;

    #[test]
    fn a_baseline_named_latest_is_labelled_by_its_name() {
        let r = result("x", &[("page-faults", Unit::Count, 16.0)]);
        let names = vec!["page-faults".to_string()];
        let t = Table::new(&["x"], &names, false, 80, false);
        let line = |against| {
            let c = Comparison {
                against,
                changes: Some(Vec::new()),
                unfair: None,
            };
            let new = Comparison {
                changes: None,
                ..c.clone()
            };
            (
                t.change_line(&r.result, &c, None),
                t.change_line(&r.result, &new, None).unwrap(),
            )
        };
        let (none, new) = line(crate::analysis::comparison::Target::Baseline(
            "latest".into(),
        ));
        assert_eq!(none, None, "nothing compared, no line");
        assert_eq!(new, "  (new: not in `latest`)");
        let (_, new) = line(crate::analysis::comparison::Target::PreviousRun);
        assert_eq!(new, "  (new: not in previous run)");
        let unfair = Comparison {
            against: crate::analysis::comparison::Target::Baseline("main".into()),
            changes: Some(Vec::new()),
            unfair: Some("measured in per-iteration mode, this run in batch mode".into()),
        };
        assert_eq!(
            t.change_line(&r.result, &unfair, None).unwrap(),
            "  not compared with `main`: measured in per-iteration mode, this run in batch\n    mode"
        );
    }

    #[test]
    fn a_paired_build_s_path_is_escaped_where_a_change_names_it() {
        let r = result("x", &[("page-faults", Unit::Count, 16.0)]);
        let t = Table::new(&["x"], &["page-faults".to_string()], false, 80, false);
        let c = Comparison {
            against: crate::analysis::comparison::Target::Paired("/b\n::warning::X\x1b[2J".into()),
            changes: None,
            unfair: None,
        };
        assert_eq!(
            t.change_line(&r.result, &c, None).unwrap(),
            "  (new: not in the paired build `/b\\n::warning::X\\u{1b}[2J`)"
        );
        assert_eq!(
            vs_label(&c),
            "vs the paired build `/b\\n::warning::X\\u{1b}[2J`"
        );
    }

    #[test]
    fn a_backslash_in_an_id_is_escaped_in_its_row() {
        let names = ["page-faults".to_string()];
        for (id, shown) in [("a\nb", "a\\nb"), ("a\\nb", "a\\\\nb")] {
            let r = result(id, &[("page-faults", Unit::Count, 16.0)]);
            let t = Table::new(&[id], &names, false, 80, false);
            let row = t.row(r.view());
            assert!(row.starts_with(&format!("{shown} ")), "{row}");
        }
    }

    #[test]
    fn the_throughput_line_shows_the_rate_and_what_analysis_derived_per_unit() {
        let metrics = [
            ("wall-time", Unit::Nanoseconds, 400.0),
            ("task-clock", Unit::Nanoseconds, 380.0),
            ("page-faults", Unit::Count, 2.0),
        ];
        let names: Vec<String> = metrics.iter().map(|m| m.0.to_string()).collect();
        let t = Table::new(&["x"], &names, false, 80, false);
        let mut r = result("x", &metrics);
        assert_eq!(t.throughput_line(r.view()), None, "no throughput declared");
        r.recording.throughput = Some(crate::measure::Throughput::Bytes(100));
        r.result.derived = vec![
            ("wall-time/byte".into(), 4.0),
            ("task-clock/byte".into(), 3.8),
            ("page-faults/byte".into(), 0.02),
        ];
        assert_eq!(
            t.throughput_line(r.view()).unwrap(),
            "  throughput: 250.0 MB/s, task-clock/byte 3.800 ns, page-faults/byte 0.0200"
        );
        r.result.metrics[0].stats.slope.ci = crate::stats::Interval {
            low: 200.0,
            high: 500.0,
        };
        r.recording.throughput = Some(crate::measure::Throughput::Elements(100));
        r.result.derived = vec![("page-faults/element".into(), 0.02)];
        assert_eq!(
            t.throughput_line(r.view()).unwrap(),
            "  throughput: [200.0 Melem/s 250.0 Melem/s 500.0 Melem/s],\n    \
             page-faults/element 0.0200"
        );
    }

    #[test]
    fn a_standing_has_a_column_per_member_and_folds_metrics_zero_for_all() {
        let cell = |relative, best, apart| Cell {
            relative,
            best,
            apart,
        };
        let s = Standing {
            group: "sort".into(),
            arg: Some("1000".into()),
            metrics: vec![
                "wall-time".into(),
                "page-faults".into(),
                "context-switches".into(),
            ],
            members: vec![
                (
                    "stable".into(),
                    vec![
                        cell(Relative::Ratio(1.46), false, false),
                        cell(Relative::Value(0.0), true, false),
                        cell(Relative::Value(0.0), true, false),
                    ],
                ),
                (
                    "unstable".into(),
                    vec![
                        cell(Relative::Ratio(1.0), true, false),
                        cell(Relative::Value(0.0), true, false),
                        cell(Relative::Value(0.25), false, true),
                    ],
                ),
            ],
        };
        let text = standing_table(&s);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "group sort at 1000: each metric against the best member"
        );
        let words = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(words(lines[1]), ["stable", "unstable"]);
        assert_eq!(words(lines[2]), ["wall-time", "≈1.46×", "1.00×"]);
        assert_eq!(words(lines[3]), ["context-switches", "0", "0.2500"]);
        assert_eq!(lines[4], "  0 for every member: page-faults");
        assert!(lines[5].starts_with("  ≈: "), "{text}");
    }

    #[test]
    fn a_benchmark_with_its_own_events_names_them_on_its_row() {
        let run = [
            ("wall-time", Unit::Nanoseconds, 4512.0),
            ("task-clock", Unit::Nanoseconds, 4000.0),
        ];
        let names: Vec<String> = run.iter().map(|m| m.0.to_string()).collect();
        let t = Table::new(&["same", "own"], &names, false, 80, false);
        assert_eq!(t.row(result("same", &run).view()).lines().count(), 1);
        let own = [
            ("wall-time", Unit::Nanoseconds, 4512.0),
            ("page-faults", Unit::Count, 3.0),
        ];
        let row = t.row(result("own", &own).view());
        let lines: Vec<&str> = row.lines().collect();
        assert_eq!(lines[0], "own", "{row}");
        assert!(
            lines[1].contains("wall-time") && lines[1].contains("page-faults"),
            "{row}"
        );
        assert!(!row.contains("task-clock"), "{row}");
    }

    #[test]
    fn the_table_fits_eighty_columns_in_both_layouts() {
        let few = [
            ("wall-time", Unit::Nanoseconds, 4512.0),
            ("page-faults", Unit::Count, 16.0),
        ];
        let names: Vec<String> = few.iter().map(|m| m.0.to_string()).collect();
        let t = Table::new(&["three::touch_16"], &names, false, 80, false);
        let row = t.row(result("three::touch_16", &few).view());
        assert!(t.header().starts_with("benchmark "));
        assert!(
            row.starts_with("three::touch_16 ") && row.ends_with(" 16"),
            "{row}"
        );
        assert_eq!(row.lines().count(), 1);

        let many: Vec<(&str, Unit, f64)> = [
            "wall-time",
            "cycles",
            "instructions",
            "branches",
            "branch-misses",
            "cache-references",
            "cache-misses",
        ]
        .iter()
        .map(|&n| (n, Unit::Count, 1234.5))
        .collect();
        let names: Vec<String> = many.iter().map(|m| m.0.to_string()).collect();
        let t = Table::new(&["a::long::benchmark::id/65536"], &names, true, 80, false);
        let mut r = result("a::long::benchmark::id/65536", &many);
        r.result.derived = vec![("IPC".into(), 2.5)];
        let text = t.row(r.view());
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(text.contains("IPC") && text.contains("2.50"), "{text}");
        assert!(text.contains("cache-references"), "{text}");
    }

    #[test]
    fn scaled_pmu_events_show_in_their_unit_and_keep_raw_counts() {
        let tree = crate::kernel::pmu::tests::intel_hybrid();
        let events =
            crate::counter::event::parse_list_in("power/energy-pkg/", tree.root()).unwrap();
        let factor = 1.0 / 4294967296.0; // the file says 2.3283064365386962890625e-10 = 2^-32
        assert_eq!(
            events[0]
                .scale
                .as_ref()
                .map(|s| (s.factor, s.unit.as_str())),
            Some((factor, "Joules"))
        );
        let m = crate::measure::Measurement {
            samples: (1..=3)
                .map(|i| crate::measure::Sample {
                    iterations: i,
                    wall_ns: 100 * i,
                    counts: crate::counter::group::Counts {
                        time_enabled: 1,
                        time_running: 1,
                        values: vec![(1u64 << 32) * i],
                    },
                })
                .collect(),
            throughput: None,
        };
        let recording = crate::analysis::Recording::new("x", &events, &m, Default::default());
        let result = crate::analysis::analyze(&recording, &Default::default());
        let r = ResultView::new(&recording, &result);
        let env = crate::measure::environment::Environment::default();
        let v: serde_json::Value =
            serde_json::from_str(&crate::output::json_lines::bench_line(r, &env, None, None))
                .unwrap();
        let metric = &v["metrics"]["power/energy-pkg/"];
        assert_eq!(metric["estimate"], 4294967296.0, "raw counts per iteration");
        assert_eq!(metric["scaled"]["unit"], "Joules");
        assert_eq!(metric["scaled"]["estimate"], 4294967296.0 * factor);
        let names = vec!["wall-time".to_string(), "power/energy-pkg/".to_string()];
        let row = Table::new(&["x"], &names, false, 120, false).row(r);
        assert!(row.contains("1.000 Joules"), "{row}");
    }

    #[test]
    fn the_header_says_per_iteration_mode_takes_the_wall_time_s_cost_off_unasked() {
        use crate::analysis::Calibration;
        let mut c = Calibration {
            per_iter: true,
            ..Calibration::default()
        };
        assert_eq!(
            super::taken_off(&c),
            "subtracted from wall time, with its ± in the interval; counts not"
        );
        c.subtract = true;
        assert_eq!(
            super::taken_off(&c),
            "subtracted, with its ± in the intervals"
        );
        c = Calibration::default();
        assert_eq!(super::taken_off(&c), "not subtracted");
    }
}
