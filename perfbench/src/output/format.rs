//! How figures are written for people: values with units, percentages,
//! changes with their intervals.

pub use crate::analysis::notes::{count, four_digits, no_negative_zero, plural, thousands};
pub use crate::analysis::printable::{one_line, printable, quoted, LINE_CHARS, QUOTED_CHARS};
use crate::analysis::standings::{Cell, Relative};
use crate::counter::event::Unit;
use crate::measure::Throughput;
use crate::stats::Change;

/// A per-iteration value with its unit: `4.512 µs`, `16`, `12.35 M`.
/// Whole counts are shown whole, so that an exact count looks exact.
pub fn format_value(v: f64, unit: Unit) -> String {
    let v = no_negative_zero(v);
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
    fn a_negative_zero_prints_as_zero() {
        assert_eq!(format_value(-0.0, Unit::Count), "0");
        assert_eq!(format_value(-0.0, Unit::Nanoseconds), "0.000 ns");
        assert_eq!(four_digits(-0.0), "0.000");
        assert_eq!(
            format_value(-2.0, Unit::Count),
            "-2",
            "a real negative stays"
        );
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
}
