//! The analysis's tests: recordings of known counts analysed into headlines
//! and intervals, multiplexed samples, rare counts, counts cut at zero, and
//! derived figures.

use super::*;
use crate::counter::event::{parse_list, Event};
use crate::counter::group::Counts;
use crate::measure::environment::Environment;
use crate::measure::{Measurement, Sample, Throughput};
use crate::stats::{linear_fit, Interval};

fn analyze_m(id: &str, events: &[Event], m: &Measurement) -> Analysed {
    let recording = Recording::new(id, events, m, Environment::default());
    Analysed::of(recording, &Calibration::default())
}

fn sample(iterations: u64, wall_ns: u64, values: Vec<u64>, running: u64) -> Sample {
    Sample {
        iterations,
        wall_ns,
        counts: Counts {
            time_enabled: 100,
            time_running: running,
            values,
        },
    }
}

#[test]
fn metrics_follow_the_events_and_ipc_divides_instructions_by_cycles() {
    let events = parse_list("instructions,cycles").unwrap();
    let m = Measurement {
        samples: vec![
            sample(1, 10, vec![30, 20], 100),
            sample(2, 20, vec![60, 40], 100),
        ],
        throughput: None,
    };
    let r = analyze_m("x", &events, &m);
    let names: Vec<_> = r.result.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["wall-time", "instructions", "cycles"]);
    assert_eq!(r.result.metrics[1].stats.slope.point, 30.0);
    assert_eq!(derived_value(&r.result, "IPC"), Some(1.5));
    assert_eq!(r.recording.total_iterations(), 3);
    assert_eq!(r.recording.multiplexed_samples, 0);
}

/// 20 linear samples of 1..=20 iterations, 7 instructions and
/// 110 ns per iteration plus 50 per sample and a little noise, the
/// group on the PMU for `running(i)` of 100 ns in sample `i`.
fn noisy(running: impl Fn(u64) -> u64) -> Measurement {
    let samples = (1..=20)
        .map(|i| {
            let noise = (i * 37) % 11;
            sample(i, 110 * i + 50 + noise, vec![7 * i + noise], running(i))
        })
        .collect();
    Measurement {
        samples,
        throughput: None,
    }
}

/// `m` without the samples `drop` names.
fn without(m: &Measurement, drop: impl Fn(u64) -> bool) -> Measurement {
    let samples = m.samples.iter().filter(|s| !drop(s.iterations));
    Measurement {
        samples: samples.cloned().collect(),
        throughput: None,
    }
}

#[test]
fn multiplexed_samples_are_left_out_of_the_fit_and_counted() {
    let events = parse_list("instructions").unwrap();
    // Every fifth sample ran a third of its time, and counted a third.
    let mut m = noisy(|i| if i % 5 == 0 { 33 } else { 100 });
    for s in m.samples.iter_mut().filter(|s| s.iterations % 5 == 0) {
        s.counts.values[0] /= 3;
    }
    let r = analyze_m("x", &events, &m);
    let others = analyze_m("x", &events, &without(&m, |i| i % 5 == 0));
    for (with, alone) in r.result.metrics.iter().zip(&others.result.metrics) {
        assert_eq!(with, alone, "{}", with.name);
    }
    assert_eq!(
        (
            r.recording.samples(),
            r.recording.left_out,
            r.recording.multiplexed_samples
        ),
        (16, 4, 0)
    );
    assert_eq!(r.recording.total_iterations(), 210 - (5 + 10 + 15 + 20));
    assert_eq!(
        notes::notes(r.view()),
        ["the kernel multiplexed the counters during 4 of 20 samples; they are left out"]
    );
    assert_eq!(notes::multiplexed_warning(&r.recording), None);
}

#[test]
fn every_sample_multiplexed_is_kept_unscaled_and_warned_of() {
    let events = parse_list("instructions").unwrap();
    // On the PMU half the time: the counts are what the group counted,
    // not doubled.
    let m = noisy(|_| 50);
    let r = analyze_m("spin", &events, &m);
    assert_eq!(
        (
            r.recording.samples(),
            r.recording.left_out,
            r.recording.multiplexed_samples
        ),
        (20, 0, 20)
    );
    let x: Vec<u64> = (1..=20).collect();
    let y: Vec<u64> = m.samples.iter().map(|s| s.counts.values[0]).collect();
    assert_eq!(r.result.metrics[1].estimate().point, linear_fit(&x, &y).0);
    assert_eq!(
        notes::notes(r.view()),
        ["the kernel multiplexed the counters in 20 of 20 samples; counts are not scaled"]
    );
    let warning = notes::multiplexed_warning(&r.recording).expect("a warning");
    assert!(
        warning
            .starts_with("spin: the kernel multiplexed the counters in every sample (20 samples)")
            && warning.contains("`--events` naming fewer"),
        "{warning}"
    );
}

