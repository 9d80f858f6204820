//! Command-line options, libtest-compatible where libtest has the flag, each
//! with a `PERFBENCH_*` environment twin (`--warm-up-time` ↔
//! `PERFBENCH_WARM_UP_TIME`). The command line wins over the environment.
//!
//! This file is the option model, [`RunOptions`]: what a run was asked to
//! do, settled at parse time into enums, so that no later layer weighs two
//! switches against each other. The flags themselves are one table
//! (`flags.rs`), from which the parser (`parse.rs`) and `--help` come;
//! `values.rs` parses their values within limits, `hints.rs` says what
//! to write instead of an unknown option, and `usage_error.rs` is the
//! type of every error they give ([`UsageError`]), naming its culprit.

mod criterion_flags;
mod flags;
mod hints;
mod parse;
mod usage_error;
mod values;

use std::time::Duration;

use crate::analysis::comparison::Thresholds;
use crate::counter::event::Event;
use crate::measure::Config;
use crate::output::Color;
use crate::run::registry::{self, Ignored, Settings};
use crate::run::setup::Want;

pub use criterion_flags::criterion_table;
pub use flags::usage;
pub use hints::unknown_variables;
pub use parse::{parse, parse_in};
pub use usage_error::{Expected, SettingError, Unwritable, UsageError};
pub use values::{check_settings, MAX_PERCENT, MAX_ROUNDS, MAX_SAMPLE_COUNT, MAX_SECONDS};

/// How many times an ordinary run's rounds and samples a paired run takes
/// (in the same time, each round shorter), unless given: 40 rounds of each
/// build, 20 blocks, where the signed-rank interval's ends are ranks one
/// disturbed block cannot reach (with 10 blocks it can). On the gate suite
/// (docs/baselines-and-store.md) +5 % on the sort was caught 20 of 20 with
/// 20 blocks, 18 of 20 with 10.
pub const PAIRED_SCALE: u64 = 4;

/// Whose meaning the command line's flags have where perfbench and
/// Criterion spell a flag alike and read it otherwise (the `PERFBENCH_*`
/// twins are always perfbench's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// A `#[perfbench]` bench target's ([`parse()`]).
    #[default]
    Perfbench,
    /// A Criterion suite's under `criterion_main!` ([`parse_in`]):
    /// `--noise-threshold 0.05` is Criterion's fraction, 5 %, and `--quiet`
    /// and a filter written as a regular expression are named where they
    /// cannot mean what they mean in Criterion.
    Criterion,
}

/// Whether to measure, to run each routine once as a test, or to run it
/// for a profiler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunMode {
    /// `cargo bench` (`--bench`): measure.
    Bench,
    /// `cargo test --benches` (no `--bench`) or `--test`: run each once.
    Test,
    /// `--profile-time S` under `cargo bench`: run each routine for about
    /// this long, without counters, analysis or storing.
    Profile(Duration),
}

/// What the run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `--help` (`-h`): print the usage.
    Help,
    /// `--list-events`: list the events this machine can count.
    ListEvents,
    /// `--list`: list the benchmarks; `terse` (`--format terse`) without
    /// the summary line.
    List {
        /// `--format terse`.
        terse: bool,
    },
    /// Run the selected benchmarks, in this mode.
    Run(RunMode),
}

/// How results are written, to stdout or to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// A table for people.
    Pretty,
    /// One JSON object per benchmark per line.
    Json,
    /// libtest's `test ID ... bench: N ns/iter (+/- M)` lines.
    Bencher,
    /// One Bencher Metric Format object for the run (`bencher run
    /// --adapter json`).
    Bmf,
    /// github-action-benchmark's array for `tool: customSmallerIsBetter`:
    /// the metrics where less is better.
    ActionSmaller,
    /// github-action-benchmark's array for `tool: customBiggerIsBetter`:
    /// the throughputs and IPC.
    ActionBigger,
}

