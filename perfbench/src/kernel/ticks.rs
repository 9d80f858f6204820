//! A clock for timing a span inside counted code: the CPU's timestamp
//! counter, read in program order by a fixed, short sequence of
//! instructions (x86_64 `lfence; rdtsc`, aarch64 `isb; mrs cntvct_el0`),
//! so that a span's counts carry the same clock reads every time.
//!
//! `Instant::now()` reads the clock through the vDSO, whose seqlock now and
//! then retries: an iteration whose clock read retried counts a few
//! instructions more than the others (seen on the emulated arm64 PMU as an
//! empty routine counting +0.99 instructions in [0, 13.5]). Where no such
//! counter serves — another architecture, or an x86 TSC that is not
//! invariant (`/proc/cpuinfo` lacks `constant_tsc` or `nonstop_tsc`, or the
//! kernel dropped it as its clocksource) — [`Ticks`] falls back to
//! `Instant`, and the counts then may carry a clock read's retries.

use std::time::Instant;

/// Which clock [`Ticks`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickSource {
    /// x86_64's invariant timestamp counter, `lfence; rdtsc`; its rate is
    /// calibrated against `Instant` ([`Ticks::ns_per_tick`]).
    Tsc,
    /// aarch64's virtual counter, `isb; mrs cntvct_el0`, at the rate
    /// `CNTFRQ_EL0` gives.
    VirtualCounter,
    /// `Instant::now()`, in nanoseconds: a clock read that may retry.
    Instant,
}

/// The two clocks read together, at the start or end of a span over which
/// [`Ticks::ns_per_tick`] relates them.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    instant: Instant,
    ticks: u64,
}

/// A timestamp counter and how to read it ([`TickSource`]).
#[derive(Clone, Copy, Debug)]
pub struct Ticks {
    source: TickSource,
    /// Where `Instant` ticks count from, as nanoseconds.
    origin: Instant,
}

impl Ticks {
    /// The best clock here: the timestamp counter where it is invariant,
    /// else `Instant`. Decided once per process.
    pub fn new() -> Ticks {
        static SOURCE: std::sync::OnceLock<TickSource> = std::sync::OnceLock::new();
        Ticks {
            source: *SOURCE.get_or_init(best_source),
            origin: Instant::now(),
        }
    }

    /// `Instant` ticks, for tests and for a caller that must not use the
    /// counter.
    pub fn instant() -> Ticks {
        Ticks {
            source: TickSource::Instant,
            origin: Instant::now(),
        }
    }

    /// Which clock this reads.
    pub fn source(&self) -> TickSource {
        self.source
    }

    /// The clock now, in ticks. The timestamp counter's read is the same
    /// few instructions every time (and the branch to it goes the same way).
    #[inline(always)]
    pub fn now(&self) -> u64 {
        match self.source {
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            TickSource::Tsc | TickSource::VirtualCounter => super::sys::ordered_timestamp(),
            _ => u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX),
        }
    }

    /// Both clocks as close together as they can be read: of three tries,
    /// the one whose two counter reads around `Instant::now()` were
    /// nearest (a preemption between them would skew the rate), the counter
    /// taken halfway.
    pub fn mark(&self) -> Mark {
        let mut best: Option<(u64, Mark)> = None;
        for _ in 0..3 {
            let before = self.now();
            let instant = Instant::now();
            let after = self.now();
            let gap = after.wrapping_sub(before);
            let mark = Mark {
                instant,
                ticks: before.wrapping_add(gap / 2),
            };
            if best.is_none_or(|(g, _)| gap < g) {
                best = Some((gap, mark));
            }
        }
        best.map(|(_, m)| m).expect("three tries")
    }

    /// Nanoseconds per tick: the counter's stated rate where it has one
    /// (`CNTFRQ_EL0`; `Instant` ticks are nanoseconds), else the ratio of
    /// `Instant` time to ticks since `since`. Over a span of `s` seconds
    /// the ratio is off by about the gap of a [`mark`](Self::mark) (tens of
    /// nanoseconds) over `s`: 1e-6 over the default warm-up, 5e-6 over the
    /// 20 ms the end-to-end tests warm up for.
    pub fn ns_per_tick(&self, since: Mark) -> f64 {
        if let Some(rate) = self.stated_ns_per_tick() {
            return rate;
        }
        let now = self.mark();
        let ticks = now.ticks.wrapping_sub(since.ticks).max(1) as f64;
        now.instant.duration_since(since.instant).as_nanos() as f64 / ticks
    }

    /// The rate the hardware states, where it does.
    fn stated_ns_per_tick(&self) -> Option<f64> {
        match self.source {
            TickSource::Instant => Some(1.0),
            TickSource::VirtualCounter => counter_frequency().map(|hz| 1e9 / hz as f64),
            TickSource::Tsc => None,
        }
    }
}

