//! The counter group's tests: opening, reading, probing and splitting
//! into passes, on the software events every Linux machine counts.

use std::io;
use std::ops::Range;

use super::probe::countable_with;
use super::*;
use crate::counter::denial::{Cause, Denial};
use crate::counter::event::{self, parse_list};
use crate::fixtures::touch_fresh_pages;
use crate::kernel::rdpmc;
use crate::kernel::sys::CounterAttr;

/// Opens the group, then runs `K` enable/touch/disable cycles touching
/// `k + 1` fresh pages in cycle `k`, and returns each cycle's counts.
fn cycles(spec: &str, k: usize) -> Vec<Counts> {
    let mut group = CounterGroup::open(&parse_list(spec).unwrap()).unwrap();
    let mut last = group.read().unwrap();
    (0..k)
        .map(|i| {
            group.enable().unwrap();
            std::hint::black_box(touch_fresh_pages(i + 1));
            group.disable().unwrap();
            let now = group.read().unwrap();
            let delta = now.since(&last).unwrap();
            last = now;
            delta
        })
        .collect()
}

#[test]
fn every_member_counts_in_every_cycle() {
    for (spec, faults_at) in [("task-clock,page-faults", 1), ("page-faults,task-clock", 0)] {
        let got = cycles(spec, 12);
        for (i, c) in got.iter().enumerate() {
            assert_eq!(
                c.values[faults_at],
                i as u64 + 1,
                "{spec}, cycle {i}: {c:?}"
            );
            assert!(
                c.values[1 - faults_at] > 0,
                "{spec}: task-clock idle in cycle {i}"
            );
            assert_eq!(
                c.time_enabled, c.time_running,
                "software groups never multiplex"
            );
        }
    }
}

#[test]
fn software_pages_offer_no_rdpmc_and_the_reader_uses_read() {
    let mut group = CounterGroup::open(&parse_list("task-clock,page-faults").unwrap()).unwrap();
    group.enable().unwrap();
    let pages = group.user_pages().unwrap();
    assert_eq!(pages.len(), 2);
    for p in &pages {
        assert_eq!((p.index(), p.cap_user_rdpmc()), (0, false), "{p:?}");
        assert_eq!(rdpmc::read_page(p, &mut 0), None);
    }
    drop(pages);
    let mut reader = group.reader();
    assert_eq!(reader.path(), ReadPath::Syscall);
    let mut before = [0; 2];
    let mut after = [0; 2];
    reader.read_into(&mut before, Side::Before).unwrap();
    std::hint::black_box(touch_fresh_pages(7));
    reader.read_into(&mut after, Side::After).unwrap();
    assert_eq!(after[1] - before[1], 7);
    assert!(after[0] > before[0]);
    assert_eq!(reader.fallbacks(), 0);
    let group = reader.group();
    group.disable().unwrap();
    let mut values = [0; 2];
    let (enabled, running) = group.read_into(&mut values).unwrap();
    let counts = group.read().unwrap();
    assert_eq!(values.to_vec(), counts.values);
    assert!(enabled > 0 && enabled == running);
}

#[test]
#[ignore = "needs a hardware PMU"]
fn hardware_counters_are_read_with_rdpmc() {
    let mut group = CounterGroup::open(&parse_list("cycles,instructions").unwrap()).unwrap();
    group.enable().unwrap();
    let mut reader = group.reader();
    assert_eq!(reader.path(), ReadPath::Rdpmc);
    let mut before = [0; 2];
    let mut after = [0; 2];
    reader.read_into(&mut before, Side::Before).unwrap();
    // A fold through black_box: a plain sum would become a closed form.
    let work = (0..std::hint::black_box(10_000u64)).fold(0, |a, x| std::hint::black_box(a ^ x));
    std::hint::black_box(work);
    reader.read_into(&mut after, Side::After).unwrap();
    assert!(after[1] - before[1] >= 10_000, "{before:?} {after:?}");
    assert!(after[0] > before[0], "{before:?} {after:?}");
    reader.group().disable().unwrap();
}

#[test]
fn groups_holding_topdown_events_are_told_from_others() {
    let t = crate::kernel::pmu::tests::intel_hybrid();
    t.file("cpu_core/events/slots", "event=0x00,umask=0x4\n")
        .file(
            "cpu_core/events/topdown-be-bound",
            "event=0x00,umask=0x83\n",
        )
        .file(
            "cpu_atom/events/topdown-retiring",
            "event=0xc2,umask=0x02\n",
        );
    let topdown =
        |spec: &str| holds_topdown(&event::parse_list_in(spec, t.root()).unwrap(), t.root());
    for spec in [
        "cpu_core/slots/,cpu_core/topdown-retiring/,cpu_core/topdown-be-bound/",
        "cpu_core/slots/",
        "cycles,cpu_core/topdown-retiring/",
        "r8200",
        "cpu_core/event=0x00,umask=0x85/",
    ] {
        assert!(topdown(spec), "{spec}");
    }
    for spec in [
        "cycles,instructions",
        "cpu_core/instructions/,page-faults",
        "cpu_atom/topdown-retiring/",
        "cpu_atom/event=0x00,umask=0x82/",
        "r00c0",
        "msr/tsc/",
    ] {
        assert!(!topdown(spec), "{spec}");
    }
}

