//! What is wrong with the command line or a `PERFBENCH_*` variable, as a
//! type: each error names its culprit (the flag as the user spelled it, the
//! variable, the value) and prints as one line, the value quoted escaped
//! and cut ([`quoted`]), since a value may hold anything. A benchmark's own
//! settings beyond the same limits are a [`SettingError`].

use std::fmt;

use crate::counter::event::SpecError;
use crate::output::format::{quoted, thousands};
use crate::store::BadBaselineName;

use super::values::{MAX_PERCENT, MAX_SECONDS};

/// A usage error: the run stops before measuring, with exit code 2.
#[derive(Debug)]
pub enum UsageError {
    /// A flag's value it does not take: `--cpu takes a whole number, not `x``.
    Value {
        /// The flag, `--cpu`, or what the value is for (`FILTER`).
        flag: String,
        /// What it takes.
        expected: Expected,
        /// The value, raw.
        value: String,
    },
    /// An `--output-file` path no file can be written at.
    Unwritable {
        /// The flag.
        flag: String,
        /// The path.
        path: String,
        /// Why not.
        why: Unwritable,
    },
    /// An `--output-file` path that names a file given earlier; `given` is
    /// the earlier spelling.
    GivenTwice {
        /// The flag.
        flag: String,
        /// The earlier path.
        given: String,
        /// This path.
        path: String,
    },
    /// A value that is not UTF-8 (shown lossily), for `what`.
    NotUtf8 {
        /// The flag as spelled (`--cpu`), or `FILTER`.
        what: String,
        /// The value, lossily.
        value: String,
    },
    /// An `--events` list that does not parse.
    Events(SpecError),
    /// A `--profile=EVENT` that does not parse.
    ProfileEvent(SpecError),
    /// A baseline name the store refuses.
    BaselineName(BadBaselineName),
    /// A switch's variable that is neither 1 nor 0 (nor their words).
    Switch(String),
    /// An unknown `--name` and what to write instead.
    UnknownOption {
        /// The name, without `--`.
        name: String,
        /// What to write instead.
        hint: String,
    },
    /// An unknown `-c` and what to write instead.
    UnknownShort {
        /// The letter.
        letter: char,
        /// What to write instead.
        hint: String,
    },
    /// The command line's shape: a missing value, an unexpected one.
    Parser(lexopt::Error),
    /// The error of a `PERFBENCH_*` variable's value.
    Variable {
        /// The variable.
        var: String,
        /// Its error.
        error: Box<UsageError>,
    },
    /// The error of a flag given by another spelling (`--sample-size`,
    /// `-s`).
    Alias {
        /// The spelling, `--sample-size` or `-s`.
        alias: String,
        /// The error of the flag it stands for.
        error: Box<UsageError>,
    },
    /// Two flags asking opposite things (Criterion's `--discard-baseline`
    /// and `--save-baseline`).
    Contradicts {
        /// The flag.
        flag: &'static str,
        /// The one it contradicts.
        other: &'static str,
    },
    /// A flag given without another it needs (Criterion's
    /// `--load-baseline` without `--baseline`).
    Needs {
        /// The flag.
        flag: &'static str,
        /// What it needs.
        needs: &'static str,
    },
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsageError::Value {
                flag,
                expected,
                value,
            } => write!(f, "{flag} takes {expected}, not `{}`", quoted(value)),
            UsageError::Unwritable { flag, path, why } => {
                write!(f, "{flag}: `{}` {why}", quoted(path))
            }
            UsageError::GivenTwice { flag, given, path } if given == path => {
                write!(f, "{flag}: `{}` is given twice", quoted(path))
            }
            UsageError::GivenTwice { flag, given, path } => write!(
                f,
                "{flag}: `{}` and `{}` are one file, given twice",
                quoted(path),
                quoted(given)
            ),
            UsageError::NotUtf8 { what, value } => {
                write!(f, "{what}: `{}` is not valid UTF-8", quoted(value))
            }
            UsageError::Events(e) => write!(f, "--events: {e}"),
            UsageError::ProfileEvent(e) => write!(f, "--profile: {e}"),
            UsageError::BaselineName(why) => write!(f, "{why}"),
            UsageError::Switch(value) => {
                write!(f, "a switch takes 1 or 0, not `{}`", quoted(value))
            }
            UsageError::UnknownOption { name, hint } => {
                write!(f, "unknown option `--{}` ({hint})", quoted(name))
            }
            UsageError::UnknownShort { letter, hint } => {
                let letter = letter.to_string();
                write!(f, "unknown option `-{}` ({hint})", quoted(&letter))
            }
            UsageError::Parser(e) => write!(f, "{e}"),
            UsageError::Variable { var, error } => write!(f, "{var}: {error}"),
            UsageError::Alias { alias, error } => write!(f, "{alias}: {error}"),
            UsageError::Contradicts { flag, other } => {
                write!(f, "{flag} contradicts {other}, as in Criterion: give one")
            }
            UsageError::Needs { flag, needs } => {
                write!(f, "{flag} needs {needs}, as in Criterion")
            }
        }
    }
}