#[test]
fn samples_without_iterations_or_a_count_are_left_out_not_panicked_on() {
    let events = parse_list("instructions,cycles").unwrap();
    let m = Measurement {
        samples: vec![
            sample(2, 20, vec![200, 400], 100),
            sample(0, 5, vec![1, 2], 100),
            sample(3, 30, vec![300], 100),
            sample(4, 40, vec![400, 800], 100),
        ],
        throughput: None,
    };
    let r = Recording::new("x", &events, &m, Environment::default());
    assert_eq!(r.iterations, [2, 4]);
    assert_eq!(r.series[2].totals, [400, 800]);
    // Nothing the statistics cannot take is left.
    analyze(&r, &Calibration::default());
}

#[test]
fn a_round_multiplexed_throughout_is_left_out_beside_clean_ones() {
    let events = parse_list("instructions").unwrap();
    let record = |m: &Measurement| Recording::new("x", &events, m, Environment::default());
    let clean = noisy(|_| 100);
    for first in [true, false] {
        let (mut a, b) = (record(&noisy(|_| 10)), record(&clean));
        let mut r = if first {
            a.append_round(b);
            a
        } else {
            let mut b = b;
            b.append_round(a);
            b
        };
        assert_eq!((r.left_out, r.multiplexed_samples), (20, 0));
        assert_eq!(r.iterations.len(), 20);
        let alone = analyze(&record(&clean), &Calibration::default());
        r.rounds = vec![0; 20];
        let with = analyze(&r, &Calibration::default());
        assert_eq!(with.metrics, alone.metrics);
    }
    // Multiplexed throughout in both: all kept and counted.
    let mut a = record(&noisy(|_| 10));
    a.append_round(record(&noisy(|_| 10)));
    assert_eq!(
        (a.left_out, a.multiplexed_samples, a.round_count()),
        (0, 40, 2)
    );
}

/// A recording of `events` in `rounds` rounds of the same samples.
fn in_rounds(events: &[Event], m: &Measurement, rounds: u32) -> Recording {
    let mut r = Recording::new("x", events, m, Environment::default());
    for _ in 1..rounds {
        r.append_round(Recording::new("x", events, m, Environment::default()));
    }
    r
}

#[test]
fn a_rare_count_headlines_its_rate_never_below_zero() {
    let events = parse_list("context-switches").unwrap();
    // 3 context switches in 1.1 10^6 iterations, in early samples of two
    // of ten rounds: their slope is negative.
    let m = Measurement {
        samples: (1..=10)
            .map(|i| sample(i * 2000, 9 * i, vec![0], 100))
            .collect(),
        throughput: None,
    };
    let mut r = in_rounds(&events, &m, 10);
    let total: u64 = r.iterations.iter().sum();
    r.series[1].totals[0] = 2;
    r.series[1].totals[41] = 1;
    let result = analyze(&r, &Calibration::default());
    let cs = &result.metrics[1];
    assert!(matches!(cs.fit, Fit::Rare { .. }), "{:?}", cs.fit);
    assert_eq!(cs.estimator(), "rate");
    let e = cs.estimate();
    assert_eq!(e.point, 3.0 / total as f64);
    assert!(
        0.0 <= e.ci.low && e.ci.low < e.point && e.point < e.ci.high,
        "{e:?}"
    );
    assert!(cs.stats.slope.point >= 0.0 && cs.stats.slope.ci.low >= 0.0);
    assert_eq!(cs.rounds.rounds.len(), 10);
}

#[test]
fn a_steady_count_stays_exact() {
    let events = parse_list("page-faults").unwrap();
    let m = Measurement {
        samples: (1..=10).map(|i| sample(i, 40 * i, vec![i], 100)).collect(),
        throughput: None,
    };
    for rounds in [1, 3] {
        let r = analyze(&in_rounds(&events, &m, rounds), &Calibration::default());
        assert_eq!(r.metrics[1].fit, Fit::Good);
        assert_eq!(*r.metrics[1].estimate(), Estimate::exact(1.0));
    }
    // Never counted: exactly none.
    let zero = without(&m, |_| false);
    let mut r = in_rounds(&events, &zero, 3);
    r.series[1].totals.iter_mut().for_each(|t| *t = 0);
    let r = analyze(&r, &Calibration::default());
    assert_eq!(*r.metrics[1].estimate(), Estimate::exact(0.0));
}

