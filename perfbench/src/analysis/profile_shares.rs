//! What a profile says, function by function: each function's share of
//! the events with itself innermost (`self`) and anywhere in the stack
//! (`total`), and between two profiles, the functions whose events per
//! iteration moved most. Every output reads these: JSON lines, `--verbose`
//! and the "where:" of a change.

use std::collections::{BTreeMap, BTreeSet};

use super::comparison::{Comparison, Verdict};
use crate::profile::Profile;

/// One function's shares of a profile's events, each from 0 to 1.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionShare {
    /// The function (a frame's name).
    pub name: String,
    /// Of the events sampled with it innermost.
    pub self_share: f64,
    /// Of the events sampled with it anywhere in the stack (once a stack,
    /// however often it recurs).
    pub total_share: f64,
}

/// One function between two profiles: its events per iteration, and its
/// self shares, before and after.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionMove {
    /// The function.
    pub name: String,
    /// Its self share before, from 0 to 1.
    pub before: f64,
    /// Its self share after.
    pub after: f64,
    /// Its self events per iteration before.
    pub before_per_iteration: f64,
    /// Its self events per iteration after.
    pub after_per_iteration: f64,
}

/// The events of each function: innermost, and anywhere in the stack.
fn events_by_function(p: &Profile) -> BTreeMap<&str, (u64, u64)> {
    let mut by = BTreeMap::new();
    for (stack, &n) in &p.stacks {
        let names: BTreeSet<&str> = stack.iter().map(String::as_str).collect();
        for name in names {
            let e: &mut (u64, u64) = by.entry(name).or_default();
            e.1 = e.1.saturating_add(n);
        }
        if let Some(leaf) = stack.last() {
            let e = by.entry(leaf.as_str()).or_default();
            e.0 = e.0.saturating_add(n);
        }
    }
    by
}

/// Every function's shares, largest `self` first (then largest `total`,
/// then by name); none for a profile without events.
pub fn function_shares(p: &Profile) -> Vec<FunctionShare> {
    let all = p.events() as f64;
    if all == 0.0 {
        return Vec::new();
    }
    let mut shares: Vec<FunctionShare> = events_by_function(p)
        .into_iter()
        .map(|(name, (own, total))| FunctionShare {
            name: name.to_string(),
            self_share: own as f64 / all,
            total_share: total as f64 / all,
        })
        .collect();
    shares.sort_by(|a, b| {
        (b.self_share.total_cmp(&a.self_share))
            .then(b.total_share.total_cmp(&a.total_share))
            .then_with(|| a.name.cmp(&b.name))
    });
    shares
}

/// The `most` functions whose self events per iteration moved most from
/// `before` to `after`, largest move first; none where either profile ran
/// no iteration or took no events, or the two sampled different events.
pub fn function_moves(before: &Profile, after: &Profile, most: usize) -> Vec<FunctionMove> {
    let usable = |p: &Profile| p.iterations > 0 && p.events() > 0;
    if !usable(before) || !usable(after) || before.event != after.event {
        return Vec::new();
    }
    let (was, is) = (SelfEvents::of(before), SelfEvents::of(after));
    let names: BTreeSet<&str> = (before.stacks.keys().chain(after.stacks.keys()))
        .filter_map(|s| s.last().map(String::as_str))
        .collect();
    let mut moves: Vec<FunctionMove> = names
        .into_iter()
        .map(|name| {
            let (before, before_per_iteration) = was.of_function(name);
            let (after, after_per_iteration) = is.of_function(name);
            FunctionMove {
                name: name.to_string(),
                before,
                after,
                before_per_iteration,
                after_per_iteration,
            }
        })
        .collect();
    let moved = |m: &FunctionMove| (m.after_per_iteration - m.before_per_iteration).abs();
    moves.sort_by(|a, b| {
        moved(b)
            .total_cmp(&moved(a))
            .then_with(|| a.name.cmp(&b.name))
    });
    moves.truncate(most);
    moves.retain(|m| moved(m) > 0.0);
    moves
}

