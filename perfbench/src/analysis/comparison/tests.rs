//! The comparison's tests: verdicts, intervals and fairness of a run against
//! a stored one, and the earlier runs a recording learns from.

use super::*;

#[test]
fn a_paired_build_is_labelled_by_its_path_escaped() {
    let path = "/tmp/b\n::warning::X\x1b[31m\\n";
    assert_eq!(
        Target::Paired(path.into()).label(),
        "the paired build `/tmp/b\\n::warning::X\\u{1b}[31m\\\\n`"
    );
    assert_eq!(
        Target::Paired(path.into()).json_name(),
        path,
        "JSON keeps it"
    );
}

#[test]
fn a_baseline_named_latest_is_not_the_previous_run() {
    let named = Target::Baseline("latest".into());
    assert_eq!(named.label(), "`latest`");
    assert_eq!(Target::PreviousRun.label(), "previous run");
    assert_eq!(named.json_name(), "latest");
    assert_ne!(named, Target::PreviousRun);
}
use crate::stats::{compare, Interval, RoundEstimates};

fn change(relative: Option<f64>, p_value: f64) -> Change {
    Change {
        relative,
        difference: relative.unwrap_or(1.0),
        ci: relative.map(|r| Interval { low: r, high: r }),
        p_value,
        runs: 1,
    }
}

fn within(low: f64, high: f64) -> Change {
    Change {
        relative: Some((low + high) / 2.0),
        difference: (low + high) / 2.0,
        ci: Some(Interval { low, high }),
        p_value: 0.5,
        runs: 1,
    }
}

/// The default thresholds of a time.
const TIME: Noise = Noise {
    relative: 0.03,
    absolute: 0.0,
};

#[test]
fn verdicts_follow_the_interval_and_the_noise_threshold() {
    let cases = [
        (within(0.04, 0.10), Verdict::Regressed),
        (within(0.01, 0.10), Verdict::WithinNoise),
        (within(-0.01, 0.10), Verdict::NoChange),
        (within(-0.10, -0.04), Verdict::Improved),
        (within(-0.10, -0.02), Verdict::WithinNoise),
        // Exact: no noise to allow for.
        (change(Some(0.005), 0.0), Verdict::Regressed),
        (change(Some(-0.005), 0.0), Verdict::Improved),
        (change(Some(0.0), 1.0), Verdict::NoChange),
        // From zero: the test of the difference.
        (change(None, 0.0), Verdict::Regressed),
        (change(None, 0.3), Verdict::NoChange),
    ];
    for (c, expected) in cases {
        assert_eq!(verdict(&c, TIME, 0.05), expected, "{c:?}");
    }
}

#[test]
fn rare_events_are_judged_against_one_event_per_iteration() {
    let t = Thresholds::default();
    let relative = |base| t.noise_of(Unit::Count, base).relative;
    assert_eq!(relative(16.0), 0.01);
    assert_eq!(relative(0.5), 0.02);
    assert_eq!(relative(0.25), 0.04);
    assert_eq!(t.noise_of(Unit::Nanoseconds, 0.5), TIME);
    // Context switches from 1 to 4 per million iterations: +300 %
    // and significant, but three millionths of an event.
    let rare = within(1.5, 4.5);
    assert_eq!(
        verdict(&rare, t.noise_of(Unit::Count, 1e-6), 0.05),
        Verdict::WithinNoise
    );
    // Half a page fault more per iteration, from half a fault.
    let real = within(0.8, 1.2);
    assert_eq!(
        verdict(&real, t.noise_of(Unit::Count, 0.5), 0.05),
        Verdict::Regressed
    );
    // From none: significant, but a millionth of an event is noise
    // where half an event is not.
    let from_zero = |difference| Change {
        relative: None,
        difference,
        ci: None,
        p_value: 0.01,
        runs: 1,
    };
    let zero = t.noise_of(Unit::Count, 0.0);
    assert_eq!(verdict(&from_zero(1e-6), zero, 0.05), Verdict::WithinNoise);
    assert_eq!(verdict(&from_zero(0.5), zero, 0.05), Verdict::Regressed);
    assert_eq!(
        verdict(&from_zero(0.5), zero, 0.001),
        Verdict::NoChange,
        "not significant"
    );
}

