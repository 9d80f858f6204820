//! libtest's bench lines (`--output-format bencher`), for tools that read
//! them.

use super::format::{printable, thousands};
use crate::analysis::derived::rate;
use crate::analysis::BenchResult;
use crate::measure::Throughput;

/// One benchmark as libtest's bench line, for tools that read those:
/// `test ID ... bench:       1,234 ns/iter (+/- 56) = 830 MB/s` from the
/// wall time, with the spread of the samples' per-iteration times, and
/// where the benchmark declared bytes per iteration, their rate in
/// decimal megabytes per second (left out when it rounds to 0, as libtest
/// does; libtest has no elements, so neither has this line).
pub fn bencher_line(r: &BenchResult) -> String {
    let wall = &r.metrics[0];
    let mut line = format!(
        "test {} ... bench: {:>11} ns/iter (+/- {})",
        printable(&r.id),
        thousands(wall.estimate().point),
        thousands(wall.stats.max - wall.stats.min)
    );
    let megabytes = rate(r)
        .filter(|rate| matches!(rate.work, Throughput::Bytes(_)))
        .map(|rate| (rate.per_second.point / 1e6).round())
        .filter(|&mb| mb >= 1.0);
    if let Some(mb) = megabytes {
        line.push_str(&format!(" = {mb:.0} MB/s"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::exact_result;
    use crate::counter::event::Unit;

    #[test]
    fn declared_bytes_add_their_rate_in_megabytes_per_second_as_libtest_does() {
        let mut r = exact_result("x", &[("wall-time", Unit::Nanoseconds, 4000.0)]);
        let plain = "test x ... bench:       4,000 ns/iter (+/- 0)";
        assert_eq!(bencher_line(&r), plain);
        r.throughput = Some(Throughput::Bytes(10_000));
        assert_eq!(bencher_line(&r), format!("{plain} = 2500 MB/s"));
        // Below 1 MB/s libtest leaves the rate out; it has no elements.
        r.throughput = Some(Throughput::Bytes(1));
        assert_eq!(bencher_line(&r), plain);
        r.throughput = Some(Throughput::Elements(10_000));
        assert_eq!(bencher_line(&r), plain);
    }
}
