//! A recording: everything one benchmark's run measured, in the form that
//! is analysed, compared and stored.

use super::metric_key::WALL_TIME;
use super::standings::Membership;
use crate::counter::event::{Event, Scale, Unit};
use crate::counter::group::ReadPath;
use crate::measure::environment::Environment;
use crate::measure::{self, Measurement, Method, Sample, Throughput};
use crate::profile::Profile;
use crate::stats;

/// The metrics of a run that counts `events`, with their units: wall time
/// first, then one per event in the order given. Every output lists them in
/// this order.
pub fn metric_names(events: &[Event]) -> Vec<(String, Unit)> {
    let wall = (WALL_TIME.to_string(), Unit::Nanoseconds);
    std::iter::once(wall)
        .chain(events.iter().map(|e| (e.name.clone(), e.unit)))
        .collect()
}

/// The raw samples of one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The metric: an event as the user wrote it, or [`WALL_TIME`].
    pub name: String,
    /// Its unit.
    pub unit: Unit,
    /// The total of each sample.
    pub totals: Vec<u64>,
    /// The event counted, where it is known: not for wall time, nor for a
    /// run loaded from disk (stored runs keep names, units and privilege
    /// only). It gives the PMU scale and the ratios such as IPC.
    pub event: Option<Event>,
    /// Whether the event counted user space only (`:u`, or narrowed to it
    /// where the kernel refused more): runs that differ in this count
    /// different things under one name. `None` for wall time and for runs
    /// stored before it was recorded.
    pub user_only: Option<bool>,
    /// The headline per iteration of earlier runs stored under the same
    /// name, oldest first, at most [`MAX_EARLIER_RUNS`]: their spread is the
    /// run-to-run noise a comparison with this run takes in
    /// ([`crate::stats::between_runs`]). Empty for a run just measured.
    pub earlier: Vec<f64>,
}

/// Most earlier runs a stored run keeps the headlines of: enough to learn
/// the run-to-run spread, few enough that it follows a machine that
/// changes.
pub const MAX_EARLIER_RUNS: usize = 9;

impl Series {
    /// The PMU's `.scale` and `.unit` of the event, if it has them.
    pub fn scale(&self) -> Option<&Scale> {
        self.event.as_ref()?.scale.as_ref()
    }
}

/// One benchmark's run: its samples per metric, where it ran, and how it
/// was measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The benchmark id.
    pub id: String,
    /// Where it ran.
    pub environment: Environment,
    /// Iterations of each sample.
    pub iterations: Vec<u64>,
    /// The round each sample was taken in, from 0: a run measures every
    /// benchmark in rounds interleaved with the others, and the spread
    /// across rounds gives the intervals (`stats::RoundEstimates`).
    pub rounds: Vec<u32>,
    /// Wall time first, then one series per event in the order given.
    pub series: Vec<Series>,
    /// The throughput the benchmark declared.
    pub throughput: Option<Throughput>,
    /// Samples in which the kernel multiplexed the counters, kept because
    /// it multiplexed every one; their counts are not scaled.
    pub multiplexed_samples: usize,
    /// Samples the kernel disturbed, left out: in batch mode those it
    /// multiplexed, which counted only while the group was on the PMU; in
    /// per-iteration mode iterations it multiplexed or rescheduled during a
    /// read, which counted the kernel's doing with the routine's. Where it
    /// disturbed every one, all are kept and counted in
    /// `multiplexed_samples` instead.
    pub left_out: usize,
    /// In per-iteration mode, how the counters were read around each
    /// iteration; `None` in batch mode.
    pub read_path: Option<ReadPath>,
    /// The events of each pass (one per counter group), where they did not
    /// fit one counter group; empty otherwise.
    pub passes: Vec<Vec<String>>,
    /// The benchmarks' group it belongs to, where it has one (its module or
    /// `group = "…"`), with its name and argument there.
    pub membership: Option<Membership>,
    /// The threads the routine ran on at once (`threads = [...]`), 1 for
    /// most: an iteration is one call on each, and the counts are totals
    /// over them.
    pub threads: usize,
    /// The `Bencher` method that measured it: its own loop is what
    /// calibration takes off (`iter` for results stored before methods
    /// were recorded).
    pub method: Method,
    /// The settings it was measured with ([`measure::Config::key`]):
    /// only runs of the same settings share their spread between runs
    /// ([`crate::analysis::comparison::carry_earlier`]), so that a
    /// `--quick` try-out never widens a default run's intervals. `None`
    /// for results stored before settings were recorded.
    pub settings: Option<String>,
    /// The sampling profile of its routine (`--profile`), taken after its
    /// last round; for a stored run, the one stored beside it.
    pub profile: Option<Profile>,
}

