//! libtest's bench lines (`--output-format bencher`), for tools that read
//! them.

use super::format::thousands;
use crate::analysis::BenchResult;

/// One benchmark as libtest's bench line, for tools that read those:
/// `test ID ... bench:       1,234 ns/iter (+/- 56)` from the wall time,
/// with the spread of the samples' per-iteration times.
pub fn bencher_line(r: &BenchResult) -> String {
    let wall = &r.metrics[0];
    format!(
        "test {} ... bench: {:>11} ns/iter (+/- {})",
        r.id,
        thousands(wall.estimate().point),
        thousands(wall.stats.max - wall.stats.min)
    )
}
