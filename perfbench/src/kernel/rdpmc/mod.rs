//! Reading a counter from user space with `rdpmc`, through the counter's
//! mmap'd `perf_event_mmap_page`.
//!
//! The logic is the man page's seqlock loop (perf_event_open(2), "MMAP
//! layout", `cap_user_rdpmc` and `cap_user_time`), as libperf's
//! `perf_mmap__read_self` runs it, split in two: the counter's value, whose
//! read must cost the same every time because it lies inside what is
//! counted, and the enabled and running times, which take a timestamp and
//! are read outside it. It is written against the [`UserPage`] trait so
//! that it can be tested on a fake page: machines without a hardware PMU
//! (VMs, CI) never get a page with `cap_user_rdpmc` set. The raw page
//! ([`sys::MmapPage`], `kernel/sys/mmap_page.rs`) and the instructions
//! themselves (`kernel/sys/registers.rs`) live in [`crate::kernel::sys`].

use std::sync::atomic::{compiler_fence, Ordering};

use crate::kernel::sys;

/// The fields of a `perf_event_mmap_page` the seqlock read needs. Each call
/// reads the field afresh: the kernel may change it at any moment.
pub trait UserPage {
    /// `lock`: the seqlock.
    fn lock(&self) -> u32;
    /// `index`: hardware counter number plus one, 0 if none right now.
    fn index(&self) -> u32;
    /// `offset`: added to the sign-extended counter value.
    fn offset(&self) -> i64;
    /// `pmc_width`: bits of the raw counter value.
    fn pmc_width(&self) -> u16;
    /// `cap_user_rdpmc`: user space may use `rdpmc` on this counter.
    fn cap_user_rdpmc(&self) -> bool;
    /// `time_enabled` as of the kernel's last update of the page.
    fn time_enabled(&self) -> u64;
    /// `time_running` as of the kernel's last update of the page.
    fn time_running(&self) -> u64;
    /// The conversion of a timestamp to the perf clock, if the page offers
    /// it (`cap_user_time`).
    fn clock(&self) -> Option<UserClock>;
}

/// The mmap page's conversion from the timestamp counter to the perf clock
/// (`time_mult`, `time_shift`, `time_offset`; `time_cycles` and `time_mask`
/// where the counter is short).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UserClock {
    /// `time_mult`.
    pub mult: u32,
    /// `time_shift`.
    pub shift: u16,
    /// `time_offset`.
    pub offset: u64,
    /// `time_cycles` and `time_mask`, with `cap_user_time_short`.
    pub short: Option<(u64, u64)>,
}

impl UserClock {
    /// Nanoseconds since the page's times were last updated, at timestamp
    /// `cycles`: the man page's `time_offset + (cyc * time_mult) >>
    /// time_shift`, the product taken in 128 bits so it cannot overflow.
    pub fn elapsed(&self, cycles: u64) -> u64 {
        let cycles = match self.short {
            Some((last, mask)) => last.wrapping_add(cycles.wrapping_sub(last) & mask),
            None => cycles,
        };
        let scaled = (u128::from(cycles) * u128::from(self.mult)) >> self.shift;
        self.offset.wrapping_add(scaled as u64)
    }
}

impl UserPage for sys::MmapPage {
    #[inline]
    fn lock(&self) -> u32 {
        sys::MmapPage::lock(self)
    }
    #[inline]
    fn index(&self) -> u32 {
        sys::MmapPage::index(self)
    }
    #[inline]
    fn offset(&self) -> i64 {
        sys::MmapPage::offset(self)
    }
    #[inline]
    fn pmc_width(&self) -> u16 {
        sys::MmapPage::pmc_width(self)
    }
    #[inline]
    fn cap_user_rdpmc(&self) -> bool {
        sys::MmapPage::cap_user_rdpmc(self)
    }
    #[inline]
    fn time_enabled(&self) -> u64 {
        sys::MmapPage::time_enabled(self)
    }
    #[inline]
    fn time_running(&self) -> u64 {
        sys::MmapPage::time_running(self)
    }
    #[inline]
    fn clock(&self) -> Option<UserClock> {
        self.cap_user_time().then(|| UserClock {
            mult: self.time_mult(),
            shift: self.time_shift(),
            offset: self.time_offset(),
            short: self
                .cap_user_time_short()
                .then(|| (self.time_cycles(), self.time_mask())),
        })
    }
}

