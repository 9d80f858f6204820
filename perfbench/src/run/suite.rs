//! A bench target's benchmarks as the run reaches them: what it declares,
//! and each routine, handed over only while the suite runs it.
//!
//! The functions `#[perfbench]` registers live as long as the program
//! ([`crate::run::registry::Registered`]); a Criterion-style suite's
//! routines are closures that live only inside the call that benchmarks
//! them. So the run never keeps a routine: it asks the suite to visit its
//! benchmarks, once per round, and measures each in the visit.

use crate::run::bench::Routine;
use crate::run::cli::Dialect;
use crate::run::registry::{Entry, Registry};

/// The benchmarks of a bench target.
pub trait Suite {
    /// Every benchmark it declares, in the order a visit reaches them,
    /// and what could not be listed.
    fn declared(&self) -> Registry;

    /// Calls `each` with every declared benchmark and its routine, in
    /// order; the routine may be called any number of times inside the
    /// call, never after it. A suite may reach a benchmark it did not
    /// declare, or miss one: the run says so.
    fn visit(&self, each: &mut dyn FnMut(&Entry, Routine<'_>));

    /// The command-line arguments its code gives (a Criterion config's
    /// `save_baseline`, `noise_threshold`, …), read before the command
    /// line's, whose flags win. None by default.
    fn arguments(&self) -> Vec<String> {
        Vec::new()
    }

    /// The dialect its command line is read in: a Criterion suite's
    /// scripts pass flags as Criterion reads them.
    fn dialect(&self) -> Dialect {
        Dialect::Perfbench
    }
}
