//! Allocation counts, exactly, with `perfbench::CountingAllocator`
//! installed in this binary: in batch and per-iteration mode, through
//! `iter_batched` and `iter_batched_ref`, for an empty routine and the
//! prep's calibration.
//!
//! The totals are the process's, so every case runs in one test, one after
//! the other: a second test thread (or libtest reporting a finished one)
//! would allocate inside the windows.

use std::hint::black_box;
use std::time::Duration;

use perfbench::counter::event::{parse_list, Source};
use perfbench::counter::group::{self, CounterGroup, ReadPath};
use perfbench::fixtures::{boxes_of_64, grow_and_shrink};
use perfbench::measure::{
    calibrate, calibrate_per_iter, measure, measure_per_iter, Config, Measurement, Method,
    PerIterMeasurement,
};
use perfbench::{BatchSize, Bencher, CountingAllocator};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

/// The four allocation counts, after a kernel event.
const EVENTS: &str = "task-clock,allocs,alloc-bytes,deallocs,reallocs";

fn quick() -> Config {
    Config {
        warm_up: Duration::from_millis(20),
        measurement: Duration::from_millis(60),
        sample_count: 10,
        rounds: 1,
    }
}

/// Three allocations of 64 bytes, alive until the routine returns.
fn three_boxes() {
    boxes_of_64(black_box(3));
}

/// The allocation counts of each sample less `per_iteration` times its
/// iterations: all zero where every iteration counted exactly that.
fn batch_excess(m: &Measurement, per_iteration: [u64; 4]) -> Vec<[i128; 4]> {
    m.samples
        .iter()
        .map(|s| {
            let got = &s.counts.values[1..];
            std::array::from_fn(|k| {
                i128::from(got[k]) - i128::from(per_iteration[k] * s.iterations)
            })
        })
        .collect()
}

