//! The measurement's own cost: calibrated on an empty routine, recorded
//! with every result, and subtracted where asked, like from like and with
//! its uncertainty.

use super::{BenchResult, Fit, Recording, WALL_TIME};
use crate::counter::event::Unit;
use crate::measure::Method;
use crate::stats::{median_of_sorted, Estimate, Interval, Statistics};

/// What `--subtract-overhead` took off one metric's headline.
#[derive(Clone, Debug, PartialEq)]
pub struct Overhead {
    /// The metric.
    pub metric: String,
    /// The calibrated cost per iteration that applies to the headline.
    pub per_iteration: f64,
    /// The headline before the subtraction.
    pub raw_estimate: f64,
}

/// The measurement's own cost, from an empty routine measured through one
/// `Bencher` method in the run's mode with the run's counter groups, and
/// whether to take it off the figures (`--subtract-overhead`) of the
/// benchmarks that method measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Calibration {
    /// The empty routine's statistics, per metric.
    pub empty: Vec<(String, Statistics)>,
    /// What measuring adds to every sample in batch mode (enabling,
    /// disabling and reading the group, reading the clock), per metric
    /// ([`per_sample`]). It is in the intercept of every benchmark's fit,
    /// never in its estimates. Empty in per-iteration mode.
    pub per_sample: Vec<(String, f64)>,
    /// Measured per iteration: the cost is one bracket of reads around
    /// each iteration. Otherwise in batches: one enable, disable and read
    /// per sample, and the loop around the routine per iteration.
    pub per_iter: bool,
    /// Whether to take the cost per iteration off every figure
    /// (`--subtract-overhead`); per-iteration mode takes it off the wall
    /// time regardless ([`Calibration::subtracts`]).
    pub subtract: bool,
    /// The method whose own code around the routine this measured.
    pub method: Method,
}

impl Calibration {
    /// What measuring adds to every iteration, per metric: in batch mode the
    /// loop around the routine (the empty routine's slope), in
    /// per-iteration mode the bracket of reads (its mean). This is what
    /// `--subtract-overhead` takes off the headline.
    pub fn per_iteration(&self) -> Vec<(&str, Estimate)> {
        self.empty
            .iter()
            .map(|(n, s)| (n.as_str(), self.costs(s).location))
            .collect()
    }

    /// Whether the cost of `metric` is taken off its figures: where asked,
    /// and always for the wall time in per-iteration mode. There an
    /// iteration's wall time holds the two timestamp reads around the
    /// routine (a few nanoseconds the same every time); a routine's time
    /// shown with them would vary with the clock, not the routine.
    pub fn subtracts(&self, metric: &str) -> bool {
        self.subtract || (self.per_iter && metric == WALL_TIME)
    }

    /// The costs to take off each kind of statistic, like from like.
    fn costs(&self, empty: &Statistics) -> Deductions {
        if self.per_iter {
            // Every sample is one iteration: the mean of the benchmark's
            // iterations less the mean bracket, its median less the median.
            Deductions {
                location: empty.mean,
                median: empty.median,
            }
        } else {
            // Per-iteration figures of batches all carry the loop's slope.
            Deductions {
                location: empty.slope,
                median: empty.slope,
            }
        }
    }
}

/// What to subtract from the mean-like statistics (slope, mean, robust
/// slope) and from the median-like ones (median, quantiles, extremes).
struct Deductions {
    location: Estimate,
    median: Estimate,
}

impl Deductions {
    /// The costs of `calls` loops at once, for a metric that adds up what
    /// each counts.
    fn times(self, calls: usize) -> Deductions {
        let k = calls as f64;
        let scale = |e: Estimate| Estimate {
            point: k * e.point,
            ci: Interval {
                low: k * e.ci.low,
                high: k * e.ci.high,
            },
        };
        Deductions {
            location: scale(self.location),
            median: scale(self.median),
        }
    }
}

/// The cost per sample of each metric in `short`, a batch recording of an
/// empty routine in small samples: the median over samples of each total
/// less its iterations' share at `empty`'s slope (the loop's cost).
pub fn per_sample(short: &Recording, empty: &[(String, Statistics)]) -> Vec<(String, f64)> {
    short
        .series
        .iter()
        .zip(empty)
        .map(|(series, (name, loop_cost))| {
            let mut fixed: Vec<f64> = series
                .totals
                .iter()
                .zip(&short.iterations)
                .map(|(&t, &i)| t as f64 - loop_cost.slope.point * i as f64)
                .collect();
            fixed.sort_unstable_by(f64::total_cmp);
            let cost = median_of_sorted(&fixed);
            // Whole events happen per sample; the fraction is the loop's
            // noise.
            let cost = match series.unit {
                Unit::Count => cost.round(),
                Unit::Nanoseconds => cost,
            };
            (name.clone(), cost)
        })
        .collect()
}

