//! libtest's bench lines (`--output-format bencher`), for tools that read
//! them: github-action-benchmark's `tool: cargo` and Bencher's
//! `rust_bench` adapter, whose parsers want the line to end at `(+/- M)`
//! and cut the name at its first space.

use super::format::{printable, thousands};
use crate::analysis::ResultView;

/// How many ids with white space the warning names before `and N more`.
const NAMED: usize = 3;

/// One benchmark as libtest's bench line, for tools that read those:
/// `test ID ... bench:       1,234 ns/iter (+/- 56)` from the wall time,
/// with the spread of the samples' per-iteration times. Nothing follows:
/// libtest's ` = N MB/s` after a declared throughput made both parsers
/// drop the line, so the rate is left to the table, JSON and report.
pub fn bencher_line(r: ResultView<'_>) -> String {
    let wall = &r.metrics[0];
    format!(
        "test {} ... bench: {:>11} ns/iter (+/- {})",
        printable(&r.recording.id),
        thousands(wall.estimate().point),
        thousands(wall.stats.max - wall.stats.min)
    )
}

/// The warning for the ids of `ids` with white space, which Bencher's
/// line parser cuts at the first space (a few named, then how many
/// more); `None` where there are none.
pub fn spaced_ids_warning(ids: &[&str]) -> Option<String> {
    let spaced: Vec<String> = ids
        .iter()
        .filter(|id| id.contains(char::is_whitespace))
        .map(|id| format!("`{}`", printable(id)))
        .collect();
    let first = spaced.first()?;
    let mut named = spaced[..spaced.len().min(NAMED)].join(", ");
    if spaced.len() > NAMED {
        named.push_str(&format!(" and {} more", spaced.len() - NAMED));
    }
    let (these, cut) = match spaced.len() {
        1 => (format!("id {first} has"), "its name"),
        _ => (format!("ids {named} have"), "their names"),
    };
    Some(format!(
        "{these} white space: Bencher's line parser cuts {cut} at the first space; \
         --output-format bmf keeps ids whole"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::exact_result;
    use crate::counter::event::Unit;
    use crate::measure::Throughput;

    #[test]
    fn a_line_ends_at_the_spread_with_or_without_a_throughput() {
        let mut r = exact_result("x", &[("wall-time", Unit::Nanoseconds, 4000.0)]);
        let plain = "test x ... bench:       4,000 ns/iter (+/- 0)";
        assert_eq!(bencher_line(r.view()), plain);
        for declared in [Throughput::Bytes(10_000), Throughput::Elements(3)] {
            r.recording.throughput = Some(declared);
            assert_eq!(bencher_line(r.view()), plain);
        }
    }

    #[test]
    fn ids_with_white_space_are_named_a_few_then_counted() {
        assert_eq!(spaced_ids_warning(&["a", "b/c"]), None);
        let one = spaced_ids_warning(&["a", "text/emoji 🦀"]).unwrap();
        assert_eq!(
            one,
            "id `text/emoji 🦀` has white space: Bencher's line parser cuts its name at the \
             first space; --output-format bmf keeps ids whole"
        );
        let many = spaced_ids_warning(&["a b", "c\td", "e f", "ok", "g h", "i j"]).unwrap();
        assert!(
            many.starts_with("ids `a b`, `c\\td`, `e f` and 2 more have white space: "),
            "{many}"
        );
    }

    #[test]
    fn an_id_with_a_line_break_and_one_with_a_written_one_print_apart() {
        let line = |id: &str| {
            let r = exact_result(id, &[("wall-time", Unit::Nanoseconds, 5.0)]);
            bencher_line(r.view())
        };
        assert_eq!(
            line("a\nb"),
            "test a\\nb ... bench:           5 ns/iter (+/- 0)"
        );
        assert_eq!(
            line("a\\nb"),
            "test a\\\\nb ... bench:           5 ns/iter (+/- 0)"
        );
    }
}
