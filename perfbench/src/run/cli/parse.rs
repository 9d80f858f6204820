//! The parser: the environment twins, then the command line, through the
//! flag table into [`Parsed`] (what was written, flag by flag), which is
//! then settled into [`RunOptions`] — enums instead of the switches that
//! together decide them, and `--quick` under the settings given.

use std::ffi::OsString;
use std::time::Duration;

use crate::analysis::comparison::Thresholds;
use crate::measure::Config;
use crate::output::Color;
use crate::run::paired::protocol::CHILD_VARIABLE;
use crate::run::registry::{Ignored, Settings};

use super::flags::{all, resolve, resolve_short, Flag, Takes};
use super::hints::{unknown_option, unknown_short};
use super::usage_error::UsageError;
use super::values::{boolean, string};
use super::{
    Action, Dialect, EventsAsked, Filter, Given, OutputFormat, Pairing, Pinning, ProfileEvent,
    RegressionGate, RunMode, RunOptions,
};

/// What the flags wrote, before it is settled into [`RunOptions`]: one
/// field per flag, as the flag table sets it.
#[derive(Default)]
pub(super) struct Parsed {
    pub(super) bench: bool,
    pub(super) test: bool,
    pub(super) help: bool,
    pub(super) list: bool,
    pub(super) terse: bool,
    pub(super) list_events: bool,
    pub(super) filters: Vec<String>,
    pub(super) skip: Vec<String>,
    pub(super) exact: bool,
    pub(super) ignored: bool,
    pub(super) include_ignored: bool,
    pub(super) events: Option<EventsAsked>,
    pub(super) cpu: Option<usize>,
    pub(super) cpu_type: Option<String>,
    pub(super) pin: bool,
    pub(super) no_pin: bool,
    pub(super) quick: bool,
    pub(super) warm_up: Option<Duration>,
    pub(super) measurement: Option<Duration>,
    pub(super) sample_count: Option<u64>,
    pub(super) rounds: Option<u64>,
    pub(super) per_iter: Option<bool>,
    pub(super) profile_time: Option<Duration>,
    pub(super) output_format: Option<OutputFormat>,
    pub(super) output_files: Vec<(OutputFormat, std::path::PathBuf)>,
    pub(super) color: Option<Color>,
    pub(super) save_baseline: Option<String>,
    pub(super) baseline: Option<String>,
    pub(super) paired_with: Option<Pairing>,
    pub(super) paired_timeout: Option<Duration>,
    pub(super) gate: RegressionGate,
    pub(super) thresholds: Thresholds,
    pub(super) noplot: bool,
    pub(super) verbose: bool,
    pub(super) profile: Option<ProfileEvent>,
    pub(super) subtract_overhead: bool,
    /// Whose meaning the command line's flags have (the twins are always
    /// perfbench's).
    pub(super) dialect: Dialect,
    /// libtest's and Criterion's `--quiet`.
    pub(super) quiet: bool,
    /// Criterion's `--load-baseline NAME`, which needs `--baseline`.
    pub(super) load_baseline: bool,
    /// Criterion's `--discard-baseline`, which `--save-baseline` contradicts.
    pub(super) discard_baseline: bool,
    /// What a flag given could not do here, one line each, said once.
    pub(super) notes: Vec<String>,
}

impl Parsed {
    /// Says `note` when the run starts, once however often it is given.
    pub(super) fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }
}