/// `x - c` with the widest interval the two intervals allow: a subtracted
/// cost's uncertainty widens the result, and nothing is clipped, so a
/// routine cheaper than the noise of measuring shows an interval around
/// zero rather than a false `[0, 0]`.
pub fn less(x: Estimate, c: Estimate) -> Estimate {
    Estimate {
        point: x.point - c.point,
        ci: Interval {
            low: x.ci.low - c.ci.high,
            high: x.ci.high - c.ci.low,
        },
    }
}

/// Records the calibrated cost with `result` so that outputs show it, and
/// where asked (and for the wall time in per-iteration mode:
/// [`Calibration::subtracts`]) takes it off every location statistic,
/// keeping the raw headline.
///
/// Calibration runs one thread. On several (`threads`, the recording's),
/// each runs the loop
/// around the routine: the counts, totals over the threads, carry its cost
/// once per thread, while the wall time carries it once, the threads
/// looping at the same time (where each has a CPU of its own).
pub(crate) fn apply(result: &mut BenchResult, calibration: &Calibration, threads: usize) {
    for m in &mut result.metrics {
        let Some((_, empty)) = calibration.empty.iter().find(|(n, _)| *n == m.name) else {
            continue;
        };
        // A method calibrated on the benchmark's threads counted them all.
        let loops = if m.name == WALL_TIME || calibration.method.threads() > 1 {
            1
        } else {
            threads
        };
        let costs = calibration.costs(empty).times(loops);
        // Like from like: a median headline less the empty routine's median.
        let headline_cost = match m.fit {
            Fit::Median { .. } => costs.median,
            _ => costs.location,
        };
        result.overhead.push(Overhead {
            metric: m.name.clone(),
            per_iteration: headline_cost.point,
            raw_estimate: m.estimate().point,
        });
        if !calibration.subtracts(&m.name) {
            continue;
        }
        let s = &mut m.stats;
        s.slope = less(s.slope, costs.location);
        s.mean = less(s.mean, costs.location);
        s.median = less(s.median, costs.median);
        if let Some(own) = m.fit.own_headline_mut() {
            *own = less(*own, headline_cost);
        }
        let shift = |v: f64| v - costs.median.point;
        s.min = shift(s.min);
        s.max = shift(s.max);
        s.quartiles = (shift(s.quartiles.0), shift(s.quartiles.1));
    }
}

