//! Benchmarks of one group side by side: at each argument, every member's
//! metrics against the best member's, as Criterion's group summaries and
//! divan's tree show implementations compared.

use std::collections::BTreeMap;

use super::BenchResult;
use crate::stats::Estimate;

/// Where a benchmark stands among the others of its group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    /// The group: `group = "…"` in the attribute, else the module.
    pub group: String,
    /// The member: the function's name, with its type (`sort::<u64>`).
    pub member: String,
    /// The argument it ran with: members are compared at equal arguments.
    pub arg: Option<String>,
}

/// One cell of a standing: how a member's metric compares with the best.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Relative {
    /// The member's estimate over the best (lowest) one: `1.0` for the best.
    Ratio(f64),
    /// The estimate itself, where the best is 0 and no ratio exists.
    Value(f64),
}

/// A member's metric in a standing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Its estimate against the best's.
    pub relative: Relative,
    /// Whether it is the best (the lowest estimate; ties are all best).
    pub best: bool,
    /// Whether its interval lies wholly above the best's, so that it is
    /// told apart from the best; where not, the difference shown is not
    /// established by this run.
    pub apart: bool,
}

/// The members of one group at one argument, each metric against the best.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The group's name.
    pub group: String,
    /// The argument they ran with.
    pub arg: Option<String>,
    /// The metrics compared: those every member measured, in the first
    /// member's order.
    pub metrics: Vec<String>,
    /// Each member, in the order given, with one cell per metric.
    pub members: Vec<(String, Vec<Cell>)>,
}

/// What a standing needs of a benchmark: its group and its headlines. A
/// `BenchResult` has them, and so has the report's summary of a stored run.
pub trait Standee {
    /// Its group, member and argument, where it has a group.
    fn membership(&self) -> Option<&Membership>;
    /// The headline of its metric `name`, where it has the metric.
    fn headline(&self, name: &str) -> Option<Estimate>;
    /// Its metrics' names, in order.
    fn metric_names(&self) -> Vec<&str>;
}

impl Standee for BenchResult {
    fn membership(&self) -> Option<&Membership> {
        self.membership.as_ref()
    }

    fn headline(&self, name: &str) -> Option<Estimate> {
        self.metrics
            .iter()
            .find(|m| m.name == name)
            .map(|m| *m.estimate())
    }

    fn metric_names(&self) -> Vec<&str> {
        self.metrics.iter().map(|m| m.name.as_str()).collect()
    }
}

/// The standings of the groups among `results`, in order of their first
/// member: one per group and argument that has two members or more.
pub fn standings<S: Standee>(results: &[&S]) -> Vec<Standing> {
    let mut order: Vec<(&str, Option<&str>)> = Vec::new();
    let mut members: BTreeMap<(&str, Option<&str>), Vec<&S>> = BTreeMap::new();
    for a in results {
        let Some(m) = a.membership() else {
            continue;
        };
        let key = (m.group.as_str(), m.arg.as_deref());
        if !members.contains_key(&key) {
            order.push(key);
        }
        members.entry(key).or_default().push(a);
    }
    order
        .into_iter()
        .filter_map(|key| standing(key, &members[&key]))
        .collect()
}

/// The standing of `members`, or none for a group of one.
fn standing<S: Standee>((group, arg): (&str, Option<&str>), members: &[&S]) -> Option<Standing> {
    if members.len() < 2 {
        return None;
    }
    let metrics: Vec<String> = members[0]
        .metric_names()
        .into_iter()
        .filter(|name| members.iter().all(|a| a.headline(name).is_some()))
        .map(str::to_string)
        .collect();
    let best: Vec<Estimate> = metrics
        .iter()
        .filter_map(|name| {
            members
                .iter()
                .filter_map(|a| a.headline(name))
                .min_by(|x, y| x.point.total_cmp(&y.point))
        })
        .collect();
    let rows = members
        .iter()
        .map(|a| {
            let cells = metrics
                .iter()
                .zip(&best)
                .filter_map(|(name, best)| Some(cell(&a.headline(name)?, best)));
            let member = a.membership().map(|m| m.member.clone());
            (member.unwrap_or_default(), cells.collect())
        })
        .collect();
    Some(Standing {
        group: group.to_string(),
        arg: arg.map(str::to_string),
        metrics,
        members: rows,
    })
}

