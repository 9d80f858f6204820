//! [`BenchmarkGroup`]: benchmarks compared side by side, with settings of
//! their own; each benchmark is handed to the run as it is declared.

use std::cell::RefCell;
use std::time::Duration;

use perfbench::analysis::standings::Membership;
use perfbench::run::registry::Entry;

use crate::criterion_suite::reach;
use crate::measurement::Measurement;
use crate::said_once::note_once;
use crate::settings::{self, GroupSettings};
use crate::{Bencher, Criterion, IntoBenchmarkId, PlotConfiguration, SamplingMode, Throughput};

/// Benchmarks compared side by side: `group/function/parameter` ids, and
/// a group on perfbench's report.
pub struct BenchmarkGroup<'a, M: Measurement> {
    /// Borrowed while the group lives, as Criterion's is.
    _criterion: &'a mut Criterion<M>,
    name: String,
    settings: GroupSettings,
}

impl<'a, M: Measurement> BenchmarkGroup<'a, M> {
    /// The group `name` of `criterion`, with its settings.
    pub(crate) fn new(criterion: &'a mut Criterion<M>, name: String) -> Self {
        let settings = criterion.settings.clone();
        BenchmarkGroup {
            _criterion: criterion,
            name,
            settings,
        }
    }

    /// Samples per benchmark (at least 10).
    pub fn sample_size(&mut self, n: usize) -> &mut Self {
        self.settings.sample_size(n);
        self
    }

    /// Warm-up time per benchmark.
    pub fn warm_up_time(&mut self, dur: Duration) -> &mut Self {
        self.settings.warm_up_time(dur);
        self
    }

    /// Measurement time per benchmark.
    pub fn measurement_time(&mut self, dur: Duration) -> &mut Self {
        self.settings.measurement_time(dur);
        self
    }

    /// Bootstrap resamples: said once not to be used.
    pub fn nresamples(&mut self, n: usize) -> &mut Self {
        settings::nresamples(n);
        self
    }

    /// The smallest change reported: said once not to be used.
    pub fn noise_threshold(&mut self, threshold: f64) -> &mut Self {
        settings::noise_threshold(threshold);
        self
    }

    /// The intervals' confidence level: said once not to be used.
    pub fn confidence_level(&mut self, cl: f64) -> &mut Self {
        settings::confidence_level(cl);
        self
    }

    /// The comparisons' significance level: said once not to be used.
    pub fn significance_level(&mut self, sl: f64) -> &mut Self {
        settings::significance_level(sl);
        self
    }

    /// The group's summary plots: said once not to be used.
    pub fn plot_config(&mut self, new_config: PlotConfiguration) -> &mut Self {
        settings::plot_config(&new_config);
        self
    }

    /// What one iteration of the benchmarks declared after this
    /// processes: reported as a rate beside the time.
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.settings.throughput = Some(throughput);
        self
    }

    /// How samples grow: perfbench plans its own; said once if not `Auto`.
    pub fn sampling_mode(&mut self, new_mode: SamplingMode) -> &mut Self {
        settings::sampling_mode(new_mode);
        self
    }

    /// Benchmarks `f` as `id` in this group.
    pub fn bench_function<ID: IntoBenchmarkId, F>(&mut self, id: ID, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        self.run(id, &mut |b| f(b));
        self
    }

    /// Benchmarks `f` with `input` as `id` in this group.
    pub fn bench_with_input<ID: IntoBenchmarkId, F, I>(
        &mut self,
        id: ID,
        input: &I,
        mut f: F,
    ) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
        I: ?Sized,
    {
        self.run(id, &mut |b| f(b, input));
        self
    }

    /// Ends the group (as dropping it does).
    pub fn finish(self) {}

    /// Hands the benchmark `id`, whose closure is `f`, to the run.
    fn run(&mut self, id: impl IntoBenchmarkId, f: &mut dyn FnMut(&mut Bencher<'_, M>)) {
        let id = id.into_benchmark_id();
        let entry = self.entry(&id);
        let throughput = self.settings.throughput.as_ref().map(|t| {
            let (reported, caveat) = t.reported();
            caveat.inspect(|c| note_once(c));
            reported
        });
        let f = RefCell::new(f);
        reach(&entry, &|b: &mut perfbench::Bencher<'_>| {
            if let Some(t) = throughput {
                b.throughput(t);
            }
            Bencher::lend(b, |b| (f.borrow_mut())(b));
        });
    }

    /// The benchmark `id` of this group as perfbench lists it: its full
    /// id, its settings, and its place in the group (function and
    /// parameter; the group's name for a parameter alone).
    fn entry(&self, id: &crate::BenchmarkId) -> Entry {
        let full = id.full(&self.name);
        let membership = (id.function.is_some() || id.parameter.is_some()).then(|| Membership {
            group: self.name.clone(),
            member: id.function.clone().unwrap_or_else(|| self.name.clone()),
            arg: id.parameter.clone(),
        });
        Entry {
            origin: full.clone(),
            id: full,
            settings: self.settings.for_perfbench(),
            membership,
            threads: 1,
        }
    }
}
