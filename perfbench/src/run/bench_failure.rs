//! Why a benchmark failed: one line, printed after its id where the run
//! names the benchmark (`perfbench: error: benchmark `id` panicked at …`,
//! `… `id`: calibrating on an empty routine: …`).

use std::fmt;

use crate::measure::MeasureError;
use crate::run::paired::PairedError;
use crate::run::panics::Panic;
use crate::run::setup_error::CalibrationError;

/// Why a benchmark failed.
#[derive(Debug)]
pub enum BenchFailure {
    /// Its routine panicked.
    Panicked(Panic),
    /// Listing its benchmarks panicked; the second field says in what
    /// (`listing its cases: `args` or an argument's `Display``).
    ListingPanicked(Panic, &'static str),
    /// Measuring it failed.
    Measure(MeasureError),
    /// Measuring the cost of measuring through its `Bencher` method failed.
    Calibration(CalibrationError),
    /// A build of a paired run failed it, or the build broke.
    Paired(PairedError),
    /// Its suite did not reach it in this round (from 1): a Criterion
    /// suite whose group function benchmarks it only some of the times
    /// it runs.
    NotReached(u64),
}

impl BenchFailure {
    /// What stands between the id and the failure: a space before
    /// `panicked at …`, a colon before the rest.
    pub fn after_id(&self) -> &'static str {
        match self {
            BenchFailure::Panicked(_) | BenchFailure::ListingPanicked(..) => " ",
            BenchFailure::Paired(e) => e.after_id(),
            _ => ": ",
        }
    }
}

impl fmt::Display for BenchFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchFailure::Panicked(p) => write!(f, "{p}"),
            BenchFailure::ListingPanicked(p, doing) => write!(f, "{p} ({doing})"),
            BenchFailure::Measure(e) => write!(f, "{e}"),
            BenchFailure::Calibration(e) => write!(f, "{e}"),
            BenchFailure::Paired(e) => write!(f, "{e}"),
            BenchFailure::NotReached(round) => write!(
                f,
                "its suite did not run it in round {round}, though it was listed (a group \
                 function that benchmarks it only some of the times it runs)"
            ),
        }
    }
}

impl std::error::Error for BenchFailure {}

impl From<MeasureError> for BenchFailure {
    fn from(e: MeasureError) -> Self {
        BenchFailure::Measure(e)
    }
}

impl From<CalibrationError> for BenchFailure {
    fn from(e: CalibrationError) -> Self {
        BenchFailure::Calibration(e)
    }
}