impl Recording {
    /// The recording of `m`, whose counts are in the order of `events`,
    /// measured in batch mode in one group. Samples the kernel multiplexed
    /// are left out and counted in [`Recording::left_out`], as
    /// per-iteration mode leaves out the iterations it disturbed (by the
    /// same rule, [`measure::leave_out_disturbed`]): their counts cover only
    /// the time the group was on the PMU. Where it multiplexed every
    /// sample, all are kept and counted in
    /// [`Recording::multiplexed_samples`]. A sample that ran no iterations
    /// or lacks a count of an event cannot be recorded, and is left out:
    /// only a paired run's baseline build can send one, and
    /// `run::paired::reply` refuses it before this.
    pub fn new(id: &str, events: &[Event], m: &Measurement, environment: Environment) -> Recording {
        let recordable = |s: &&Sample| s.iterations > 0 && s.counts.values.len() >= events.len();
        let mut samples: Vec<&Sample> = m.samples.iter().filter(recordable).collect();
        let left_out = measure::leave_out_disturbed(&mut samples, |s| s.multiplexed());
        let series = metric_names(events)
            .into_iter()
            .enumerate()
            .map(|(k, (name, unit))| {
                let totals = match k {
                    0 => samples.iter().map(|s| s.wall_ns).collect(),
                    _ => samples.iter().map(|s| s.counts.values[k - 1]).collect(),
                };
                let event = k.checked_sub(1).map(|i| events[i].clone());
                Series {
                    name,
                    unit,
                    totals,
                    user_only: event.as_ref().map(|e| e.attr.exclude_kernel),
                    event,
                    earlier: Vec::new(),
                }
            })
            .collect();
        Recording {
            id: id.to_string(),
            environment,
            iterations: samples.iter().map(|s| s.iterations).collect(),
            rounds: vec![0; samples.len()],
            series,
            throughput: m.throughput,
            multiplexed_samples: samples.iter().filter(|s| s.multiplexed()).count(),
            left_out,
            read_path: None,
            passes: Vec::new(),
            membership: None,
            threads: 1,
            method: Method::Iter,
            settings: None,
            profile: None,
        }
    }

    /// A recording as stored on disk: samples, their rounds and the
    /// environment only.
    pub fn stored(
        id: String,
        environment: Environment,
        (iterations, rounds): (Vec<u64>, Vec<u32>),
        series: Vec<Series>,
    ) -> Recording {
        Recording {
            id,
            environment,
            iterations,
            rounds,
            series,
            throughput: None,
            multiplexed_samples: 0,
            left_out: 0,
            read_path: None,
            passes: Vec::new(),
            membership: None,
            threads: 1,
            method: Method::Iter,
            settings: None,
            profile: None,
        }
    }

    /// Appends the samples of `later`, a later round of the same benchmark
    /// measured the same way, as round [`Recording::round_count`]. Where
    /// the kernel disturbed every sample of one side but not of the other,
    /// the disturbed side's samples are left out: a round that kept them
    /// only because it had no others must not join undisturbed ones. A
    /// later round left out so gives its number to the next, so the numbers
    /// stay consecutive (the run counts the rounds it measures itself).
    pub fn append_round(&mut self, mut later: Recording) {
        let round = self.round_count() as u32;
        let (before, after) = (self.all_disturbed(), later.all_disturbed());
        if before && !after && !later.iterations.is_empty() {
            self.leave_out_all();
        }
        if after && !before && !self.iterations.is_empty() {
            later.leave_out_all();
        }
        self.rounds
            .extend(std::iter::repeat_n(round, later.iterations.len()));
        self.iterations.extend(later.iterations);
        for (s, t) in self.series.iter_mut().zip(later.series) {
            debug_assert_eq!(s.name, t.name, "rounds measure the same metrics");
            s.totals.extend(t.totals);
        }
        self.multiplexed_samples += later.multiplexed_samples;
        self.left_out += later.left_out;
    }

    /// Whether the kernel disturbed (multiplexed, or in per-iteration mode
    /// rescheduled) every sample kept, which were kept for want of others.
    pub fn all_disturbed(&self) -> bool {
        self.multiplexed_samples > 0 && self.multiplexed_samples == self.iterations.len()
    }

    /// Leaves every sample out, counted in [`Recording::left_out`].
    fn leave_out_all(&mut self) {
        self.left_out += self.iterations.len();
        self.multiplexed_samples = 0;
        self.iterations.clear();
        self.rounds.clear();
        for s in &mut self.series {
            s.totals.clear();
        }
    }

    /// How many samples it kept.
    pub fn samples(&self) -> usize {
        self.iterations.len()
    }

    /// The iterations of all samples kept; saturating, so that a stored
    /// file's counts cannot overflow it.
    pub fn total_iterations(&self) -> u64 {
        self.iterations
            .iter()
            .fold(0, |all, &n| all.saturating_add(n))
    }

    /// How many rounds the samples were taken in.
    pub fn round_count(&self) -> usize {
        stats::round_count(&self.rounds)
    }

    /// The series of a metric, by name.
    pub fn series(&self, name: &str) -> Option<&Series> {
        self.series.iter().find(|s| s.name == name)
    }

    /// The events of the series, in order, where they are known.
    pub fn events(&self) -> Vec<Event> {
        self.series.iter().filter_map(|s| s.event.clone()).collect()
    }
}
