//! Comparing a run with a stored one: per metric a relative change with its
//! confidence interval, a p-value and a verdict, all from the spread of the
//! headline across the rounds of both runs.

mod lockstep;

pub use lockstep::{paired, why, MIN_PAIRED_ROUNDS};

use super::notes::count;
use super::printable::printable;
use super::recording::MAX_EARLIER_RUNS;
use super::{metric, Recording};
use crate::counter::event::Unit;
use crate::stats::{self, Bootstrap, Change};

/// What a change means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Lower: the whole interval of the change lies below minus the noise
    /// threshold.
    Improved,
    /// Higher: the whole interval of the change lies above the noise
    /// threshold.
    Regressed,
    /// The interval excludes no change, but reaches into the noise
    /// threshold.
    WithinNoise,
    /// The interval includes no change.
    NoChange,
}

impl Verdict {
    /// The verdict as JSON and tables write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::WithinNoise => "within noise",
            Verdict::NoChange => "no change",
        }
    }
}

/// When a change counts: the significance level (the interval of a change
/// is at `1 - significance`) and the smallest relative change that is more
/// than noise, per kind of metric.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// One minus the confidence of a change's interval: a change whose
    /// p-value is at or above this has an interval that includes 0.
    pub significance: f64,
    /// Noise threshold of times (`ns` metrics), as a fraction.
    pub time: f64,
    /// Noise threshold of counts, as a fraction: counters vary far less.
    pub count: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            significance: 0.05,
            time: 0.03,
            count: 0.01,
        }
    }
}

impl Thresholds {
    /// The estimator settings a comparison needs: at this confidence, only
    /// the points and the rounds, without resampling.
    pub fn points_only(&self) -> Bootstrap {
        Bootstrap {
            resamples: 0,
            confidence: 1.0 - self.significance,
            ..Bootstrap::default()
        }
    }

    /// The noise threshold of a metric of `unit`.
    pub fn noise(&self, unit: Unit) -> f64 {
        match unit {
            Unit::Nanoseconds => self.time,
            Unit::Count => self.count,
        }
    }

    /// The noise thresholds of a change from `base` per iteration of a
    /// metric of `unit`. A count's threshold is never below its share of one
    /// event per iteration: a rate of rare events (a context switch every
    /// 100,000 iterations, which the system makes) that moves by a few per
    /// million iterations is noise, however large the ratio, and so is one
    /// that appears from none. An exact count is judged without threshold
    /// all the same ([`verdict`]).
    pub fn noise_of(&self, unit: Unit, base: f64) -> Noise {
        let noise = self.noise(unit);
        match unit {
            Unit::Count => Noise {
                relative: noise / base.abs().min(1.0),
                absolute: noise,
            },
            Unit::Nanoseconds => Noise {
                relative: noise,
                absolute: 0.0,
            },
        }
    }
}

/// The change of one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricChange {
    /// The metric.
    pub name: String,
    /// The statistics of the change.
    pub change: Change,
    /// What it means.
    pub verdict: Verdict,
}

/// What a run is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The previous run of each benchmark (the default).
    PreviousRun,
    /// A baseline saved under this name (`--baseline NAME`).
    Baseline(String),
    /// Another build measured in turn with this one in this run
    /// (`--paired-with PATH`, `--paired-with-rev REV`): the path or the
    /// revision.
    Paired(String),
}

impl Target {
    /// The name JSON gives it: `latest` for the previous run (the stored
    /// file it comes from), else the baseline's name.
    pub fn json_name(&self) -> &str {
        match self {
            Target::PreviousRun => "latest",
            Target::Baseline(name) | Target::Paired(name) => name,
        }
    }

    /// How people read it: `previous run`, or the baseline's name or the
    /// paired build's path quoted, escaped ([`printable`]): a path may hold
    /// anything, a line break that makes a line the GitHub runner obeys, a
    /// terminal's command.
    pub fn label(&self) -> String {
        match self {
            Target::PreviousRun => "previous run".into(),
            Target::Baseline(name) => format!("`{}`", printable(name)),
            Target::Paired(name) => format!("the paired build `{}`", printable(name)),
        }
    }
}

