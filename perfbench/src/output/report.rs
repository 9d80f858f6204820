//! What a run prints on stdout: a table for people, or JSON lines for tools.

use serde_json::{json, Map, Value};

use crate::analysis::compare::{Comparison, Verdict};
use crate::analysis::BenchResult;
use crate::counter::event::Unit;
use crate::measure::environment::Environment;
use crate::measure::Throughput;
use crate::stats::Change;

/// The version tag of every JSON object perfbench writes.
pub const SCHEMA: &str = "perfbench/v1";

/// A number with four significant digits, as a table shows it.
fn four_digits(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 1.0 || a == 0.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// A per-iteration value with its unit: `4.512 µs`, `16`, `12.35 M`.
/// Whole counts are shown whole, so that an exact count looks exact.
pub fn format_value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Nanoseconds => {
            let (scaled, suffix) = match v.abs() {
                a if a < 1e3 => (v, "ns"),
                a if a < 1e6 => (v / 1e3, "µs"),
                a if a < 1e9 => (v / 1e6, "ms"),
                _ => (v / 1e9, "s"),
            };
            format!("{} {suffix}", four_digits(scaled))
        }
        Unit::Count if v.fract() == 0.0 && v.abs() < 1e7 => format!("{v:.0}"),
        Unit::Count => match v.abs() {
            a if a < 1e3 => four_digits(v),
            a if a < 1e6 => format!("{} k", four_digits(v / 1e3)),
            a if a < 1e9 => format!("{} M", four_digits(v / 1e6)),
            a if a < 1e12 => format!("{} G", four_digits(v / 1e9)),
            _ => format!("{} T", four_digits(v / 1e12)),
        },
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
    width: usize,
    color: bool,
}

/// Width of a value cell: the longest `format_value` output is 9 characters.
const VALUE_WIDTH: usize = 9;

