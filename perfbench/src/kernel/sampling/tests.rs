//! The sampler's tests: the record parser and the ring's unread bytes on
//! hand-built buffers (a record across the ring's end, truncated and bogus
//! sizes), the causes of a refusal, and real sampling of this thread with
//! `cpu-clock`. Where `perf_event_open` is refused (a seccomp filter, a
//! closed kernel), the live tests check the refusal's cause instead.

use super::*;
use crate::kernel::sys::{self, CounterAttr, TYPE_HARDWARE, TYPE_SOFTWARE};
use perf_event_open_sys::bindings;
use std::hint::black_box;
use std::time::{Duration, Instant};

const FULL: SampleLayout = SampleLayout {
    sample_type: (bindings::PERF_SAMPLE_IP
        | bindings::PERF_SAMPLE_TID
        | bindings::PERF_SAMPLE_TIME
        | bindings::PERF_SAMPLE_CALLCHAIN
        | bindings::PERF_SAMPLE_REGS_USER
        | bindings::PERF_SAMPLE_STACK_USER) as u64,
    regs_user: 0b111,
};

const SIMPLE: SampleLayout = SampleLayout {
    sample_type: (bindings::PERF_SAMPLE_IP | bindings::PERF_SAMPLE_TID | bindings::PERF_SAMPLE_TIME)
        as u64,
    regs_user: 0,
};

/// A record of `kind` with `body`, its header's size `size` (the true one
/// if `None`).
fn record(kind: u32, body: &[u8], size: Option<u16>) -> Vec<u8> {
    let size = size.unwrap_or((8 + body.len()) as u16);
    let mut r = kind.to_ne_bytes().to_vec();
    r.extend_from_slice(&0u16.to_ne_bytes());
    r.extend_from_slice(&size.to_ne_bytes());
    r.extend_from_slice(body);
    r
}

