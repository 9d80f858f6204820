//! How figures are written for people: values with units, percentages,
//! changes with their intervals.

pub use crate::analysis::notes::{count, plural};
use crate::counter::event::Unit;
use crate::stats::Change;

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

/// A rate of a declared throughput per second: bytes with binary prefixes
/// (`1.250 GiB/s`), elements with decimal ones (`12.35 M elements/s`);
/// `per` is `byte` or `element`. An infinite rate (an interval's open
/// end) is `∞`.
pub fn format_rate(v: f64, per: &str) -> String {
    if v.is_infinite() {
        return "∞".into();
    }
    // Elements take a word, so a decimal prefix stands apart from it.
    let (base, prefixes, unit) = if per == "byte" {
        (1024.0, ["", "Ki", "Mi", "Gi", "Ti"], "B/s")
    } else {
        (1000.0, ["", "k ", "M ", "G ", "T "], "elements/s")
    };
    let mut scaled = v;
    let mut prefix = prefixes[0];
    for p in &prefixes[1..] {
        if scaled.abs() < base {
            break;
        }
        scaled /= base;
        prefix = p;
    }
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
    fn rates_take_binary_prefixes_for_bytes_and_decimal_for_elements() {
        assert_eq!(format_rate(512.0, "byte"), "512.0 B/s");
        assert_eq!(
            format_rate(1.25 * 1024.0 * 1024.0 * 1024.0, "byte"),
            "1.250 GiB/s"
        );
        assert_eq!(format_rate(2048.0, "byte"), "2.000 KiB/s");
        assert_eq!(format_rate(12_345_678.0, "element"), "12.35 M elements/s");
        assert_eq!(format_rate(7.0, "element"), "7.000 elements/s");
        assert_eq!(format_rate(f64::INFINITY, "byte"), "∞");
    }

    #[test]
    fn thousands_are_separated_by_commas() {
        let got = [0.0, 999.0, 1000.0, 1_234_567.4, -5.0].map(thousands);
        assert_eq!(got, ["0", "999", "1,000", "1,234,567", "0"]);
    }
}
