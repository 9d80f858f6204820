//! The table's default block for a benchmark, as calm as Criterion's: the
//! headline with its interval and change, then only the metrics that carry
//! information. Zero and rare counts ([`is_quiet`]) are left out of the
//! block and named once at the end of the run ([`Folded`](super::folded::Folded)); their changes
//! still show where judged a regression or an improvement. `--verbose`
//! gives the full block of `table.rs` instead.

use super::format::{format_rate, printable};
use super::profile_lines::said_on_the_paired_line;
use super::table::{shown, Table};
use super::wrap::{fill, wrap_words};
use crate::analysis::comparison::{Comparison, Verdict};
use crate::analysis::derived::rate;
use crate::analysis::notes::notes;
use crate::analysis::quiet::is_quiet;
use crate::analysis::{derived_value, BenchResult, Metric, MetricKey, ResultView};

/// The metric a benchmark's block leads with: the one headline rule,
/// [`MetricKey::headline`] (cycles where counted, else wall time).
pub fn headline(r: &BenchResult) -> Option<&Metric> {
    MetricKey::headline(&r.metrics, |m| &m.name)
}

/// `r` without its quiet metrics and the figures derived from them, so
/// that the block and its notes speak of the metrics shown only.
pub fn without_quiet(r: &BenchResult) -> BenchResult {
    let mut visible = r.clone();
    let quiet: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| is_quiet(m.unit, m.estimate()))
        .map(|m| m.name.clone())
        .collect();
    visible.metrics.retain(|m| !quiet.contains(&m.name));
    let of_quiet = |name: &str| quiet.iter().any(|q| name.split('/').next() == Some(q));
    visible.derived.retain(|(name, _)| !of_quiet(name));
    visible
}

impl Table {
    /// A benchmark's default block: `id  cycles [low estimate high]`
    /// with its change, the other metrics shown, the declared rate, the
    /// other changes ending with where the benchmark changed (`moved`,
    /// [`where_said`](super::profile_lines::where_said)) and the notes of
    /// the metrics visible.
    pub fn calm_block(
        &self,
        r: ResultView<'_>,
        comparison: Option<&Comparison>,
        moved: Option<&str>,
    ) -> String {
        let shown = without_quiet(&r);
        let visible = ResultView::new(r.recording, &shown);
        let mut lines = vec![self.headline_line(visible, comparison)];
        lines.extend(self.others_line(&visible));
        lines.extend(self.rate_line(visible));
        if let Some(c) = comparison {
            lines.extend(self.calm_change_line(&r, &visible, c, moved));
            lines.extend(self.paired_line(&r, c, moved));
        }
        for note in notes(visible) {
            lines.push(wrap_words(&format!("  note: {note}"), self.width));
        }
        lines.join("\n")
    }

    /// `id  cycles [low estimate high]  +6.25% [+6.22%, +6.28%] ▲`: an
    /// exact figure without brackets, the change where compared, kept whole
    /// where the line wraps.
    fn headline_line(&self, visible: ResultView<'_>, comparison: Option<&Comparison>) -> String {
        let printed = printable(&visible.recording.id);
        let id = match self.color {
            true => format!("\x1b[1m{printed}\x1b[0m"),
            false => printed.to_string(),
        };
        let Some(m) = headline(&visible) else {
            return id;
        };
        let e = m.estimate();
        let [low, point, high] = [e.ci.low, e.point, e.ci.high].map(|v| shown(m, v));
        let figure = match e.ci.low < e.ci.high {
            true => format!("{} [{low} {point} {high}]", m.name),
            false => format!("{} {point}", m.name),
        };
        // An empty piece makes the double space between the parts.
        let mut pieces: Vec<String> = vec![id, String::new()];
        pieces.extend(figure.split(' ').map(str::to_string));
        let compared = comparison.filter(|c| c.unfair.is_none());
        if let Some(c) = compared.filter(|c| c.change(&m.name).is_some()) {
            pieces.push(String::new());
            pieces.push(self.change_cell(c, &m.name));
        }
        let text = fill(pieces.iter().map(String::as_str), self.width, 4);
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        lines.join("\n")
    }

