//! From a recording's samples to per-iteration figures per metric: the one
//! analysis every output is fed, and the comparison with a stored run.

pub mod comparison;
pub mod derived;
pub mod fit;
pub mod notes;
pub mod overhead;
pub mod recording;
pub mod standings;

use crate::counter::event::{Scale, Unit};
use crate::counter::group::ReadPath;
use crate::measure::{Method, Throughput};
use crate::stats::{
    analyze_metric, linear_fit, rate, theil_sen, Bootstrap, Estimate, RoundEstimates, Statistics,
};

pub use fit::{Fit, PoorFit};
pub use overhead::{Calibration, Overhead};
pub use recording::{metric_names, Recording, Series, WALL_TIME};

/// One metric of one benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    /// The event as the user wrote it, or [`WALL_TIME`].
    pub name: String,
    /// The unit of the values.
    pub unit: Unit,
    /// Per-iteration figures with their confidence intervals.
    pub stats: Statistics,
    /// The PMU's `.scale` and `.unit` for the event, applied where the
    /// figures are shown; the statistics stay in raw counts.
    pub scale: Option<Scale>,
    /// Whether the least-squares line fits the samples, which decides the
    /// headline.
    pub fit: Fit,
    /// The headline's estimator over all samples and in each round, in raw
    /// counts: where there are two rounds or more, the headline's interval
    /// is theirs, and comparisons are made from them.
    pub rounds: RoundEstimates,
}

impl Metric {
    /// The headline per-iteration estimate every output shows and compares:
    /// the least-squares slope, the Theil–Sen slope where the line fits
    /// poorly, or the rate of a rare count ([`Fit`]). Its interval comes
    /// from the spread of the rounds where there are two or more, so that
    /// it covers the run-to-run drift of the machine; else from the
    /// samples. A count's is never below 0 ([`never_negative`]).
    pub fn estimate(&self) -> &Estimate {
        match &self.fit {
            Fit::Good => &self.stats.slope,
            Fit::Poor { robust, .. } => robust,
            Fit::Rare { rate } => rate,
        }
    }

    /// The name of the headline's estimator, as outputs label it.
    pub fn estimator(&self) -> &'static str {
        match self.fit {
            Fit::Good => "slope",
            Fit::Poor { .. } => "Theil-Sen slope",
            Fit::Rare { .. } => "rate",
        }
    }
}

/// The analysed result of one benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// The benchmark's id.
    pub id: String,
    /// Number of samples.
    pub samples: usize,
    /// Iterations over all samples.
    pub iterations: u64,
    /// Wall time first, then one metric per event in the order given.
    pub metrics: Vec<Metric>,
    /// Ratios of metrics where their inputs were measured: `IPC`,
    /// `branch-miss rate`, `cache-miss rate`, and each metric per byte or per
    /// element (`wall-time/byte`) where the benchmark declared a throughput;
    /// of the headlines as shown, so less the cost of measuring where
    /// `--subtract-overhead` took it off.
    pub derived: Vec<(String, f64)>,
    /// Samples in which the kernel multiplexed the group (`time_running <
    /// time_enabled`); their counts are not scaled.
    pub multiplexed_samples: usize,
    /// In per-iteration mode, iterations the kernel disturbed and that were
    /// left out ([`Recording::left_out`]).
    pub left_out: usize,
    /// Wall time (times the threads) over task-clock where the threads were
    /// clearly off the CPU ([`notes::off_cpu_ratio`]).
    pub off_cpu_ratio: Option<f64>,
    /// The throughput the benchmark declared.
    pub throughput: Option<Throughput>,
    /// Its group, name and argument there, where it has a group.
    pub membership: Option<standings::Membership>,
    /// In per-iteration mode, how the counters were read around each
    /// iteration; `None` in batch mode.
    pub read_path: Option<ReadPath>,
    /// The events measured together, one pass per group, where they did not
    /// fit one group; empty otherwise.
    pub groups: Vec<Vec<String>>,
    /// The measurement's own cost per iteration and the raw estimate, per
    /// metric; with `--subtract-overhead` it was taken off `metrics`.
    pub overhead: Vec<Overhead>,
    /// The threads the routine ran on at once ([`Recording::threads`]).
    pub threads: usize,
    /// The `Bencher` method that measured it ([`Recording::method`]).
    pub method: Method,
}

/// One benchmark's run, analysed and compared: what every output is fed.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysed {
    /// The samples as measured.
    pub recording: Recording,
    /// The figures.
    pub result: BenchResult,
    /// The change against the stored run, where there was one to read.
    pub comparison: Option<comparison::Comparison>,
    /// The stored run it was compared with, where it holds this benchmark.
    pub baseline: Option<Recording>,
}