#[test]
fn counts_are_cut_at_zero_and_times_are_not() {
    // A count that does not grow with the iterations: its headline is
    // below zero, its interval reaching either side.
    let events = parse_list("page-faults").unwrap();
    let m = Measurement {
        samples: (1..=10)
            .map(|i| sample(i, 40 * i, vec![8 - i % 4 - i / 5], 100))
            .collect(),
        throughput: None,
    };
    let recording = Recording::new("x", &events, &m, Environment::default());
    let unclamped = metric(&recording, &recording.series[1], &Bootstrap::default());
    let raw = *unclamped.estimate();
    assert!(
        raw.point < 0.0 && raw.ci.low < 0.0 && raw.ci.high > 0.0,
        "{raw:?}"
    );
    let r = analyze(&recording, &Calibration::default());
    let faults = r.metrics[1].estimate();
    assert_eq!((faults.point, faults.ci.low), (0.0, 0.0));
    assert_eq!(faults.ci.high, raw.ci.high);
    // The cost of measuring taken off a time may leave it below zero.
    let costs = [("wall-time", 50), ("page-faults", 3)];
    let r = analyze(&recording, &Calibration::exact(&costs, true));
    assert!(r.metrics[0].estimate().point < 0.0);
    let faults = &r.metrics[1];
    assert_eq!(faults.estimate().point, 0.0);
    assert_eq!(faults.estimate().ci.low, 0.0);
    let s = &faults.stats;
    assert!(
        s.min >= 0.0 && s.median.ci.low >= 0.0 && s.mean.point >= 0.0,
        "{s:?}"
    );
}

#[test]
fn miss_rates_and_per_byte_figures() {
    let events = parse_list("branches,branch-misses,cache-references,cache-misses").unwrap();
    let m = Measurement {
        samples: vec![
            sample(1, 40, vec![200, 10, 50, 5], 100),
            sample(2, 80, vec![400, 20, 100, 10], 100),
        ],
        throughput: Some(Throughput::Bytes(8)),
    };
    let r = analyze_m("x", &events, &m);
    assert_eq!(derived_value(&r.result, "branch-miss rate"), Some(0.05));
    assert_eq!(derived_value(&r.result, "cache-miss rate"), Some(0.1));
    assert_eq!(derived_value(&r.result, "IPC"), None);
    assert_eq!(derived_value(&r.result, "wall-time/byte"), Some(5.0));
    assert_eq!(derived_value(&r.result, "branches/byte"), Some(25.0));
}

#[test]
fn derived_figures_are_of_the_figures_shown_less_the_cost_of_measuring() {
    let events = parse_list("page-faults").unwrap();
    let m = Measurement {
        samples: (1..=3)
            .map(|i| sample(i, 40 * i, vec![17 * i], 100))
            .collect(),
        throughput: Some(Throughput::Elements(16)),
    };
    let recording = Recording::new("x", &events, &m, Environment::default());
    let costs = [("wall-time", 4), ("page-faults", 1)];
    let r = analyze(&recording, &Calibration::exact(&costs, true));
    assert_eq!(r.metrics[1].estimate().point, 16.0);
    assert_eq!(derived_value(&r, "page-faults/element"), Some(1.0));
    assert_eq!(derived_value(&r, "wall-time/element"), Some(36.0 / 16.0));
    let r = analyze(&recording, &Calibration::exact(&costs, false));
    assert_eq!(derived_value(&r, "page-faults/element"), Some(17.0 / 16.0));
}

#[test]
fn throughput_per_second_turns_wall_time_and_its_interval_over() {
    let mut r = test_support::exact_result(
        "x",
        &[
            ("wall-time", Unit::Nanoseconds, 400.0),
            ("page-faults", Unit::Count, 2.0),
        ],
    );
    assert_eq!(derived::rate(r.view()), None, "no throughput declared");
    r.recording.throughput = Some(Throughput::Bytes(4096));
    r.result.metrics[0].stats.slope.ci = Interval {
        low: 320.0,
        high: 512.0,
    };
    let rate = derived::rate(r.view()).unwrap();
    assert_eq!(rate.work, Throughput::Bytes(4096));
    let per_second = Estimate {
        point: 10.24e9,
        ci: Interval {
            low: 8e9,
            high: 12.8e9,
        },
    };
    assert_eq!(rate.per_second, per_second);
    // Taken to zero or below by the cost of measuring: no upper bound,
    // or no rate at all.
    r.result.metrics[0].stats.slope.ci.low = -5.0;
    let high = derived::rate(r.view()).unwrap().per_second.ci.high;
    assert_eq!(high, f64::INFINITY);
    r.result.metrics[0].stats.slope.point = 0.0;
    assert_eq!(derived::rate(r.view()), None);
    r.result.metrics[0].stats.slope.point = 400.0;
    r.recording.throughput = Some(Throughput::Elements(0));
    assert_eq!(derived::rate(r.view()), None, "no work declared");
}

#[test]
fn no_ipc_without_both_events_or_across_privilege_levels() {
    let m = Measurement {
        samples: vec![sample(1, 10, vec![30, 20], 100)],
        throughput: None,
    };
    let r = analyze_m("x", &parse_list("instructions:u,cycles:uk").unwrap(), &m);
    assert_eq!(derived_value(&r.result, "IPC"), None);
    let r = analyze_m("x", &parse_list("instructions,branches").unwrap(), &m);
    assert!(r.result.derived.is_empty());
}
