//! How figures are written for people: values with units, percentages,
//! changes with their intervals.

use std::borrow::Cow;

pub use crate::analysis::notes::{count, plural};
use crate::analysis::standings::{Cell, Relative};
use crate::counter::event::Unit;
use crate::measure::Throughput;
use crate::stats::Change;

/// How many characters of one quoted text ([`quoted`]) a message shows:
/// a name, an argument, a value read from the store. The longest sane one
/// (a CPU model, a schema tag, a baseline name of at most 64) is far
/// shorter, and a screenful of a hostile one says nothing more.
pub const QUOTED_CHARS: usize = 200;

/// How many characters of one message made below the run layer
/// ([`one_line`]) are shown: such a message may quote stored text whole
/// (a store error's reason, an environment that differs), which only the
/// whole line can cut; it fits several quoted texts of [`QUOTED_CHARS`].
pub const LINE_CHARS: usize = 1_000;

/// `s` as it may be printed: each control character (newline, ESC, NUL,
/// DEL, …) written as Rust writes it in a string (`\n`, `\u{1b}`, `\0`),
/// and each character that turns the direction of text (U+202E and its
/// kin) as `\u{202e}`, so that a user's or a stored text can neither break
/// a line, nor reach the terminal as a command, nor show other text than
/// it holds. Every id, filter and name a user gave is printed through this,
/// whole (an id must stay one a filter can match).
pub fn printable(s: &str) -> Cow<'_, str> {
    printable_within(s, usize::MAX)
}

/// A user's or a stored text as a message quotes it: [`printable`], cut
/// after [`QUOTED_CHARS`] characters with how many more it has, so that a
/// 10,000-character name is no 10,000-character error.
pub fn quoted(s: &str) -> Cow<'_, str> {
    printable_within(s, QUOTED_CHARS)
}

/// A whole message as the run prints it: [`printable`] (escapes are kept
/// as they are, so text quoted already is not escaped twice), cut after
/// [`LINE_CHARS`] characters; one line, whatever a lower layer quoted.
pub fn one_line(s: &str) -> Cow<'_, str> {
    printable_within(s, LINE_CHARS)
}

/// [`printable`], cut after `max` printed characters (never inside an
/// escape) with `… (N more characters)`, N counting `s`'s own characters.
fn printable_within(s: &str, max: usize) -> Cow<'_, str> {
    let plain = |c: char| !c.is_control() && !turns_direction(c);
    if s.chars().all(plain) && s.chars().nth(max).is_none() {
        return s.into();
    }
    let mut out = String::with_capacity(s.len().min(max) + 8);
    let mut shown = 0;
    for (i, c) in s.chars().enumerate() {
        let start = out.len();
        if plain(c) {
            out.push(c);
        } else if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.extend(c.escape_unicode());
        }
        shown += out[start..].chars().count();
        if shown > max {
            out.truncate(start);
            let more = s.chars().count() - i;
            let more = format!("{} more character{}", thousands(more as f64), plural(more));
            out.push_str(&format!("… ({more})"));
            break;
        }
    }
    out.into()
}

/// Whether `c` is a character of no width that changes the direction in
/// which the text around it is shown: the bidi embeddings, overrides and
/// isolates (U+202A–U+202E, U+2066–U+2069) and the marks (U+200E, U+200F,
/// U+061C). Printed raw, they make a line read otherwise than it is.
fn turns_direction(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// A number with four significant digits, as a table shows it.
pub fn four_digits(v: f64) -> String {
    let v = no_negative_zero(v);
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

/// `v`, but `0` for `-0`: a count that cancels to nothing (a rate
/// between two runs, a cost less the calibration) prints as `0`.
pub fn no_negative_zero(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else {
        v
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
    fn terminal_commands_and_line_breaks_are_written_as_escapes() {
        let cases = [
            ("a\x1b[2Kb", "a\\u{1b}[2Kb"),
            ("\x1b]0;x\x07", "\\u{1b}]0;x\\u{7}"),
            ("\x1b]52;c;ZXZpbA==\x07", "\\u{1b}]52;c;ZXZpbA==\\u{7}"),
            ("one\rtwo", "one\\rtwo"),
            ("one\ntwo", "one\\ntwo"),
        ];
        for (raw, shown) in cases {
            assert_eq!(printable(raw), shown);
            assert_eq!(quoted(raw), shown);
            assert_eq!(one_line(raw), shown);
        }
    }

    #[test]
    fn characters_that_turn_the_direction_of_text_are_written_as_escapes() {
        assert_eq!(printable("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(printable("x\u{2066}y\u{2069}"), "x\\u{2066}y\\u{2069}");
        let marks = "\u{200e}\u{200f}\u{61c}\u{202a}\u{2068}";
        assert_eq!(
            printable(marks),
            "\\u{200e}\\u{200f}\\u{61c}\\u{202a}\\u{2068}"
        );
        // Other non-ASCII text, and the joiner inside an emoji, stay.
        assert_eq!(
            printable("Grüße 👩\u{200d}🔬 العربية"),
            "Grüße 👩\u{200d}🔬 العربية"
        );
    }

    #[test]
    fn quoted_text_is_cut_saying_how_much_more_there_is() {
        let long = "n".repeat(10_000);
        let q = quoted(&long);
        assert_eq!(q, format!("{}… (9,800 more characters)", "n".repeat(200)));
        assert_eq!(quoted(&"n".repeat(200)), "n".repeat(200), "200 are whole");
        assert_eq!(
            quoted(&"n".repeat(201)),
            format!("{}… (1 more character)", "n".repeat(200))
        );
        // Cut before an escape that would not fit, never inside it; what is
        // left is counted in the text's own characters.
        let escapes = format!("{}\x1b\x1bz", "n".repeat(195));
        assert_eq!(
            quoted(&escapes),
            format!("{}… (3 more characters)", "n".repeat(195))
        );
        assert_eq!(printable(&long), long, "ids are never cut");
        let line = one_line(&long);
        assert!(line.starts_with(&"n".repeat(1_000)), "{line}");
        assert!(line.ends_with("… (9,000 more characters)"), "{line}");
    }

    #[test]
    fn escaping_twice_changes_nothing() {
        let once = printable("a\nb\u{202e}c\\");
        assert_eq!(printable(&once), once);
        assert_eq!(one_line(&once), once);
    }

    #[test]
    fn thousands_are_separated_by_commas() {
        let got = [0.0, 999.0, 1000.0, 1_234_567.4, -5.0].map(thousands);
        assert_eq!(got, ["0", "999", "1,000", "1,234,567", "0"]);
    }
}
