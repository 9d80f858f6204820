//! What stops a run before its first benchmark: a user's mistake (events,
//! CPUs, baselines, a benchmark's own settings) or a store that cannot be
//! used. Each is one line, printed as `perfbench: error: …`, and the run
//! exits with the usage code.

use std::fmt;

use crate::counter::event::SpecError;
use crate::measure::{MeasureError, PinError};
use crate::output::format::quoted;
use crate::run::cli::SettingError;
use crate::run::paired::{PairedBuildError, PairedError};
use crate::store::StoreError;

/// Why a run cannot start.
#[derive(Debug)]
pub enum SetupError {
    /// Two benchmarks with one id (the registry's words).
    DuplicateId(String),
    /// A function's own setting beyond the command line's limits.
    Setting(SettingError),
    /// `--cpu` and `--cpu-type` both given.
    ConflictingPins,
    /// The thread cannot be pinned as asked (`--cpu`, `--cpu-type`,
    /// `--pin`, or a hybrid CPU's performance cores).
    Pin(PinError),
    /// Events that do not parse.
    Spec(SpecError),
    /// Events that do not open together.
    CounterGroups(String),
    /// Per-iteration mode asked of events that need more than one counter group:
    /// how many, and the events of each.
    PerIterCounterGroups {
        /// The counter groups they need.
        count: usize,
        /// The events, counter group by counter group, as one text.
        together: String,
    },
    /// Measuring the cost of measuring failed.
    Calibration(CalibrationError),
    /// The store refused: its lock, or the baseline to save.
    Store(StoreError),
    /// `--baseline NAME` names no saved baseline.
    BaselineNotFound {
        /// The name asked for.
        name: String,
        /// The store's folder.
        root: String,
        /// The baselines saved there.
        saved: Vec<String>,
    },
    /// The paired build cannot be had: `--baseline` given too, or its
    /// revision not found, checked out or built.
    PairedBuild(PairedBuildError),
    /// The two builds of a paired run cannot start.
    Paired(PairedError),
    /// An error of the setup that benchmark `id` asked for with its
    /// attributes (`asked`: `events = "…", mode = "per-iter"`).
    AskedBy {
        /// The benchmark.
        id: String,
        /// Its attributes that make the setup.
        asked: String,
        /// The error.
        error: Box<SetupError>,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::DuplicateId(why) => f.write_str(why),
            SetupError::PairedBuild(e) => write!(f, "{e}"),
            SetupError::Paired(e) => write!(f, "{e}"),
            SetupError::Setting(e) => write!(f, "{e}"),
            SetupError::ConflictingPins => {
                f.write_str("--cpu and --cpu-type exclude each other")
            }
            SetupError::Pin(e) => write!(f, "{e}"),
            SetupError::Spec(e) => write!(f, "{e}"),
            SetupError::CounterGroups(e) => write!(
                f,
                "{e} (together with the other events: a PMU holds only so many counters at once; ask for fewer)"
            ),
            SetupError::PerIterCounterGroups { count, together } => write!(
                f,
                "per-iteration mode needs events that fit one counter group; these need {count}: {together}"
            ),
            SetupError::Calibration(e) => write!(f, "{e}"),
            SetupError::Store(e) => write!(f, "{e}"),
            SetupError::BaselineNotFound { name, root, saved } => {
                not_found(f, name, root, saved)
            }
            SetupError::AskedBy { id, asked, error } => {
                write!(f, "benchmark `{id}` ({asked}): {error}")
            }
        }
    }
}

impl std::error::Error for SetupError {}

impl From<StoreError> for SetupError {
    fn from(e: StoreError) -> Self {
        SetupError::Store(e)
    }
}

impl From<CalibrationError> for SetupError {
    fn from(e: CalibrationError) -> Self {
        SetupError::Calibration(e)
    }
}

/// `--baseline name` missing from the store at `root`, which holds the
/// baselines `saved`: folder names there, which a restored store may have
/// made anything, so each is quoted (escaped and cut).
fn not_found(f: &mut fmt::Formatter<'_>, name: &str, root: &str, saved: &[String]) -> fmt::Result {
    let saved: Vec<String> = saved.iter().map(|s| format!("`{}`", quoted(s))).collect();
    write!(
        f,
        "baseline `{}` not found under {} (saved baselines: {})",
        quoted(name),
        quoted(root),
        if saved.is_empty() {
            "none".to_string()
        } else {
            saved.join(", ")
        }
    )
}

/// Measuring an empty routine, the cost of measuring, failed.
#[derive(Debug)]
pub struct CalibrationError(pub MeasureError);

impl fmt::Display for CalibrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "calibrating on an empty routine: {}", self.0)
    }
}

impl std::error::Error for CalibrationError {}

impl From<MeasureError> for CalibrationError {
    fn from(e: MeasureError) -> Self {
        CalibrationError(e)
    }
}
