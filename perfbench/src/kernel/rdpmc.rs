//! Reading a counter from user space with `rdpmc`, through the counter's
//! mmap'd `perf_event_mmap_page`.
//!
//! The logic is the man page's seqlock loop (perf_event_open(2), "MMAP
//! layout", `cap_user_rdpmc`), written against the [`UserPage`] trait so that
//! it can be tested on a fake page: machines without a hardware PMU (VMs, CI)
//! never get a page with `cap_user_rdpmc` set. The raw page and the `rdpmc`
//! instruction itself live in [`crate::kernel::sys`].

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

/// The counter's current value read from user space, or `None` where the
/// page does not allow it (`cap_user_rdpmc` clear, or `index == 0`: not on a
/// hardware counter now) and the caller must fall back to `read()`.
///
/// `rdpmc(i)` reads hardware counter `i` (that is, `index - 1`). The whole
/// read is retried until `lock` is the same before and after it, so the
/// value never mixes an old `offset` with a new counter or the reverse.
#[inline]
pub fn read_counter<P, F>(page: &P, mut rdpmc: F) -> Option<u64>
where
    P: UserPage + ?Sized,
    F: FnMut(u32) -> u64,
{
    loop {
        let seq = page.lock();
        compiler_fence(Ordering::SeqCst);
        let index = page.index();
        let offset = page.offset();
        let value = if page.cap_user_rdpmc() && index != 0 {
            let width = page.pmc_width();
            let pmc = sign_extend(rdpmc(index - 1), width);
            Some(offset.wrapping_add(pmc) as u64)
        } else {
            None
        };
        compiler_fence(Ordering::SeqCst);
        if page.lock() == seq {
            return value;
        }
    }
}

/// Reads `page` with the real user-space read (`rdpmc` on x86_64, the
/// counter registers on aarch64); `None` where the page does not allow it
/// or this architecture has no user-space read here.
#[inline]
pub fn read_page(page: &sys::MmapPage) -> Option<u64> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        read_counter(page, sys::rdpmc)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = page;
        None
    }
}

#[cfg(test)]
mod tests {
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
        let v = read_counter(&p, |i| {
            asked.push(i);
            234
        });
        assert_eq!(v, Some(1234));
        assert_eq!(asked, vec![2], "rdpmc reads counter index - 1, once");
        assert_eq!(p.lock_reads.get(), 2);
    }

    #[test]
    fn an_update_during_the_read_is_retried() {
        // The kernel reprograms the counter while the first read is in
        // flight: the raw value read belongs to the new state, the offset to
        // the old one. The sum (5 + 900) is torn; only the retry's
        // 100_000 + 900 is consistent.
        let p = page(1, 5, 48);
        let mut calls = 0;
        let v = read_counter(&p, |i| {
            assert_eq!(i, 0);
            calls += 1;
            if calls == 1 {
                p.lock.set(3); // writer enters
                p.offset.set(100_000);
                p.lock.set(4); // and leaves
            }
            900
        });
        assert_eq!(v, Some(100_900));
        assert_eq!(calls, 2, "exactly one retry");
        assert_eq!(p.lock_reads.get(), 4);
    }

    #[test]
    fn a_retry_can_also_end_in_the_fallback() {
        // The counter is scheduled out during the read: the retry sees
        // index 0 and the caller must fall back to read().
        let p = page(2, 5, 48);
        let v = read_counter(&p, |_| {
            p.lock.set(5);
            p.index.set(0);
            1
        });
        assert_eq!(v, None);
    }

    #[test]
    fn the_raw_value_is_sign_extended_to_pmc_width() {
        // Bit 47 set: -10 in 48 bits, whatever lies above bit 47.
        for raw in [0xFFFF_FFFF_FFF6u64, 0xABCD_FFFF_FFFF_FFF6] {
            let p = page(1, 1000, 48);
            assert_eq!(read_counter(&p, |_| raw), Some(990), "{raw:#x}");
        }
        // Bit 47 clear: a positive value, upper garbage dropped.
        let p = page(1, 1000, 48);
        assert_eq!(read_counter(&p, |_| 0xFF00_0000_0000_0010), Some(1016));
        // A negative delta on a large offset.
        let p = page(1, 1 << 50, 48);
        assert_eq!(
            read_counter(&p, |_| (1 << 47) | 5),
            Some((1 << 50) - (1 << 47) + 5)
        );
    }

    #[test]
    fn width_64_is_no_extension() {
        let p = page(1, 1000, 64);
        assert_eq!(read_counter(&p, |_| 1 << 47), Some(1000 + (1 << 47)));
        assert_eq!(read_counter(&p, |_| u64::MAX - 9), Some(990));
        assert_eq!(sign_extend(u64::MAX, 64), -1);
        assert_eq!(sign_extend(0x8000, 0), 0x8000);
        assert_eq!(sign_extend(0x8000, 16), -0x8000);
    }

    #[test]
    fn index_0_falls_back_without_rdpmc() {
        let p = page(0, 1000, 48);
        assert_eq!(read_counter(&p, |_| panic!("rdpmc with index 0")), None);
    }

    #[test]
    fn no_cap_user_rdpmc_falls_back_without_rdpmc() {
        let p = page(4, 1000, 48);
        p.cap_user_rdpmc.set(false);
        assert_eq!(
            read_counter(&p, |_| panic!("rdpmc without cap_user_rdpmc")),
            None
        );
    }
}
