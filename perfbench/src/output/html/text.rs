//! The pieces of HTML every page uses: escaping, values, sort keys, change
//! cells, the page head with its style, and figures.

use std::cmp::Ordering;
use std::fmt::Write as _;

use crate::analysis::comparison::{MetricChange, Target, Verdict};
use crate::counter::event::Unit;
use crate::measure::environment::Environment;
use crate::output::format::{format_value, percent, printable};
use crate::stats::Estimate;

/// The report's style sheet, inline in every page.
pub(super) const CSS: &str = include_str!("style.css");

/// Sorts `table.sortable` by the clicked header (numbers by their `data-v`,
/// else the text) and filters the summary by benchmark. No data of its own.
pub(super) const SCRIPT: &str = include_str!("sort.js");

/// `s` with `&`, `<`, `>`, `"` and `'` escaped: safe in HTML text and in
/// quoted attributes; control characters and those that turn the
/// direction of text are written as the terminal writes them
/// ([`printable`]: `\n`, `\u{1b}`, `\u{202e}`), so that no page holds a
/// raw NUL or ESC, none reads otherwise than it is, and an id reads the
/// same everywhere. Not cut: a page has room for a whole id.
pub(super) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in printable(s).chars() {
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

/// An id as HTML: escaped ([`esc`]), each run between the separators
/// `::` and `/` in a `seg` span the style sheet keeps on one line, and a
/// `<wbr>` after each separator, so that a narrow column breaks an id only
/// where its parts meet (`decode/` `307`, never `decode/3` `07`).
pub(super) fn id_html(id: &str) -> String {
    let escaped = esc(id);
    let mut out = String::with_capacity(escaped.len() + 32);
    let mut rest = escaped.as_str();
    while !rest.is_empty() {
        let end = segment_end(rest);
        let sep = if end < rest.len() { "<wbr>" } else { "" };
        let _ = write!(out, "<span class=\"seg\">{}</span>{sep}", &rest[..end]);
        rest = &rest[end..];
    }
    out
}

/// Where the first part of `s` ends: after its first `::` or `/`, else at
/// its end.
fn segment_end(s: &str) -> usize {
    let slash = s.find('/').map(|i| i + 1);
    let colons = s.find("::").map(|i| i + 2);
    match (slash, colons) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b).unwrap_or(s.len()),
    }
}

/// Ids in natural order: runs of digits compared as numbers (`trivial/2`
/// before `trivial/10`), the rest character by character; ids equal so
/// (`a01`, `a1`) in their plain order, so that only equal ids tie. sort.js
/// has its twin (`naturalCompare`) for the same order in the browser.
pub(super) fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        let (c, d) = match (x.chars().next(), y.chars().next()) {
            (Some(c), Some(d)) => (c, d),
            (c, d) => return c.is_some().cmp(&d.is_some()).then_with(|| a.cmp(b)),
        };
        if c.is_ascii_digit() && d.is_ascii_digit() {
            let (m, x_rest) = digit_run(x);
            let (n, y_rest) = digit_run(y);
            let (m, n) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
            let by_number = m.len().cmp(&n.len()).then_with(|| m.cmp(n));
            if by_number != Ordering::Equal {
                return by_number;
            }
            (x, y) = (x_rest, y_rest);
        } else if c != d {
            return c.cmp(&d);
        } else {
            (x, y) = (&x[c.len_utf8()..], &y[d.len_utf8()..]);
        }
    }
}

/// The run of ASCII digits `s` starts with, and what follows it.
fn digit_run(s: &str) -> (&str, &str) {
    s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()))
}

/// A value with its unit; `n/a` if not finite.
pub(super) fn value(v: f64, unit: Unit) -> String {
    if v.is_finite() {
        format_value(v, unit)
    } else {
        "n/a".into()
    }
}

/// An interval as `[low, high]`.
pub(super) fn interval(e: &Estimate, unit: Unit) -> String {
    format!("[{}, {}]", value(e.ci.low, unit), value(e.ci.high, unit))
}

/// A number for a `data-v` sort key, or nothing if it is not finite.
pub(super) fn sort_key(v: f64) -> String {
    if v.is_finite() {
        format!(" data-v=\"{v}\"")
    } else {
        String::new()
    }
}

/// The CSS class of a verdict.
pub(super) fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Improved => "improved",
        Verdict::Regressed => "regressed",
        Verdict::WithinNoise => "within-noise",
        Verdict::NoChange => "no-change",
    }
}

/// What a run was compared with, as HTML: `baseline <code>main</code>` or
/// `the previous run`.
pub(super) fn target_html(target: &Target) -> String {
    match target {
        Target::PreviousRun => target_name_html(target),
        Target::Baseline(_) => format!("baseline {}", target_name_html(target)),
        Target::Paired(_) => format!("the paired build {}", target_name_html(target)),
    }
}

/// What a run was compared with, as HTML, where the word "baseline" goes
/// without saying: `<code>main</code>` or `the previous run`.
pub(super) fn target_name_html(target: &Target) -> String {
    match target {
        Target::PreviousRun => "the previous run".into(),
        Target::Baseline(name) | Target::Paired(name) => format!("<code>{}</code>", esc(name)),
    }
}