/// Analyses `recording`, with the measurement's own cost recorded (and
/// taken off where `calibration` says so).
pub fn analyze(recording: &Recording, calibration: &Calibration) -> BenchResult {
    let metrics = metrics_of(recording);
    let off_cpu_ratio = notes::off_cpu_ratio(&metrics, recording.threads);
    let mut result = BenchResult {
        id: recording.id.clone(),
        samples: recording.iterations.len(),
        // Saturating: a stored file's counts are not to overflow it.
        iterations: recording
            .iterations
            .iter()
            .fold(0, |all, &n| all.saturating_add(n)),
        derived: Vec::new(),
        metrics,
        multiplexed_samples: recording.multiplexed_samples,
        left_out: recording.left_out,
        off_cpu_ratio,
        throughput: recording.throughput,
        membership: recording.membership.clone(),
        read_path: recording.read_path,
        groups: recording.groups.clone(),
        overhead: Vec::new(),
        threads: recording.threads,
        method: recording.method,
    };
    overhead::apply(&mut result, calibration);
    for m in &mut result.metrics {
        never_negative(m);
    }
    // Ratios of the figures shown, less the cost of measuring where it was
    // taken off: IPC of the routine, not of the routine and the loop.
    result.derived = derived::derived(recording, &result.metrics);
    result
}

/// The statistics of every series, in the recording's order.
fn metrics_of(recording: &Recording) -> Vec<Metric> {
    let bootstrap = Bootstrap::default();
    recording
        .series
        .iter()
        .map(|s| metric(recording, s, &bootstrap))
        .collect()
}

/// The statistics of one series of `recording`, with the headline's
/// interval taken from the rounds where there are two or more.
pub fn metric(recording: &Recording, series: &Series, bootstrap: &Bootstrap) -> Metric {
    let (x, y) = (&recording.iterations, &series.totals);
    let confidence = bootstrap.confidence;
    let mut stats = analyze_metric(x, y, bootstrap);
    let mut fit = fit::assess(series.unit, (x, y), &stats, confidence);
    let rounds = RoundEstimates::of(x, y, &recording.rounds, |x, y| match fit {
        Fit::Good => linear_fit(x, y).0,
        // Where a round has too few samples for Theil–Sen, its
        // least-squares slope.
        Fit::Poor { .. } => {
            theil_sen(x, y, confidence).map_or_else(|| linear_fit(x, y).0, |e| e.point)
        }
        Fit::Rare { .. } => rate(x, y, confidence).point,
    });
    if let Some(across) = rounds.estimate(&series.earlier, confidence) {
        match &mut fit {
            Fit::Good => stats.slope = across,
            Fit::Poor { robust, .. } => *robust = across,
            // The Poisson interval holds where the events come one by one
            // at random; the rounds' spread where they come in bursts (a
            // busy machine), though it says nothing where few rounds saw
            // any. The interval takes in both.
            Fit::Rare { rate } => rate.ci = rate.ci.hull(across.ci),
        }
    }
    Metric {
        name: series.name.clone(),
        unit: series.unit,
        stats,
        scale: series.scale().cloned(),
        fit,
        rounds,
    }
}

/// Keeps a count's figures per iteration at 0 or above: a count is never
/// negative, so a point below 0 is nearer the truth at 0, and an interval
/// that held the truth still holds it cut at 0. Only a slope (of counts
/// that barely grow with the iterations) or the cost of measuring taken
/// off can take them below; rare counts have an estimator that cannot
/// ([`Fit::Rare`]). Times are left as they are: their cost taken off may
/// honestly show that nothing is left to measure.
fn never_negative(m: &mut Metric) {
    if m.unit != Unit::Count {
        return;
    }
    let s = &mut m.stats;
    for e in [&mut s.slope, &mut s.mean, &mut s.median] {
        *e = e.at_least(0.0);
    }
    if let Some(own) = m.fit.own_headline_mut() {
        *own = own.at_least(0.0);
    }
    for v in [
        &mut s.min,
        &mut s.max,
        &mut s.quartiles.0,
        &mut s.quartiles.1,
    ] {
        *v = v.max(0.0);
    }
}

/// A derived metric by name.
pub fn derived_value(result: &BenchResult, name: &str) -> Option<f64> {
    result
        .derived
        .iter()
        .find(|(n, _)| n == name)
        .map(|&(_, v)| v)
}

/// Results made by hand, for the tests of the outputs.
#[cfg(test)]
pub(crate) mod test_support {
    use super::{BenchResult, Metric};
    use crate::counter::event::Unit;
    use crate::stats::{analyze_metric, Bootstrap, RoundEstimates};

