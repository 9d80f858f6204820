//! The user-space read protocol's tests, on a fake page and counter that
//! the kernel's updates are simulated on: the seqlock retry, widths, times,
//! and the fallback where a counter is off the PMU.

use super::*;
use std::cell::Cell;

/// A page whose fields the test sets, and whose "kernel" can update it
/// while a read is in progress.
#[derive(Default)]
struct FakePage {
    lock: Cell<u32>,
    index: Cell<u32>,
    offset: Cell<i64>,
    pmc_width: Cell<u16>,
    cap_user_rdpmc: Cell<bool>,
    time_enabled: Cell<u64>,
    time_running: Cell<u64>,
    clock: Cell<Option<UserClock>>,
    lock_reads: Cell<u32>,
}

impl UserPage for FakePage {
    fn lock(&self) -> u32 {
        self.lock_reads.set(self.lock_reads.get() + 1);
        self.lock.get()
    }
    fn index(&self) -> u32 {
        self.index.get()
    }
    fn offset(&self) -> i64 {
        self.offset.get()
    }
    fn pmc_width(&self) -> u16 {
        self.pmc_width.get()
    }
    fn cap_user_rdpmc(&self) -> bool {
        self.cap_user_rdpmc.get()
    }
    fn time_enabled(&self) -> u64 {
        self.time_enabled.get()
    }
    fn time_running(&self) -> u64 {
        self.time_running.get()
    }
    fn clock(&self) -> Option<UserClock> {
        self.clock.get()
    }
}

fn page(index: u32, offset: i64, width: u16) -> FakePage {
    let p = FakePage::default();
    p.lock.set(2);
    p.index.set(index);
    p.offset.set(offset);
    p.pmc_width.set(width);
    p.cap_user_rdpmc.set(true);
    p
}

#[test]
fn a_plain_read_adds_the_counter_to_the_offset() {
    let p = page(3, 1000, 48);
    let mut asked = Vec::new();
    let mut retries = 0;
    let v = read_counter(
        &p,
        |i| {
            asked.push(i);
            234
        },
        &mut retries,
    );
    assert_eq!(v, Some(1234));
    assert_eq!(asked, vec![2], "rdpmc reads counter index - 1, once");
    assert_eq!((p.lock_reads.get(), retries), (2, 0));
}

#[test]
fn the_perf_metrics_register_is_never_read_as_a_counter() {
    // What the kernel puts in a topdown metric's page on Ice Lake and
    // later: INTEL_PMC_FIXED_RDPMC_METRICS + 1.
    let p = page(PERF_METRICS_RDPMC + 1, 0, 48);
    let mut asked = Vec::new();
    let mut retries = 0;
    let v = read_counter(
        &p,
        |i| {
            asked.push(i);
            0x1a2b_3c4d
        },
        &mut retries,
    );
    assert_eq!((v, asked, retries), (None, vec![], 0));
    // A fixed counter (bit 30, `slots` is fixed counter 3) is a counter.
    let fixed = page((1 << 30) + 3 + 1, 10, 48);
    assert_eq!(read_counter(&fixed, |_| 5, &mut retries), Some(15));
}

#[test]
fn an_update_during_the_read_is_retried() {
    // The kernel reprograms the counter while the first read is in
    // flight: the raw value read belongs to the new state, the offset to
    // the old one. The sum (5 + 900) is torn; only the retry's
    // 100_000 + 900 is consistent.
    let p = page(1, 5, 48);
    let mut calls = 0;
    let mut retries = 0;
    let v = read_counter(
        &p,
        |i| {
            assert_eq!(i, 0);
            calls += 1;
            if calls == 1 {
                p.lock.set(3); // writer enters
                p.offset.set(100_000);
                p.lock.set(4); // and leaves
            }
            900
        },
        &mut retries,
    );
    assert_eq!(v, Some(100_900));
    assert_eq!((calls, retries), (2, 1), "exactly one retry, counted");
    assert_eq!(p.lock_reads.get(), 4);
}

#[test]
fn a_retry_can_also_end_in_the_fallback() {
    // The counter is scheduled out during the read: the retry sees
    // index 0 and the caller must fall back to read().
    let p = page(2, 5, 48);
    let v = read_counter(
        &p,
        |_| {
            p.lock.set(5);
            p.index.set(0);
            1
        },
        &mut 0,
    );
    assert_eq!(v, None);
}