/// One benchmark's run compared with a stored one.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// What it was compared with.
    pub against: Target,
    /// Per metric both runs have; `None` if the stored side has no run of
    /// this benchmark (a new benchmark); empty where the runs cannot be
    /// compared fairly.
    pub changes: Option<Vec<MetricChange>>,
    /// Why the runs were not compared, where they could not be fairly.
    pub unfair: Option<String>,
}

impl Comparison {
    /// `new` compared with `base`, the stored run of the same benchmark
    /// under `against`, if there is one: every metric both have, unless the
    /// two runs cannot be compared fairly ([`unfair`]).
    pub fn of(
        against: &Target,
        base: Option<&Recording>,
        new: &Recording,
        thresholds: &Thresholds,
    ) -> Comparison {
        let unfair = base.and_then(|base| unfair(base, new));
        let changes = base.map(|base| match unfair {
            Some(_) => Vec::new(),
            None => compare_runs(base, new, thresholds),
        });
        Comparison {
            against: against.clone(),
            changes,
            unfair,
        }
    }

    /// The change of a metric, if it was compared.
    pub fn change(&self, metric: &str) -> Option<&MetricChange> {
        self.changes.as_ref()?.iter().find(|c| c.name == metric)
    }
}

/// The verdict on `change` for a metric whose noise thresholds are
/// `noise`: it follows from the change's interval alone. The threshold does
/// not apply to an exact change (a zero-width interval: both runs counted
/// the same in every round), so any change of an exact count is judged. A
/// change from zero has no relative interval: the test of the difference
/// decides, at `significance`, and the difference must exceed the absolute
/// threshold.
pub fn verdict(change: &Change, noise: Noise, significance: f64) -> Verdict {
    let Some(ci) = change.ci else {
        return match (change.p_value < significance, change.difference) {
            (false, _) => Verdict::NoChange,
            (true, d) if d.abs() <= noise.absolute => Verdict::WithinNoise,
            (true, d) if d > 0.0 => Verdict::Regressed,
            (true, _) => Verdict::Improved,
        };
    };
    let noise = if change.is_exact() {
        0.0
    } else {
        noise.relative
    };
    if ci.low > noise {
        Verdict::Regressed
    } else if ci.high < -noise {
        Verdict::Improved
    } else if ci.low > 0.0 || ci.high < 0.0 {
        Verdict::WithinNoise
    } else {
        Verdict::NoChange
    }
}

/// The noise thresholds of one metric's change ([`Thresholds::noise_of`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    /// Relative to the baseline's estimate, for changes of a baseline that
    /// is not zero.
    pub relative: f64,
    /// In the metric's unit per iteration, for changes from zero.
    pub absolute: f64,
}

/// Fewest samples a run needs for its changes to be judged.
pub const MIN_SAMPLES: usize = 3;

/// Fewest rounds a run needs for its changes to be judged: one round tells
/// nothing of how much the next run may differ.
pub const MIN_ROUNDS: usize = 2;