#[test]
fn a_counter_going_backwards_is_an_error_not_a_huge_count() {
    let counts = |enabled, values: &[u64]| Counts {
        time_enabled: enabled,
        time_running: enabled,
        values: values.to_vec(),
    };
    let d = counts(10, &[5, 7]).since(&counts(4, &[2, 7])).unwrap();
    assert_eq!((d.time_enabled, d.values), (6, vec![3, 0]));
    let err = counts(10, &[5, 6]).since(&counts(4, &[2, 7])).unwrap_err();
    assert_eq!(err.to_string(), "a counter went backwards, from 7 to 6");
    assert!(counts(3, &[5]).since(&counts(4, &[2])).is_err());
    let mut sum = counts(4, &[2, 7]);
    sum.add(&counts(6, &[3, u64::MAX]));
    assert_eq!((sum.time_enabled, sum.values), (10, vec![5, u64::MAX]));
}

/// An opener that refuses kernel counting for lack of privilege, as
/// `perf_event_paranoid` 2 does for a user without CAP_PERFMON, and
/// records what it was asked to open.
fn paranoid_opener(asked: &mut Vec<bool>) -> impl FnMut(&CounterAttr) -> io::Result<()> + '_ {
    |attr| {
        asked.push(attr.exclude_kernel);
        if attr.exclude_kernel {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(libc::EACCES))
        }
    }
}

/// A machine at `perf_event_paranoid` `level`, filtered or not.
fn at_level(level: i32, seccomp: bool) -> impl Fn(i32, bool) -> Denial {
    move |errno, user_only| Denial {
        errno,
        seccomp,
        paranoid: Some(level),
        user_only,
    }
}

/// [`countable_with`] at `perf_event_paranoid` 2, unfiltered.
fn at_two(
    spec: &str,
    open: impl FnMut(&CounterAttr) -> io::Result<()>,
) -> Result<Countable, OpenError> {
    let event = crate::counter::event::parse(spec).unwrap();
    countable_with(event, open, &at_level(2, false))
}

#[test]
fn software_events_refused_the_kernel_are_narrowed_to_user_space() {
    let mut asked = Vec::new();
    let got = at_two("page-faults", paranoid_opener(&mut asked)).unwrap();
    let Countable::UserOnly(e) = got else {
        panic!("not narrowed: {got:?}")
    };
    assert!(e.attr.exclude_kernel && !e.attr.exclude_user);
    assert_eq!(e.name, "page-faults:u");
    assert_eq!(asked, vec![false, true], "kernel first, then user only");
}

#[test]
fn events_the_kernel_raises_only_in_its_context_are_never_narrowed() {
    for spec in ["context-switches", "cpu-migrations", "cs"] {
        let mut asked = Vec::new();
        let got = at_two(spec, paranoid_opener(&mut asked));
        let Err(e @ OpenError::KernelOnly { .. }) = got else {
            panic!("{spec}: {got:?}")
        };
        assert_eq!(asked, vec![false], "{spec}: never opened in user space");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("not counting `{spec}`: raised by the kernel only")),
            "{text}"
        );
        assert!(text.contains("kernel.perf_event_paranoid is 2;"), "{text}");
    }
}

#[test]
fn a_filter_or_a_closed_kernel_is_not_narrowed_around() {
    let refuse = |errno| {
        move |_: &CounterAttr| -> io::Result<()> { Err(io::Error::from_raw_os_error(errno)) }
    };
    let event = || crate::counter::event::parse("page-faults").unwrap();
    let got = countable_with(event(), refuse(libc::EPERM), &at_level(2, true));
    let Err(OpenError::PermissionDenied { denial, .. }) = got else {
        panic!("{got:?}")
    };
    assert_eq!(denial.cause(), Cause::Seccomp);
    let got = countable_with(event(), refuse(libc::EACCES), &at_level(3, false));
    let Err(OpenError::PermissionDenied { denial, .. }) = got else {
        panic!("{got:?}")
    };
    assert_eq!(denial.cause(), Cause::NoUserEvents);
    let got = countable_with(event(), refuse(libc::ENOSYS), &at_level(2, false));
    assert!(
        matches!(&got, Err(OpenError::Unsupported { why, .. }) if why.contains("no perf_event_open")),
        "{got:?}"
    );
}