#[test]
fn the_raw_value_is_sign_extended_to_pmc_width() {
    // Bit 47 set: -10 in 48 bits, whatever lies above bit 47.
    for raw in [0xFFFF_FFFF_FFF6u64, 0xABCD_FFFF_FFFF_FFF6] {
        let p = page(1, 1000, 48);
        assert_eq!(read_counter(&p, |_| raw, &mut 0), Some(990), "{raw:#x}");
    }
    // Bit 47 clear: a positive value, upper garbage dropped.
    let p = page(1, 1000, 48);
    assert_eq!(
        read_counter(&p, |_| 0xFF00_0000_0000_0010, &mut 0),
        Some(1016)
    );
    // A negative delta on a large offset.
    let p = page(1, 1 << 50, 48);
    assert_eq!(
        read_counter(&p, |_| (1 << 47) | 5, &mut 0),
        Some((1 << 50) - (1 << 47) + 5)
    );
}

#[test]
fn width_64_is_no_extension() {
    let p = page(1, 1000, 64);
    assert_eq!(
        read_counter(&p, |_| 1 << 47, &mut 0),
        Some(1000 + (1 << 47))
    );
    assert_eq!(read_counter(&p, |_| u64::MAX - 9, &mut 0), Some(990));
    assert_eq!(sign_extend(u64::MAX, 64), -1);
    assert_eq!(sign_extend(0x8000, 0), 0x8000);
    assert_eq!(sign_extend(0x8000, 16), -0x8000);
}

#[test]
fn index_0_falls_back_without_rdpmc() {
    let p = page(0, 1000, 48);
    assert_eq!(
        read_counter(&p, |_| panic!("rdpmc with index 0"), &mut 0),
        None
    );
}

#[test]
fn no_cap_user_rdpmc_falls_back_without_rdpmc() {
    let p = page(4, 1000, 48);
    p.cap_user_rdpmc.set(false);
    assert_eq!(
        read_counter(&p, |_| panic!("rdpmc without cap_user_rdpmc"), &mut 0),
        None
    );
}

#[test]
fn times_are_carried_forward_from_the_last_update() {
    // 1000 ticks at 1.5 ns per tick (mult 3, shift 1) is 1500 ns; the
    // kernel's offset of -100 ns makes it 1400 ns since its update.
    let p = page(1, 0, 48);
    p.time_enabled.set(1000);
    p.time_running.set(600);
    p.clock.set(Some(UserClock {
        mult: 3,
        shift: 1,
        offset: (-100i64) as u64,
        short: None,
    }));
    assert_eq!(read_times(&p, || 1000), (2400, 2000));
    // Off its hardware counter, the counter is not running.
    p.index.set(0);
    assert_eq!(read_times(&p, || 1000), (2400, 600));
    // Without the conversion the page's times are all there is.
    p.clock.set(None);
    assert_eq!(read_times(&p, || panic!("timestamp read")), (1000, 600));
}

#[test]
fn the_conversion_matches_the_man_pages_overflow_free_form() {
    // perf_event_open(2): quot = cyc >> shift; rem = cyc & (2^shift - 1);
    // delta = offset + quot * mult + ((rem * mult) >> shift).
    let man = |c: UserClock, cyc: u64| {
        let quot = cyc >> c.shift;
        let rem = cyc & ((1u64 << c.shift) - 1);
        c.offset
            .wrapping_add(quot.wrapping_mul(u64::from(c.mult)))
            .wrapping_add((rem * u64::from(c.mult)) >> c.shift)
    };
    for (mult, shift) in [(1u32, 0u16), (3, 1), (u32::MAX, 31), (1_398_101, 22)] {
        for cyc in [0u64, 1, 999_999, 1 << 40, u64::MAX / 3, u64::MAX] {
            let c = UserClock {
                mult,
                shift,
                offset: 12_345,
                short: None,
            };
            assert_eq!(
                c.elapsed(cyc),
                man(c, cyc),
                "mult {mult} shift {shift} cyc {cyc}"
            );
        }
    }
}

#[test]
fn a_short_timestamp_counter_is_widened_across_its_wrap() {
    // A 16-bit counter last seen at 0xFFF0 now reads 0x0010: 0x20 ticks
    // later, so 0x1_0010 in the kernel's wider count.
    let c = UserClock {
        mult: 1,
        shift: 0,
        offset: 0,
        short: Some((0xFFF0, 0xFFFF)),
    };
    assert_eq!(c.elapsed(0x0010), 0x1_0010);
    assert_eq!(c.elapsed(0xFFF8), 0xFFF8);
}

#[test]
fn times_changed_during_the_read_are_retried() {
    // The kernel schedules the counter in again while the times are
    // read: the first snapshot is torn and must be dropped.
    let p = page(1, 0, 48);
    p.time_enabled.set(1000);
    p.time_running.set(1000);
    p.clock.set(Some(UserClock::default()));
    let mut calls = 0;
    let times = read_times(&p, || {
        calls += 1;
        if calls == 1 {
            p.lock.set(3);
            p.time_enabled.set(5000);
            p.time_running.set(4000);
            p.lock.set(4);
        }
        0
    });
    assert_eq!(times, (5000, 4000));
    assert_eq!(calls, 2);
}