/// Why `new` cannot be fairly compared with `base`, if it cannot: measured
/// in another mode (batch or per iteration), on another number of threads
/// (an iteration of `threads` is a call on each, its counts their totals),
/// through another read path (per iteration: the reads that bracket each
/// iteration, and so what they add, differ), on another kind of core of a
/// hybrid CPU, with other events (so in other counter groups, at other privilege
/// levels), or with too few samples or rounds to tell a change from noise.
/// A run on another CPU model or kernel is still compared, with a warning
/// (`Environment::mismatch`).
pub fn unfair(base: &Recording, new: &Recording) -> Option<String> {
    let mode = |r: &Recording| match r.read_path {
        Some(_) => "per-iteration mode",
        None => "batch mode",
    };
    if mode(base) != mode(new) {
        return Some(format!(
            "measured in {}, this run in {}",
            mode(base),
            mode(new)
        ));
    }
    if base.threads != new.threads {
        return Some(format!(
            "measured on {}, this run on {}",
            count(base.threads, "thread"),
            count(new.threads, "thread")
        ));
    }
    // Before the names: narrowed to user space, an event is named with
    // `:u`, and the privilege level is the reason its name changed.
    if let Some(why) = other_privilege(base, new) {
        return Some(why);
    }
    if let Some(why) = other_read_path(base, new).or_else(|| other_core_type(base, new)) {
        return Some(why);
    }
    let names = |r: &Recording| r.series.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    if names(base) != names(new) {
        return Some(format!(
            "measured with other events ({}), this run with {}",
            names(base).join(","),
            names(new).join(",")
        ));
    }
    let fewest = base.iterations.len().min(new.iterations.len());
    if fewest < MIN_SAMPLES {
        return Some(format!(
            "{} on one side; a change needs at least {MIN_SAMPLES} to be judged",
            count(fewest, "sample")
        ));
    }
    let rounds = base.round_count().min(new.round_count());
    (rounds < MIN_ROUNDS).then(|| {
        format!(
            "{} on one side; a change needs at least {MIN_ROUNDS} to be judged",
            count(rounds, "round")
        )
    })
}

/// Why per-iteration runs `base` and `new` were read on other paths
/// (`rdpmc` or the arm64 counter registers against `read()`), if they were.
fn other_read_path(base: &Recording, new: &Recording) -> Option<String> {
    let (Some(b), Some(n)) = (base.read_path, new.read_path) else {
        return None;
    };
    (b != n).then(|| format!("counters read through {b}, this run through {n}"))
}

/// Why `base` and `new` were measured on other kinds of core, if either
/// ran on a hybrid CPU and they were, or if a kind is not known there (a
/// run stored before it was recorded, or not pinned): such a core may be
/// 1.5-2x slower, and a change of that size is no verdict on the code.
fn other_core_type(base: &Recording, new: &Recording) -> Option<String> {
    let (b, n) = (&base.environment, &new.environment);
    let same = b.core_type.is_some() && b.core_type == n.core_type;
    if same || !(b.is_hybrid() || n.is_hybrid()) {
        return None;
    }
    let kind = |t: &Option<String>| match t {
        Some(t) => format!("{t} cores"),
        None => "a core of unknown type".to_string(),
    };
    Some(format!(
        "measured on {}, this run on {} (a hybrid CPU's kinds of core differ in speed)",
        kind(&b.core_type),
        kind(&n.core_type)
    ))
}

/// Why the events of `base` and `new` count at other privilege levels, if
/// they do: one run counted an event in user space only where the other
/// counted the kernel too (`perf_event_paranoid` changed between them, or
/// the user did). Narrowed events are named with `:u` (`page-faults:u`);
/// runs stored before that kept the plain name. Unknown for runs stored
/// before the level was recorded.
fn other_privilege(base: &Recording, new: &Recording) -> Option<String> {
    let scope = |user_only: bool| {
        if user_only {
            "in user space only"
        } else {
            "with the kernel"
        }
    };
    // Paired by event, not by place: one run may count an event the other
    // does not (per-iteration mode leaves the clocks out).
    let event = |name: &str| name.strip_suffix(":u").unwrap_or(name).to_string();
    base.series.iter().find_map(|b| {
        let n = new
            .series
            .iter()
            .find(|n| event(&n.name) == event(&b.name))?;
        let (Some(b_user), Some(n_user)) = (b.user_only, n.user_only) else {
            return None;
        };
        (b_user != n_user).then(|| {
            format!(
                "`{}` counted {}, this run `{}` {}",
                b.name,
                scope(b_user),
                n.name,
                scope(n_user)
            )
        })
    })
}

/// Compares every metric of `new` that `base` also has: each side's
/// headline over its rounds ([`super::Metric::rounds`]).
pub fn compare_runs(
    base: &Recording,
    new: &Recording,
    thresholds: &Thresholds,
) -> Vec<MetricChange> {
    compared(base, new, thresholds)
        .into_iter()
        .map(|(_, change)| change)
        .collect()
}

