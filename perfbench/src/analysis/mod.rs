//! From a recording's samples to per-iteration figures per metric: the one
//! analysis every output is fed, and the comparison with a stored run.

pub mod comparison;
pub mod derived;
pub mod estimates;
pub mod fit;
pub mod metric_key;
pub mod notes;
pub mod overhead;
pub mod printable;
pub mod profile_shares;
pub mod quiet;
pub mod recording;
pub mod standings;

use crate::counter::event::{Scale, Unit};
use crate::stats::{
    analyze_metric, linear_fit, median_of_sorted, rate, theil_sen, Bootstrap, Estimate,
    RoundEstimates, Statistics,
};

pub use fit::{Fit, PoorFit};
pub use metric_key::{MetricKey, WALL_TIME};
pub use overhead::{Calibration, Overhead};
pub use recording::{metric_names, Recording, Series};

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
            Fit::Median { median } => median,
        }
    }

    /// The name of the headline's estimator, as outputs label it.
    pub fn estimator(&self) -> &'static str {
        match self.fit {
            Fit::Good => "slope",
            Fit::Poor { .. } => "Theil-Sen slope",
            Fit::Rare { .. } => "rate",
            Fit::Median { .. } => "median",
        }
    }
}

/// The figures analysis computes from one benchmark's [`Recording`], and
/// nothing else: what was measured and how (its id, samples and
/// iterations, throughput, group, threads, method, read path, samples
/// multiplexed or left out) stays in the recording, and outputs read both
/// through a [`ResultView`].
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// Wall time first, then one metric per event in the order given.
    pub metrics: Vec<Metric>,
    /// Ratios of metrics where their inputs were measured: `IPC`,
    /// `branch-miss rate`, `cache-miss rate`, and each metric per byte or per
    /// element (`wall-time/byte`) where the benchmark declared a throughput;
    /// of the headlines as shown, so less the cost of measuring where
    /// `--subtract-overhead` took it off.
    pub derived: Vec<(String, f64)>,
    /// Wall time (times the threads) over task-clock where the threads were
    /// clearly off the CPU ([`notes::off_cpu_ratio`]).
    pub off_cpu_ratio: Option<f64>,
    /// The measurement's own cost per iteration and the raw estimate, per
    /// metric; with `--subtract-overhead` it was taken off `metrics`.
    pub overhead: Vec<Overhead>,
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
    /// The run it was compared with (the target's stored run, or in a
    /// paired run the paired build's rounds), where it holds this benchmark.
    pub compared_with: Option<Recording>,
}

impl Analysed {
    /// `recording` analysed ([`analyze`]), compared with nothing yet.
    pub fn of(recording: Recording, calibration: &Calibration) -> Analysed {
        Analysed {
            result: analyze(&recording, calibration),
            recording,
            comparison: None,
            compared_with: None,
        }
    }

    /// The figures with the recording they came from, as outputs read them.
    pub fn view(&self) -> ResultView<'_> {
        ResultView::new(&self.recording, &self.result)
    }
}

/// One benchmark's figures and the recording they were computed from,
/// borrowed: what outputs read, so that nothing measured is copied into
/// the figures. The figures read as its own fields (`view.metrics`), what
/// was measured and how through `view.recording` (`view.recording.id`).
#[derive(Clone, Copy, Debug)]
pub struct ResultView<'a> {
    /// The samples as measured, with the benchmark's id and how it ran.
    pub recording: &'a Recording,
    /// The figures analysis computed from them (or some of them, where an
    /// output leaves metrics out).
    pub result: &'a BenchResult,
}

impl<'a> ResultView<'a> {
    /// The view of `result`, computed from `recording`.
    pub fn new(recording: &'a Recording, result: &'a BenchResult) -> ResultView<'a> {
        ResultView { recording, result }
    }
}

impl std::ops::Deref for ResultView<'_> {
    type Target = BenchResult;

    fn deref(&self) -> &BenchResult {
        self.result
    }
}

/// Analyses `recording`, with the measurement's own cost recorded (and
/// taken off where `calibration` says so).
pub fn analyze(recording: &Recording, calibration: &Calibration) -> BenchResult {
    let metrics = metrics_of(recording);
    let off_cpu_ratio = notes::off_cpu_ratio(&metrics, recording.threads);
    let mut result = BenchResult {
        derived: Vec::new(),
        metrics,
        off_cpu_ratio,
        overhead: Vec::new(),
    };
    overhead::apply(&mut result, calibration, recording.threads);
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
        Fit::Median { .. } => median_per_iteration(x, y),
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
            Fit::Median { median } => *median = across,
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

/// The median of the samples' values per iteration.
fn median_per_iteration(iterations: &[u64], totals: &[u64]) -> f64 {
    let mut values = crate::stats::per_iteration(iterations, totals);
    values.sort_unstable_by(f64::total_cmp);
    median_of_sorted(&values)
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

/// A derived metric by its key (or its name, which parses to one).
pub fn derived_value(result: &BenchResult, key: impl Into<MetricKey>) -> Option<f64> {
    let key = key.into();
    key.find_in(&result.derived, |(n, _)| n).map(|&(_, v)| v)
}

/// Results made by hand, for the tests of the outputs.
#[cfg(test)]
pub(crate) mod test_support {
    use super::{Analysed, BenchResult, Metric, Recording};
    use crate::counter::event::Unit;
    use crate::stats::{analyze_metric, Bootstrap, Estimate, Interval, RoundEstimates};

    /// The estimate `point` in `[low, high]`.
    pub(crate) fn estimate(point: f64, low: f64, high: f64) -> Estimate {
        Estimate {
            point,
            ci: Interval { low, high },
        }
    }

    /// A benchmark `id` of 10 samples (10 to 100 iterations, 550 in all)
    /// whose metrics `(name, unit, v)` lie on an exact line through the
    /// origin: every figure of a metric is its `v`. Its recording holds
    /// the id and the samples' iterations, and measured nothing else.
    pub(crate) fn exact_result(id: &str, metrics: &[(&str, Unit, f64)]) -> Analysed {
        let iterations: Vec<u64> = (1..=10).map(|i| 10 * i).collect();
        let rounds = vec![0; iterations.len()];
        let recording = Recording::stored(
            id.into(),
            Default::default(),
            (iterations, rounds),
            Vec::new(),
        );
        let result = BenchResult {
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
            off_cpu_ratio: None,
            overhead: Vec::new(),
        };
        Analysed {
            recording,
            result,
            comparison: None,
            compared_with: None,
        }
    }
}

#[cfg(test)]
mod tests;