#[test]
fn levels_asked_for_are_never_narrowed() {
    for spec in ["page-faults:uk", "page-faults:k"] {
        let mut asked = Vec::new();
        let got = at_two(spec, paranoid_opener(&mut asked));
        assert!(
            matches!(got, Err(OpenError::PermissionDenied { .. })),
            "{spec}: {got:?}"
        );
        assert_eq!(asked, vec![false], "{spec}: one try");
    }
    let got = at_two("context-switches", |_| Ok(()));
    assert!(matches!(got, Ok(Countable::AsAsked(_))), "{got:?}");
    let mut asked = Vec::new();
    let got = at_two("cycles", paranoid_opener(&mut asked));
    assert!(
        matches!(got, Ok(Countable::AsAsked(_))),
        "user-only already: {got:?}"
    );
}

#[test]
fn a_stopped_group_counts_nothing() {
    let mut group = CounterGroup::open(&parse_list("page-faults,minor-faults").unwrap()).unwrap();
    let before = group.read().unwrap();
    std::hint::black_box(touch_fresh_pages(8));
    let after = group.read().unwrap();
    assert_eq!(after.since(&before).unwrap().values, vec![0, 0]);
    group.enable().unwrap();
    std::hint::black_box(touch_fresh_pages(8));
    group.disable().unwrap();
    assert_eq!(
        group.read().unwrap().since(&after).unwrap().values,
        vec![8, 8]
    );
}

/// This binary keeps the system allocator (perfbench/tests/allocations.rs
/// installs the counting one): allocation counts read 0, open anyway,
/// and leave the kernel's counts alone.
#[test]
fn allocation_counts_follow_the_kernel_s_events_in_a_group() {
    let mut group =
        CounterGroup::open(&parse_list("page-faults,allocs,deallocs").unwrap()).unwrap();
    let before = group.read().unwrap();
    group.enable().unwrap();
    std::hint::black_box(touch_fresh_pages(8));
    drop(std::hint::black_box(vec![0u8; 100]));
    group.disable().unwrap();
    let counted = group.read().unwrap().since(&before).unwrap();
    assert_eq!(counted.values, vec![8, 0, 0]);
    assert!(matches!(group.reader().path(), ReadPath::Syscall));
    let e = CounterGroup::open(&parse_list("allocs,page-faults").unwrap())
        .err()
        .expect("allocation counts first are refused");
    assert_eq!(
        e.to_string(),
        "cannot open `page-faults`: in a group, allocation counts come after the kernel's events"
    );
}

#[test]
fn allocation_counts_alone_open_no_counter_of_the_kernel_s() {
    let mut group = CounterGroup::open(&parse_list("reallocs,allocs").unwrap()).unwrap();
    assert!(group.user_pages().unwrap().is_empty());
    assert!(group.is_scheduled_whole().unwrap());
    group.enable().unwrap();
    group.disable().unwrap();
    let counts = group.read().unwrap();
    assert_eq!(
        (counts.time_enabled, counts.time_running, counts.values),
        (0, 0, vec![0, 0])
    );
    assert_eq!(group.reader().path(), ReadPath::AtomicLoads);
}

#[test]
fn allocation_counts_need_the_counting_allocator() {
    let e = probe(&crate::counter::event::parse("allocs").unwrap()).unwrap_err();
    assert!(matches!(e, OpenError::Unsupported { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        format!("cannot count `allocs` here: {NO_COUNTING_ALLOCATOR}")
    );
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn events_are_split_into_the_fewest_groups_the_pmu_takes() {
    // A fake PMU that holds three counters at a time.
    let mut attempts = Vec::new();
    let groups = split_into_groups(7, |r: Range<usize>| {
        attempts.push(r.clone());
        if r.len() <= 3 {
            Ok(r.len())
        } else {
            Err("too many")
        }
    })
    .unwrap();
    let ranges: Vec<Range<usize>> = groups.iter().map(|(_, r)| r.clone()).collect();
    assert_eq!(ranges, [0..3, 3..6, 6..7]);
    assert_eq!(
        groups.iter().map(|(g, _)| *g).collect::<Vec<_>>(),
        [3, 3, 1]
    );
    assert!(!attempts.iter().any(|r| r.len() > 4), "{attempts:?}");
    // An event that does not open alone is an error, not an empty group.
    let e = split_into_groups(
        2,
        |r: Range<usize>| if r.contains(&1) { Err(r) } else { Ok(()) },
    );
    assert_eq!(e.unwrap_err(), 1..2);
    // Everything fits: one group.
    let one = split_into_groups(4, |r: Range<usize>| Ok::<_, ()>(r.len())).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].1, 0..4);
}

#[test]
fn software_events_open_as_one_group() {
    let events =
        parse_list("task-clock,page-faults,minor-faults,context-switches,cpu-migrations").unwrap();
    let groups = open_groups(&events).unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].1, 0..5);
}