    /// The other metrics shown and IPC, `  instructions 42.50 k, …`;
    /// `None` where the headline is all.
    fn others_line(&self, visible: &BenchResult) -> Option<String> {
        let lead = headline(visible).map(|m| m.name.as_str());
        let mut parts: Vec<String> = (visible.metrics.iter())
            .filter(|m| Some(m.name.as_str()) != lead)
            .map(|m| format!("{} {}", m.name, shown(m, m.estimate().point)))
            .collect();
        if let Some(ipc) = derived_value(visible, MetricKey::Ipc) {
            parts.push(format!("{} {ipc:.2}", MetricKey::Ipc));
        }
        (!parts.is_empty()).then(|| plain_list(&parts, self.width))
    }

    /// `  throughput: [low rate high]` where a throughput was declared.
    fn rate_line(&self, visible: ResultView<'_>) -> Option<String> {
        let r = rate(visible)?;
        let e = r.per_second;
        let [low, point, high] = [e.ci.low, e.point, e.ci.high].map(|v| format_rate(v, r.work));
        Some(match e.ci.low < e.ci.high {
            true => format!("  throughput: [{low} {point} {high}]"),
            false => format!("  throughput: {point}"),
        })
    }

    /// The changes of the other metrics shown, and of the quiet ones judged
    /// a regression or an improvement; a new or unfair comparison says so
    /// as the full table does. Where the benchmark changed ends it (a line
    /// of its own where no other change shows), unless a `paired:` line
    /// says it.
    fn calm_change_line(
        &self,
        r: &BenchResult,
        visible: &BenchResult,
        c: &Comparison,
        moved: Option<&str>,
    ) -> Option<String> {
        if c.changes.is_none() || c.unfair.is_some() {
            return self.change_line(r, c, moved);
        }
        let lead = headline(visible).map(|m| m.name.as_str());
        let is_shown = |name: &str| visible.metrics.iter().any(|m| m.name == name);
        let judged = |name: &str| {
            c.change(name)
                .is_some_and(|m| matches!(m.verdict, Verdict::Regressed | Verdict::Improved))
        };
        let parts: Vec<String> = (r.metrics.iter())
            .map(|m| m.name.as_str())
            .filter(|&name| Some(name) != lead && c.change(name).is_some())
            .filter(|&name| is_shown(name) || judged(name))
            .map(|name| format!("{name} {}", self.change_cell(c, name)))
            .collect();
        if parts.is_empty() && (moved.is_none() || said_on_the_paired_line(c)) {
            return None;
        }
        Some(self.vs_line(c, &parts, moved))
    }
}