/// Which benchmarks a run takes, with libtest's semantics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Substrings (or exact ids with `exact`) selecting benchmarks.
    pub patterns: Vec<String>,
    /// Substrings (or exact ids) excluding benchmarks.
    pub skip: Vec<String>,
    /// `--exact`: patterns match whole ids.
    pub exact: bool,
    /// What becomes of `#[ignore]`d benchmarks.
    pub ignored: Ignored,
}

impl Filter {
    /// Whether the benchmark `id` is selected (ignored or not).
    pub fn matches(&self, id: &str) -> bool {
        registry::matches(id, &self.patterns, &self.skip, self.exact)
    }

    /// Whether a benchmark of the function at `path` could be selected,
    /// its cases unknown ([`registry::could_match`]).
    pub fn could_match(&self, path: &str) -> bool {
        registry::could_match(path, &self.patterns, &self.skip, self.exact)
    }
}

/// Where the measuring thread (and the threads it spawns) runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pinning {
    /// `--no-pin`: nowhere in particular, not even on hybrid CPUs.
    Off,
    /// Unasked: on hybrid CPUs a performance core, elsewhere unpinned.
    Auto,
    /// `--pin`: the CPU it starts on, whatever its kind.
    StartingCpu,
    /// `--cpu N`.
    Cpu(usize),
    /// `--cpu-type TYPE`: a CPU of this hybrid core type (a core PMU's
    /// name, `measure::choose_core`).
    CoreType(String),
    /// `--cpu` and `--cpu-type` together: an error when the run pins (a
    /// run that lists or tests does not pin, and says nothing).
    Conflicting,
}

/// The build a paired run measures alongside this one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// `--paired-with PATH`: a bench binary built from the baseline code.
    Binary(std::path::PathBuf),
    /// `--paired-with-rev REV`: this bench target built at a git revision.
    Revision(String),
}

/// `--fail-on-regression[=PCT]`: when a regression fails the run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum RegressionGate {
    /// Never (no `--fail-on-regression`).
    #[default]
    Off,
    /// On any regression.
    AnyRegression,
    /// On a regression beyond this fraction (`=5` is 0.05).
    Beyond(f64),
}

/// Events a run was asked for (`--events`): the list as written, which
/// keys its setup, and its events, parsed when the options were.
#[derive(Clone, Debug, PartialEq)]
pub struct EventsAsked {
    /// As written.
    pub spec: String,
    /// Parsed, in the order written.
    pub events: Vec<Event>,
}

/// `--profile[=EVENT]`: the event a profiling pass samples after each
/// benchmark is measured.
#[derive(Clone, Debug, PartialEq)]
pub enum ProfileEvent {
    /// `cycles` where a CPU PMU counts them, else `cpu-clock`.
    Default,
    /// The event given: one.
    Given(EventsAsked),
    /// `--profile=regressed`: the default event, only for the benchmarks
    /// judged regressed, after they are.
    Regressed,
}

/// Everything the command line and environment asked for, settled.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    /// What the run does.
    pub action: Action,
    /// Which benchmarks it takes.
    pub filter: Filter,
    /// `--events`, as written and parsed, once.
    pub events: Option<EventsAsked>,
    /// Where the measuring thread runs.
    pub pinning: Pinning,
    /// Warm-up, measurement time, sample count and rounds of a benchmark
    /// whose attribute sets none of them ([`RunOptions::config_for`] gives
    /// a benchmark's own).
    pub config: Config,
    /// The measurement settings the run was given (command line,
    /// environment, `--quick`), which win over a benchmark's attribute.
    pub given: Given,
    /// Output format on stdout.
    pub output_format: OutputFormat,
    /// `--output-file FORMAT=PATH`: formats written to files when the run
    /// ends, each whole.
    pub output_files: Vec<(OutputFormat, std::path::PathBuf)>,
    /// Colour.
    pub color: Color,
    /// `--save-baseline NAME`.
    pub save_baseline: Option<String>,
    /// `--baseline NAME`: compare with it instead of the previous run.
    pub baseline: Option<String>,
    /// `--paired-with PATH` or `--paired-with-rev REV`: compare with that
    /// build, measured in alternating rounds in this run, instead.
    pub paired_with: Option<Pairing>,
    /// `--paired-timeout S`: how long a paired run waits for its builds,
    /// where given (`run::paired::Waits` has the defaults).
    pub paired_timeout: Option<std::time::Duration>,
    /// `--fail-on-regression[=PCT]`.
    pub gate: RegressionGate,
    /// Noise thresholds and significance of comparisons.
    pub thresholds: Thresholds,
    /// `--noplot`: the HTML report without plots.
    pub noplot: bool,
    /// `--verbose`: the table's full block (every metric, its interval and
    /// per-unit figures) and the cost of measuring in its header.
    pub verbose: bool,
    /// `--profile[=EVENT]`: a sampling profile of each benchmark's routine
    /// after its last round.
    pub profile: Option<ProfileEvent>,
    /// `--mode per-iter`: each iteration bracketed by counter reads.
    pub per_iter: bool,
    /// `--subtract-overhead`: report values less the calibrated overhead.
    pub subtract_overhead: bool,
    /// What the environment set that the command line overrides and that
    /// would have been an error on its own, one line each.
    pub warnings: Vec<String>,
}

