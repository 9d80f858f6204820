//! The table's lines of a profile (`--profile`): under `--verbose` the
//! functions with the largest self share, and under a benchmark that
//! changed, where it changed (`where:`), each from the one analysis of
//! profiles (`analysis::profile_shares`).

use super::format::printable;
use super::table::Table;
use super::wrap::wrap_words;
use crate::analysis::comparison::Comparison;
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

    /// `  where: parse::light 24 % → 51 %`: where a benchmark that
    /// regressed or improved changed, from the profile of the run it was
    /// compared with to its own; `None` where either has none.
    pub fn where_line(
        &self,
        comparison: &Comparison,
        was: Option<&Profile>,
        is: Option<&Profile>,
    ) -> Option<String> {
        let moved = where_changed(comparison, was, is)?;
        Some(wrap_words(
            &format!("  where: {}", printable(&moved)),
            self.width,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comparison::{MetricChange, Target, Verdict};
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
        let t = table();
        let regressed = compared(Verdict::Regressed);
        assert_eq!(
            t.where_line(&regressed, Some(&was), Some(&is)).unwrap(),
            "  where: light 50 % → 75 %"
        );
        assert_eq!(t.where_line(&regressed, None, Some(&is)), None);
        let noise = compared(Verdict::WithinNoise);
        assert_eq!(t.where_line(&noise, Some(&was), Some(&is)), None);
    }
}
