//! The measurement's own cost, measured on an empty routine in batch mode.
//!
//! Two figures: the wall time of one sample's bookkeeping (enable, disable,
//! one group read) timed from outside, and, from samples of 1‥100 empty
//! iterations, the regression intercept: what the counters themselves see of
//! that bookkeeping per sample. Prints figures; asserts nothing (these
//! machines are noisy).
//!
//! `cargo bench -p perfbench --bench overhead`, with the events in
//! `PERFBENCH_EVENTS` (default `task-clock,page-faults,context-switches`).

use std::time::{Duration, Instant};

use perfbench::analysis::{analyze, Calibration, Recording};
use perfbench::counter::event::{self, Unit};
use perfbench::counter::group::CounterGroup;
use perfbench::measure::{measure, Config, ThreadPin};
use perfbench::output::format::{count, format_value};

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        // `cargo test --all-targets` runs benches once as tests: nothing to
        // check here, and the figures only mean something under `cargo bench`.
        return;
    }
    let spec = std::env::var("PERFBENCH_EVENTS")
        .unwrap_or_else(|_| "task-clock,page-faults,context-switches".into());
    let events = match event::parse_list(&spec) {
        Ok(events) => events,
        Err(e) => {
            eprintln!("overhead: {e}");
            std::process::exit(2);
        }
    };
    let _pin = ThreadPin::new(None).expect("pinning works");
    let mut group = match CounterGroup::open(&events) {
        Ok(group) => group,
        Err(e) => {
            eprintln!("overhead: {e}");
            std::process::exit(2);
        }
    };
    const ROUNDS: u32 = 20_000;
    let start = Instant::now();
    for _ in 0..ROUNDS {
        group.enable().expect("enable");
        group.disable().expect("disable");
        group.read().expect("read");
    }
    let per_sample = start.elapsed() / ROUNDS;
    println!(
        "bookkeeping per sample (enable + disable + read of {}): {}",
        count(events.len(), "event"),
        format_value(per_sample.as_nanos() as f64, Unit::Nanoseconds)
    );

    // No measurement time: sample i runs exactly i iterations.
    let config = Config {
        warm_up: Duration::from_millis(100),
        measurement: Duration::ZERO,
        sample_count: 100,
        rounds: 1,
    };
    let m = measure(&config, &mut group, |b| b.iter(|| ())).expect("measuring works");
    let recording = Recording::new("empty", &events, &m, Default::default());
    let r = analyze(&recording, &Calibration::default());
    println!(
        "an empty routine, {} samples of 1..100 iterations ({} in all), as the counters see it:",
        recording.samples(),
        recording.total_iterations()
    );
    println!(
        "{:<20} {:>14} {:>14}",
        "metric", "per sample", "per iteration"
    );
    for metric in &r.metrics {
        println!(
            "{:<20} {:>14} {:>14}",
            metric.name,
            format_value(metric.stats.intercept, metric.unit),
            format_value(metric.stats.slope.point, metric.unit)
        );
    }
}