    /// A result of 10 samples whose metrics `(name, unit, v)` lie on an
    /// exact line through the origin: every figure of a metric is its `v`.
    pub(crate) fn exact_result(id: &str, metrics: &[(&str, Unit, f64)]) -> BenchResult {
        BenchResult {
            id: id.into(),
            samples: 10,
            iterations: 550,
            metrics: metrics
                .iter()
                .map(|&(n, unit, v)| Metric {
                    name: n.into(),
                    unit,
                    scale: None,
                    fit: super::Fit::Good,
                    rounds: RoundEstimates {
                        point: v,
                        rounds: Vec::new(),
                    },
                    stats: analyze_metric(
                        &[2, 4, 6],
                        &[(2.0 * v) as u64, (4.0 * v) as u64, (6.0 * v) as u64],
                        &Bootstrap::default(),
                    ),
                })
                .collect(),
            derived: Vec::new(),
            multiplexed_samples: 0,
            left_out: 0,
            off_cpu_ratio: None,
            throughput: None,
            membership: None,
            read_path: None,
            groups: Vec::new(),
            overhead: Vec::new(),
            threads: 1,
            method: crate::measure::Method::Iter,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::event::{parse_list, Event};
    use crate::counter::group::Counts;
    use crate::measure::environment::Environment;
    use crate::measure::{Measurement, Sample};
    use crate::stats::{linear_fit, Interval};

    fn analyze_m(id: &str, events: &[Event], m: &Measurement) -> BenchResult {
        let recording = Recording::new(id, events, m, Environment::default());
        analyze(&recording, &Calibration::default())
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
        let names: Vec<_> = r.metrics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["wall-time", "instructions", "cycles"]);
        assert_eq!(r.metrics[1].stats.slope.point, 30.0);
        assert_eq!(derived_value(&r, "IPC"), Some(1.5));
        assert_eq!(r.iterations, 3);
        assert_eq!(r.multiplexed_samples, 0);
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
        for (with, alone) in r.metrics.iter().zip(&others.metrics) {
            assert_eq!(with, alone, "{}", with.name);
        }
        assert_eq!((r.samples, r.left_out, r.multiplexed_samples), (16, 4, 0));
        assert_eq!(r.iterations, 210 - (5 + 10 + 15 + 20));
        assert_eq!(
            notes::notes(&r),
            ["the kernel multiplexed the counters during 4 of 20 samples; they are left out"]
        );
        assert_eq!(notes::multiplexed_warning(&r), None);
    }

    #[test]
    fn every_sample_multiplexed_is_kept_unscaled_and_warned_of() {
        let events = parse_list("instructions").unwrap();
        // On the PMU half the time: the counts are what the group counted,
        // not doubled.
        let m = noisy(|_| 50);
        let r = analyze_m("spin", &events, &m);
        assert_eq!((r.samples, r.left_out, r.multiplexed_samples), (20, 0, 20));
        let x: Vec<u64> = (1..=20).collect();
        let y: Vec<u64> = m.samples.iter().map(|s| s.counts.values[0]).collect();
        assert_eq!(r.metrics[1].estimate().point, linear_fit(&x, &y).0);
        assert_eq!(
            notes::notes(&r),
            ["the kernel multiplexed the counters in 20 of 20 samples; counts are not scaled"]
        );
        let warning = notes::multiplexed_warning(&r).expect("a warning");
        assert!(
            warning.starts_with(
                "spin: the kernel multiplexed the counters in every sample (20 samples)"
            ) && warning.contains("`--events` naming fewer"),
            "{warning}"
        );
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
        assert_eq!(derived_value(&r, "branch-miss rate"), Some(0.05));
        assert_eq!(derived_value(&r, "cache-miss rate"), Some(0.1));
        assert_eq!(derived_value(&r, "IPC"), None);
        assert_eq!(derived_value(&r, "wall-time/byte"), Some(5.0));
        assert_eq!(derived_value(&r, "branches/byte"), Some(25.0));
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
        assert_eq!(derived::rate(&r), None, "no throughput declared");
        r.throughput = Some(Throughput::Bytes(4096));
        r.metrics[0].stats.slope.ci = Interval {
            low: 320.0,
            high: 512.0,
        };
        let rate = derived::rate(&r).unwrap();
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
        r.metrics[0].stats.slope.ci.low = -5.0;
        let high = derived::rate(&r).unwrap().per_second.ci.high;
        assert_eq!(high, f64::INFINITY);
        r.metrics[0].stats.slope.point = 0.0;
        assert_eq!(derived::rate(&r), None);
        r.metrics[0].stats.slope.point = 400.0;
        r.throughput = Some(Throughput::Elements(0));
        assert_eq!(derived::rate(&r), None, "no work declared");
    }

    #[test]
    fn no_ipc_without_both_events_or_across_privilege_levels() {
        let m = Measurement {
            samples: vec![sample(1, 10, vec![30, 20], 100)],
            throughput: None,
        };
        let r = analyze_m("x", &parse_list("instructions:u,cycles:uk").unwrap(), &m);
        assert_eq!(derived_value(&r, "IPC"), None);
        let r = analyze_m("x", &parse_list("instructions,branches").unwrap(), &m);
        assert!(r.derived.is_empty());
    }
}