/// The relative change of a metric (`+6.25%`, or `from 0`) and its sort
/// key.
pub(super) fn relative_change(c: &MetricChange) -> (String, String) {
    match c.change.relative {
        Some(r) => (percent(r), sort_key(r)),
        None => ("from 0".to_string(), String::new()),
    }
}

/// The interval of a change, `[+1.00%, +2.00%]`, where it has one.
pub(super) fn change_interval(c: &MetricChange) -> Option<String> {
    c.change
        .ci
        .map(|ci| format!("[{}, {}]", percent(ci.low), percent(ci.high)))
}

/// The change cells of a metric: the relative change with its interval, and
/// the verdict with the p-value.
pub(super) fn change_cells(c: &MetricChange) -> String {
    let class = verdict_class(c.verdict);
    let (relative, key) = relative_change(c);
    let ci = change_interval(c)
        .map(|ci| format!(" <small>{ci}</small>"))
        .unwrap_or_default();
    format!(
        "<td class=\"change {class}\"{key}>{relative}{ci}</td><td class=\"verdict {class}\">{} <small>p = {:.3}</small></td>",
        c.verdict.as_str(),
        c.change.p_value
    )
}

/// Where the thread was pinned, as HTML: the CPU and, on a hybrid CPU,
/// its kind of core (stored text, escaped).
pub(super) fn pinned(env: &Environment) -> String {
    match (env.cpu, &env.core_type) {
        (None, _) => "not pinned".to_string(),
        (Some(c), None) => format!("CPU {c}"),
        (Some(c), Some(kind)) => format!("CPU {c} ({})", esc(kind)),
    }
}

/// The start of a page, up to `<body>`.
pub(super) fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n",
        esc(title)
    );
}

/// A plot in a figure carrying `data` as `data-*` attributes (what it
/// shows, for readers of the page's DOM), or a note of why it is missing.
pub(super) fn figure(
    out: &mut String,
    svg: Result<String, super::plots::PlotError>,
    caption: &str,
    data: &[(&str, &str)],
) {
    match svg {
        Ok(svg) => {
            out.push_str("<figure");
            for (name, v) in data {
                let _ = write!(out, " data-{name}=\"{}\"", esc(v));
            }
            let _ = write!(
                out,
                ">\n{svg}<figcaption>{caption}</figcaption>\n</figure>\n"
            );
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "<p class=\"problem\">{caption}: not drawn ({})</p>",
                esc(&e.to_string())
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn ids_sort_naturally_and_only_equal_ids_tie() {
        let mut ids = vec![
            "trivial/10",
            "trivial/2",
            "decode/1024",
            "decode/307",
            "a::b/9",
            "a::b/10",
            "x01",
            "x1",
            "x",
            "x/",
            "v2.10",
            "v2.9",
        ];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            ids,
            [
                "a::b/9",
                "a::b/10",
                "decode/307",
                "decode/1024",
                "trivial/2",
                "trivial/10",
                "v2.9",
                "v2.10",
                "x",
                "x/",
                "x01",
                "x1",
            ]
        );
        assert_eq!(natural_cmp("x1", "x1"), Ordering::Equal);
        assert_eq!(natural_cmp("x01", "x1"), "x01".cmp("x1"));
        // Numbers longer than any integer type still compare.
        assert_eq!(
            natural_cmp(
                &format!("n/{}", "9".repeat(40)),
                &format!("n/1{}", "0".repeat(40))
            ),
            Ordering::Less
        );
    }

    #[test]
    fn ids_break_only_after_their_separators() {
        assert_eq!(
            id_html("decode/307"),
            "<span class=\"seg\">decode/</span><wbr><span class=\"seg\">307</span>"
        );
        assert_eq!(
            id_html("a::b/<c>"),
            "<span class=\"seg\">a::</span><wbr><span class=\"seg\">b/</span><wbr>\
             <span class=\"seg\">&lt;c&gt;</span>"
        );
        assert_eq!(id_html("plain"), "<span class=\"seg\">plain</span>");
        assert_eq!(id_html("end/"), "<span class=\"seg\">end/</span>");
        assert_eq!(id_html(""), "");
    }

    #[test]
    fn the_kind_of_core_pinned_to_is_shown_escaped() {
        let mut env = Environment::default();
        assert_eq!(pinned(&env), "not pinned");
        env.cpu = Some(3);
        assert_eq!(pinned(&env), "CPU 3");
        env.core_type = Some("cpu_core".into());
        assert_eq!(pinned(&env), "CPU 3 (cpu_core)");
        env.core_type = Some("<b>\u{1b}".into());
        assert_eq!(pinned(&env), "CPU 3 (&lt;b&gt;\\u{1b})");
    }

    #[test]
    fn escaped_text_holds_no_control_character() {
        assert_eq!(
            esc("<a href='x'>&\"\n\x1b[2J\0"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;\\n\\u{1b}[2J\\0"
        );
    }

    #[test]
    fn text_that_turns_direction_reads_as_it_is_held() {
        // A page shows an id as the terminal does: an override would make
        // `evil\u{202e}gpj.exe` read `evilexe.jpg`.
        assert_eq!(
            esc("evil\u{202e}gpj.exe \u{2067}x"),
            "evil\\u{202e}gpj.exe \\u{2067}x"
        );
    }
}