#[cfg(test)]
impl Calibration {
    /// A batch-mode calibration whose empty routine costs exactly `cost`
    /// per iteration of each metric, and 5 per sample.
    pub(crate) fn exact(costs: &[(&str, u64)], subtract: bool) -> Calibration {
        use crate::stats::{analyze_metric, Bootstrap};
        let empty = costs
            .iter()
            .map(|&(n, c)| {
                let totals = [c + 5, 2 * c + 5, 3 * c + 5];
                let stats = analyze_metric(&[1, 2, 3], &totals, &Bootstrap::default());
                (n.to_string(), stats)
            })
            .collect();
        Calibration {
            per_sample: costs.iter().map(|&(n, _)| (n.to_string(), 5.0)).collect(),
            empty,
            per_iter: false,
            subtract,
            method: Method::Iter,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::{self, estimate};
    use crate::counter::event::Unit;
    use crate::stats::{analyze_metric, Bootstrap};

    /// The figures of [`test_support::exact_result`].
    fn exact_result(id: &str, metrics: &[(&str, Unit, f64)]) -> BenchResult {
        test_support::exact_result(id, metrics).result
    }

    #[test]
    fn subtracting_widens_by_the_cost_s_interval_and_clips_nothing() {
        let got = less(estimate(5.0, 4.0, 6.0), estimate(7.0, 6.5, 8.0));
        assert_eq!(got, estimate(-2.0, -4.0, -0.5));
        // Exact minus exact stays exact: a true zero-width interval.
        let got = less(estimate(3.0, 3.0, 3.0), estimate(3.0, 3.0, 3.0));
        assert_eq!(got, estimate(0.0, 0.0, 0.0));
    }

    #[test]
    fn batch_costs_are_the_empty_loop_s_slope_and_its_intercept_per_sample() {
        let c = Calibration::exact(&[("wall-time", 4), ("page-faults", 0)], true);
        let short = Recording::new(
            "(empty)",
            &crate::counter::event::parse_list("page-faults").unwrap(),
            &crate::measure::Measurement {
                samples: (1..=5u64)
                    .map(|i| crate::measure::Sample {
                        iterations: i,
                        wall_ns: 4 * i + 5 + (i + 1) % 2,
                        counts: crate::counter::group::Counts {
                            time_enabled: 1,
                            time_running: 1,
                            values: vec![5],
                        },
                    })
                    .collect(),
                throughput: None,
            },
            crate::measure::environment::Environment::default(),
        );
        // Totals less 4 ns per iteration: 5, 6, 5, 6, 5; median 5.
        assert_eq!(
            per_sample(&short, &c.empty),
            [
                ("wall-time".to_string(), 5.0),
                ("page-faults".to_string(), 5.0)
            ]
        );
        let per_iteration: Vec<(&str, f64)> = c
            .per_iteration()
            .iter()
            .map(|&(n, e)| (n, e.point))
            .collect();
        assert_eq!(per_iteration, [("wall-time", 4.0), ("page-faults", 0.0)]);
        let mut r = exact_result("x", &[("wall-time", Unit::Nanoseconds, 10.0)]);
        apply(&mut r, &c, 1);
        let s = &r.metrics[0].stats;
        assert_eq!(
            (s.slope.point, s.mean.point, s.median.point, s.min),
            (6.0, 6.0, 6.0, 6.0)
        );
        assert_eq!(
            r.overhead,
            [Overhead {
                metric: "wall-time".into(),
                per_iteration: 4.0,
                raw_estimate: 10.0
            }]
        );
        let mut kept = exact_result("x", &[("wall-time", Unit::Nanoseconds, 10.0)]);
        apply(
            &mut kept,
            &Calibration::exact(&[("wall-time", 4)], false),
            1,
        );
        assert_eq!(
            kept.metrics[0].stats.slope.point, 10.0,
            "recorded, not subtracted"
        );
        assert_eq!(kept.overhead[0].per_iteration, 4.0);
    }

    #[test]
    fn on_threads_counts_carry_the_loop_once_per_thread_and_wall_time_once() {
        let c = Calibration::exact(&[("wall-time", 4), ("instructions", 6)], true);
        let mut r = exact_result(
            "x/threads=3",
            &[
                ("wall-time", Unit::Nanoseconds, 10.0),
                ("instructions", Unit::Count, 100.0),
            ],
        );
        apply(&mut r, &c, 3);
        let taken: Vec<(&str, f64)> = r
            .overhead
            .iter()
            .map(|o| (o.metric.as_str(), o.per_iteration))
            .collect();
        assert_eq!(taken, [("wall-time", 4.0), ("instructions", 18.0)]);
        let slopes: Vec<f64> = r.metrics.iter().map(|m| m.stats.slope.point).collect();
        assert_eq!(slopes, [6.0, 82.0]);
    }

    #[test]
    fn per_iteration_mode_subtracts_mean_from_mean_and_median_from_median() {
        // An empty bracket of reads: mostly 10, one iteration 40.
        let ones = [1u64; 4];
        let empty = analyze_metric(&ones, &[10, 10, 10, 40], &Bootstrap::default());
        assert_eq!((empty.mean.point, empty.median.point), (17.5, 10.0));
        let c = Calibration {
            empty: vec![("wall-time".into(), empty)],
            per_sample: Vec::new(),
            per_iter: true,
            subtract: true,
            method: Method::Iter,
        };
        let mut r = exact_result("x", &[("wall-time", Unit::Nanoseconds, 100.0)]);
        apply(&mut r, &c, 1);
        let s = &r.metrics[0].stats;
        assert_eq!(s.mean.point, 82.5);
        assert_eq!(s.slope.point, 82.5);
        assert_eq!(s.median.point, 90.0);
        assert_eq!((s.min, s.max), (90.0, 90.0));
        // The mean's interval widens by the empty mean's.
        assert!(s.mean.ci.high - s.mean.ci.low > 0.0, "{:?}", s.mean);
    }

    #[test]
    fn per_iteration_mode_takes_the_wall_time_s_cost_off_unasked_and_no_count_s() {
        let ones = [1u64; 4];
        let empty = |v: [u64; 4]| analyze_metric(&ones, &v, &Bootstrap::default());
        let c = Calibration {
            empty: vec![
                ("wall-time".into(), empty([10, 10, 10, 40])),
                ("page-faults".into(), empty([2, 2, 2, 2])),
            ],
            per_sample: Vec::new(),
            per_iter: true,
            subtract: false,
            method: Method::Iter,
        };
        assert!(c.subtracts("wall-time") && !c.subtracts("page-faults"));
        let mut r = exact_result(
            "x",
            &[
                ("wall-time", Unit::Nanoseconds, 100.0),
                ("page-faults", Unit::Count, 16.0),
            ],
        );
        apply(&mut r, &c, 1);
        let (wall, faults) = (&r.metrics[0].stats, &r.metrics[1].stats);
        assert_eq!((wall.mean.point, wall.median.point), (82.5, 90.0));
        assert_eq!((faults.mean.point, faults.median.point), (16.0, 16.0));
        // Both costs recorded, with the raw headlines.
        let recorded: Vec<(&str, f64, f64)> = r
            .overhead
            .iter()
            .map(|o| (o.metric.as_str(), o.per_iteration, o.raw_estimate))
            .collect();
        assert_eq!(
            recorded,
            [("wall-time", 17.5, 100.0), ("page-faults", 2.0, 16.0)]
        );
        // Batch mode takes nothing off unasked.
        let batch = Calibration::exact(&[("wall-time", 4)], false);
        assert!(!batch.subtracts("wall-time"));
    }
}
