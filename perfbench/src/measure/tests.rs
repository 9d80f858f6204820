//! The measurement's tests on real software counters: exact page faults per
//! iteration in batch and per-iteration mode, every `Bencher` method and its
//! misuse, passes, inherited counters, disturbed samples left out,
//! calibration and pinning.

use super::*;
use crate::counter::event::parse_list;
use crate::fixtures::touch_fresh_pages;
use crate::stats::{analyze_metric, Bootstrap};

use crate::counter::group::{CounterGroup, ReadPath};
use crate::kernel::sys;
use std::hint::black_box;

/// `bench` measured in batch mode in 10 samples of `step` to `10 × step`
/// iterations, a plan fixed beforehand: a plan chosen from the warm-up is
/// at the machine's mercy (under load, a first call stalled past the quick
/// budget once made it 3 samples), and these tests are about what each
/// sample counts.
fn measure_ten(
    group: &mut CounterGroup,
    step: u64,
    bench: impl FnOnce(&mut Bencher<'_>),
) -> Measurement {
    let plan = SamplingPlan {
        shape: Shape::Linear,
        step,
        samples: 10,
        rounds: 1,
    };
    let config = quick();
    measure_pass(&config, group, Planning::Round(plan, 0), bench)
        .map(|(m, ..)| m)
        .unwrap()
}

/// A short measurement of 10 samples in one round.
pub(super) fn quick() -> Config {
    Config {
        warm_up: Duration::from_millis(20),
        measurement: Duration::from_millis(60),
        sample_count: 10,
        rounds: 1,
    }
}

#[test]
fn batch_mode_counts_exact_page_faults_per_iteration() {
    for spec in ["task-clock,page-faults", "page-faults,task-clock"] {
        let events = parse_list(spec).unwrap();
        let faults = events.iter().position(|e| e.name == "page-faults").unwrap();
        let mut group = CounterGroup::open(&events).unwrap();
        let m = measure_ten(&mut group, 7, |b| b.iter(|| touch_fresh_pages(16)));
        assert_eq!(m.samples.len(), 10);
        let d = m.samples[0].iterations;
        assert_eq!(d, 7);
        for (i, s) in m.samples.iter().enumerate() {
            assert_eq!(s.iterations, (i as u64 + 1) * d);
            assert_eq!(s.counts.values[faults], 16 * s.iterations, "{spec}: {s:?}");
        }
        let x: Vec<u64> = m.samples.iter().map(|s| s.iterations).collect();
        let y: Vec<u64> = m.samples.iter().map(|s| s.counts.values[faults]).collect();
        let stats = analyze_metric(&x, &y, &Bootstrap::default());
        assert_eq!(
            (stats.slope.point, stats.min, stats.max),
            (16.0, 16.0, 16.0)
        );
    }
}

#[test]
fn passes_with_a_shared_step_merge_sample_by_sample() {
    let mut first = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
    let mut second = CounterGroup::open(&parse_list("minor-faults,task-clock").unwrap()).unwrap();
    let bench = |b: &mut Bencher<'_>| b.iter(|| touch_fresh_pages(4));
    let mut quiet = |_: &SamplingPlan, _: &Costs| {};
    let (mut m, plan, _) =
        measure_pass(&quick(), &mut first, Planning::Choose(&mut quiet), bench).unwrap();
    let planned = Planning::Round(plan, 0);
    let (later, ..) = measure_pass(&quick(), &mut second, planned, bench).unwrap();
    assert_eq!(
        later
            .samples
            .iter()
            .map(|s| s.iterations)
            .collect::<Vec<_>>(),
        m.samples.iter().map(|s| s.iterations).collect::<Vec<_>>()
    );
    m.merge_pass(&later);
    for s in &m.samples {
        assert_eq!(s.counts.values.len(), 3);
        assert_eq!(
            s.counts.values[0],
            4 * s.iterations,
            "page-faults from the first pass"
        );
        assert_eq!(
            s.counts.values[1],
            4 * s.iterations,
            "minor-faults from the second"
        );
        assert!(s.counts.values[2] > 0, "task-clock from the second");
    }
}

#[test]
fn iter_batched_keeps_setup_out_of_the_counts() {
    let mut group = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
    let m = measure(&quick(), &mut group, |b| {
        b.iter_batched(
            || touch_fresh_pages(5),
            |x| x + touch_fresh_pages(3),
            BatchSize::SmallInput,
        )
    })
    .unwrap();
    for s in &m.samples {
        assert_eq!(s.counts.values[0], 3 * s.iterations, "{s:?}");
    }
}

#[test]
fn misuse_of_the_bencher_is_reported() {
    let mut group = CounterGroup::open(&parse_list("task-clock").unwrap()).unwrap();
    let e = measure(&quick(), &mut group, |_| {}).unwrap_err();
    assert!(matches!(e, MeasureError::NeverIterated));
    let e = run_once(|b| {
        b.iter(|| 1);
        b.iter(|| 2);
    })
    .unwrap_err();
    assert!(matches!(e, MeasureError::IteratedTwice));
}

#[test]
fn run_once_runs_the_routine_exactly_once() {
    let mut runs = 0;
    run_once(|b| b.iter(|| runs += 1)).unwrap();
    assert_eq!(runs, 1);
}

#[test]
fn profiling_runs_every_form_for_about_the_time_asked() {
    let time = Duration::from_millis(50);
    let work = || black_box((0..black_box(200u64)).sum::<u64>());
    let (mut runs, mut made) = ([0u64; 3], [0u64; 2]);
    let ran = [
        profile(time, |b| {
            b.iter(|| {
                runs[0] += 1;
                work()
            })
        }),
        profile(time, |b| {
            let setup = || made[0] += 1;
            b.iter_batched(setup, |()| runs[1] += work(), BatchSize::SmallInput)
        }),
        profile(time, |b| {
            let setup = || made[1] += 1;
            b.iter_batched_ref(setup, |_| runs[2] += work(), BatchSize::LargeInput)
        }),
    ]
    .map(Result::unwrap);
    // The batched routines add 19,900 (0 + … + 199) per run.
    let runs = [runs[0], runs[1] / 19_900, runs[2] / 19_900];
    assert_eq!(ran.map(|r| r.iterations), runs);
    // Every run had its input (batches of one size may make a few more).
    assert!(
        made[0] >= runs[1] && made[1] >= runs[2],
        "{made:?} {runs:?}"
    );
    // At least half the time: the warm-up runs until then. The upper
    // bound catches a batch sized wrongly (a runaway), not a slow machine:
    // a run on a loaded machine, whose final batch was sized from a pace
    // measured before the load came, once took 5.2 times the time asked.
    for r in ran {
        assert!(r.iterations > 1, "{r:?}");
        assert!(r.elapsed >= time / 2 && r.elapsed < time * 40, "{r:?}");
    }
    let e = profile(time, |_| {}).unwrap_err();
    assert!(matches!(e, MeasureError::NeverIterated));
}

#[test]
fn throughput_is_carried_to_the_measurement() {
    let mut group = CounterGroup::open(&parse_list("task-clock").unwrap()).unwrap();
    let m = measure(&quick(), &mut group, |b| {
        b.throughput(Throughput::Bytes(64)).iter(|| 0u8);
    })
    .unwrap();
    assert_eq!(m.throughput, Some(Throughput::Bytes(64)));
}

/// Each iteration's count of the only event in `spec`, in per-iteration
/// mode.
fn per_iteration_counts(spec: &str, routine: impl FnMut()) -> Vec<u64> {
    let mut group = CounterGroup::open(&parse_list(spec).unwrap()).unwrap();
    let mut routine = routine;
    let m = measure_per_iter(&quick(), &mut group, |b| b.iter(&mut routine)).unwrap();
    m.per_iteration.iter().map(|it| it.values[0]).collect()
}

#[test]
fn every_batch_size_runs_each_iteration_once_with_its_setup_outside() {
    // With no measurement time sample `i` runs `i` iterations, fewer
    // than most sizes' batches: the empty batches must not run the
    // routine, and no setup's page faults may be counted. The plan
    // stays linear while its 55 iterations fit the warm-up's budget:
    // 20 ms did not on a loaded machine (flat samples of 1), 250 ms
    // leaves a margin of hundreds.
    let config = Config {
        measurement: Duration::ZERO,
        warm_up: Duration::from_millis(250),
        ..quick()
    };
    let sizes = [
        BatchSize::SmallInput,
        BatchSize::LargeInput,
        BatchSize::PerIteration,
        BatchSize::NumBatches(3),
        BatchSize::NumIterations(4),
    ];
    for size in sizes {
        let mut group = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
        let m = measure(&config, &mut group, |b| {
            b.iter_batched(|| touch_fresh_pages(2), |x| x + touch_fresh_pages(1), size)
        })
        .unwrap();
        let iterations: Vec<u64> = m.samples.iter().map(|s| s.iterations).collect();
        assert_eq!(iterations, (1..=10).collect::<Vec<_>>(), "{size:?}");
        for s in &m.samples {
            assert_eq!(s.counts.values[0], s.iterations, "{size:?}: {s:?}");
        }
        let mut group = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
        let m = measure(&config, &mut group, |b| {
            b.iter_batched_ref(|| touch_fresh_pages(2), |x| touch_fresh_pages(3) + *x, size)
        })
        .unwrap();
        for s in &m.samples {
            assert_eq!(s.counts.values[0], 3 * s.iterations, "ref, {size:?}: {s:?}");
        }
    }
}

#[test]
fn every_method_is_recorded_and_its_empty_routine_faults_nothing() {
    let sizes = [
        BatchSize::SmallInput,
        BatchSize::LargeInput,
        BatchSize::PerIteration,
        BatchSize::NumBatches(3),
    ];
    let mut methods = vec![Method::Iter, Method::IterCustom, Method::IterShared(2)];
    methods.extend([Method::AsyncIter, Method::AsyncIterCustom]);
    for size in sizes {
        methods.extend([Method::IterBatched(size), Method::IterBatchedRef(size)]);
        methods.extend([
            Method::AsyncIterBatched(size),
            Method::AsyncIterBatchedRef(size),
        ]);
    }
    for method in methods {
        let mut group = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
        let mut quiet = |_: &SamplingPlan, _: &Costs| {};
        let planning = Planning::Choose(&mut quiet);
        let (m, _, got) =
            measure_pass(&quick(), &mut group, planning, |b| method.run_empty(b)).unwrap();
        assert_eq!(got, method);
        // How many samples the plan takes depends on the machine's pace
        // (a busy one makes it take fewer): not what this checks.
        assert!(!m.samples.is_empty(), "{method:?}");
        for s in &m.samples {
            assert_eq!(s.counts.values[0], 0, "{method:?}: {s:?}");
        }
        if method.threads() > 1 {
            continue;
        }
        let pm = calibrate_per_iter(&quick(), &mut group, method).unwrap();
        assert_eq!(pm.method, method);
        assert!(
            pm.per_iteration.iter().all(|it| it.values == [0]),
            "{method:?}"
        );
    }
}

#[test]
fn inherited_counters_count_the_threads_the_routine_spawns() {
    // A thread that touches 64 fresh pages and is joined: its faults
    // and its CPU time are the routine's, counted only with `inherit`.
    let per_iteration = |inherit: bool| {
        let mut events = parse_list("page-faults,task-clock").unwrap();
        for e in &mut events {
            e.attr.inherit = inherit;
        }
        let mut group = CounterGroup::open(&events).unwrap();
        let m = measure(&quick(), &mut group, |b| {
            b.iter(|| {
                std::thread::spawn(|| std::hint::black_box(touch_fresh_pages(64)))
                    .join()
                    .unwrap()
            })
        })
        .unwrap();
        let s = &m.samples[m.samples.len() - 1];
        (
            s.counts.values[0] / s.iterations,
            s.counts.values[1] / s.iterations,
        )
    };
    let (faults, _) = per_iteration(true);
    assert!(faults >= 64, "with inherit: {faults} faults per iteration");
    let (faults, _) = per_iteration(false);
    assert!(faults < 64, "without: {faults} faults per iteration");
}

#[test]
fn page_faults_include_those_the_kernel_takes_for_the_task() {
    // Reading /dev/zero into 16 fresh pages: the kernel takes the 16
    // faults while it copies. perf stat counts 16; so must we, and
    // `:u` shows why user-only counting read 0.
    let faults = per_iteration_counts("page-faults", || {
        std::hint::black_box(crate::fixtures::read_into_fresh_pages(16));
    });
    assert!(faults.iter().all(|&n| n == 16), "{faults:?}");
    let user = per_iteration_counts("page-faults:u", || {
        std::hint::black_box(crate::fixtures::read_into_fresh_pages(16));
    });
    assert!(user.iter().all(|&n| n == 0), "{user:?}");
}

#[test]
fn context_switches_include_the_routines_own_blocking() {
    // Four sleeps: four voluntary switches in a typical iteration, all in
    // the kernel, so user-only counting sees none. (Now and then a
    // sleep's timer expires before the switch, or a preemption adds one.)
    let sleep4 = || {
        for _ in 0..4 {
            std::thread::sleep(Duration::from_micros(20));
        }
    };
    let median = |spec: &str| {
        let mut switches = per_iteration_counts(spec, sleep4);
        switches.sort_unstable();
        switches[switches.len() / 2]
    };
    assert_eq!(median("context-switches"), 4);
    assert_eq!(median("context-switches:u"), 0);
}

#[test]
fn per_iter_mode_counts_exact_page_faults_on_every_iteration() {
    for spec in ["task-clock,page-faults", "page-faults,task-clock"] {
        let events = parse_list(spec).unwrap();
        let faults = events.iter().position(|e| e.name == "page-faults").unwrap();
        let clock = 1 - faults;
        let mut group = CounterGroup::open(&events).unwrap();
        let m =
            measure_per_iter(&quick(), &mut group, |b| b.iter(|| touch_fresh_pages(16))).unwrap();
        assert_eq!(m.read_path, ReadPath::Syscall, "software events");
        assert_eq!((m.multiplexed() as u64, m.fallback_reads), (0, 0));
        let d = m.iterations_per_sample;
        assert!(d >= 1);
        assert_eq!(m.per_iteration.len() as u64, 10 * d);
        assert_eq!(m.samples().count(), 10);
        for (i, it) in m.per_iteration.iter().enumerate() {
            assert_eq!(it.values[faults], 16, "{spec}, iteration {i}: {it:?}");
            assert!(it.values[clock] > 0, "{spec}, iteration {i}: {it:?}");
            // Never off the PMU: the times advance together, and do advance.
            assert_eq!(it.time_enabled, it.time_running, "{spec}, iteration {i}");
            assert!(it.time_enabled > 0, "{spec}, iteration {i}: {it:?}");
            assert!(it.wall_ns > 0, "{spec}, iteration {i}: {it:?}");
        }
    }
}

/// `iter_custom`'s routine: `n` iterations of 2 fresh pages each,
/// reported as exactly 1 µs apiece whatever they took.
fn timed_by_hand(n: u64) -> Duration {
    for _ in 0..n {
        black_box(touch_fresh_pages(2));
    }
    Duration::from_micros(n)
}

#[test]
fn iter_custom_takes_the_routines_time_and_counts_around_it() {
    let mut group = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
    let m = measure_ten(&mut group, 7, |b| b.iter_custom(timed_by_hand));
    assert_eq!(m.samples.len(), 10);
    for s in &m.samples {
        assert_eq!(s.wall_ns, 1000 * s.iterations, "{s:?}");
        assert_eq!(s.counts.values[0], 2 * s.iterations, "{s:?}");
    }
    let m = measure_per_iter(&quick(), &mut group, |b| b.iter_custom(timed_by_hand)).unwrap();
    assert!(!m.per_iteration.is_empty());
    for it in &m.per_iteration {
        assert_eq!((it.wall_ns, it.values[0]), (1000, 2), "{it:?}");
    }
}

#[test]
fn per_iter_iter_batched_keeps_setup_out_of_every_iteration() {
    let events = parse_list("task-clock,page-faults").unwrap();
    let mut group = CounterGroup::open(&events).unwrap();
    let m = measure_per_iter(&quick(), &mut group, |b| {
        b.iter_batched(
            || touch_fresh_pages(5),
            |x| x + touch_fresh_pages(3),
            BatchSize::SmallInput,
        )
    })
    .unwrap();
    assert_eq!(m.read_path, ReadPath::Syscall);
    assert!(!m.per_iteration.is_empty());
    for it in &m.per_iteration {
        assert_eq!(it.values[1], 3, "{it:?}");
    }
}

#[test]
fn per_iter_calibration_sees_only_the_reads() {
    let events = parse_list("page-faults,task-clock").unwrap();
    let mut group = CounterGroup::open(&events).unwrap();
    let m = calibrate_per_iter(&quick(), &mut group, Method::Iter).unwrap();
    assert_eq!(m.per_iteration.len() as u64, 10 * m.iterations_per_sample);
    for it in &m.per_iteration {
        assert_eq!(it.values[0], 0, "an empty routine faults nothing: {it:?}");
        // One read() lies inside each bracket: task-clock sees it.
        assert!(it.values[1] > 0, "{it:?}");
    }
}

#[test]
fn iterations_the_kernel_disturbed_are_left_out_unless_it_disturbed_all() {
    let it = |value, enabled, running, rescheduled| IterationCounts {
        wall_ns: 1,
        values: vec![value],
        time_enabled: enabled,
        time_running: running,
        rescheduled,
    };
    let m = |iterations| PerIterMeasurement {
        per_iteration: iterations,
        iterations_per_sample: 1,
        read_path: ReadPath::Syscall,
        throughput: None,
        fallback_reads: 0,
        method: Method::Iter,
    };
    let mixed = m(vec![
        it(119, 5, 5, false),
        it(121, 5, 5, true),
        it(90, 5, 3, false),
    ]);
    assert_eq!(mixed.multiplexed(), 2);
    let (kept, left_out) = mixed.without_disturbed();
    assert_eq!(kept.per_iteration, [it(119, 5, 5, false)]);
    assert_eq!(left_out, 2);
    // All disturbed: nothing better to keep.
    let all = m(vec![it(121, 5, 5, true), it(90, 5, 3, false)]);
    assert_eq!(all.clone().without_disturbed(), (all, 0));
}

#[test]
fn per_iter_storage_is_capped() {
    let mut group = CounterGroup::open(&parse_list("page-faults").unwrap()).unwrap();
    let config = Config {
        warm_up: Duration::from_millis(5),
        measurement: Duration::from_secs(3600),
        sample_count: 7,
        rounds: 1,
    };
    let m = calibrate_per_iter(&config, &mut group, Method::Iter).unwrap();
    assert_eq!(m.iterations_per_sample, MAX_STORED_ITERATIONS / 7);
    assert_eq!(
        m.per_iteration.len() as u64,
        7 * (MAX_STORED_ITERATIONS / 7)
    );
    assert!(m.per_iteration.iter().all(|it| it.values == [0]));
}

#[test]
fn per_iter_misuse_and_throughput() {
    let mut group = CounterGroup::open(&parse_list("task-clock").unwrap()).unwrap();
    let e = measure_per_iter(&quick(), &mut group, |_| {}).unwrap_err();
    assert!(matches!(e, MeasureError::NeverIterated));
    let e = measure_per_iter(&quick(), &mut group, |b| {
        b.iter(|| 1);
        b.iter(|| 2);
    })
    .unwrap_err();
    assert!(matches!(e, MeasureError::IteratedTwice));
    let m = measure_per_iter(&quick(), &mut group, |b| {
        b.throughput(Throughput::Elements(3)).iter(|| 0u8);
    })
    .unwrap();
    assert_eq!(m.throughput, Some(Throughput::Elements(3)));
}

#[test]
fn batch_calibration_samples_linearly_and_faults_nothing() {
    let events = parse_list("task-clock,page-faults").unwrap();
    let mut group = CounterGroup::open(&events).unwrap();
    let m = calibrate(&quick(), &mut group, Method::Iter).unwrap();
    assert_eq!(m.samples.len(), 10);
    let d = m.samples[0].iterations;
    assert!(d > 1, "the measurement time buys many empty iterations");
    for (i, s) in m.samples.iter().enumerate() {
        assert_eq!(s.iterations, (i as u64 + 1) * d);
        assert_eq!(s.counts.values[1], 0, "{s:?}");
    }
}

#[test]
#[ignore = "needs a hardware PMU"]
fn rdpmc_path_counts_plausible_instructions_per_iteration() {
    let events = parse_list("cycles,instructions").unwrap();
    let mut group = CounterGroup::open(&events).unwrap();
    let m = measure_per_iter(&quick(), &mut group, |b| {
        b.iter(|| (0..black_box(1000u64)).fold(0u64, |a, x| black_box(a ^ x)))
    })
    .unwrap();
    assert_eq!(m.read_path, ReadPath::Rdpmc);
    let calib = calibrate_per_iter(&quick(), &mut group, Method::Iter).unwrap();
    assert_eq!(calib.read_path, ReadPath::Rdpmc);
    let median = |m: &PerIterMeasurement, k: usize| {
        let mut v: Vec<u64> = m.per_iteration.iter().map(|it| it.values[k]).collect();
        v.sort_unstable();
        v[v.len() / 2]
    };
    let (cycles, instructions) = (median(&m, 0), median(&m, 1));
    let (c0, i0) = (median(&calib, 0), median(&calib, 1));
    // 1000 rounds of at least three instructions, well under 100 each.
    assert!(instructions >= i0 + 3000, "{instructions} vs overhead {i0}");
    assert!(
        instructions < i0 + 100_000,
        "{instructions} vs overhead {i0}"
    );
    assert!(cycles > c0 && cycles < c0 + 1_000_000, "{cycles} vs {c0}");
    // rdpmc needs no syscall: the overhead is far below a read()'s.
    assert!(i0 < 2_000, "rdpmc bracket costs {i0} instructions");
    assert!(m.fallback_reads * 100 <= m.per_iteration.len() as u64);
}

#[test]
fn pinning_is_undone_on_drop() {
    let before = sys::thread_affinity().unwrap().cpus();
    let cpu = *before.last().unwrap();
    {
        let pin = ThreadPin::new(Some(cpu)).unwrap();
        assert_eq!(pin.cpu(), cpu);
        assert_eq!(sys::thread_affinity().unwrap().cpus(), vec![cpu]);
    }
    assert_eq!(sys::thread_affinity().unwrap().cpus(), before);
    let Err(e) = ThreadPin::new(Some(100_000)) else {
        panic!("pinned to a CPU that does not exist")
    };
    assert!(
        matches!(e, PinError::NotAllowed { cpu: 100_000, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("CPU 100000"), "{e}");
}

#[test]
fn per_iteration_mode_leaves_the_software_clocks_out_in_one_note() {
    let events = crate::counter::event::parse_list("task-clock,page-faults,cpu-clock").unwrap();
    let (kept, note) = super::measurable_per_iteration(events);
    let names: Vec<&str> = kept.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["page-faults"]);
    assert_eq!(
        note.as_deref(),
        Some(
            "per-iteration mode leaves out task-clock, cpu-clock: the kernel's clock counts \
             part of each read() system call around an iteration, by more than a short \
             routine takes and never the same; batch mode measures it"
        )
    );
    let faults = crate::counter::event::parse_list("page-faults").unwrap();
    assert_eq!(super::measurable_per_iteration(faults).1, None);
}

#[test]
fn per_iteration_mode_by_read_leaves_the_cpus_kernel_counts_out_in_one_note() {
    let spec = "instructions:uk,instructions,page-faults,cycles:k,context-switches";
    let events = crate::counter::event::parse_list(spec).unwrap();
    let (kept, note) = super::measurable_by_read(events);
    let names: Vec<&str> = kept.iter().map(|e| e.name.as_str()).collect();
    // User-space CPU counts, and the kernel's software counts, stay.
    assert_eq!(names, ["instructions", "page-faults", "context-switches"]);
    assert_eq!(
        note.as_deref(),
        Some(
            "per-iteration mode leaves out instructions:uk, cycles:k: counted with the kernel \
             and read with read(), they count the system call's kernel half around each \
             iteration, by more than a short routine takes and never the same; batch mode \
             measures them, and `:u` counts user space alone"
        )
    );
    let user = crate::counter::event::parse_list("instructions,page-faults").unwrap();
    assert_eq!(super::measurable_by_read(user).1, None);
}

/// Spins for about `us` microseconds of wall time, on arithmetic alone.
#[inline(never)]
fn busy_for(us: u64) -> u64 {
    let start = std::time::Instant::now();
    let mut x = black_box(1u64);
    while start.elapsed() < Duration::from_micros(us) {
        for i in 0..100 {
            x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
    }
    x
}

/// The samples a 200 ms profiling pass of `bench` takes at one per 100 µs
/// of CPU time (cpu-clock), and the iterations it ran.
fn sampled(bench: &dyn Fn(&mut Bencher<'_>)) -> (usize, u64) {
    use crate::kernel::sampling::{SampleRate, SamplingSpec};
    let event = parse_list("cpu-clock").unwrap().remove(0);
    let spec = SamplingSpec::new(event.attr, SampleRate::Period(100_000));
    let mut n = 0;
    let time = Duration::from_millis(200);
    let (ran, lost) = sample_routine_as(&spec, time, &mut |_| n += 1, bench).unwrap();
    assert_eq!(lost, 0);
    (n, ran.iterations)
}

#[test]
fn a_profiling_pass_samples_inside_the_routine_s_windows_only() {
    // The routine busy: one sample per 100 µs of its CPU time, about 2,000
    // (1,000 to 1,950 measured; less CPU time on a busy machine).
    let (inside, iterations) = sampled(&|b| b.iter(|| busy_for(50)));
    assert!(inside >= 100, "{inside} samples of a busy routine");
    assert!(iterations >= 1_000, "{iterations} iterations");
    // Its setup busy, the routine idle: the setup runs outside the
    // windows, so it is never sampled (a few samples land on the windows'
    // own toggles).
    let (outside, _) =
        sampled(&|b| b.iter_batched(|| busy_for(500), |x| x, crate::BatchSize::PerIteration));
    // Measured: 3 to 9 in 15 runs, where the setup's 200 ms of CPU time
    // would give up to 2,000.
    assert!(outside <= 40, "{outside} samples while the setup ran");
    // The same of an async routine, whose windows open inside the
    // executor's polls (here, not in a test of its own: two such tests at
    // once starve each other of CPU time on two cores).
    let (inside, _) = sampled(&|b| {
        b.to_async(crate::async_executor::BlockOn)
            .iter(|| async { busy_for(50) })
    });
    assert!(inside >= 100, "{inside} samples of a busy async routine");
    let (outside, _) = sampled(&|b| {
        b.to_async(crate::async_executor::BlockOn).iter_batched(
            || busy_for(500),
            |x| async move { x },
            crate::BatchSize::PerIteration,
        )
    });
    assert!(outside <= 40, "{outside} samples while an async setup ran");
}
