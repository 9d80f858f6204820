//! The measurement's own cost: an empty routine measured in batch mode.
//!
//! The regression intercept is the fixed cost of one sample (enable, clock
//! reads, disable) and the slope what one empty iteration costs. Prints
//! figures; asserts nothing (these machines are noisy).
//!
//! `cargo bench -p perfbench --bench overhead [-- EVENTS]`

use std::time::Duration;

use perfbench::analysis::analyze;
use perfbench::event;
use perfbench::group::CounterGroup;
use perfbench::measure::{measure, Config, ThreadPin};
use perfbench::report::format_value;

fn main() {
    let spec = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_else(|| "task-clock,page-faults,context-switches".into());
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
    let config = Config {
        warm_up: Duration::from_millis(200),
        measurement: Duration::from_secs(1),
        sample_count: 100,
    };
    let m = measure(&config, &mut group, |b| b.iter(|| ())).expect("measuring works");
    let r = analyze("empty", &events, &m);
    println!(
        "overhead of an empty routine, {} samples, {} iterations:",
        r.samples, r.iterations
    );
    println!("{:<20} {:>14} {:>14}", "metric", "per sample", "per iteration");
    for metric in &r.metrics {
        println!(
            "{:<20} {:>14} {:>14}",
            metric.name,
            format_value(metric.summary.intercept, metric.unit),
            format_value(metric.summary.estimate, metric.unit)
        );
    }
}
