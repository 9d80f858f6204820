//! The first page of a counter's mmap (`perf_event_mmap_page`), through
//! which a counter is read from user space, and whether this build and
//! this kernel allow such reads.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

use perf_event_open_sys::bindings;

/// The first page of a counter's mmap: the kernel's `perf_event_mmap_page`,
/// mapped read-only and unmapped on drop.
///
/// Neither `Send` nor `Sync` (it holds a raw pointer): a user-space read
/// through it reads the counter register of the CPU the reading thread is
/// on, which is the counted thread's only on the counted thread itself.
///
/// ```compile_fail
/// fn to_another_thread<T: Send>() {}
/// to_another_thread::<perfbench::kernel::sys::MmapPage>();
/// ```
///
/// Its fields change under our feet (the kernel updates them whenever the
/// counter is scheduled), so every accessor is a volatile read, and a
/// consistent set must be taken under the page's seqlock (see
/// [`crate::kernel::rdpmc::read_counter`]).
pub struct MmapPage {
    page: std::ptr::NonNull<bindings::perf_event_mmap_page>,
    len: usize,
}

/// A volatile read of one field of the mapped page.
macro_rules! page_field {
    ($self:ident, $($field:tt)+) => {{
        let page = $self.page.as_ptr();
        // SAFETY: `page` points at a live, readable mapping of at least one
        // page (made in `MmapPage::map`, unmapped only on drop), which holds
        // the whole `perf_event_mmap_page` header; the field is a plain
        // integer, valid for every bit pattern, and naturally aligned because
        // the mapping is page-aligned and the struct is `repr(C)`.
        unsafe { std::ptr::read_volatile(std::ptr::addr_of!((*page).$($field)+)) }
    }};
}

/// Bit of `perf_event_mmap_page.capabilities` that is `cap_user_rdpmc`
/// (after `cap_bit0` and `cap_bit0_is_deprecated`).
const CAP_USER_RDPMC: u64 = 1 << 2;
/// Bit of `capabilities` that is `cap_user_time`.
const CAP_USER_TIME: u64 = 1 << 3;
/// Bit of `capabilities` that is `cap_user_time_short` (after
/// `cap_user_time_zero`).
const CAP_USER_TIME_SHORT: u64 = 1 << 5;

impl MmapPage {
    /// Maps the first page of the counter `fd`, read-only and shared. A
    /// counting event needs no data pages, so this is the whole mapping.
    pub fn map(fd: BorrowedFd<'_>) -> io::Result<MmapPage> {
        let len = super::page_size();
        if len < std::mem::size_of::<bindings::perf_event_mmap_page>() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "page smaller than perf_event_mmap_page",
            ));
        }
        // SAFETY: a new shared read-only mapping of the perf event `fd` at
        // offset 0, chosen by the kernel; no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let page = std::ptr::NonNull::new(p.cast())
            .ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(MmapPage { page, len })
    }

    /// `lock`: the seqlock, changed by the kernel around every update.
    #[inline]
    pub fn lock(&self) -> u32 {
        page_field!(self, lock)
    }

    /// `index`: the hardware counter number plus one; 0 when the counter is
    /// not on a hardware counter right now (or never is: software events).
    #[inline]
    pub fn index(&self) -> u32 {
        page_field!(self, index)
    }

    /// `offset`: added to the sign-extended hardware counter value.
    #[inline]
    pub fn offset(&self) -> i64 {
        page_field!(self, offset)
    }

    /// `pmc_width`: bits of the value `rdpmc` returns.
    #[inline]
    pub fn pmc_width(&self) -> u16 {
        page_field!(self, pmc_width)
    }

    /// `time_enabled` as of the kernel's last update of the page.
    #[inline]
    pub fn time_enabled(&self) -> u64 {
        page_field!(self, time_enabled)
    }

    /// `time_running` as of the kernel's last update of the page.
    #[inline]
    pub fn time_running(&self) -> u64 {
        page_field!(self, time_running)
    }

    /// The `capabilities` word.
    #[inline]
    pub fn capabilities(&self) -> u64 {
        page_field!(self, __bindgen_anon_1.capabilities)
    }

    /// `cap_user_rdpmc`: user space may read this counter with `rdpmc`.
    #[inline]
    pub fn cap_user_rdpmc(&self) -> bool {
        self.capabilities() & CAP_USER_RDPMC != 0
    }

    /// `cap_user_time`: `time_mult`, `time_shift` and `time_offset` convert
    /// [`user_timestamp`] to the perf clock.
    #[inline]
    pub fn cap_user_time(&self) -> bool {
        self.capabilities() & CAP_USER_TIME != 0
    }

    /// `cap_user_time_short`: the timestamp counter is narrower than 64
    /// bits; `time_cycles` and `time_mask` widen it.
    #[inline]
    pub fn cap_user_time_short(&self) -> bool {
        self.capabilities() & CAP_USER_TIME_SHORT != 0
    }

    /// `time_mult`: the multiplier from timestamp ticks to nanoseconds.
    #[inline]
    pub fn time_mult(&self) -> u32 {
        page_field!(self, time_mult)
    }

    /// `time_shift`: the right shift after multiplying by `time_mult`.
    #[inline]
    pub fn time_shift(&self) -> u16 {
        page_field!(self, time_shift)
    }

    /// `time_offset`: added to the converted timestamp.
    #[inline]
    pub fn time_offset(&self) -> u64 {
        page_field!(self, time_offset)
    }

    /// `time_cycles`: the timestamp at the kernel's last update, for
    /// `cap_user_time_short`.
    #[inline]
    pub fn time_cycles(&self) -> u64 {
        page_field!(self, time_cycles)
    }

    /// `time_mask`: the timestamp counter's width as a mask, for
    /// `cap_user_time_short`.
    #[inline]
    pub fn time_mask(&self) -> u64 {
        page_field!(self, time_mask)
    }
}

impl Drop for MmapPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`; the page is not
        // reachable after drop.
        unsafe { libc::munmap(self.page.as_ptr().cast(), self.len) };
    }
}

impl std::fmt::Debug for MmapPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmapPage")
            .field("lock", &self.lock())
            .field("index", &self.index())
            .field("offset", &self.offset())
            .field("pmc_width", &self.pmc_width())
            .field("cap_user_rdpmc", &self.cap_user_rdpmc())
            .finish()
    }
}

/// Whether this build can read counters from user space: `rdpmc` on x86_64,
/// the PMU's counter registers on aarch64.
pub const RDPMC_AVAILABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// Whether the kernel lets this process read its counters from user space
/// where a counter's page says `cap_user_rdpmc`. On x86_64 the page says
/// so itself. On arm64 it does not: the page offers reads to every event
/// that asked, and `kernel.perf_user_access` (read here, 0 where absent)
/// decides whether the counter's `index` is ever shown.
pub fn user_reads_allowed() -> bool {
    if cfg!(target_arch = "aarch64") {
        return std::fs::read_to_string("/proc/sys/kernel/perf_user_access")
            .is_ok_and(|s| s.trim() == "1");
    }
    RDPMC_AVAILABLE
}