/// A member's estimate `e` against the best's.
fn cell(e: &Estimate, best: &Estimate) -> Cell {
    Cell {
        relative: if best.point > 0.0 {
            Relative::Ratio(e.point / best.point)
        } else {
            Relative::Value(e.point)
        },
        best: e.point == best.point,
        apart: e.ci.low > best.ci.high,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::{analyze, Calibration, Recording, Series};
    use crate::counter::event::Unit;

    /// The recording of a member whose iterations take exactly `ns`
    /// nanoseconds and `faults` page faults, in 10 samples of 1 to 10
    /// iterations.
    pub(crate) fn recording(
        group: &str,
        name: &str,
        arg: Option<&str>,
        (ns, faults): (u64, u64),
    ) -> Recording {
        let iterations: Vec<u64> = (1..=10).collect();
        let series = |name: &str, unit, per: u64| Series {
            name: name.into(),
            unit,
            totals: iterations.iter().map(|i| i * per).collect(),
            event: None,
            user_only: None,
            earlier: Vec::new(),
        };
        let rounds = (0..10).map(|i| i / 5).collect();
        let id = match arg {
            Some(arg) => format!("{group}::{name}/{arg}"),
            None => format!("{group}::{name}"),
        };
        let mut recording = Recording::stored(
            id,
            Default::default(),
            (iterations.clone(), rounds),
            vec![
                series("wall-time", Unit::Nanoseconds, ns),
                series("page-faults", Unit::Count, faults),
            ],
        );
        recording.membership = Some(Membership {
            group: group.into(),
            member: name.into(),
            arg: arg.map(Into::into),
        });
        recording
    }

    /// [`recording`]'s result.
    fn member(group: &str, name: &str, arg: Option<&str>, costs: (u64, u64)) -> BenchResult {
        analyze(&recording(group, name, arg, costs), &Calibration::default())
    }

    #[test]
    fn members_at_one_argument_are_compared_with_the_best() {
        let all = [
            member("sort", "std", Some("100"), (40, 0)),
            member("sort", "radix", Some("100"), (100, 3)),
            member("sort", "std", Some("1000"), (500, 2)),
            member("sort", "radix", Some("1000"), (400, 4)),
            member("hash", "alone", None, (10, 0)),
        ];
        let refs: Vec<&BenchResult> = all.iter().collect();
        let s = standings(&refs);
        assert_eq!(s.len(), 2, "a group of one has no standing");
        assert_eq!(
            (s[0].group.as_str(), s[0].arg.as_deref()),
            ("sort", Some("100"))
        );
        assert_eq!(s[0].metrics, ["wall-time", "page-faults"]);
        let exact = |relative, best| Cell {
            relative,
            best,
            apart: !best,
        };
        assert_eq!(
            s[0].members,
            [
                (
                    "std".to_string(),
                    vec![
                        exact(Relative::Ratio(1.0), true),
                        exact(Relative::Value(0.0), true)
                    ]
                ),
                (
                    "radix".to_string(),
                    vec![
                        exact(Relative::Ratio(2.5), false),
                        exact(Relative::Value(3.0), false)
                    ]
                ),
            ]
        );
        assert_eq!(
            s[1].members,
            [
                (
                    "std".to_string(),
                    vec![
                        exact(Relative::Ratio(1.25), false),
                        exact(Relative::Ratio(1.0), true)
                    ]
                ),
                (
                    "radix".to_string(),
                    vec![
                        exact(Relative::Ratio(1.0), true),
                        exact(Relative::Ratio(2.0), false)
                    ]
                ),
            ]
        );
    }

    #[test]
    fn a_member_is_told_apart_from_the_best_only_beyond_both_intervals() {
        let e = |point, low, high| Estimate {
            point,
            ci: crate::stats::Interval { low, high },
        };
        let best = e(100.0, 90.0, 110.0);
        let overlapping = cell(&e(105.0, 95.0, 115.0), &best);
        assert_eq!((overlapping.best, overlapping.apart), (false, false));
        assert_eq!(overlapping.relative, Relative::Ratio(1.05));
        let beyond = cell(&e(130.0, 111.0, 150.0), &best);
        assert_eq!((beyond.best, beyond.apart), (false, true));
        let itself = cell(&best, &best);
        assert_eq!((itself.best, itself.apart), (true, false));
    }
}
