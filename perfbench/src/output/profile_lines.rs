//! The table's profile (`--profile`): under `--verbose` the functions
//! with the largest self share, and at the end of the `paired:` or `vs …`
//! line of a benchmark that changed, where it changed (`; where: …`),
//! each from the one analysis of profiles (`analysis::profile_shares`).

use super::format::printable;
use super::table::Table;
use super::wrap::{comma_pieces, fill, wrap_words};
use crate::analysis::comparison::{Comparison, Target};
use crate::analysis::notes::thousands;
use crate::analysis::profile_shares::{function_shares, where_changed};
use crate::profile::Profile;

/// Most functions `--verbose` lists under a benchmark.
pub const TOP_FUNCTIONS: usize = 5;

impl Table {
    /// `  profile (cpu-clock, 1,234 samples): light 75 % self (75 % total),
    /// …`: the functions with the largest self share.
    pub fn top_functions_line(&self, p: &Profile) -> String {
        let percent = |share: f64| format!("{:.0} %", 100.0 * share);
        let parts: Vec<String> = function_shares(p)
            .iter()
            .take(TOP_FUNCTIONS)
            .map(|f| {
                let (own, total) = (percent(f.self_share), percent(f.total_share));
                format!("{} {own} self ({total} total)", printable(&f.name))
            })
            .collect();
        let lost = match p.lost {
            0 => String::new(),
            n => format!(", {} lost", thousands(n as f64)),
        };
        let lead = format!(
            "profile ({}, {} samples{lost})",
            printable(&p.event),
            thousands(p.samples as f64)
        );
        if parts.is_empty() {
            return format!("  {lead}: nothing sampled in the routine");
        }
        self.listed(&lead, &parts)
    }

    /// `  paired: {why}; where: {moved}`, `why` wrapped at spaces;
    /// `moved` from [`where_said`].
    pub(super) fn why_with_where(&self, why: &str, moved: Option<&str>) -> String {
        let Some(moved) = moved else {
            return wrap_words(&format!("  paired: {why}"), self.width);
        };
        let words = why.split(' ').map(str::to_string);
        self.ending_with_where(std::iter::once("  paired:".into()).chain(words), moved)
    }

    /// `  lead: part, part; where: {moved}` wrapped as [`Table::listed`]
    /// wraps; without a part, `  lead: where: {moved}`.
    pub(super) fn listed_with_where(&self, lead: &str, parts: &[String], moved: &str) -> String {
        let listed = comma_pieces(parts);
        self.ending_with_where(std::iter::once(format!("  {lead}:")).chain(listed), moved)
    }

    /// `pieces`, then `; where: {moved}`, wrapped to the width with
    /// continuation lines indented by four; each function's move (`light
    /// 50 % → 75 %`) is kept whole on a line.
    fn ending_with_where(&self, pieces: impl Iterator<Item = String>, moved: &str) -> String {
        let mut pieces: Vec<String> = pieces.collect();
        if pieces.len() > 1 {
            pieces.last_mut().expect("a piece").push(';');
        }
        let moves: Vec<&str> = moved.split(", ").collect();
        let mut moves = comma_pieces(&moves);
        moves[0].insert_str(0, "where: ");
        pieces.extend(moves);
        fill(pieces.iter().map(String::as_str), self.width, 4)
    }
}

/// Where a benchmark that regressed or improved changed, from the profile
/// of the run it was compared with (`was`) to its own (`is`), printable:
/// `parse::light 24 % → 51 %`, by the one rule
/// ([`where_changed`]); `None` where either has no profile or no change
/// was judged.
pub fn where_said(
    comparison: &Comparison,
    was: Option<&Profile>,
    is: Option<&Profile>,
) -> Option<String> {
    where_changed(comparison, was, is).map(|moved| printable(&moved).into_owned())
}

