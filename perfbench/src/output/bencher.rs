//! libtest's bench lines (`--output-format bencher`), for tools that read
//! them.

use crate::analysis::BenchResult;

/// One benchmark as libtest's bench line, for tools that read those:
/// `test ID ... bench:       1,234 ns/iter (+/- 56)` from the wall time,
/// with the spread of the samples' per-iteration times.
pub fn bencher_line(r: &BenchResult) -> String {
    let wall = &r.metrics[0];
    let grouped = |v: f64| {
        let digits = format!("{:.0}", v.max(0.0));
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    format!(
        "test {} ... bench: {:>11} ns/iter (+/- {})",
        r.id,
        grouped(wall.estimate().point),
        grouped(wall.stats.max - wall.stats.min)
    )
}
