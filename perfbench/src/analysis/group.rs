//! Benchmarks of one group side by side: at each argument, every member's
//! metrics against the best member's, as Criterion's group summaries and
//! divan's tree show implementations compared.

use std::collections::BTreeMap;

use super::BenchResult;

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
    pub members: Vec<(String, Vec<Relative>)>,
}

/// The standings of the groups among `results`, in order of their first
/// member: one per group and argument that has two members or more.
pub fn standings(results: &[&BenchResult]) -> Vec<Standing> {
    let mut order: Vec<(&str, Option<&str>)> = Vec::new();
    let mut members: BTreeMap<(&str, Option<&str>), Vec<&BenchResult>> = BTreeMap::new();
    for a in results {
        let Some(m) = &a.membership else {
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
fn standing((group, arg): (&str, Option<&str>), members: &[&BenchResult]) -> Option<Standing> {
    if members.len() < 2 {
        return None;
    }
    let estimate = |a: &BenchResult, name: &str| {
        a.metrics
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.estimate().point)
    };
    let metrics: Vec<String> = members[0]
        .metrics
        .iter()
        .map(|m| m.name.clone())
        .filter(|name| members.iter().all(|a| estimate(a, name).is_some()))
        .collect();
    let best: Vec<f64> = metrics
        .iter()
        .map(|name| {
            members
                .iter()
                .filter_map(|a| estimate(a, name))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let rows = members
        .iter()
        .map(|a| {
            let cells = metrics.iter().zip(&best).map(|(name, &best)| {
                let value = estimate(a, name).unwrap_or(f64::NAN);
                if best > 0.0 {
                    Relative::Ratio(value / best)
                } else {
                    Relative::Value(value)
                }
            });
            let member = a.membership.as_ref().map(|m| m.member.clone());
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
        assert_eq!(
            s[0].members,
            [
                (
                    "std".to_string(),
                    vec![Relative::Ratio(1.0), Relative::Value(0.0)]
                ),
                (
                    "radix".to_string(),
                    vec![Relative::Ratio(2.5), Relative::Value(3.0)]
                ),
            ]
        );
        assert_eq!(
            s[1].members,
            [
                (
                    "std".to_string(),
                    vec![Relative::Ratio(1.25), Relative::Ratio(1.0)]
                ),
                (
                    "radix".to_string(),
                    vec![Relative::Ratio(1.0), Relative::Ratio(2.0)]
                ),
            ]
        );
    }
}