/// [`compare_runs`], each change with the baseline's headline it was
/// measured from.
fn compared(
    base: &Recording,
    new: &Recording,
    thresholds: &Thresholds,
) -> Vec<(f64, MetricChange)> {
    let points = thresholds.points_only();
    new.series
        .iter()
        .filter_map(|series| {
            let old = base.series(&series.name)?;
            let before = metric(base, old, &points).rounds;
            let after = metric(new, series, &points).rounds;
            // The spread of runs is the routine's on this machine: learned
            // from whichever side has seen more of them.
            let runs = stats::between_runs(&before, &old.earlier)
                .or_better(stats::between_runs(&after, &series.earlier));
            let change = stats::compare(&before, &after, runs, points.confidence);
            let change = MetricChange {
                name: series.name.clone(),
                verdict: verdict(
                    &change,
                    thresholds.noise_of(series.unit, before.point),
                    thresholds.significance,
                ),
                change,
            };
            Some((before.point, change))
        })
        .collect()
}

/// The significance at which a change makes the earlier runs start again:
/// far stricter than a verdict's, because a machine that slows for a spell
/// longer than any run seen so far (sort 1.5× slower for minutes on these
/// VMs) would otherwise wipe out the spread being learned, and the gate's
/// false alarms with it come back.
pub const START_AGAIN_SIGNIFICANCE: f64 = 0.001;

/// Gives each series of `new`, a run of the benchmark `stored` holds a
/// later run of, the earlier runs it keeps: `stored`'s headline and the
/// runs `stored` kept, the oldest dropped past [`MAX_EARLIER_RUNS`]. They
/// widen `new`'s intervals by the spread they show between runs, and are
/// stored with it. They start again from none where nothing is stored,
/// where `stored` was measured with other settings (or with settings
/// unknown: [`Recording::settings`]), where the runs cannot be compared
/// fairly, or where `new` improved or
/// regressed on `stored` beyond doubt ([`START_AGAIN_SIGNIFICANCE`]) even
/// allowing for that spread: the code changed, and the earlier runs
/// measured other code.
pub fn carry_earlier(stored: Option<&Recording>, new: &mut Recording, thresholds: &Thresholds) {
    // Judged on the stored side's runs alone.
    for series in &mut new.series {
        series.earlier.clear();
    }
    let like = |stored: &&Recording| {
        stored.settings.is_some()
            && stored.settings == new.settings
            && unfair(stored, new).is_none()
    };
    let Some(stored) = stored.filter(like) else {
        return;
    };
    let strict = Thresholds {
        significance: START_AGAIN_SIGNIFICANCE,
        ..*thresholds
    };
    let judged = compared(stored, new, &strict);
    let changed = |c: &MetricChange| matches!(c.verdict, Verdict::Improved | Verdict::Regressed);
    if judged.iter().any(|(_, c)| changed(c)) {
        return;
    }
    for (point, change) in judged {
        // Both have it, being compared: found, never skipped.
        let before = stored.series(&change.name);
        let series = new.series.iter_mut().find(|s| s.name == change.name);
        let (Some(before), Some(series)) = (before, series) else {
            continue;
        };
        let earlier = &mut series.earlier;
        let kept = before.earlier.len().min(MAX_EARLIER_RUNS - 1);
        earlier.extend(&before.earlier[before.earlier.len() - kept..]);
        earlier.push(point);
    }
}

/// Whether `c` fails `--fail-on-regression`: regressed, and where a
/// `limit` (a fraction) is given, with its whole interval above it.
pub fn fails(c: &MetricChange, limit: Option<f64>) -> bool {
    c.verdict == Verdict::Regressed
        && match (c.change.ci, limit) {
            (Some(ci), Some(limit)) => ci.low > limit,
            _ => true,
        }
}

#[cfg(test)]
mod tests;
