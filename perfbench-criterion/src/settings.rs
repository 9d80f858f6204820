//! How a benchmark is measured, as a suite's `Criterion` and its groups set
//! it: the settings perfbench takes per benchmark, beneath the command
//! line's, and the throughput.

use std::time::Duration;

use crate::config_flags::give;
use crate::said_once::not_used;
use crate::{PlotConfiguration, SamplingMode, Throughput};

/// What a `Criterion` or a `BenchmarkGroup` set; unset, perfbench's own
/// defaults hold (not Criterion's 100 samples, 3 s and 5 s).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GroupSettings {
    pub(crate) sample_size: Option<usize>,
    pub(crate) warm_up: Option<Duration>,
    pub(crate) measurement: Option<Duration>,
    pub(crate) throughput: Option<Throughput>,
}

impl GroupSettings {
    /// `sample_size(n)`: at least 10, as Criterion requires.
    pub(crate) fn sample_size(&mut self, n: usize) {
        assert!(n >= 10, "sample_size must be at least 10");
        self.sample_size = Some(n);
    }

    /// `warm_up_time(d)`: longer than zero, as Criterion requires.
    pub(crate) fn warm_up_time(&mut self, d: Duration) {
        assert!(d > Duration::ZERO, "warm_up_time must be longer than zero");
        self.warm_up = Some(d);
    }

    /// `measurement_time(d)`: longer than zero, as Criterion requires.
    pub(crate) fn measurement_time(&mut self, d: Duration) {
        assert!(
            d > Duration::ZERO,
            "measurement_time must be longer than zero"
        );
        self.measurement = Some(d);
    }

    /// perfbench's settings of a benchmark measured with these.
    pub(crate) fn for_perfbench(&self) -> perfbench::run::registry::Settings {
        perfbench::run::registry::Settings {
            sample_count: self.sample_size.map(|n| n as u64),
            warm_up: self.warm_up,
            measurement: self.measurement,
            ..perfbench::run::registry::Settings::NONE
        }
    }
}

/// `nresamples(n)`: perfbench's bootstrap takes its own count.
pub(crate) fn nresamples(n: usize) {
    assert!(n > 0, "nresamples must be greater than zero");
    not_used(
        "nresamples",
        "perfbench's bootstrap draws its own number of resamples",
    );
}

/// `noise_threshold(t)`: a fraction, as `--noise-threshold` takes it in
/// Criterion's dialect, for the whole run.
pub(crate) fn noise_threshold(t: f64) {
    assert!(t >= 0.0, "noise_threshold must be at least zero");
    give(&["--noise-threshold", &t.to_string()]);
}

/// `confidence_level(cl)`.
pub(crate) fn confidence_level(cl: f64) {
    assert!(
        cl > 0.0 && cl < 1.0,
        "confidence_level must be between 0 and 1"
    );
    not_used(
        "confidence_level",
        "perfbench's intervals are 95 %, for the whole run",
    );
}

/// `significance_level(sl)`.
pub(crate) fn significance_level(sl: f64) {
    assert!(
        sl > 0.0 && sl < 1.0,
        "significance_level must be between 0 and 1"
    );
    not_used(
        "significance_level",
        "perfbench's gate has its own level, for the whole run",
    );
}

/// `sampling_mode(mode)`.
pub(crate) fn sampling_mode(mode: SamplingMode) {
    if mode != SamplingMode::Auto {
        not_used(
            "sampling_mode",
            "perfbench fits each benchmark's sampling plan to its time itself",
        );
    }
}

/// `plot_config(config)`.
pub(crate) fn plot_config(config: &PlotConfiguration) {
    if *config != PlotConfiguration::default() {
        not_used("plot_config", "perfbench's report draws its own plots");
    }
}
