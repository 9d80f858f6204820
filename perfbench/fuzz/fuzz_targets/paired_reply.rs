//! `cargo fuzz run paired_reply`: any bytes a paired run's baseline build
//! sends as a reply line must come back from `run::paired::reply::answer`
//! as an answer or a one-line error, never a panic or a long loop, asked
//! as a batch round with the plan sent, as a first round choosing its
//! plan, and as a per-iteration round; a round it lets through is one the
//! driving build records and analyses as its own, which must not panic
//! either.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use perfbench::analysis::{analyze, metric_names, Calibration, Recording};
use perfbench::counter::event::{parse_list, Event};
use perfbench::measure::environment::Environment;
use perfbench::measure::{SamplingPlan, Shape};
use perfbench::run::paired::reply::{answer, Answer, Asked};

/// The events the driving build measures with, and the metrics they give
/// (wall time first).
fn events() -> &'static (Vec<Event>, Vec<String>) {
    static EVENTS: OnceLock<(Vec<Event>, Vec<String>)> = OnceLock::new();
    EVENTS.get_or_init(|| {
        let events = parse_list("task-clock,page-faults").expect("software events parse");
        let metrics = metric_names(&events).into_iter().map(|(n, _)| n).collect();
        (events, metrics)
    })
}

/// The plan the seeds' batch rounds follow: round 1 holds samples of 3 to
/// 15 iterations.
const PLAN: SamplingPlan = SamplingPlan {
    shape: Shape::Linear,
    step: 3,
    samples: 10,
    rounds: 2,
};

fuzz_target!(|data: &[u8]| {
    let (events, metrics) = events();
    let sent = Asked {
        metrics,
        round: 1,
        plan: Some(PLAN),
        per_iter: false,
        samples: 5,
    };
    let first = Asked {
        round: 0,
        plan: None,
        samples: 100_000,
        ..sent.clone()
    };
    let per_iter = Asked {
        per_iter: true,
        ..first.clone()
    };
    for asked in [&sent, &first, &per_iter] {
        match answer(data, asked) {
            Err(why) => assert!(!why.to_string().contains('\n'), "{why}"),
            Ok(Answer::Failed(why)) => assert!(why.after_id().chars().count() <= 4_000),
            Ok(Answer::OtherMetrics(theirs)) => assert_ne!(&theirs, metrics),
            Ok(Answer::Round(measured)) => {
                let samples = &measured.measurement.samples;
                assert!(!samples.is_empty());
                assert!(samples.iter().all(|s| s.iterations > 0));
                assert!(samples.iter().all(|s| s.counts.values.len() == events.len()));
                let recording = Recording::new(
                    "fuzzed",
                    events,
                    &measured.measurement,
                    Environment::default(),
                );
                if !recording.iterations.is_empty() {
                    analyze(&recording, &Calibration::default());
                }
            }
        }
    }
});
