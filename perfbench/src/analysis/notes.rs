//! What a reader must know to trust a result, in words every output shows
//! the same way.

use super::{Fit, Metric, MetricKey, Recording, ResultView};

/// Wall time beyond this multiple of task-clock, with both intervals
/// agreeing, means the thread was off the CPU for a good part of the time.
pub const OFF_CPU_RATIO: f64 = 1.25;

/// Wall time over task-clock, where the thread was clearly off the CPU
/// while the routine ran: the lower bound of wall time's interval is
/// [`OFF_CPU_RATIO`] times the upper bound of task-clock's or more.
/// `None` where task-clock was not measured. With `threads` running at
/// once, task-clock is their total, and the wall time is counted once per
/// thread: `threads` busy threads give a ratio of 1.
pub fn off_cpu_ratio(metrics: &[Metric], threads: usize) -> Option<f64> {
    let find = |key: MetricKey| key.find_in(metrics, |m| &m.name).map(Metric::estimate);
    let (wall, task) = (find(MetricKey::WallTime)?, find(MetricKey::TaskClock)?);
    let threads = threads as f64;
    (task.point > 0.0 && threads * wall.ci.low >= OFF_CPU_RATIO * task.ci.high)
        .then(|| threads * wall.point / task.point)
}

/// `s` for a count other than one: `1 benchmark`, `2 benchmarks`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `n` and the noun, singular or plural: `1 benchmark`, `3 benchmarks`.
///
/// ```
/// use perfbench::analysis::notes::count;
/// assert_eq!(count(1, "test"), "1 test");
/// assert_eq!(count(0, "test"), "0 tests");
/// ```
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n))
}

/// A number with four significant digits, as a table shows it.
pub fn four_digits(v: f64) -> String {
    let v = no_negative_zero(v);
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 1.0 || a == 0.0 {
        format!("{v:.3}")
    } else if a >= 1e-3 {
        format!("{v:.4}")
    } else {
        // A rare event per iteration: `0.0000` would say it never happens.
        format!("{v:.3e}")
    }
}