impl Table {
    /// A table for benchmarks whose ids are `ids`, with one column per
    /// metric in `metrics` (without IPC; `ipc` adds it), fitted to `width`.
    pub fn new(ids: &[&str], metrics: &[String], ipc: bool, width: usize, color: bool) -> Table {
        let mut headers = metrics.to_vec();
        if ipc {
            headers.push("IPC".into());
        }
        let id_width = ids
            .iter()
            .map(|i| i.chars().count())
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
    /// stored run, metric by metric; `None` when nothing changed at all.
    pub fn change_line(&self, r: &BenchResult, comparison: &Comparison) -> Option<String> {
        let against = if comparison.against == "latest" {
            "vs previous run".to_string()
        } else {
            format!("vs `{}`", comparison.against)
        };
        let Some(changes) = &comparison.changes else {
            return Some(format!(
                "  (new: not in {})",
                against.trim_start_matches("vs ")
            ));
        };
        let cells: Vec<String> = r
            .metrics
            .iter()
            .map(|m| match comparison.change(&m.name) {
                Some(c) => {
                    let text = format!("{}{}", relative_text(c.change.relative), mark(c.verdict));
                    match (self.color, c.verdict) {
                        (true, Verdict::Regressed) => format!("\x1b[31m{text}\x1b[0m"),
                        (true, Verdict::Improved) => format!("\x1b[32m{text}\x1b[0m"),
                        _ => text,
                    }
                }
                None => "-".into(),
            })
            .collect();
        if changes.is_empty() {
            return None;
        }
        let visible = |s: &str| {
            let mut n = 0;
            let mut escape = false;
            for c in s.chars() {
                match c {
                    '\x1b' => escape = true,
                    'm' if escape => escape = false,
                    _ if escape => {}
                    _ => n += 1,
                }
            }
            n
        };
        if self.wide {
            let mut line = format!("  {against:<w$}", w = self.id_width.saturating_sub(2));
            for cell in &cells {
                let pad = self.cell.saturating_sub(visible(cell));
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
            Some(line)
        } else {
            let mut out = format!("  {against}:");
            let mut used = visible(&out);
            let last = r.metrics.len().saturating_sub(1);
            for (i, (m, cell)) in r.metrics.iter().zip(&cells).enumerate() {
                let comma = if i < last { "," } else { "" };
                let part = format!(" {} {cell}{comma}", m.name);
                if used + visible(&part) > self.width {
                    out.push_str("\n   ");
                    used = 3;
                }
                used += visible(&part);
                out.push_str(&part);
            }
            Some(out)
        }
    }

    /// The lines of one benchmark's result.
    pub fn row(&self, r: &BenchResult) -> String {
        let mut values: Vec<String> = r
            .metrics
            .iter()
            .map(|m| match &m.scale {
                Some(s) => format!("{} {}", four_digits(m.stats.slope.point * s.factor), s.unit),
                None => format_value(m.stats.slope.point, m.unit),
            })
            .collect();
        if self.headers.len() > values.len() {
            let ipc = crate::analysis::derived_value(r, "IPC");
            values.push(ipc.map_or("-".into(), |v| format!("{v:.2}")));
        }
        let id = if self.color {
            format!("\x1b[1m{}\x1b[0m", r.id)
        } else {
            r.id.clone()
        };
        let pad = self.id_width.saturating_sub(r.id.chars().count());
        let mut s = if self.wide {
            let mut line = format!("{id}{}", " ".repeat(pad));
            for v in &values {
                line.push_str(&format!("{v:>w$}", w = self.cell));
            }
            line
        } else {
            let name_width = self
                .headers
                .iter()
                .map(|h| h.chars().count())
                .max()
                .unwrap_or(0);
            let cell = name_width + 1 + VALUE_WIDTH + 3;
            let per_line = ((self.width.saturating_sub(2)) / cell).max(1);
            let mut out = id;
            for (i, (h, v)) in self.headers.iter().zip(&values).enumerate() {
                if i % per_line == 0 {
                    out.push_str("\n  ");
                }
                out.push_str(&format!("{h:<name_width$} {v:>VALUE_WIDTH$}   "));
            }
            out.lines()
                .map(str::trim_end)
                .collect::<Vec<_>>()
                .join("\n")
        };
        if r.multiplexed_samples > 0 {
            s.push_str(&format!(
                "\n  note: the kernel multiplexed the counters in {} of {} samples; counts are not scaled",
                r.multiplexed_samples, r.samples
            ));
        }
        s
    }
}

/// A relative change as a percentage: `+6.25%`.
pub fn percent(r: f64) -> String {
    if r.is_finite() {
        // No `-0.00%` for a change that rounds to nothing.
        let pct = if (r * 100.0).abs() < 0.005 {
            0.0
        } else {
            r * 100.0
        };
        format!("{pct:+.2}%")
    } else if r > 0.0 {
        "+∞".into()
    } else {
        "−∞".into()
    }
}

/// A relative change, or `from 0` for a change from zero.
fn relative_text(relative: Option<f64>) -> String {
    relative.map_or("from 0".into(), percent)
}

/// A change with its interval and p-value, for summaries:
/// `+6.25% [+6.25%, +6.25%], p = 0.000`.
pub fn change_text(c: &Change) -> String {
    match c.ci {
        Some(ci) => format!(
            "{} [{}, {}], p = {:.3}",
            relative_text(c.relative),
            percent(ci.low),
            percent(ci.high),
            c.p_value
        ),
        None => format!("{}, p = {:.3}", relative_text(c.relative), c.p_value),
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

/// One benchmark as libtest's bench line, for tools that read those:
/// `test ID ... bench:       1,234 ns/iter (+/- 56)` from the wall time,
/// with the spread of the samples' per-iteration times.
pub fn bencher_line(r: &BenchResult) -> String {
    let wall = &r.metrics[0].stats;
    let grouped = |v: f64| {
        let digits = format!("{:.0}", v.max(0.0));
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    format!(
        "test {} ... bench: {:>11} ns/iter (+/- {})",
        r.id,
        grouped(wall.slope.point),
        grouped(wall.max - wall.min)
    )
}

/// One benchmark as a line of JSON (schema [`SCHEMA`]); values are per
/// iteration.
pub fn json_line(
    r: &BenchResult,
    environment: &Environment,
    comparison: Option<&Comparison>,
) -> String {
    let mut metrics = crate::store::estimates_json(r);
    if let Some(comparison) = comparison {
        for (name, value) in metrics.iter_mut() {
            if let Some(c) = comparison.change(name) {
                value["change"] = json!({
                    "relative": c.change.relative,
                    "ci": c.change.ci.map(|ci| [ci.low, ci.high]),
                    "p": c.change.p_value,
                    "verdict": c.verdict.as_str(),
                });
            }
        }
    }
    let mut obj = json!({
        "schema": SCHEMA,
        "id": r.id,
        "mode": if r.read_path.is_some() { "per-iter" } else { "batch" },
        "samples": r.samples,
        "iterations": r.iterations,
        "cpu": environment.cpu,
        "environment": environment.to_json(),
        "multiplexed_samples": r.multiplexed_samples,
        "metrics": metrics,
    });
    if !r.groups.is_empty() {
        obj["groups"] = json!(r.groups);
    }
    if let Some(path) = r.read_path {
        obj["read_path"] = json!(path.name());
    }
    for o in &r.overhead {
        obj["metrics"][&o.metric]["overhead"] = json!(o.per_iteration);
        obj["metrics"][&o.metric]["raw_estimate"] = json!(o.raw_estimate);
    }
    if let Some(c) = comparison {
        obj["baseline"] = json!({ "name": c.against, "new": c.changes.is_none() });
    }
    if !r.derived.is_empty() {
        obj["derived"] = r
            .derived
            .iter()
            .map(|(n, v)| (n.clone(), json!(v)))
            .collect::<Map<_, _>>()
            .into();
    }
    if let Some(t) = r.throughput {
        obj["throughput"] = match t {
            Throughput::Bytes(n) => json!({ "bytes": n }),
            Throughput::Elements(n) => json!({ "elements": n }),
        };
    }
    Value::to_string(&obj)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Metric;
    use crate::stats::{analyze_metric, Bootstrap};

    fn result(id: &str, names: &[(&str, Unit, f64)]) -> BenchResult {
        BenchResult {
            id: id.into(),
            samples: 10,
            iterations: 550,
            metrics: names
                .iter()
                .map(|&(n, unit, v)| Metric {
                    name: n.into(),
                    unit,
                    scale: None,
                    // An exact line through the origin: every figure is `v`.
                    stats: analyze_metric(
                        &[2, 4, 6],
                        &[(2.0 * v) as u64, (4.0 * v) as u64, (6.0 * v) as u64],
                        &Bootstrap::default(),
                    ),
                })
                .collect(),
            derived: Vec::new(),
            multiplexed_samples: 0,
            throughput: None,
            read_path: None,
            groups: Vec::new(),
            overhead: Vec::new(),
        }
    }

    #[test]
    fn values_get_units_and_exact_counts_stay_whole() {
        assert_eq!(format_value(4512.3, Unit::Nanoseconds), "4.512 µs");
        assert_eq!(format_value(81.234, Unit::Nanoseconds), "81.23 ns");
        assert_eq!(format_value(2.5e9, Unit::Nanoseconds), "2.500 s");
        assert_eq!(format_value(16.0, Unit::Count), "16");
        assert_eq!(format_value(15.5, Unit::Count), "15.50");
        assert_eq!(format_value(12_345_678.9, Unit::Count), "12.35 M");
        assert_eq!(format_value(0.01234, Unit::Count), "0.0123");
    }

    #[test]
    fn the_table_fits_eighty_columns_in_both_layouts() {
        let few = [
            ("wall-time", Unit::Nanoseconds, 4512.0),
            ("page-faults", Unit::Count, 16.0),
        ];
        let names: Vec<String> = few.iter().map(|m| m.0.to_string()).collect();
        let t = Table::new(&["three::touch_16"], &names, false, 80, false);
        let row = t.row(&result("three::touch_16", &few));
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
        r.derived = vec![("IPC".into(), 2.5)];
        let text = t.row(&r);
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(text.contains("IPC") && text.contains("2.50"), "{text}");
        assert!(text.contains("cache-references"), "{text}");
    }

    #[test]
    fn scaled_pmu_events_show_in_their_unit_and_keep_raw_counts() {
        let tree = crate::kernel::pmu::tests::intel_hybrid();
        let events = crate::counter::event::parse_list_in("power/energy-pkg/", &tree.0).unwrap();
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
        let r = crate::analysis::analyze("x", &events, &m);
        let env = Environment::default();
        let v: Value = serde_json::from_str(&json_line(&r, &env, None)).unwrap();
        let metric = &v["metrics"]["power/energy-pkg/"];
        assert_eq!(metric["estimate"], 4294967296.0, "raw counts per iteration");
        assert_eq!(metric["scaled"]["unit"], "Joules");
        assert_eq!(metric["scaled"]["estimate"], 4294967296.0 * factor);
        let names = vec!["wall-time".to_string(), "power/energy-pkg/".to_string()];
        let row = Table::new(&["x"], &names, false, 120, false).row(&r);
        assert!(row.contains("1.000 Joules"), "{row}");
    }

    #[test]
    fn json_lines_follow_the_schema() {
        let r = result(
            "x/1",
            &[
                ("wall-time", Unit::Nanoseconds, 2.5),
                ("page-faults", Unit::Count, 16.0),
            ],
        );
        let env = Environment::read_from(std::path::Path::new("/nonexistent"), Some(1));
        let line = json_line(&r, &env, None);
        assert!(!line.contains('\n'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["schema"], "perfbench/v1");
        assert_eq!(v["id"], "x/1");
        assert_eq!(v["mode"], "batch");
        assert_eq!(v["samples"], 10);
        assert_eq!(v["iterations"], 550);
        assert_eq!(v["metrics"]["page-faults"]["estimate"], 16.0);
        assert_eq!(v["metrics"]["page-faults"]["unit"], "count");
        assert_eq!(v["metrics"]["wall-time"]["unit"], "ns");
        assert_eq!(v["cpu"], 1);
        assert_eq!(v["environment"]["cpu"], 1);
        assert_eq!(v["environment"]["cpu_model"], "unknown");
    }
}
