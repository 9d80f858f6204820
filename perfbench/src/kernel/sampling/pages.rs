//! How many data pages a sampling ring buffer gets: a power of two, the
//! whole mapping (one header page more) within `perf_event_mlock_kb`, and
//! fewer when the kernel refuses that many.

/// The most data pages a ring asks for (2^7 = 128 pages, 512 KiB of 4 KiB
/// pages: the unprivileged default of `perf_event_mlock_kb`, 516 KiB, less
/// the header page).
pub const MAX_DATA_PAGES_LOG2: u32 = 7;

/// The data pages' `log2` to try first: the largest `n` up to
/// [`MAX_DATA_PAGES_LOG2`] for which `1 + 2^n` pages of `page_size` bytes
/// fit in `mlock_kb` KiB (0 if none does: one page is always tried).
pub fn first_log2(mlock_kb: u64, page_size: usize) -> u32 {
    let page = (page_size as u64).max(1);
    let pages = mlock_kb.saturating_mul(1024) / page;
    (0..=MAX_DATA_PAGES_LOG2)
        .rev()
        // The header page and 2^n data pages: 1 + 2^n <= pages.
        .find(|&n| (1u64 << n) < pages)
        .unwrap_or(0)
}

/// The `log2` to try after the kernel refused `log2` with `errno`: one
/// less on `EPERM` or `ENOMEM` (over the locked-memory limit), none after 0
/// pages' worth or after any other error.
pub fn next_log2(log2: u32, errno: i32) -> Option<u32> {
    if errno != libc::EPERM && errno != libc::ENOMEM {
        return None;
    }
    log2.checked_sub(1)
}

/// `perf_event_mlock_kb`, or the kernel's default (516) if unreadable.
pub fn mlock_kb() -> u64 {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_mlock_kb")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(516)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_limit_takes_a_header_and_128_pages() {
        assert_eq!(first_log2(516, 4096), 7);
        // 512 KiB is one page short of 1 + 128.
        assert_eq!(first_log2(512, 4096), 6);
        assert_eq!(first_log2(12, 4096), 1);
        assert_eq!(first_log2(8, 4096), 0);
        assert_eq!(first_log2(0, 4096), 0);
        assert_eq!(first_log2(u64::MAX, 4096), MAX_DATA_PAGES_LOG2);
        // 64 KiB pages: 516 KiB holds 8, so 1 + 4.
        assert_eq!(first_log2(516, 65536), 2);
    }

    #[test]
    fn refusals_for_memory_step_down_to_one_page_and_stop() {
        assert_eq!(next_log2(7, libc::EPERM), Some(6));
        assert_eq!(next_log2(1, libc::ENOMEM), Some(0));
        assert_eq!(next_log2(0, libc::EPERM), None);
        assert_eq!(next_log2(5, libc::EINVAL), None);
    }
}