/// `v`, but `0` for `-0`: a count that cancels to nothing (a rate
/// between two runs, a cost less the calibration) prints as `0`.
pub fn no_negative_zero(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// A whole number with commas between thousands, libtest's way:
/// `1,234,567` (rounded; below zero is 0).
pub fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The warning of a benchmark all of whose samples the kernel multiplexed
/// (in per-iteration mode, disturbed), so that none could be left out: its
/// counts cover only the time the group was on the PMU and are not scaled,
/// so they undercount. The group was made to fit the PMU alone, so another
/// user of the counters took some (a pinned event, another perf session,
/// the NMI watchdog), or the PMU holds fewer than the kernel accepted.
pub fn multiplexed_warning(run: &Recording) -> Option<String> {
    if run.multiplexed_samples == 0 || run.multiplexed_samples < run.samples() {
        return None;
    }
    let noun = if run.read_path.is_some() {
        "iteration"
    } else {
        "sample"
    };
    Some(format!(
        "{}: the kernel multiplexed the counters in every {noun} ({}), so its counts cover only \
         the time they were on the PMU and undercount (not scaled); measure fewer events at once \
         (`--events` naming fewer), or free the counters something else holds (another perf \
         session, the NMI watchdog: `sysctl kernel.nmi_watchdog=0`)",
        run.id,
        count(run.multiplexed_samples, noun)
    ))
}

/// The caveats of `r`, one sentence each: what an iteration is on several
/// threads, counters multiplexed, samples that no line fits, a thread off
/// the CPU.
pub fn notes(r: ResultView<'_>) -> Vec<String> {
    let run = r.recording;
    let mut notes = Vec::new();
    if run.threads > 1 {
        notes.push(format!(
            "{} threads: an iteration is one call on each of them at once; counts are totals \
             over the threads, wall time is the iteration's",
            run.threads
        ));
    }
    if run.multiplexed_samples > 0 {
        notes.push(format!(
            "the kernel multiplexed the counters in {} of {}; counts are not scaled",
            run.multiplexed_samples,
            count(run.samples(), "sample")
        ));
    }
    if run.left_out > 0 {
        // Per-iteration mode leaves out iterations, batch mode samples.
        let (what, noun) = match run.read_path {
            Some(_) => ("multiplexed or rescheduled", "iteration"),
            None => ("multiplexed", "sample"),
        };
        notes.push(format!(
            "the kernel {what} the counters during {} of {}; they are left out",
            run.left_out,
            count(run.samples() + run.left_out, noun)
        ));
    }
    if run.samples() < 3 && r.metrics.iter().all(|m| m.rounds.rounds.len() < 2) {
        notes.push(format!(
            "{} in one round: too few to show the spread, so the intervals say little; \
             more samples (--sample-count) or time (--measurement-time) tell more",
            count(run.samples(), "sample")
        ));
    }
    notes.extend(fit_notes(r));
    notes
}

/// The caveats of `r`'s fits: samples far off a line, a thread off the
/// CPU.
fn fit_notes(r: ResultView<'_>) -> Vec<String> {
    let mut notes = Vec::new();
    let poor: Vec<String> = r
        .metrics
        .iter()
        .filter_map(|m| match &m.fit {
            Fit::Poor { why, .. } => Some(format!("{} ({})", m.name, why.describe())),
            Fit::Good | Fit::Rare { .. } | Fit::Median { .. } => None,
        })
        .collect();
    if !poor.is_empty() {
        notes.push(format!(
            "samples far off a line for {}: showing the Theil-Sen slope (the median of the \
             slopes between samples), which outlying samples cannot drag",
            poor.join(", ")
        ));
    }
    if let Some(ratio) = r.off_cpu_ratio {
        notes.push(match r.recording.threads {
            1 => format!(
                "wall time is {ratio:.1}× task-clock: the thread was off the CPU for part of \
                 each iteration, because the CPU was shared or the routine waits (sleep, I/O, \
                 locks)"
            ),
            n => format!(
                "wall time × {n} threads is {ratio:.1}× task-clock: the threads were off the \
                 CPU for part of each iteration, because they shared CPUs or the routine waits \
                 (sleep, I/O, locks)"
            ),
        });
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::exact_result;
    use crate::counter::event::Unit;
    use crate::counter::group::ReadPath;

    #[test]
    fn one_or_two_samples_in_one_round_are_said_to_be_too_few() {
        let mut r = exact_result("slow", &[("instructions", Unit::Count, 7.0)]);
        r.recording.iterations = vec![10, 20];
        assert_eq!(
            notes(r.view()),
            [
                "2 samples in one round: too few to show the spread, so the intervals say \
              little; more samples (--sample-count) or time (--measurement-time) tell more"
            ]
        );
        r.recording.iterations = vec![10, 20, 30];
        assert!(notes(r.view()).is_empty());
        // Rounds give the interval, however few samples each has.
        r.recording.iterations = vec![10, 20];
        r.result.metrics[0].rounds.rounds = vec![7.0, 7.0];
        assert!(notes(r.view()).is_empty());
    }

    #[test]
    fn left_out_and_kept_disturbed_iterations_are_told_apart() {
        let mut r = exact_result("spin", &[("instructions", Unit::Count, 2129.0)]);
        assert!(notes(r.view()).is_empty());
        r.recording.left_out = 3;
        assert_eq!(
            notes(r.view()),
            ["the kernel multiplexed the counters during 3 of 13 samples; they are left out"]
        );
        r.recording.read_path = Some(ReadPath::Rdpmc);
        assert_eq!(
            notes(r.view()),
            [
                "the kernel multiplexed or rescheduled the counters during 3 of 13 iterations; \
              they are left out"
            ]
        );
        r.recording.read_path = None;
        r.recording.left_out = 0;
        r.recording.multiplexed_samples = 10;
        assert_eq!(
            notes(r.view()),
            ["the kernel multiplexed the counters in 10 of 10 samples; counts are not scaled"]
        );
    }

    #[test]
    fn threads_say_what_an_iteration_is_and_count_wall_time_once_each() {
        let metrics = [
            ("wall-time", Unit::Nanoseconds, 100.0),
            ("task-clock", Unit::Nanoseconds, 200.0),
        ];
        let mut r = exact_result("spin/threads=4", &metrics);
        assert_eq!(
            off_cpu_ratio(&r.result.metrics, 1),
            None,
            "on the CPU throughout"
        );
        // 4 threads busy for 100 ns each would count 400 ns of task-clock.
        assert_eq!(off_cpu_ratio(&r.result.metrics, 4), Some(2.0));
        r.recording.threads = 4;
        r.result.off_cpu_ratio = Some(2.0);
        assert_eq!(
            notes(r.view()),
            [
                "4 threads: an iteration is one call on each of them at once; counts are totals \
                 over the threads, wall time is the iteration's",
                "wall time × 4 threads is 2.0× task-clock: the threads were off the CPU for part \
                 of each iteration, because they shared CPUs or the routine waits (sleep, I/O, \
                 locks)"
            ]
        );
    }

    #[test]
    fn thousands_are_separated_by_commas() {
        let got = [0.0, 999.0, 1000.0, 1_234_567.4, -5.0].map(thousands);
        assert_eq!(got, ["0", "999", "1,000", "1,234,567", "0"]);
    }
}