/// Parses `args` (without the program name) and the `PERFBENCH_*` variables
/// `env` gives; the command line wins. A variable whose value is wrong is
/// an error naming it, unless the command line gives its flag: then it is
/// a warning in [`RunOptions::warnings`], as is what a flag given cannot
/// do here.
pub fn parse(
    args: impl IntoIterator<Item = OsString>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<RunOptions, UsageError> {
    parse_in(Dialect::Perfbench, args, env)
}

/// [`parse`] with the command line read in `dialect`: a Criterion
/// suite's (`criterion_main!`, [`Dialect::Criterion`]) reads the flags its
/// scripts pass as Criterion does where perfbench spells them alike and
/// reads them otherwise.
pub fn parse_in(
    dialect: Dialect,
    args: impl IntoIterator<Item = OsString>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<RunOptions, UsageError> {
    let mut p = Parsed::default();
    // A paired run's serving builds are given this command line too: the
    // driving build says its notes.
    let serving = env(CHILD_VARIABLE).is_some();
    let wrong = apply_environment(&mut p, env);
    p.dialect = dialect;
    let given = apply_arguments(&mut p, args)?;
    if p.load_baseline && p.baseline.is_none() {
        return Err(UsageError::Needs {
            flag: "--load-baseline",
            needs: "--baseline NAME",
        });
    }
    // As in Criterion, the two refuse each other on the command line; a
    // PERFBENCH_SAVE_BASELINE the command line's discarding overrides.
    if p.discard_baseline {
        if given.contains(&"save-baseline") {
            return Err(UsageError::Contradicts {
                flag: "--discard-baseline",
                other: "--save-baseline",
            });
        }
        p.save_baseline = None;
    }
    let mut warnings = Vec::new();
    for (flag, error) in wrong {
        if !given.contains(&flag) {
            return Err(error);
        }
        warnings.push(format!("{error} (ignored: --{flag} is given)"));
    }
    let notes = if serving { Vec::new() } else { notes(&p) };
    let mut o = settle(p);
    warnings.extend(notes);
    o.warnings = warnings;
    Ok(o)
}

/// Applies the `PERFBENCH_*` twin of every flag that `env` sets: switches
/// take 1 or 0, `PERFBENCH_FAIL_ON_REGRESSION` also a percentage. Returns
/// the flags whose variable is wrong, each with its error.
fn apply_environment(
    p: &mut Parsed,
    env: impl Fn(&str) -> Option<String>,
) -> Vec<(&'static str, UsageError)> {
    let mut wrong = Vec::new();
    for flag in all() {
        let Some(var) = flag.twin() else { continue };
        let Some(value) = env(&var) else { continue };
        if let Err(e) = apply_variable(p, flag, &value) {
            let error = Box::new(e);
            wrong.push((flag.name, UsageError::Variable { var, error }));
        }
    }
    wrong
}

/// Applies `flag`'s variable, set to `value`.
fn apply_variable(p: &mut Parsed, flag: &Flag, value: &str) -> Result<(), UsageError> {
    let what = format!("--{}", flag.name);
    match flag.takes {
        Takes::Optional(_, set) => match value.trim().to_ascii_lowercase().as_str() {
            "0" | "false" | "no" | "off" => Ok(()),
            "" | "1" | "true" | "yes" | "on" => set(p, "", &what),
            _ => set(p, value, &what),
        },
        Takes::Value(_, set) => set(p, value, &what),
        Takes::Nothing(set) => {
            if boolean(value)? {
                set(p);
            }
            Ok(())
        }
    }
}

/// Applies the command line: flags, long and one-letter, and filters.
/// Returns the flags it gave (by their names, not their aliases).
fn apply_arguments(
    p: &mut Parsed,
    args: impl IntoIterator<Item = OsString>,
) -> Result<Vec<&'static str>, UsageError> {
    use lexopt::Arg;
    let mut given = Vec::new();
    let mut parser = lexopt::Parser::from_args(args);
    while let Some(arg) = parser.next().map_err(UsageError::Parser)? {
        match arg {
            Arg::Long(name) => {
                let name = name.to_string();
                let (flag, alias) = resolve(&name).ok_or_else(|| unknown_option(&name))?;
                let spelled = format!("--{name}");
                given.push(apply_flag(p, &mut parser, flag, &spelled, alias)?);
            }
            Arg::Short(c) => {
                let flag = resolve_short(c).ok_or_else(|| unknown_short(c))?;
                given.push(apply_flag(p, &mut parser, flag, &format!("-{c}"), true)?);
            }
            Arg::Value(v) => {
                let v = string(v, "FILTER")?;
                p.filters.push(v);
            }
        }
    }
    Ok(given)
}

/// Applies `flag`, `spelled` so on the command line (`alias`: not as
/// `--name`), taking its value from `parser` where it has one; returns
/// the flag's name.
fn apply_flag(
    p: &mut Parsed,
    parser: &mut lexopt::Parser,
    flag: &'static Flag,
    spelled: &str,
    alias: bool,
) -> Result<&'static str, UsageError> {
    let what = format!("--{}", flag.name);
    let set = match flag.takes {
        Takes::Nothing(set) => {
            set(p);
            Ok(())
        }
        Takes::Optional(_, set) => {
            let value = match parser.optional_value() {
                Some(v) => string(v, spelled)?,
                None => String::new(),
            };
            set(p, &value, &what)
        }
        Takes::Value(_, set) => {
            let value = parser.value().map_err(UsageError::Parser)?;
            let value = string(value, spelled)?;
            set(p, &value, &what)
        }
    };
    // Errors name the flag; say which the user's spelling stands for.
    set.map_err(|e| match alias {
        true => UsageError::Alias {
            alias: spelled.into(),
            error: Box::new(e),
        },
        false => e,
    })?;
    Ok(flag.name)
}