/// `  a, b, c` wrapped to `width`, continuation lines indented by four.
fn plain_list(parts: &[String], width: usize) -> String {
    let last = parts.len().saturating_sub(1);
    let pieces: Vec<String> = (parts.iter().enumerate())
        .map(|(i, p)| match i {
            0 if last == 0 => format!("  {p}"),
            0 => format!("  {p},"),
            i if i < last => format!("{p},"),
            _ => p.clone(),
        })
        .collect();
    fill(pieces.iter().map(String::as_str), width, 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comparison::{MetricChange, Target};
    use crate::analysis::test_support::exact_result;
    use crate::analysis::Analysed;
    use crate::counter::event::Unit;
    use crate::output::folded::Folded;
    use crate::stats::{Change, Estimate, Interval};

    /// A result with wall time, cycles, instructions, no page faults and
    /// `switches` context switches per iteration, its interval a third
    /// of it either side.
    fn result(id: &str, switches: f64) -> Analysed {
        let mut r = exact_result(
            id,
            &[
                ("wall-time", Unit::Nanoseconds, 500.0),
                ("cycles", Unit::Count, 2000.0),
                ("instructions", Unit::Count, 4000.0),
                ("page-faults", Unit::Count, 0.0),
                ("context-switches", Unit::Count, 0.0),
            ],
        );
        r.result.metrics[4].stats.slope = Estimate {
            point: switches,
            ci: Interval {
                low: switches - switches.abs() / 3.0,
                high: switches + switches.abs() / 3.0,
            },
        };
        r.result.derived = vec![("IPC".into(), 2.0)];
        r
    }

    fn change(name: &str, relative: f64, verdict: Verdict) -> MetricChange {
        let change = Change {
            relative: Some(relative),
            difference: 0.0,
            ci: Some(Interval {
                low: relative - 0.01,
                high: relative + 0.01,
            }),
            p_value: 0.001,
            runs: 1,
        };
        MetricChange {
            name: name.into(),
            change,
            verdict,
        }
    }

    fn table() -> Table {
        Table::new(&["x"], &[], false, 80, false)
    }

    #[test]
    fn the_block_leads_with_cycles_and_leaves_quiet_counts_out() {
        let block = table().calm_block(result("x", 7.3e-7).view(), None, None);
        assert_eq!(
            block,
            "x  cycles 2000\n  wall-time 500.0 ns, instructions 4000, IPC 2.00"
        );
    }

    #[test]
    fn a_quiet_metric_s_change_shows_only_when_it_regressed_or_improved() {
        let r = result("x", 7.3e-7);
        let mut c = Comparison {
            against: Target::Baseline("main".into()),
            changes: Some(vec![
                change("cycles", 0.05, Verdict::Regressed),
                change("instructions", 0.0, Verdict::NoChange),
                change("page-faults", 0.0, Verdict::NoChange),
                change("context-switches", -1.0, Verdict::WithinNoise),
            ]),
            unfair: None,
        };
        let block = table().calm_block(r.view(), Some(&c), None);
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines[0], "x  cycles 2000  +5.00% [+4.00%, +6.00%] ▲");
        assert_eq!(
            lines[2],
            "  vs `main`: instructions +0.00% [-1.00%, +1.00%]"
        );
        assert!(!block.contains("context-switches"), "{block}");
        c.changes.as_mut().unwrap()[3].verdict = Verdict::Improved;
        let block = table().calm_block(r.view(), Some(&c), None);
        assert!(
            block.contains("context-switches -100.00% [-101.00%, -99.00%] ▼"),
            "{block}"
        );
        assert!(!block.contains("page-faults"), "{block}");
        c.changes.as_mut().unwrap()[3] = change("context-switches", 2.0, Verdict::Regressed);
        let block = table().calm_block(r.view(), Some(&c), None);
        assert!(
            block.contains("context-switches +200.00% [+199.00%, +201.00%] ▲"),
            "{block}"
        );
    }

    #[test]
    fn a_wrapped_headline_keeps_its_change_whole_and_no_trailing_space() {
        let c = Comparison {
            against: Target::PreviousRun,
            changes: Some(vec![change("cycles", -0.4774, Verdict::WithinNoise)]),
            unfair: None,
        };
        let r = result("branches::sum_large_bytes/sorted", 0.0);
        let t = Table::new(&[], &[], false, 50, false);
        let block = t.calm_block(r.view(), Some(&c), None);
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(
            lines[0], "branches::sum_large_bytes/sorted  cycles 2000",
            "{block}"
        );
        assert_eq!(lines[1], "    -47.74% [-48.74%, -46.74%] ~", "{block}");
        assert!(block.lines().all(|l| l == l.trim_end()), "{block}");
    }

    #[test]
    fn the_folded_line_names_each_quiet_metric_with_its_largest_rate() {
        let mut folded = Folded::default();
        assert_eq!(folded.line(), None);
        folded.add(&result("a", 7.3e-7).result);
        folded.add(&result("b", -2e-7).result);
        folded.add(&result("c", 2.3e-8).result);
        assert_eq!(
            folded.line().unwrap(),
            "perfbench: rare or zero in every benchmark (largest per iteration): \
             page-faults 0, context-switches 7.3e-7"
        );
        folded.add(&result("d", 0.5).result);
        assert_eq!(
            folded.line().unwrap(),
            "perfbench: rare or zero, so not shown (largest per iteration): page-faults 0, \
             context-switches 7.3e-7 (in 3 of 4)"
        );
    }

    #[test]
    fn a_negative_rate_folds_as_zero_never_minus_zero() {
        let mut folded = Folded::default();
        folded.add(&result("a", -0.0).result);
        folded.add(&result("b", -3e-7).result);
        let line = folded.line().unwrap();
        assert!(line.ends_with("context-switches 0"), "{line}");
        assert!(!line.contains("-0"), "{line}");
    }
}
