//! How figures are written for people: values with units, percentages,
//! changes with their intervals.

use crate::analysis::group::{Cell, Relative};
pub use crate::analysis::notes::{count, plural};
use crate::counter::event::Unit;
use crate::measure::Throughput;
use crate::stats::Change;

/// `s` as it may be printed: each control character (newline, ESC, NUL,
/// DEL, …) written as Rust writes it in a string (`\n`, `\u{1b}`, `\0`),
/// so that a user's text can neither break a line nor reach the terminal
/// as a command. Every id, filter and name a user gave is printed through
/// this.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// A number with four significant digits, as a table shows it.
pub fn four_digits(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 1.0 || a == 0.0 {
        format!("{v:.3}")
    } else if a >= 1e-3 {
        format!("{v:.4}")
    } else {
        // A rare event per iteration: `0.0000` would say it never happens.
        format!("{v:.3e}")
    }
}

/// A whole number with commas between thousands, libtest's way:
/// `1,234,567` (rounded; below zero is 0).
pub fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
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

/// Work per second in decimal units, as libtest's `MB/s` are (10^6 bytes):
/// `7.426 GB/s`, `830.0 Melem/s`; `∞` for no upper bound.
pub fn format_rate(per_second: f64, work: Throughput) -> String {
    let unit = match work {
        Throughput::Bytes(_) => "B/s",
        Throughput::Elements(_) => "elem/s",
    };
    let (scaled, prefix) = match per_second.abs() {
        a if !a.is_finite() => return format!("∞ {unit}"),
        a if a < 1e3 => (per_second, ""),
        a if a < 1e6 => (per_second / 1e3, "k"),
        a if a < 1e9 => (per_second / 1e6, "M"),
        a if a < 1e12 => (per_second / 1e9, "G"),
        _ => (per_second / 1e12, "T"),
    };
    format!("{} {prefix}{unit}", four_digits(scaled))
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
pub fn relative_text(relative: Option<f64>) -> String {
    relative.map_or("from 0".into(), percent)
}

/// A cell of a standing: `2.31×`, or the value where the best is 0; `≈`
/// before one that this run does not tell apart from the best.
pub fn standing_cell(c: &Cell) -> String {
    let text = match c.relative {
        Relative::Ratio(r) => format!("{r:.2}×"),
        Relative::Value(0.0) => "0".into(),
        Relative::Value(v) => four_digits(v),
    };
    if c.best || c.apart {
        text
    } else {
        format!("≈{text}")
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn rates_are_in_decimal_units() {
        let bytes = Throughput::Bytes(1);
        let got =
            [512.0, 1.5e3, 830e6, 7.4256e9, 2e12, f64::INFINITY].map(|v| format_rate(v, bytes));
        assert_eq!(
            got,
            [
                "512.0 B/s",
                "1.500 kB/s",
                "830.0 MB/s",
                "7.426 GB/s",
                "2.000 TB/s",
                "∞ B/s"
            ]
        );
        assert_eq!(format_rate(4.2e7, Throughput::Elements(3)), "42.00 Melem/s");
    }

    #[test]
    fn control_characters_are_written_as_escapes() {
        assert_eq!(printable("sort/64"), "sort/64");
        assert_eq!(printable("emoji 🦀 \\ tab"), "emoji 🦀 \\ tab");
        assert_eq!(
            printable("a\nb\x1b[31mc\0d\x7fe\u{9b}f\r\t"),
            "a\\nb\\u{1b}[31mc\\0d\\u{7f}e\\u{9b}f\\r\\t"
        );
    }

    #[test]
    fn thousands_are_separated_by_commas() {
        let got = [0.0, 999.0, 1000.0, 1_234_567.4, -5.0].map(thousands);
        assert_eq!(got, ["0", "999", "1,000", "1,234,567", "0"]);
    }
}