#[test]
fn dropping_a_group_closes_every_descriptor() {
    let open_fds = || std::fs::read_dir("/proc/self/fd").unwrap().count();
    let events = parse_list("task-clock,page-faults,minor-faults,context-switches").unwrap();
    // Other tests open and close descriptors concurrently; retry until a
    // quiet moment shows the exact difference.
    let clean = (0..50).any(|_| {
        let before = open_fds();
        let group = CounterGroup::open(&events).unwrap();
        let during = open_fds();
        drop(group);
        let after = open_fds();
        during == before + 4 && after == before
    });
    assert!(
        clean,
        "a group of four left descriptors open or opened other than four"
    );
}

#[test]
fn probing_reports_what_this_machine_lacks() {
    let sw = parse_list("task-clock").unwrap();
    assert!(probe(&sw[0]).is_ok());
    let hw = parse_list("cycles").unwrap();
    match probe(&hw[0]) {
        Ok(()) => assert!(crate::counter::event::has_cpu_pmu()),
        Err(e) => {
            assert!(matches!(e, OpenError::Unsupported { .. }), "{e}");
            assert!(
                e.to_string().starts_with("cannot count `cycles` here"),
                "{e}"
            );
        }
    }
}

#[test]
fn permission_errors_name_the_event_and_the_cause() {
    let event = &parse_list("cycles:k").unwrap()[0];
    let eacces = || io::Error::from_raw_os_error(libc::EACCES);
    let e = OpenError::classify_with(event, eacces(), &at_level(2, false));
    assert_eq!(
        e.to_string(),
        "permission denied opening `cycles:k`: kernel.perf_event_paranoid is 2; counting \
         the kernel needs 1 or below (`sudo sysctl kernel.perf_event_paranoid=1`) or \
         CAP_PERFMON"
    );
}

/// Spins on arithmetic alone for about `ms` milliseconds of CPU time.
fn spin_for(ms: u64) {
    let start = std::time::Instant::now();
    let mut x = std::hint::black_box(1u64);
    while start.elapsed() < std::time::Duration::from_millis(ms) {
        for i in 0..10_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
    }
}

#[test]
fn a_sampler_in_the_group_samples_exactly_in_its_windows_and_reads_leave_it_out() {
    use crate::kernel::sampling::{SampleRate, SamplingSpec};
    let events = parse_list("cpu-clock,page-faults").unwrap();
    let mut group = CounterGroup::open(&events).unwrap();
    let spec = SamplingSpec::new(events[0].attr, SampleRate::Period(100_000));
    let mut sampler = group.open_sampler(&spec).unwrap().unwrap();
    let mut samples = Vec::new();
    // The group stopped: nothing is sampled.
    spin_for(30);
    sampler.drain(&mut samples).unwrap();
    assert_eq!(samples.len(), 0);
    // The first window after the sampler opened counted a fault or two
    // more than it touched (6 and 7 for 5, here); later ones are exact.
    group.enable().unwrap();
    std::hint::black_box(touch_fresh_pages(1));
    group.disable().unwrap();
    for _ in 0..3 {
        let before = group.read().unwrap();
        group.enable().unwrap();
        std::hint::black_box(touch_fresh_pages(5));
        group.disable().unwrap();
        // The read holds the sampler's pair too, and matches events by id.
        let counts = group.read().unwrap().since(&before).unwrap();
        assert_eq!(counts.values[1], 5);
    }
    let before = group.read().unwrap();
    group.enable().unwrap();
    spin_for(30);
    group.disable().unwrap();
    let cpu_ns = group.read().unwrap().since(&before).unwrap().values[0];
    sampler.drain(&mut samples).unwrap();
    // One sample per 100 µs of the CPU time the window counted (a busy
    // machine gives the spin less of it than its 30 ms of wall time), but
    // for those whose period ended in the kernel (an interrupt), which a
    // user-space sampler drops: measured, all of them on a quiet machine,
    // 255 of 259 and 152 of 207 with an emulator busy on the other core.
    // Never more: none outside the window.
    let expected = cpu_ns / 100_000;
    let n = samples.len() as u64;
    assert!(expected >= 10, "{cpu_ns} ns of CPU time");
    assert!(
        n * 4 >= expected && n <= expected + 2,
        "{n} samples in {cpu_ns} ns"
    );
    spin_for(30);
    let n = samples.len();
    sampler.drain(&mut samples).unwrap();
    assert_eq!(samples.len(), n, "sampled after the group stopped");
}