impl Default for Ticks {
    fn default() -> Self {
        Ticks::new()
    }
}

/// The timestamp counter where it can time spans, else `Instant`.
fn best_source() -> TickSource {
    if cfg!(target_arch = "aarch64") && counter_frequency().is_some() {
        return TickSource::VirtualCounter;
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let clocksource =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .ok();
    if cfg!(target_arch = "x86_64") && tsc_is_invariant(&cpuinfo, clocksource.as_deref()) {
        return TickSource::Tsc;
    }
    TickSource::Instant
}

/// Whether the TSC ticks at one rate whatever the CPU's frequency and
/// power state (`constant_tsc` and `nonstop_tsc` among the first CPU's
/// flags) and the kernel has not found it unstable: it keeps `tsc` as its
/// clocksource, where that is readable.
pub fn tsc_is_invariant(cpuinfo: &str, clocksource: Option<&str>) -> bool {
    let flags = cpuinfo
        .lines()
        .find_map(|l| {
            let (key, value) = l.split_once(':')?;
            (key.trim() == "flags").then_some(value)
        })
        .unwrap_or("");
    let has = |flag: &str| flags.split_whitespace().any(|f| f == flag);
    has("constant_tsc") && has("nonstop_tsc") && clocksource.is_none_or(|c| c.trim() == "tsc")
}

/// `CNTFRQ_EL0`, the virtual counter's frequency in Hz; `None` if zero
/// (firmware left it unset).
#[cfg(target_arch = "aarch64")]
fn counter_frequency() -> Option<u64> {
    let hz: u64;
    // SAFETY: `mrs` of CNTFRQ_EL0, which EL0 may read whenever it may read
    // CNTVCT_EL0 (Linux allows both); it reads no memory and writes only the
    // declared output register.
    unsafe {
        std::arch::asm!(
            "mrs {hz}, cntfrq_el0",
            hz = out(reg) hz,
            options(nomem, nostack, preserves_flags),
        );
    }
    (hz > 0).then_some(hz)
}

/// No virtual counter off aarch64.
#[cfg(not(target_arch = "aarch64"))]
fn counter_frequency() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: &str = "processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n";

    #[test]
    fn the_tsc_is_invariant_only_with_both_flags_and_as_the_clocksource() {
        assert!(tsc_is_invariant(FLAGS, Some("tsc\n")));
        assert!(tsc_is_invariant(FLAGS, None));
        assert!(!tsc_is_invariant(FLAGS, Some("kvm-clock\n")));
        let no_nonstop = "flags\t: fpu tsc constant_tsc\n";
        assert!(!tsc_is_invariant(no_nonstop, Some("tsc")));
        // A flag's name inside another's does not count.
        let lookalike = "flags\t: constant_tsc_x nonstop_tsc\n";
        assert!(!tsc_is_invariant(lookalike, None));
        assert!(!tsc_is_invariant("", None));
    }

    #[test]
    fn the_counter_s_rate_is_a_cpu_s() {
        let ticks = Ticks::new();
        let start = ticks.mark();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let rate = ticks.ns_per_tick(start);
        // Between 100 MHz and 100 GHz: only a wrong rate or unit is not.
        let expected = match ticks.source() {
            TickSource::Instant => 1.0..=1.0,
            _ => 0.01..=10.0,
        };
        assert!(expected.contains(&rate), "{rate} ns per tick");
    }

    #[test]
    fn instant_ticks_are_nanoseconds() {
        let t = Ticks::instant();
        assert_eq!(t.source(), TickSource::Instant);
        assert_eq!(t.ns_per_tick(t.mark()), 1.0);
    }
}