/// The measurement settings given to the whole run: by the command line or
/// the environment (`Some`), or by `--quick`. (`--events` is
/// [`RunOptions::events`], which is given where it is `Some`.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Given {
    /// `--quick`: shorter defaults.
    pub quick: bool,
    /// `--mode`: per-iteration (`true`) or batch.
    pub per_iter: Option<bool>,
    /// `--warm-up-time`.
    pub warm_up: Option<Duration>,
    /// `--measurement-time`.
    pub measurement: Option<Duration>,
    /// `--sample-count`.
    pub sample_count: Option<u64>,
    /// `--rounds`.
    pub rounds: Option<u64>,
}

impl RunOptions {
    /// How long and how often to measure a benchmark with these attribute
    /// settings. Each setting comes from the first of: the command line,
    /// the environment, `--quick`, the benchmark's attribute, the default.
    /// The attribute is the benchmark's own default; a setting given for
    /// the run is a request for every benchmark in it.
    pub fn config_for(&self, settings: &Settings) -> Config {
        let t = &self.given;
        let own = if t.quick {
            quick_config()
        } else {
            let d = Config::default();
            Config {
                warm_up: settings.warm_up.unwrap_or(d.warm_up),
                measurement: settings.measurement.unwrap_or(d.measurement),
                sample_count: settings.sample_count.unwrap_or(d.sample_count),
                ..d
            }
        };
        // A paired change is judged from blocks of rounds: a paired run
        // takes four times the rounds and samples, each round a quarter
        // of one, so that 20 blocks judge it in the same time.
        let paired = |n: u64| match self.paired_with {
            Some(_) => n.saturating_mul(PAIRED_SCALE).min(MAX_SAMPLE_COUNT),
            None => n,
        };
        Config {
            warm_up: t.warm_up.unwrap_or(own.warm_up),
            measurement: t.measurement.unwrap_or(own.measurement),
            sample_count: t.sample_count.unwrap_or(paired(own.sample_count)),
            rounds: t.rounds.unwrap_or(paired(Config::default().rounds)),
        }
    }

    /// What a benchmark with these attribute settings is measured with:
    /// its events as `--events` writes them (`None`: the default set) and
    /// whether in per-iteration mode. The command line or the environment
    /// win over the attribute, as for [`RunOptions::config_for`].
    pub fn wanted_setup(&self, settings: &Settings) -> Want {
        Want {
            events: (self.events.as_ref().map(|e| e.spec.clone()))
                .or(settings.events.map(String::from)),
            per_iter: self.given.per_iter.or(settings.per_iter).unwrap_or(false),
        }
    }
}

/// `--quick`'s settings (its line in `--help` is written from them).
fn quick_config() -> Config {
    Config {
        warm_up: Duration::from_millis(50),
        measurement: Duration::from_millis(200),
        sample_count: 20,
        ..Config::default()
    }
}

#[cfg(test)]
pub(crate) mod tests;