#[test]
fn verdict_interval_and_p_value_agree_on_constructed_runs() {
    // Baselines and new runs of five rounds, shifted by -40 % to +40 %
    // and spread by 0 to 20 %: whatever the verdict, the interval
    // shown and the p-value say the same.
    let run = |point: f64, spread: f64| RoundEstimates {
        point,
        rounds: [-1.0, -0.5, 0.0, 0.5, 1.0]
            .iter()
            .map(|k| point * (1.0 + k * spread))
            .collect(),
    };
    let mut seen = std::collections::BTreeSet::new();
    for shift in -40..=40 {
        for spread in [0.0, 0.005, 0.02, 0.05, 0.1, 0.2] {
            let c = compare(
                &run(1000.0, spread),
                &run(1000.0 + 10.0 * shift as f64, spread),
                stats::BetweenRuns::NONE,
                0.95,
            );
            let v = verdict(&c, TIME, 0.05);
            let ci = c.ci.unwrap();
            let r = c.relative.unwrap();
            assert!(ci.low <= r && r <= ci.high, "{c:?}");
            assert_eq!(v == Verdict::NoChange, c.p_value >= 0.05, "{c:?}: {v:?}");
            match v {
                Verdict::Regressed => assert!(ci.low > 0.03 || (spread == 0.0 && r > 0.0)),
                Verdict::Improved => assert!(ci.high < -0.03 || (spread == 0.0 && r < 0.0)),
                Verdict::WithinNoise => assert!(ci.low > 0.0 || ci.high < 0.0),
                Verdict::NoChange => assert!(ci.low <= 0.0 && ci.high >= 0.0),
            }
            seen.insert(v.as_str());
        }
    }
    assert_eq!(seen.len(), 4, "every verdict was reached: {seen:?}");
}

#[test]
fn the_regression_gate_honours_its_limit() {
    let c = |r: Option<f64>, verdict| MetricChange {
        name: "m".into(),
        change: change(r, 0.0),
        verdict,
    };
    assert!(fails(&c(Some(0.0625), Verdict::Regressed), None));
    assert!(fails(&c(Some(0.0625), Verdict::Regressed), Some(0.05)));
    assert!(!fails(&c(Some(0.0625), Verdict::Regressed), Some(0.10)));
    assert!(!fails(&c(Some(-0.5), Verdict::Improved), None));
    assert!(fails(&c(None, Verdict::Regressed), Some(0.10)));
}

/// A recording of `samples` samples in two rounds (one with fewer than
/// two samples).
fn recording(events: &str, samples: u64) -> Recording {
    use crate::counter::group::Counts;
    use crate::measure::{Measurement, Sample};
    let events = crate::counter::event::parse_list(events).unwrap();
    let m = Measurement {
        samples: (1..=samples)
            .map(|i| Sample {
                iterations: i,
                wall_ns: 10 * i,
                counts: Counts {
                    time_enabled: 1,
                    time_running: 1,
                    values: vec![2 * i; events.len()],
                },
            })
            .collect(),
        throughput: None,
    };
    let mut r = Recording::new(
        "x",
        &events,
        &m,
        crate::measure::environment::Environment::default(),
    );
    r.rounds = (0..samples as u32)
        .map(|i| 2 * i / samples as u32)
        .collect();
    r.settings = Some(crate::measure::Config::default().key());
    r
}

/// `r` measured on a hybrid Intel CPU, on the core type `kind`.
fn on_core(r: &Recording, kind: Option<&str>) -> Recording {
    let mut r = r.clone();
    r.environment.pmus = vec!["cpu_atom".into(), "cpu_core".into(), "software".into()];
    r.environment.core_type = kind.map(String::from);
    r
}