/// The options, settled: what the run does, how it selects and pins, the
/// regression gate, and the timing settings with `--quick` under those
/// given.
fn settle(p: Parsed) -> RunOptions {
    let given = Given {
        quick: p.quick,
        per_iter: p.per_iter,
        warm_up: p.warm_up,
        measurement: p.measurement,
        sample_count: p.sample_count,
        rounds: p.rounds,
    };
    let mut o = RunOptions {
        action: action(&p),
        filter: filter(&p),
        events: p.events.clone(),
        pinning: pinning(&p),
        config: Config {
            rounds: p.rounds.unwrap_or(Config::default().rounds),
            ..Config::default()
        },
        given,
        output_format: p.output_format.unwrap_or(OutputFormat::Pretty),
        output_files: p.output_files,
        color: p.color.unwrap_or(Color::Auto),
        save_baseline: p.save_baseline,
        baseline: p.baseline,
        paired_with: p.paired_with,
        paired_timeout: p.paired_timeout,
        gate: p.gate,
        thresholds: p.thresholds,
        noplot: p.noplot,
        verbose: p.verbose,
        profile: p.profile,
        per_iter: p.per_iter.unwrap_or(false),
        subtract_overhead: p.subtract_overhead,
        warnings: Vec::new(),
    };
    o.config = o.config_for(&Settings::NONE);
    o
}

/// What the run does: `--help` before `--list-events` before `--list`
/// before running, and, running, test mode before profiling before
/// measuring (as in Criterion).
fn action(p: &Parsed) -> Action {
    if p.help {
        return Action::Help;
    }
    if p.list_events {
        return Action::ListEvents;
    }
    if p.list {
        return Action::List { terse: p.terse };
    }
    Action::Run(match (p.bench && !p.test, p.profile_time) {
        (true, Some(time)) => RunMode::Profile(time),
        (true, None) => RunMode::Bench,
        (false, _) => RunMode::Test,
    })
}

/// Which benchmarks run: `--ignored` wins over `--include-ignored`.
fn filter(p: &Parsed) -> Filter {
    let ignored = if p.ignored {
        Ignored::Only
    } else if p.include_ignored {
        Ignored::Included
    } else {
        Ignored::Skipped
    };
    Filter {
        patterns: p.filters.clone(),
        skip: p.skip.clone(),
        exact: p.exact,
        ignored,
    }
}

/// How to pin: `--no-pin` wins over everything, `--cpu` over `--pin`
/// (`--cpu` with `--cpu-type` is [`Pinning::Conflicting`], refused when
/// the run pins).
fn pinning(p: &Parsed) -> Pinning {
    if p.no_pin {
        return Pinning::Off;
    }
    match (&p.cpu_type, p.cpu) {
        (Some(_), Some(_)) => Pinning::Conflicting,
        (_, Some(cpu)) => Pinning::Cpu(cpu),
        (Some(kind), None) => Pinning::CoreType(kind.clone()),
        (None, None) if p.pin => Pinning::StartingCpu,
        (None, None) => Pinning::Auto,
    }
}

/// What the flags given cannot do here, one line each: the notes their
/// values left, Criterion's `--quiet` when measuring (the table has no
/// quieter form), and, read as Criterion's, a filter written as a
/// regular expression, which perfbench matches as text.
fn notes(p: &Parsed) -> Vec<String> {
    let mut notes = p.notes.clone();
    if p.dialect != Dialect::Criterion {
        return notes;
    }
    if p.quiet && action(p) == Action::Run(RunMode::Bench) {
        notes.push("--quiet has no effect: perfbench's table has no quieter form".into());
    }
    let regex = |f: &&String| f.contains(['^', '$', '*', '+', '?', '(', '[', '{', '|', '\\']);
    if let Some(filter) = p.filters.iter().find(regex) {
        notes.push(format!(
            "the filter `{filter}` is matched as text, not as Criterion's regular expression: \
             an id is selected where it contains the filter (--exact: where it is the filter)"
        ));
    }
    notes
}