impl std::error::Error for UsageError {}

/// What a flag's value must be, as its error says after `takes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Any whole number.
    Number,
    /// A whole number from 1 to this.
    Whole(u64),
    /// Seconds from 0 to a day.
    Seconds,
    /// Seconds above 0, up to a day.
    PositiveSeconds,
    /// A percentage from 0 to [`MAX_PERCENT`].
    Percent,
    /// Criterion's fraction (`0.05`), or a percentage with `%`, up to
    /// [`MAX_PERCENT`] %.
    FractionOrPercent,
    /// A number strictly between 0 and 1 (Criterion's levels).
    Level,
    /// One of these words, written `a | b`.
    OneOf(Vec<&'static str>),
    /// A bench binary's path.
    BinaryPath,
    /// A git revision.
    Revision,
    /// `FORMAT=PATH`.
    FormatAndPath,
    /// One event in perf's spelling.
    OneEvent,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Number => f.write_str("a whole number"),
            Expected::Whole(max) => {
                write!(f, "a whole number from 1 to {}", thousands(*max as f64))
            }
            Expected::Seconds => {
                write!(f, "seconds from 0 to {MAX_SECONDS} (e.g. 0.5 or 500ms)")
            }
            Expected::PositiveSeconds => {
                write!(f, "seconds above 0, up to {MAX_SECONDS} (e.g. 5 or 500ms)")
            }
            Expected::Percent => {
                write!(f, "a percentage from 0 to {MAX_PERCENT}, such as 5 or 2.5%")
            }
            Expected::FractionOrPercent => write!(
                f,
                "a fraction from 0 to {}, such as 0.05, or a percentage such as 5%",
                MAX_PERCENT / 100.0
            ),
            Expected::Level => f.write_str("a number between 0 and 1, such as 0.95"),
            Expected::OneOf(choices) => f.write_str(&choices.join(" | ")),
            Expected::BinaryPath => f.write_str("the path of a bench binary"),
            Expected::Revision => f.write_str("a git revision (a branch, tag or commit)"),
            Expected::FormatAndPath => f.write_str("FORMAT=PATH"),
            Expected::OneEvent => f.write_str("one event (e.g. cycles, cache-misses or cpu-clock)"),
        }
    }
}

/// Why no file can be written at an `--output-file` path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unwritable {
    /// Nothing after the `=`.
    NoPath,
    /// A folder is there.
    Folder,
    /// Something that is not a regular file is there: the output layer's
    /// words ([`crate::output::destination::refusal`]).
    NotAFile(String),
    /// Its folder (quoted here) does not exist.
    NoFolder(String),
}

impl fmt::Display for Unwritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unwritable::NoPath => f.write_str("is no path: give a file's after the `=`"),
            Unwritable::Folder => f.write_str("is a folder: give a file's path"),
            Unwritable::NotAFile(why) => f.write_str(why),
            Unwritable::NoFolder(folder) => {
                write!(f, "is in no folder: `{}` does not exist", quoted(folder))
            }
        }
    }
}

/// A benchmark's own setting (its attribute's value the macro could not
/// check) beyond the command line's limits, naming the function.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingError {
    /// `sample_count` out of 1 to the most samples.
    SampleCount {
        /// The function's path.
        function: String,
        /// The count.
        count: u64,
        /// The most it may be.
        max: u64,
    },
    /// A time (`warm_up_time`, `measurement_time`) beyond a day.
    Time {
        /// The function's path.
        function: String,
        /// The attribute's key.
        key: &'static str,
        /// The seconds.
        seconds: f64,
    },
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingError::SampleCount {
                function,
                count,
                max,
            } => write!(
                f,
                "`{function}`: sample_count takes a whole number from 1 to {}, not {count}",
                thousands(*max as f64)
            ),
            SettingError::Time {
                function,
                key,
                seconds,
            } => write!(
                f,
                "`{function}`: {key} takes seconds from 0 to {MAX_SECONDS}, not {seconds}"
            ),
        }
    }
}

impl std::error::Error for SettingError {}