/// Sign-extends the low `width` bits of `raw`. A width of 0 or 64 and more
/// leaves `raw` as it is.
#[inline]
pub fn sign_extend(raw: u64, width: u16) -> i64 {
    if width == 0 || width >= 64 {
        return raw as i64;
    }
    let shift = 64 - u32::from(width);
    ((raw << shift) as i64) >> shift
}

/// The `rdpmc` number of Intel's PERF_METRICS register (bit 29): the page
/// of a topdown metric (`topdown-retiring`, …) names it, and its value is
/// eight packed fractions of `slots`, no count.
pub const PERF_METRICS_RDPMC: u32 = 1 << 29;

/// The counter's current value read from user space, or `None` where the
/// page does not allow it (`cap_user_rdpmc` clear, `index == 0`: not on
/// a hardware counter now, or an index naming Intel's PERF_METRICS
/// register, [`PERF_METRICS_RDPMC`]) and the caller must fall back to
/// `read()`. (Groups holding topdown events are read with `read()` from
/// the start, `counter::group::holds_topdown`; this keeps a metric the
/// check missed from passing for a count.)
///
/// `rdpmc(i)` reads hardware counter `i` (that is, `index - 1`). The whole
/// read is retried until `lock` is the same before and after it, so the
/// value never mixes an old `offset` with a new counter or the reverse.
/// Its cost does not depend on the counter's state, so that every read
/// between two counted instants costs the same, except that each retry
/// (the kernel updated the page meanwhile: it rescheduled the counter)
/// repeats it; `retries` counts them.
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn read_counter<P, F>(page: &P, mut rdpmc: F, retries: &mut u64) -> Option<u64>
where
    P: UserPage + ?Sized,
    F: FnMut(u32) -> u64,
{
    loop {
        let seq = page.lock();
        compiler_fence(Ordering::SeqCst);
        let index = page.index();
        let offset = page.offset();
        let counter = index != 0 && (index - 1) & PERF_METRICS_RDPMC == 0;
        let value = if page.cap_user_rdpmc() && counter {
            let pmc = sign_extend(rdpmc(index - 1), page.pmc_width());
            Some(offset.wrapping_add(pmc) as u64)
        } else {
            None
        };
        compiler_fence(Ordering::SeqCst);
        if page.lock() == seq {
            return value;
        }
        *retries += 1;
    }
}

/// The counter's `(time_enabled, time_running)` now, read from user space
/// as libperf's `perf_mmap__read_self` reads them: the page's times are as
/// of the kernel's last update, so where the page offers the conversion
/// (`cap_user_time`) the time since then, from `timestamp()`, is added to
/// the enabled time, and to the running time if the counter is on a
/// hardware counter (`index != 0`). Without the conversion the times are
/// the page's own. Taken under the seqlock, retried like
/// [`read_counter`].
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn read_times<P, T>(page: &P, mut timestamp: T) -> (u64, u64)
where
    P: UserPage + ?Sized,
    T: FnMut() -> u64,
{
    loop {
        let seq = page.lock();
        compiler_fence(Ordering::SeqCst);
        let enabled = page.time_enabled();
        let running = page.time_running();
        let elapsed = page.clock().map_or(0, |clock| clock.elapsed(timestamp()));
        let on_pmu = page.index() != 0;
        compiler_fence(Ordering::SeqCst);
        if page.lock() == seq {
            let running = if on_pmu {
                running.wrapping_add(elapsed)
            } else {
                running
            };
            return (enabled.wrapping_add(elapsed), running);
        }
    }
}

/// Reads `page` with the real user-space read (`rdpmc` on x86_64, the
/// counter registers on aarch64); `None` where the page does not allow it
/// or this architecture has no user-space read here.
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn read_page(page: &sys::MmapPage, retries: &mut u64) -> Option<u64> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        read_counter(page, sys::rdpmc, retries)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (page, retries);
        None
    }
}

/// [`read_times`] of `page` with the real timestamp counter (none on
/// architectures without a user-space read: the page's own times).
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn page_times(page: &sys::MmapPage) -> (u64, u64) {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        read_times(page, sys::user_timestamp)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        read_times(page, || 0)
    }
}

#[cfg(test)]
mod tests;
