//! Benchmarks of one group side by side: at each argument, every member's
//! metrics against the best member's, as Criterion's group summaries and
//! divan's tree show implementations compared.

use std::collections::BTreeMap;

use super::Analysed;
use crate::stats::Estimate;

/// Where a benchmark stands among the others of its group; stored and
/// printed as JSON `{"arg", "member", "name"}` (the group's name).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Membership {
    /// The group: `group = "…"` in the attribute, else the module.
    #[serde(rename = "name")]
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

/// What a standing needs of a benchmark: its group and its headlines. An
/// [`Analysed`] benchmark has them, and so has the report's summary of a
/// stored run.
pub trait Standee {
    /// Its group, member and argument, where it has a group.
    fn membership(&self) -> Option<&Membership>;
    /// The headline of its metric `name`, where it has the metric.
    fn headline(&self, name: &str) -> Option<Estimate>;
    /// Its metrics' names, in order.
    fn metric_names(&self) -> Vec<&str>;
    /// Whether its metric `name` is zero or rare
    /// ([`super::quiet::is_quiet`]); a standee that cannot tell says no.
    fn quiet(&self, _name: &str) -> bool {
        false
    }
}

impl Standee for Analysed {
    fn membership(&self) -> Option<&Membership> {
        self.recording.membership.as_ref()
    }

    fn headline(&self, name: &str) -> Option<Estimate> {
        self.result
            .metrics
            .iter()
            .find(|m| m.name == name)
            .map(|m| *m.estimate())
    }

    fn metric_names(&self) -> Vec<&str> {
        self.result
            .metrics
            .iter()
            .map(|m| m.name.as_str())
            .collect()
    }

    fn quiet(&self, name: &str) -> bool {
        let metric = self.result.metrics.iter().find(|m| m.name == name);
        metric.is_some_and(|m| super::quiet::is_quiet(m.unit, m.estimate()))
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
    // A metric quiet for every member tells them apart by noise, and a
    // negative count (a rate less its calibration) is never the best.
    let (metrics, best): (Vec<String>, Vec<Estimate>) = members[0]
        .metric_names()
        .into_iter()
        .filter(|name| members.iter().all(|a| a.headline(name).is_some()))
        .filter(|name| !members.iter().all(|a| a.quiet(name)))
        .filter_map(|name| Some((name.to_string(), best_of(members, name)?)))
        .unzip();
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

/// The lowest estimate of metric `name` among `members` that is not below
/// zero; `None` where every one is.
fn best_of<S: Standee>(members: &[&S], name: &str) -> Option<Estimate> {
    members
        .iter()
        .filter_map(|a| a.headline(name))
        .filter(|e| e.point >= 0.0)
        .min_by(|x, y| x.point.total_cmp(&y.point))
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
    use crate::analysis::{Calibration, Recording, Series};
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

    /// [`recording`], analysed.
    fn member(group: &str, name: &str, arg: Option<&str>, costs: (u64, u64)) -> Analysed {
        Analysed::of(recording(group, name, arg, costs), &Calibration::default())
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
        let refs: Vec<&Analysed> = all.iter().collect();
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

    /// A member known only by its estimates: `(name, point)`, the
    /// interval a tenth either side.
    struct Fake(Membership, Vec<(&'static str, f64)>);

    impl Standee for Fake {
        fn membership(&self) -> Option<&Membership> {
            Some(&self.0)
        }
        fn headline(&self, name: &str) -> Option<Estimate> {
            let (_, point) = self.1.iter().find(|(n, _)| *n == name)?;
            let spread = point.abs() / 10.0;
            let ci = crate::stats::Interval {
                low: point - spread,
                high: point + spread,
            };
            Some(Estimate { point: *point, ci })
        }
        fn metric_names(&self) -> Vec<&str> {
            self.1.iter().map(|(n, _)| *n).collect()
        }
        fn quiet(&self, name: &str) -> bool {
            self.headline(name)
                .is_some_and(|e| crate::analysis::quiet::is_quiet(Unit::Count, &e))
        }
    }

    #[test]
    fn a_quiet_metric_or_a_negative_count_is_never_the_best() {
        let fake = |member: &str, metrics| {
            let m = Membership {
                group: "g".into(),
                member: member.into(),
                arg: None,
            };
            Fake(m, metrics)
        };
        let a = fake(
            "a",
            vec![("cycles", 100.0), ("context-switches", -2e-7), ("x", -3.0)],
        );
        let b = fake(
            "b",
            vec![("cycles", 90.0), ("context-switches", 4e-7), ("x", 5.0)],
        );
        let s = &standings(&[&a, &b])[0];
        assert_eq!(s.metrics, ["cycles", "x"], "the quiet count is left out");
        let x = |k: usize| s.members[k].1[1];
        assert!(!x(0).best, "-3 is not the best count");
        assert!(x(1).best);
        let c = fake("c", vec![("x", -1.0)]);
        let d = fake("d", vec![("x", -2.0)]);
        assert!(standings(&[&c, &d])[0].metrics.is_empty(), "no best at all");
    }
}