fn words(ws: &[u64]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

/// IP, pid/tid and time as a sample lays them out.
fn ip_tid_time(ip: u64, pid: u32, tid: u32, time: u64) -> Vec<u8> {
    let mut b = ip.to_ne_bytes().to_vec();
    b.extend_from_slice(&pid.to_ne_bytes());
    b.extend_from_slice(&tid.to_ne_bytes());
    b.extend_from_slice(&time.to_ne_bytes());
    b
}

fn parse_all(bytes: &[u8], layout: SampleLayout) -> Vec<Result<RingRecord, RecordError>> {
    records(bytes, layout).collect()
}

#[test]
fn a_full_sample_is_parsed_field_by_field() {
    let user = (-512i64) as u64; // PERF_CONTEXT_USER
    let mut body = ip_tid_time(0x1234, 7, 8, 99);
    body.extend(words(&[250_000])); // period
    body.extend(words(&[3, user, 0x1234, 0x5678])); // callchain
    body.extend(words(&[2, 10, 20, 30])); // regs: ABI 64, three registers
    body.extend(words(&[16])); // stack size
    body.extend([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    body.extend(words(&[12])); // dyn_size
    let layout = SampleLayout {
        sample_type: FULL.sample_type | u64::from(bindings::PERF_SAMPLE_PERIOD),
        ..FULL
    };
    let got = parse_all(&record(bindings::PERF_RECORD_SAMPLE, &body, None), layout);
    let want = ThreadSample {
        ip: 0x1234,
        pid: 7,
        tid: 8,
        time: 99,
        period: 250_000,
        callchain: vec![0x1234, 0x5678],
        regs: vec![10, 20, 30],
        stack: vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    };
    assert_eq!(got, vec![Ok(RingRecord::Sample(want))]);
}

#[test]
fn a_sample_outside_user_code_has_no_registers_and_no_stack() {
    let mut body = ip_tid_time(1, 2, 3, 4);
    body.extend(words(&[0])); // empty callchain
    body.extend(words(&[0])); // regs ABI none: no registers follow
    body.extend(words(&[0])); // stack size 0: no data, no dyn_size
    let got = parse_all(&record(bindings::PERF_RECORD_SAMPLE, &body, None), FULL);
    let want = ThreadSample {
        ip: 1,
        pid: 2,
        tid: 3,
        time: 4,
        ..ThreadSample::default()
    };
    assert_eq!(got, vec![Ok(RingRecord::Sample(want))]);
}

#[test]
fn lost_records_are_counted_and_other_types_skipped_by_size() {
    let mut bytes = record(bindings::PERF_RECORD_LOST, &words(&[5, 42]), None);
    bytes.extend(record(bindings::PERF_RECORD_COMM, &[0xee; 24], None));
    bytes.extend(record(
        bindings::PERF_RECORD_SAMPLE,
        &ip_tid_time(9, 1, 1, 1),
        None,
    ));
    let got = parse_all(&bytes, SIMPLE);
    let sample = ThreadSample {
        ip: 9,
        pid: 1,
        tid: 1,
        time: 1,
        ..ThreadSample::default()
    };
    assert_eq!(
        got,
        vec![
            Ok(RingRecord::Lost(42)),
            Ok(RingRecord::Other(bindings::PERF_RECORD_COMM)),
            Ok(RingRecord::Sample(sample)),
        ]
    );
}

#[test]
fn a_record_across_the_ring_s_end_is_copied_out_whole() {
    let sample = record(
        bindings::PERF_RECORD_SAMPLE,
        &ip_tid_time(0xabc, 3, 4, 5),
        None,
    );
    assert_eq!(sample.len(), 32);
    // A 64-byte area whose record starts 16 bytes before its end, on the
    // ring's third lap.
    let mut area = vec![0xffu8; 64];
    area[48..].copy_from_slice(&sample[..16]);
    area[..16].copy_from_slice(&sample[16..]);
    let tail = 2 * 64 + 48;
    let mut out = Vec::new();
    copy_unread(64, tail, tail + 32, &mut out, unread::from_slice(&area)).unwrap();
    assert_eq!(out, sample);
    let want = ThreadSample {
        ip: 0xabc,
        pid: 3,
        tid: 4,
        time: 5,
        ..ThreadSample::default()
    };
    assert_eq!(parse_all(&out, SIMPLE), vec![Ok(RingRecord::Sample(want))]);
}

#[test]
fn more_unread_than_the_ring_holds_is_an_error() {
    let area = [0u8; 64];
    let mut out = vec![1];
    let e = copy_unread(64, 10, 75, &mut out, unread::from_slice(&area)).unwrap_err();
    assert_eq!(
        e,
        RecordError::Overrun {
            unread: 65,
            size: 64
        }
    );
    assert!(out.is_empty());
    // A head behind the tail claims nearly 2^64 bytes.
    let e = copy_unread(64, 10, 9, &mut out, unread::from_slice(&area)).unwrap_err();
    assert_eq!(
        e,
        RecordError::Overrun {
            unread: u64::MAX,
            size: 64
        }
    );
    copy_unread(64, 10, 10, &mut out, unread::from_slice(&area)).unwrap();
    assert!(out.is_empty());
}

#[test]
fn a_record_cut_off_by_the_data_s_end_is_an_error() {
    let full = record(bindings::PERF_RECORD_SAMPLE, &ip_tid_time(1, 1, 1, 1), None);
    let got = parse_all(&full[..24], SIMPLE);
    assert_eq!(
        got,
        vec![Err(RecordError::BeyondData { size: 32, left: 24 })]
    );
    // Not even a whole header.
    let got = parse_all(&full[..5], SIMPLE);
    assert_eq!(got, vec![Err(RecordError::BeyondData { size: 8, left: 5 })]);
}

#[test]
fn a_record_of_a_bogus_size_is_an_error_and_ends_the_records() {
    for size in [0u16, 7] {
        let mut bytes = record(bindings::PERF_RECORD_COMM, &[0; 8], Some(size));
        bytes.extend(record(bindings::PERF_RECORD_LOST, &words(&[1, 1]), None));
        let got = parse_all(&bytes, SIMPLE);
        assert_eq!(got, vec![Err(RecordError::BelowHeader { size })]);
    }
    let bytes = record(bindings::PERF_RECORD_COMM, &[0; 8], Some(u16::MAX));
    let got = parse_all(&bytes, SIMPLE);
    assert_eq!(
        got,
        vec![Err(RecordError::BeyondData {
            size: u16::MAX,
            left: 16
        })]
    );
}

#[test]
fn fields_past_their_record_s_size_are_an_error_not_a_read_beyond() {
    let truncated = |field| {
        vec![Err(RecordError::Truncated {
            kind: bindings::PERF_RECORD_SAMPLE,
            field,
        })]
    };
    // A sample of IP | TID | TIME whose record holds the IP only.
    let bytes = record(bindings::PERF_RECORD_SAMPLE, &words(&[1]), None);
    assert_eq!(parse_all(&bytes, SIMPLE), truncated("pid"));
    // A call chain claiming 2^64 - 1 entries.
    let mut body = ip_tid_time(1, 1, 1, 1);
    body.extend(words(&[u64::MAX, 1]));
    let bytes = record(bindings::PERF_RECORD_SAMPLE, &body, None);
    assert_eq!(parse_all(&bytes, FULL), truncated("callchain"));
    // A user stack claiming more bytes than follow.
    let mut body = ip_tid_time(1, 1, 1, 1);
    body.extend(words(&[0, 0, 1 << 40, 0]));
    let bytes = record(bindings::PERF_RECORD_SAMPLE, &body, None);
    assert_eq!(parse_all(&bytes, FULL), truncated("stack"));
    // A lost record without its count.
    let bytes = record(bindings::PERF_RECORD_LOST, &words(&[1]), None);
    let got = parse_all(&bytes, SIMPLE);
    assert_eq!(
        got,
        vec![Err(RecordError::Truncated {
            kind: bindings::PERF_RECORD_LOST,
            field: "lost"
        })]
    );
}

#[test]
fn refusals_are_told_apart_by_cause_in_one_line() {
    let err = |errno| std::io::Error::from_raw_os_error(errno);
    let c = SamplingError::classify;
    assert!(matches!(
        c(err(libc::EPERM), true, Some(2)),
        SamplingError::Seccomp
    ));
    assert!(matches!(
        c(err(libc::EACCES), false, Some(3)),
        SamplingError::Paranoid(3)
    ));
    assert!(matches!(
        c(err(libc::EPERM), false, Some(4)),
        SamplingError::Paranoid(4)
    ));
    assert!(matches!(
        c(err(libc::EACCES), false, Some(2)),
        SamplingError::Denied(_)
    ));
    for errno in [libc::ENOENT, libc::EOPNOTSUPP, libc::ENODEV] {
        assert!(matches!(
            c(err(errno), false, Some(2)),
            SamplingError::NoPmu(_)
        ));
    }
    assert!(matches!(
        c(err(libc::EINVAL), false, Some(2)),
        SamplingError::Kernel(_)
    ));
    let all = [
        SamplingError::Invalid("a sampling rate of 0"),
        SamplingError::Seccomp,
        SamplingError::Paranoid(3),
        c(err(libc::ENOENT), false, None),
        SamplingError::RingRecord(RecordError::BelowHeader { size: 0 }),
    ];
    for e in all {
        let line = e.to_string();
        assert!(!line.contains('\n') && !line.is_empty(), "{line:?}");
    }
    assert_eq!(
        SamplingError::Paranoid(3).to_string(),
        "sampling refused: kernel.perf_event_paranoid is 3, which denies perf events to \
         users without CAP_PERFMON"
    );
}

#[test]
fn specs_the_kernel_would_refuse_are_refused_before_opening() {
    let mut spec = SamplingSpec::new(cpu_clock(), SampleRate::Period(0));
    assert!(matches!(
        SamplingEvent::open(&spec),
        Err(SamplingError::Invalid(_))
    ));
    spec.rate = SampleRate::Frequency(1000);
    spec.stack_user = 12;
    assert!(matches!(
        Sampler::open(&spec),
        Err(SamplingError::Invalid(_))
    ));
    spec.stack_user = MAX_USER_STACK + 8;
    assert!(matches!(
        Sampler::open(&spec),
        Err(SamplingError::Invalid(_))
    ));
}

fn cpu_clock() -> CounterAttr {
    CounterAttr {
        kind: TYPE_SOFTWARE,
        config: u64::from(bindings::PERF_COUNT_SW_CPU_CLOCK),
        config1: 0,
        config2: 0,
        exclude_user: false,
        exclude_kernel: false,
        exclude_hv: false,
        inherit: false,
    }
}

/// The sampler of `spec`, or `None` where this environment refuses perf
/// events: then the refusal must name its cause (a seccomp filter, or a
/// closed kernel for a user without privilege).
fn open_here(spec: &SamplingSpec) -> Option<Sampler> {
    open_here_capped(spec, MAX_DATA_PAGES_LOG2)
}

/// As `open_here`, with at most `2^max_log2` data pages.
fn open_here_capped(spec: &SamplingSpec, max_log2: u32) -> Option<Sampler> {
    match Sampler::open_capped(spec, max_log2) {
        Ok(s) => Some(s),
        Err(SamplingError::Seccomp) if sys::seccomp_filtered() => None,
        Err(SamplingError::Paranoid(p)) if !is_root() && sys::perf_event_paranoid() == Some(p) => {
            None
        }
        Err(e) => panic!("sampling refused here: {e}"),
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no memory effects and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn this_thread() -> u32 {
    // SAFETY: gettid has no memory effects and cannot fail.
    unsafe { libc::gettid() as u32 }
}

/// Arithmetic only, nothing that leaves this binary's code.
#[inline(never)]
fn spin(iterations: u64) -> u64 {
    let mut x = black_box(1u64);
    for i in 0..iterations {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

/// Spins in chunks, draining `sampler` after each, until it holds `want`
/// samples or 5 s have passed (a loaded machine gives this thread little
/// CPU time; the test then fails on the count, never hangs).
fn sample_spinning(sampler: &mut Sampler, want: usize) -> Vec<ThreadSample> {
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < want && start.elapsed() < Duration::from_secs(5) {
        sampler.enable().unwrap();
        spin(200_000);
        sampler.disable().unwrap();
        sampler.drain(&mut samples).unwrap();
    }
    samples
}

/// The executable mappings of this test binary, from /proc/self/maps.
fn own_text() -> Vec<(u64, u64)> {
    let exe = std::fs::read_link("/proc/self/exe").unwrap();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let range = fields.next()?;
            let perms = fields.next()?;
            let path = fields.nth(3)?;
            if !perms.contains('x') || std::path::Path::new(path) != exe {
                return None;
            }
            let (lo, hi) = range.split_once('-')?;
            Some((
                u64::from_str_radix(lo, 16).ok()?,
                u64::from_str_radix(hi, 16).ok()?,
            ))
        })
        .collect()
}

#[test]
fn cpu_clock_samples_this_thread_inside_this_binary() {
    let spec = SamplingSpec::new(cpu_clock(), SampleRate::Period(100_000));
    let Some(mut sampler) = open_here(&spec) else {
        return;
    };
    assert!(sampler.ring_size().is_power_of_two());
    let samples = sample_spinning(&mut sampler, 50);
    assert!(samples.len() >= 50, "{} samples", samples.len());
    let text = own_text();
    assert!(!text.is_empty());
    let inside = |ip: u64| text.iter().any(|&(lo, hi)| (lo..hi).contains(&ip));
    // SAFETY: getpid has no memory effects and cannot fail.
    let pid = unsafe { libc::getpid() } as u32;
    for s in &samples {
        assert_eq!((s.pid, s.tid), (pid, this_thread()));
        assert!(s.callchain.is_empty() && s.regs.is_empty() && s.stack.is_empty());
        // A fixed period: every sample stands for 100 µs.
        assert_eq!(s.period, 100_000);
    }
    // Nearly all the time is spent in `spin`, in this binary's text; a few
    // samples may land in the vDSO or libc around it.
    let in_text = samples.iter().filter(|s| inside(s.ip)).count();
    assert!(
        in_text * 4 >= samples.len() * 3,
        "{in_text} of {}",
        samples.len()
    );
    assert!(samples.windows(2).all(|w| w[0].time <= w[1].time));
    assert_eq!(sampler.lost(), 0);
}

#[test]
fn nothing_is_sampled_while_disabled() {
    let spec = SamplingSpec::new(cpu_clock(), SampleRate::Period(100_000));
    let Some(mut sampler) = open_here(&spec) else {
        return;
    };
    let mut samples = Vec::new();
    // Opened disabled: busy work and a sleep leave the ring empty.
    spin(2_000_000);
    std::thread::sleep(Duration::from_millis(20));
    sampler.drain(&mut samples).unwrap();
    assert_eq!(samples.len(), 0);
    let before = sample_spinning(&mut sampler, 5).len();
    assert!(before >= 5, "{before} samples while enabled");
    spin(2_000_000);
    std::thread::sleep(Duration::from_millis(20));
    sampler.drain(&mut samples).unwrap();
    assert_eq!(samples.len(), 0);
}

#[test]
fn samples_carry_the_user_call_chain_registers_and_stack() {
    let spec = SamplingSpec {
        callchain: true,
        regs_user: UNWIND_REGS,
        stack_user: 8192,
        ..SamplingSpec::new(cpu_clock(), SampleRate::Period(100_000))
    };
    let Some(mut sampler) = open_here(&spec) else {
        return;
    };
    let samples = sample_spinning(&mut sampler, 10);
    assert!(samples.len() >= 10, "{} samples", samples.len());
    let regs = UNWIND_REGS.count_ones() as usize;
    for s in &samples {
        // User-only call chains start at the sampled instruction.
        assert_eq!(s.callchain.first(), Some(&s.ip));
        // The highest register asked for is the instruction pointer.
        assert_eq!(s.regs.len(), regs);
        assert_eq!(s.regs.last(), Some(&s.ip));
        assert!(
            !s.stack.is_empty() && s.stack.len() <= 8192,
            "{}",
            s.stack.len()
        );
    }
}

#[test]
fn cycles_sample_where_a_pmu_exists_and_say_so_where_none_does() {
    let cycles = CounterAttr {
        kind: TYPE_HARDWARE,
        config: u64::from(bindings::PERF_COUNT_HW_CPU_CYCLES),
        ..cpu_clock()
    };
    let spec = SamplingSpec::new(cycles, SampleRate::Frequency(1000));
    // The core PMUs perfbench knows (`cpu`, `cpu_core`, `armv8_pmuv3`, …),
    // as the event parser finds them: the emulated arm64 machine's is
    // `armv8_pmuv3`, with no suffix.
    let root = crate::kernel::pmu::live_root();
    let pmu = !crate::kernel::pmu::core_pmu_names(root).is_empty();
    match Sampler::open(&spec) {
        Ok(mut sampler) => {
            assert!(pmu, "cycles opened without a CPU PMU in sysfs");
            sample_spinning(&mut sampler, 1);
        }
        Err(SamplingError::NoPmu(_)) if !pmu => {}
        Err(SamplingError::Seccomp) if sys::seccomp_filtered() => {}
        Err(SamplingError::Paranoid(_)) if !is_root() => {}
        Err(e) => panic!("cycles: {e} (PMU in sysfs: {pmu})"),
    }
}

/// Spins with `sampler` enabled until its ring holds `bytes` or 5 s have
/// passed; whether it got there.
fn spin_until_pending(sampler: &Sampler, bytes: u64) -> bool {
    let start = Instant::now();
    while sampler.pending() < bytes && start.elapsed() < Duration::from_secs(5) {
        sampler.enable().unwrap();
        spin(50_000);
        sampler.disable().unwrap();
    }
    sampler.pending() >= bytes
}

#[test]
fn a_one_page_ring_wraps_and_counts_what_it_could_not_hold() {
    let spec = SamplingSpec::new(cpu_clock(), SampleRate::Period(100_000));
    let Some(mut sampler) = open_here_capped(&spec, 0) else {
        return;
    };
    let size = sampler.ring_size();
    assert_eq!(size, sys::page_size());
    // A sample of IP | TID | TIME is 32 bytes; drained as it goes, the ring
    // takes three rings' worth and wraps past its end.
    let record = 32;
    let want = 3 * size / record;
    let samples = sample_spinning(&mut sampler, want);
    assert!(samples.len() >= want, "{} samples", samples.len());
    // Records across the ring's end came out whole: every one parsed, and
    // parsed right.
    assert!(samples.iter().all(|s| s.tid == this_thread()));
    // Not drained, it fills up (the kernel keeps the last free byte, so
    // full is one record short of the size); the samples it then cannot
    // hold are told in a LOST record, written once there is room again.
    let start = Instant::now();
    while sampler.lost() == 0 && start.elapsed() < Duration::from_secs(5) {
        assert!(spin_until_pending(&sampler, (size - record) as u64));
        sampler.enable().unwrap();
        spin(500_000);
        sampler.disable().unwrap();
        let mut more = Vec::new();
        sampler.drain(&mut more).unwrap();
        spin_until_pending(&sampler, 1);
        sampler.drain(&mut more).unwrap();
    }
    assert!(sampler.lost() > 0);
}

#[test]
fn the_attribute_samples_user_space_of_this_thread_disabled() {
    let spec = SamplingSpec::new(cpu_clock(), SampleRate::Frequency(4000));
    let raw = spec.raw();
    assert_eq!(raw.type_, TYPE_SOFTWARE);
    assert_eq!(raw.config, u64::from(bindings::PERF_COUNT_SW_CPU_CLOCK));
    assert_eq!((raw.disabled(), raw.inherit(), raw.freq()), (1, 0, 1));
    assert_eq!((raw.exclude_kernel(), raw.exclude_user()), (1, 0));
    assert_eq!(raw.exclude_callchain_kernel(), 1);
    // SAFETY: reading the union's `sample_freq`, which `raw()` wrote; both
    // members are plain u64s.
    assert_eq!(unsafe { raw.__bindgen_anon_1.sample_freq }, 4000);
    let period = u64::from(bindings::PERF_SAMPLE_PERIOD);
    assert_eq!(raw.sample_type, SIMPLE.sample_type | period);
    assert_eq!((raw.sample_regs_user, raw.sample_stack_user), (0, 0));
    let spec = SamplingSpec {
        rate: SampleRate::Period(250_000),
        callchain: true,
        regs_user: UNWIND_REGS,
        stack_user: 4096,
        ..spec
    };
    let raw = spec.raw();
    assert_eq!(raw.freq(), 0);
    // SAFETY: as above, `sample_period` this time.
    assert_eq!(unsafe { raw.__bindgen_anon_1.sample_period }, 250_000);
    assert_eq!(raw.sample_type, FULL.sample_type | period);
    assert_eq!(
        (raw.sample_regs_user, raw.sample_stack_user),
        (UNWIND_REGS, 4096)
    );
}