/// Whether `where:` ends the `paired:` line (a paired run) rather than the
/// `vs …` change line.
pub(super) fn said_on_the_paired_line(comparison: &Comparison) -> bool {
    matches!(comparison.against, Target::Paired(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comparison::{MetricChange, Verdict};
    use crate::counter::event::Unit;
    use crate::stats::Change;

    use crate::profile::folded_profile as profile;

    fn table() -> Table {
        Table::new(&["x"], &["wall-time".to_string()], false, 200, false)
    }

    fn compared(verdict: Verdict) -> Comparison {
        let change = Change {
            relative: Some(0.3),
            difference: 3.0,
            ci: None,
            p_value: 0.001,
            runs: 1,
        };
        Comparison {
            against: Target::PreviousRun,
            changes: Some(vec![MetricChange {
                name: "wall-time".into(),
                change,
                verdict,
            }]),
            unfair: None,
        }
    }

    #[test]
    fn verbose_lists_the_largest_self_shares() {
        let mut p = profile(10, &[("x;parse;light", 300), ("x;parse", 100)]);
        p.lost = 1234;
        assert_eq!(
            table().top_functions_line(&p),
            "  profile (cpu-clock, 2 samples, 1,234 lost): light 75 % self (75 % total), \
             parse 25 % self (100 % total), x 0 % self (100 % total)"
        );
        assert_eq!(
            table().top_functions_line(&Profile::new("cycles")),
            "  profile (cycles, 0 samples): nothing sampled in the routine"
        );
    }

    #[test]
    fn where_is_said_of_a_judged_change_with_both_profiles() {
        let was = profile(10, &[("x;parse;light", 100), ("x;parse", 100)]);
        let is = profile(10, &[("x;parse;light", 300), ("x;parse", 100)]);
        let regressed = compared(Verdict::Regressed);
        assert_eq!(
            where_said(&regressed, Some(&was), Some(&is)).as_deref(),
            Some("light 50 % → 75 %")
        );
        assert_eq!(where_said(&regressed, None, Some(&is)), None);
        assert_eq!(where_said(&regressed, Some(&was), None), None);
        let noise = compared(Verdict::WithinNoise);
        assert_eq!(where_said(&noise, Some(&was), Some(&is)), None);
        // A name is printed as every name is: a backslash escaped.
        let was = profile(10, &[("x;a\\b", 100), ("x;c", 100)]);
        let is = profile(10, &[("x;a\\b", 300), ("x;c", 100)]);
        assert_eq!(
            where_said(&regressed, Some(&was), Some(&is)).as_deref(),
            Some("a\\\\b 50 % → 75 %")
        );
    }

    /// `x`'s result: 1,000 ns of wall time and 4,000 instructions.
    fn result() -> crate::analysis::Analysed {
        crate::analysis::test_support::exact_result(
            "x",
            &[
                ("wall-time", Unit::Nanoseconds, 1000.0),
                ("instructions", Unit::Count, 4000.0),
            ],
        )
    }

    #[test]
    fn where_ends_the_paired_line_in_a_paired_run() {
        let r = result();
        let mut c = compared(Verdict::Regressed);
        c.against = Target::Paired("b".into());
        let t = table();
        let moved = Some("light 50 % → 75 %");
        assert_eq!(
            t.paired_line(&r.result, &c, moved).unwrap(),
            "  paired: +30.0 % wall-time; where: light 50 % → 75 %"
        );
        assert_eq!(
            t.paired_line(&r.result, &c, None).unwrap(),
            "  paired: +30.0 % wall-time"
        );
        // Said once: not on the `vs` line as well, in either block.
        let vs = t.change_line(&r.result, &c, moved).unwrap();
        assert!(!vs.contains("where"), "{vs}");
        let block = t.calm_block(r.view(), Some(&c), moved);
        assert_eq!(block.matches("where:").count(), 1, "{block}");
        assert!(
            block.contains("\n  paired: +30.0 % wall-time; where: light 50 % → 75 %"),
            "{block}"
        );
        // Wrapped at words, continuation lines indented by four.
        let narrow = Table::new(&["x"], &["wall-time".to_string()], false, 40, false);
        assert_eq!(
            narrow.paired_line(&r.result, &c, moved).unwrap(),
            "  paired: +30.0 % wall-time;\n    where: light 50 % → 75 %"
        );
    }

    #[test]
    fn where_ends_the_vs_line_against_a_stored_run() {
        let r = result();
        let c = compared(Verdict::Regressed);
        let t = table();
        let moved = Some("light 50 % → 75 %, parse 50 % → 25 %");
        assert_eq!(
            t.change_line(&r.result, &c, moved).unwrap(),
            "  vs previous run: wall-time +30.00% ▲, instructions -; \
             where: light 50 % → 75 %, parse 50 % → 25 %"
        );
        assert_eq!(t.paired_line(&r.result, &c, moved), None);
        // The default block shows no other change of the headline's:
        // `where:` makes the `vs` line alone.
        let block = t.calm_block(r.view(), Some(&c), moved);
        assert_eq!(
            block.lines().last(),
            Some("  vs previous run: where: light 50 % → 75 %, parse 50 % → 25 %"),
            "{block}"
        );
        assert_eq!(t.calm_block(r.view(), Some(&c), None).lines().count(), 2);
        let narrow = Table::new(&["x"], &["wall-time".to_string()], false, 40, false);
        assert_eq!(
            narrow.change_line(&r.result, &c, moved).unwrap(),
            "  vs previous run: wall-time +30.00% ▲,\n    instructions -;\n    where: light 50 % → 75 %,\n    parse 50 % → 25 %"
        );
    }
}
