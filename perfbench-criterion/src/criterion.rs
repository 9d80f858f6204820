//! [`Criterion`]: a suite's configuration and its benchmarks, as Criterion
//! declares them, measured by perfbench.

use std::marker::PhantomData;
use std::path::Path;
use std::time::Duration;

use crate::benchmark_group::BenchmarkGroup;
use crate::config_flags::give;
use crate::measurement::{Measurement, WallTime};
use crate::profiler::Profiler;
use crate::said_once::not_used;
use crate::settings::{self, GroupSettings};
use crate::{Bencher, BenchmarkId, PlottingBackend};

/// A suite's configuration, and where its benchmarks are declared.
/// Settings a suite leaves unset are perfbench's (about 0.85 s a
/// benchmark), not Criterion's (8 s); the command line's win over both.
pub struct Criterion<M: Measurement = WallTime> {
    pub(crate) settings: GroupSettings,
    measurement: PhantomData<fn() -> M>,
}

impl Default for Criterion {
    fn default() -> Criterion {
        Criterion {
            settings: GroupSettings::default(),
            measurement: PhantomData,
        }
    }
}

impl<M: Measurement> Criterion<M> {
    /// Measures with `m` instead: perfbench measures wall time and its
    /// counters, and says once that `m` is not used.
    pub fn with_measurement<M2: Measurement>(self, _m: M2) -> Criterion<M2> {
        let name = std::any::type_name::<M2>();
        if name != std::any::type_name::<WallTime>() {
            not_used(
                &format!("with_measurement({name})"),
                "perfbench measures wall time and its counters",
            );
        }
        Criterion {
            settings: self.settings,
            measurement: PhantomData,
        }
    }

    /// A profiler for `--profile-time`: perfbench does not call it.
    pub fn with_profiler<P: Profiler + 'static>(self, _p: P) -> Criterion<M> {
        not_used(
            "with_profiler",
            "perfbench's `--profile` samples each routine itself",
        );
        self
    }

    /// The plotting program: perfbench's report draws its own plots.
    pub fn plotting_backend(self, backend: PlottingBackend) -> Criterion<M> {
        if backend == PlottingBackend::Gnuplot {
            not_used("plotting_backend", "perfbench's report draws its own plots");
        }
        self
    }

    /// Samples per benchmark (at least 10).
    pub fn sample_size(mut self, n: usize) -> Criterion<M> {
        self.settings.sample_size(n);
        self
    }

    /// Warm-up time per benchmark.
    pub fn warm_up_time(mut self, dur: Duration) -> Criterion<M> {
        self.settings.warm_up_time(dur);
        self
    }

    /// Measurement time per benchmark.
    pub fn measurement_time(mut self, dur: Duration) -> Criterion<M> {
        self.settings.measurement_time(dur);
        self
    }

    /// Bootstrap resamples: said once not to be used.
    pub fn nresamples(self, n: usize) -> Criterion<M> {
        settings::nresamples(n);
        self
    }

    /// The smallest change reported: said once not to be used.
    pub fn noise_threshold(self, threshold: f64) -> Criterion<M> {
        settings::noise_threshold(threshold);
        self
    }

    /// The intervals' confidence level: said once not to be used.
    pub fn confidence_level(self, cl: f64) -> Criterion<M> {
        settings::confidence_level(cl);
        self
    }

    /// The comparisons' significance level: said once not to be used.
    pub fn significance_level(self, sl: f64) -> Criterion<M> {
        settings::significance_level(sl);
        self
    }

    /// Plots in the report: perfbench's report has them unless `--noplot`.
    pub fn with_plots(self) -> Criterion<M> {
        self
    }

    /// No plots in the report, as `--noplot`.
    pub fn without_plots(self) -> Criterion<M> {
        give(&["--noplot"]);
        self
    }

    /// Saves the run as baseline `baseline`, as `--save-baseline`.
    pub fn save_baseline(self, baseline: String) -> Criterion<M> {
        give(&["--save-baseline", &baseline]);
        self
    }

    /// Compares with baseline `baseline`, as `--baseline`.
    pub fn retain_baseline(self, baseline: String, _strict: bool) -> Criterion<M> {
        give(&["--baseline", &baseline]);
        self
    }

    /// Runs only the benchmarks whose ids contain `filter`: the command
    /// line's filters do it.
    pub fn with_filter<S: Into<String>>(self, filter: S) -> Criterion<M> {
        not_used(
            &format!("with_filter({:?})", filter.into()),
            "give the filter on the command line (`cargo bench -- FILTER`)",
        );
        self
    }

    /// Colours on or off, as `--color always` or `never`.
    pub fn with_output_color(self, enabled: bool) -> Criterion<M> {
        give(&["--color", if enabled { "always" } else { "never" }]);
        self
    }

    /// Where results go: perfbench keeps them in its own store.
    pub fn output_directory(self, path: &Path) -> Criterion<M> {
        not_used(
            &format!("output_directory({})", path.display()),
            "perfbench keeps results in its store (target/perfbench/, or PERFBENCH_HOME)",
        );
        self
    }

    /// Runs each routine for `profile_time` for an external profiler, as
    /// `--profile-time`.
    pub fn profile_time(self, profile_time: Option<Duration>) -> Criterion<M> {
        if let Some(time) = profile_time {
            give(&["--profile-time", &time.as_secs_f64().to_string()]);
        }
        self
    }

    /// Criterion reads its command line here; perfbench reads it once, in
    /// `criterion_main!`.
    pub fn configure_from_args(self) -> Criterion<M> {
        self
    }

    /// Criterion's closing summary: perfbench prints its own at the end.
    pub fn final_summary(&self) {}

    /// A group of benchmarks compared side by side, named `group_name`.
    pub fn benchmark_group<S: Into<String>>(&mut self, group_name: S) -> BenchmarkGroup<'_, M> {
        BenchmarkGroup::new(self, group_name.into())
    }

    /// Benchmarks `f` as `id`.
    pub fn bench_function<F>(&mut self, id: &str, f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        let alone = BenchmarkId {
            function: None,
            parameter: None,
        };
        self.benchmark_group(id).bench_function(alone, f);
        self
    }

    /// Benchmarks `f` with `input` as `id` (`function/parameter`).
    pub fn bench_with_input<F, I>(&mut self, id: BenchmarkId, input: &I, f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
    {
        let group = id.function.expect(
            "Cannot use BenchmarkId::from_parameter with Criterion::bench_with_input. \
             Consider using a BenchmarkGroup or BenchmarkId::new instead.",
        );
        let parameter = BenchmarkId {
            function: None,
            parameter: id.parameter,
        };
        self.benchmark_group(group)
            .bench_with_input(parameter, input, f);
        self
    }
}