fn assert_batch(name: &str, bench: impl FnOnce(&mut Bencher<'_>), per_iteration: [u64; 4]) {
    let mut group = CounterGroup::open(&parse_list(EVENTS).unwrap()).unwrap();
    let m = measure(&quick(), &mut group, bench).unwrap();
    assert_eq!(m.samples.len(), 10, "{name}");
    for excess in batch_excess(&m, per_iteration) {
        assert_eq!(excess, [0; 4], "{name}, batch mode: {m:?}");
    }
}

fn per_iteration_counts(m: &PerIterMeasurement) -> Vec<Vec<u64>> {
    m.per_iteration
        .iter()
        .map(|it| it.values[1..].to_vec())
        .collect()
}

fn assert_per_iter(name: &str, bench: impl FnOnce(&mut Bencher<'_>), per_iteration: [u64; 4]) {
    let mut group = CounterGroup::open(&parse_list(EVENTS).unwrap()).unwrap();
    let m = measure_per_iter(&quick(), &mut group, bench).unwrap();
    assert!(!m.per_iteration.is_empty(), "{name}");
    for got in per_iteration_counts(&m) {
        assert_eq!(got, per_iteration, "{name}, per-iteration mode");
    }
}

/// A setup that allocates 1000 bytes, and a routine that makes three
/// boxes and returns its input, so that it is dropped outside.
fn batched(b: &mut Bencher<'_>, size: BatchSize) {
    b.iter_batched(
        || vec![0u8; 1000],
        |input| {
            three_boxes();
            input
        },
        size,
    );
}

fn batched_ref(b: &mut Bencher<'_>, size: BatchSize) {
    b.iter_batched_ref(|| vec![0u8; 1000], |_| three_boxes(), size);
}

fn allocator_is_detected() {
    for e in parse_list("allocs,alloc-bytes,deallocs,reallocs").unwrap() {
        assert_eq!(e.source, Source::Allocator);
        group::probe(&e).unwrap_or_else(|err| panic!("{err}"));
    }
}

fn three_allocations_of_64_bytes_in_both_modes() {
    let expected = [3, 192, 3, 0];
    assert_batch("iter", |b| b.iter(three_boxes), expected);
    assert_per_iter("iter", |b| b.iter(three_boxes), expected);
}

fn setup_of_iter_batched_is_not_counted() {
    let expected = [3, 192, 3, 0];
    for size in [
        BatchSize::SmallInput,
        BatchSize::PerIteration,
        BatchSize::NumBatches(3),
    ] {
        assert_batch("iter_batched", |b| batched(b, size), expected);
        assert_batch("iter_batched_ref", |b| batched_ref(b, size), expected);
    }
    let size = BatchSize::SmallInput;
    assert_per_iter("iter_batched", |b| batched(b, size), expected);
    assert_per_iter("iter_batched_ref", |b| batched_ref(b, size), expected);
}

fn a_consumed_input_is_freed_inside() {
    let consumed = |b: &mut Bencher<'_>| {
        b.iter_batched(|| vec![0u8; 1000], drop, BatchSize::SmallInput);
    };
    let mut group = CounterGroup::open(&parse_list(EVENTS).unwrap()).unwrap();
    let m = measure(&quick(), &mut group, consumed).unwrap();
    assert_eq!(batch_excess(&m, [0, 0, 1, 0]), vec![[0; 4]; 10]);
}

fn an_empty_routine_counts_nothing() {
    let mut group = CounterGroup::open(&parse_list(EVENTS).unwrap()).unwrap();
    let m = calibrate(&quick(), &mut group, Method::Iter).unwrap();
    assert_eq!(batch_excess(&m, [0; 4]), vec![[0; 4]; 10]);
    let m = calibrate_per_iter(&quick(), &mut group, Method::Iter).unwrap();
    assert!(per_iteration_counts(&m).iter().all(|c| c == &[0; 4]));
}

fn reallocations_are_counted() {
    let expected = [1, 256, 1, 2];
    assert_batch("realloc", |b| b.iter(grow_and_shrink), expected);
    assert_per_iter("realloc", |b| b.iter(grow_and_shrink), expected);
    // vec![0; n] asks for zeroed memory: alloc_zeroed counts as an alloc.
    let zeroed = |b: &mut Bencher<'_>| b.iter(|| vec![0u8; black_box(4096)]);
    assert_batch("alloc_zeroed", zeroed, [1, 4096, 1, 0]);
}

fn allocation_counts_alone_are_read_with_loads() {
    let events = parse_list("allocs,alloc-bytes,deallocs,reallocs").unwrap();
    let mut group = CounterGroup::open(&events).unwrap();
    let m = measure_per_iter(&quick(), &mut group, |b| b.iter(three_boxes)).unwrap();
    assert_eq!(m.read_path, ReadPath::AtomicLoads);
    for it in &m.per_iteration {
        assert_eq!(it.values, [3, 192, 3, 0]);
        assert_eq!((it.time_enabled, it.time_running), (0, 0));
    }
    let m = measure(&quick(), &mut group, |b| b.iter(three_boxes)).unwrap();
    for s in &m.samples {
        assert_eq!(s.counts.values, [3, 192, 3, 0].map(|c| c * s.iterations));
    }
}

fn threads_the_routine_spawns_count() {
    let mut group = CounterGroup::open(&parse_list("allocs").unwrap()).unwrap();
    let m = measure_per_iter(&quick(), &mut group, |b| {
        b.iter(|| {
            let boxes = || {
                for i in 0..100 {
                    black_box(Box::new(i));
                }
            };
            std::thread::spawn(boxes).join().unwrap()
        })
    })
    .unwrap();
    // The 100 boxes, and what spawning and joining allocate themselves.
    assert!(
        m.per_iteration.iter().all(|it| it.values[0] >= 100),
        "{m:?}"
    );
}

/// The preparation's calibration finds allocation counts cost nothing to measure,
/// and subtracting it leaves exact counts exact.
fn calibration_subtracts_nothing_from_allocation_counts() {
    use perfbench::analysis::{analyze, Recording};
    let args = [
        "--events",
        EVENTS,
        "--subtract-overhead",
        "--sample-count",
        "10",
    ];
    let options = perfbench::run::cli::parse(args.map(Into::into), |_| None).unwrap();
    let store = perfbench::store::Store::at(perfbench::store::default_root(
        env!("CARGO_PKG_NAME"),
        "allocations",
    ));
    let mut prep = perfbench::run::preparation::prepare(&options, &[], store).unwrap();
    let setup = prep.setup_mut(perfbench::run::setup::SetupId::RUN);
    let counts = ["allocs", "alloc-bytes", "deallocs", "reallocs"];
    let costs = setup.calibration.per_iteration();
    let per_iteration: Vec<_> = costs.iter().filter(|(n, _)| counts.contains(n)).collect();
    assert_eq!(per_iteration.len(), 4, "{costs:?}");
    for (name, cost) in per_iteration {
        assert_eq!(
            (cost.point, cost.ci.low, cost.ci.high),
            (0.0, 0.0, 0.0),
            "{name}"
        );
    }
    let per_sample = &setup.calibration.per_sample;
    let per_sample: Vec<_> = per_sample
        .iter()
        .filter(|(n, _)| counts.contains(&n.as_str()))
        .collect();
    assert_eq!(per_sample.len(), 4, "{per_sample:?}");
    assert!(per_sample.iter().all(|(_, c)| *c == 0.0), "{per_sample:?}");
    let (group, _) = &mut setup.counter_groups[0];
    let m = measure(&quick(), group, |b| b.iter(three_boxes)).unwrap();
    let recording = Recording::new("three", &setup.events, &m, Default::default());
    let result = analyze(&recording, &setup.calibration);
    for (name, expected) in [("allocs", 3.0), ("alloc-bytes", 192.0), ("reallocs", 0.0)] {
        let metric = result.metrics.iter().find(|m| m.name == name).unwrap();
        let e = metric.estimate();
        assert_eq!(
            (e.point, e.ci.low, e.ci.high),
            (expected, expected, expected)
        );
    }
}

#[test]
fn allocations_are_counted_exactly() {
    allocator_is_detected();
    three_allocations_of_64_bytes_in_both_modes();
    setup_of_iter_batched_is_not_counted();
    a_consumed_input_is_freed_inside();
    an_empty_routine_counts_nothing();
    reallocations_are_counted();
    allocation_counts_alone_are_read_with_loads();
    threads_the_routine_spawns_count();
    calibration_subtracts_nothing_from_allocation_counts();
}
