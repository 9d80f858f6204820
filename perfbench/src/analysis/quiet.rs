//! Which metrics a reader can pass over: counts that are zero, or rare (an
//! event in more than a thousand iterations), such as the context
//! switches and CPU migrations of a short routine. The terminal table and
//! the report fold them into one line naming them, and show their changes
//! only where judged a regression or an improvement; JSON lines and stored
//! results keep them whole.

use crate::counter::event::Unit;
use crate::stats::Estimate;

/// Below this many events per iteration, at the estimate and both ends of
/// its interval, a count is rare.
pub const RARE_PER_ITERATION: f64 = 1e-3;

/// Whether a metric of `unit` estimated at `estimate` per iteration is a
/// count that is zero or rare; times never are.
pub fn is_quiet(unit: Unit, estimate: &Estimate) -> bool {
    unit == Unit::Count
        && [estimate.point, estimate.ci.low, estimate.ci.high]
            .iter()
            .all(|v| v.abs() < RARE_PER_ITERATION)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::estimate;

    #[test]
    fn zero_and_rare_counts_are_quiet_and_times_never() {
        assert!(is_quiet(Unit::Count, &estimate(0.0, 0.0, 0.0)));
        assert!(is_quiet(Unit::Count, &estimate(7.3e-7, -3e-6, 5e-6)));
        assert!(!is_quiet(Unit::Count, &estimate(0.004, 0.003, 0.005)));
        // A rare estimate whose interval reaches a real rate is not.
        assert!(!is_quiet(Unit::Count, &estimate(2e-4, -0.5, 0.6)));
        assert!(!is_quiet(Unit::Nanoseconds, &estimate(0.0, 0.0, 0.0)));
    }
}