#[test]
fn runs_on_other_kinds_of_core_are_not_judged() {
    let batch = recording("page-faults", 10);
    let (p, e) = (
        on_core(&batch, Some("cpu_core")),
        on_core(&batch, Some("cpu_atom")),
    );
    assert_eq!(unfair(&p, &p), None);
    assert_eq!(
        unfair(&p, &e).unwrap(),
        "measured on cpu_core cores, this run on cpu_atom cores \
         (a hybrid CPU's kinds of core differ in speed)"
    );
    // A hybrid run of unknown kind: stored before the kind was
    // recorded, or --no-pin.
    let unknown = on_core(&batch, None);
    assert_eq!(
        unfair(&unknown, &p).unwrap(),
        "measured on a core of unknown type, this run on cpu_core cores \
         (a hybrid CPU's kinds of core differ in speed)"
    );
    assert!(unfair(&unknown, &unknown).is_some());
    // One kind of core on both sides: nothing to tell apart.
    assert_eq!(unfair(&batch, &batch), None);
}

#[test]
fn unfair_comparisons_are_refused_with_the_reason() {
    let batch = recording("page-faults", 10);
    assert_eq!(unfair(&batch, &batch), None);
    let mut per_iter = batch.clone();
    per_iter.read_path = Some(crate::counter::group::ReadPath::Syscall);
    let why = unfair(&batch, &per_iter).unwrap();
    assert_eq!(
        why,
        "measured in batch mode, this run in per-iteration mode"
    );
    let mut rdpmc = per_iter.clone();
    rdpmc.read_path = Some(crate::counter::group::ReadPath::Rdpmc);
    assert_eq!(unfair(&per_iter, &per_iter), None);
    assert_eq!(
        unfair(&rdpmc, &per_iter).unwrap(),
        "counters read through rdpmc, this run through read()"
    );
    // One id, another thread count: a `threads=4` argument of `args`
    // gives the id a count of `threads` gives.
    let mut threaded = batch.clone();
    threaded.threads = 4;
    let why = unfair(&batch, &threaded).unwrap();
    assert_eq!(why, "measured on 1 thread, this run on 4 threads");
    let why = unfair(&recording("page-faults,task-clock", 10), &batch).unwrap();
    assert!(why.starts_with("measured with other events"), "{why}");
    let mut user_only = batch.clone();
    user_only.series[1].user_only = Some(true);
    user_only.series[1].name = "page-faults:u".into();
    assert_eq!(batch.series[1].user_only, Some(false));
    let why = unfair(&batch, &user_only).unwrap();
    assert_eq!(
        why,
        "`page-faults` counted with the kernel, this run `page-faults:u` in user space only"
    );
    let why = unfair(&user_only, &batch).unwrap();
    assert_eq!(
        why,
        "`page-faults:u` counted in user space only, this run `page-faults` with the kernel"
    );
    // Paired by event: a run without task-clock (per-iteration mode leaves
    // it out) is one with other events, not another privilege.
    let with_clock = recording("task-clock,page-faults", 10);
    let without = recording("page-faults", 10);
    assert_ne!(with_clock.series[1].user_only, without.series[1].user_only);
    let why = unfair(&with_clock, &without).unwrap();
    assert!(why.starts_with("measured with other events"), "{why}");
    let mut unknown = batch.clone();
    unknown.series[1].user_only = None;
    // Stored before the level was recorded: judged as the names allow.
    let mut user_only_then = user_only.clone();
    user_only_then.series[1].name = "page-faults".into();
    assert_eq!(
        unfair(&unknown, &user_only_then),
        None,
        "stored before it was recorded"
    );
    let why = unfair(&unknown, &user_only).unwrap();
    assert!(why.starts_with("measured with other events"), "{why}");
    let why = unfair(&batch, &recording("page-faults", 1)).unwrap();
    assert!(why.starts_with("1 sample on one side"), "{why}");
    let mut one_round = batch.clone();
    one_round.rounds = vec![0; 10];
    let why = unfair(&one_round, &batch).unwrap();
    assert_eq!(
        why,
        "1 round on one side; a change needs at least 2 to be judged"
    );
    // Refused: no change is judged, so the gate cannot fail on it.
    let c = Comparison::of(
        &Target::PreviousRun,
        Some(&batch),
        &per_iter,
        &Thresholds::default(),
    );
    assert_eq!(c.changes, Some(Vec::new()));
    assert!(c.unfair.is_some());
    let c = Comparison::of(
        &Target::PreviousRun,
        Some(&batch),
        &batch,
        &Thresholds::default(),
    );
    assert_eq!(
        c.changes.map(|c| c.len()),
        Some(2),
        "wall time and page faults"
    );
}