/// Most functions "where:" names.
pub const WHERE_FUNCTIONS: usize = 2;

/// Where a change happened, in a few words: the functions whose self
/// events per iteration moved most, each with its self share before and
/// after, `parse::light 24 % → 51 %, alloc 10 % → 3 %`; `None` where the
/// profiles cannot be compared or nothing moved.
pub fn where_moved(before: &Profile, after: &Profile) -> Option<String> {
    let moves = function_moves(before, after, WHERE_FUNCTIONS);
    let percent = |share: f64| format!("{:.0} %", 100.0 * share);
    let parts: Vec<String> = moves
        .iter()
        .map(|m| format!("{} {} → {}", m.name, percent(m.before), percent(m.after)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Where a benchmark that regressed or improved against `comparison`
/// changed, from the profile of the run it was compared with (`was`) to
/// its own (`is`): [`where_moved`]; `None` where no change was judged or
/// either profile is missing.
pub fn where_changed(
    comparison: &Comparison,
    was: Option<&Profile>,
    is: Option<&Profile>,
) -> Option<String> {
    let judged = |v: Verdict| matches!(v, Verdict::Regressed | Verdict::Improved);
    let changes = comparison.changes.as_ref()?;
    changes.iter().any(|c| judged(c.verdict)).then_some(())?;
    where_moved(was?, is?)
}

/// A profile's self events by function, with what a share and a figure
/// per iteration divide them by.
struct SelfEvents<'a> {
    by: BTreeMap<&'a str, (u64, u64)>,
    all: f64,
    iterations: f64,
}

impl<'a> SelfEvents<'a> {
    fn of(p: &'a Profile) -> SelfEvents<'a> {
        SelfEvents {
            by: events_by_function(p),
            all: p.events() as f64,
            iterations: p.iterations as f64,
        }
    }

    /// `name`'s self share and self events per iteration.
    fn of_function(&self, name: &str) -> (f64, f64) {
        let own = self.by.get(name).map_or(0, |e| e.0) as f64;
        (own / self.all, own / self.iterations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::profile::folded_profile as profile;

    #[test]
    fn shares_count_self_innermost_and_total_once_a_stack() {
        let p = profile(10, &[("b;parse;light", 60), ("b;parse", 20), ("b;f;f", 20)]);
        let got: Vec<(String, f64, f64)> = function_shares(&p)
            .into_iter()
            .map(|s| (s.name, s.self_share, s.total_share))
            .collect();
        let want = [
            ("light", 0.6, 0.6),
            ("parse", 0.2, 0.8),
            ("f", 0.2, 0.2),
            ("b", 0.0, 1.0),
        ];
        let want: Vec<(String, f64, f64)> = want
            .iter()
            .map(|&(n, s, t)| (n.to_string(), s, t))
            .collect();
        assert_eq!(got, want);
        assert_eq!(function_shares(&Profile::new("cycles")), Vec::new());
    }

    #[test]
    fn moves_are_per_iteration_largest_first() {
        // Twice the iterations after: `light` stays at 6 events an
        // iteration, `heavy` goes from 2 to 8.
        let before = profile(10, &[("b;light", 60), ("b;heavy", 20)]);
        let after = profile(20, &[("b;light", 120), ("b;heavy", 160)]);
        let got = function_moves(&before, &after, 5);
        assert_eq!(got.len(), 1, "{got:?}");
        let m = &got[0];
        assert_eq!(m.name, "heavy");
        assert_eq!((m.before_per_iteration, m.after_per_iteration), (2.0, 8.0));
        assert_eq!((m.before, m.after), (0.25, 160.0 / 280.0));
        // Another event, or no iterations: nothing to compare.
        let mut cycles = after.clone();
        cycles.event = "cycles".into();
        assert!(function_moves(&before, &cycles, 5).is_empty());
        assert!(function_moves(&profile(0, &[("b", 1)]), &after, 5).is_empty());
        assert_eq!(where_moved(&before, &after).unwrap(), "heavy 25 % → 57 %");
        assert_eq!(where_moved(&before, &before), None);
    }
}