#[test]
fn stored_runs_keep_earlier_headlines_until_the_code_changes() {
    let t = Thresholds::default();
    let stored = recording("page-faults", 10);
    let mut new = stored.clone();
    carry_earlier(Some(&stored), &mut new, &t);
    assert_eq!(new.series[0].earlier, [10.0], "wall time, 10 ns a time");
    assert_eq!(new.series[1].earlier, [2.0], "two faults a time");
    // The oldest goes once there are as many as are kept.
    let mut full = stored.clone();
    full.series[0].earlier = vec![10.0; 9];
    full.series[1].earlier = (1..=9).map(|k| 2.0 + f64::from(k) / 1e9).collect();
    carry_earlier(Some(&full), &mut new, &t);
    assert_eq!(new.series[0].earlier, [10.0; 9]);
    assert_eq!(new.series[1].earlier[..8], full.series[1].earlier[1..]);
    assert_eq!(new.series[1].earlier[8], 2.0);
    // Three faults a time instead of two: other code, start again.
    let mut changed = stored.clone();
    changed.series[1]
        .totals
        .iter_mut()
        .for_each(|t| *t = *t * 3 / 2);
    carry_earlier(Some(&full), &mut changed, &t);
    assert!(changed.series.iter().all(|s| s.earlier.is_empty()));
    // Twice the time, which runs that agree this closely cannot explain.
    let mut slower = stored.clone();
    slower.series[0].totals.iter_mut().for_each(|t| *t *= 2);
    carry_earlier(Some(&full), &mut slower, &t);
    assert!(slower.series.iter().all(|s| s.earlier.is_empty()));
    // Runs 6 to 14 ns a time: 12 ns is one more of them.
    let mut spread = full.clone();
    spread.series[0].earlier = vec![6.0, 14.0, 8.0, 12.0];
    let mut within = stored.clone();
    within.series[0]
        .totals
        .iter_mut()
        .for_each(|t| *t = *t * 12 / 10);
    carry_earlier(Some(&spread), &mut within, &t);
    assert_eq!(within.series[0].earlier, [6.0, 14.0, 8.0, 12.0, 10.0]);
    // Measured another way: start again.
    let mut per_iter = stored.clone();
    per_iter.read_path = Some(crate::counter::group::ReadPath::Syscall);
    carry_earlier(Some(&full), &mut per_iter, &t);
    assert!(per_iter.series.iter().all(|s| s.earlier.is_empty()));
    // Measured with other settings (a `--quick` try-out), or stored before
    // settings were recorded: start again.
    let quick = crate::measure::Config {
        sample_count: 10,
        rounds: 2,
        ..Default::default()
    };
    let mut other = stored.clone();
    other.settings = Some(quick.key());
    carry_earlier(Some(&full), &mut other, &t);
    assert!(other.series.iter().all(|s| s.earlier.is_empty()));
    let mut unknown = full.clone();
    unknown.settings = None;
    let mut after_unknown = stored.clone();
    carry_earlier(Some(&unknown), &mut after_unknown, &t);
    assert!(after_unknown.series.iter().all(|s| s.earlier.is_empty()));
}
