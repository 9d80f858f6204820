//! Workloads whose counts are known in advance, for checking a setup and
//! for perfbench's own tests: on machines without a hardware PMU they are
//! the ground truth that proves counts exact.

use crate::kernel::sys::FreshMapping;

/// Maps `pages` fresh anonymous pages, writes one byte to each and unmaps
/// them: exactly `pages` page faults, whatever the allocator does. Returns
/// the bytes read back (`pages`), to pass to `black_box`.
///
/// ```
/// use perfbench::fixtures::touch_fresh_pages;
/// assert_eq!(touch_fresh_pages(16), 16);
/// ```
///
/// # Panics
///
/// If the kernel refuses the mapping.
pub fn touch_fresh_pages(pages: usize) -> u64 {
    if pages == 0 {
        return 0;
    }
    let mut mapping = FreshMapping::new(pages).expect("mmap of fresh pages failed");
    (0..pages).map(|i| u64::from(mapping.touch(i))).sum()
}

/// Maps `pages` fresh anonymous pages and reads `/dev/zero` into all of
/// them: exactly `pages` page faults, all taken by the kernel on the
/// caller's behalf while it copies, so counted only where the kernel is
/// (`page-faults`, not `page-faults:u`). Returns the bytes read.
///
/// ```
/// use perfbench::fixtures::read_into_fresh_pages;
/// assert!(read_into_fresh_pages(2) >= 2 * 4096);
/// ```
///
/// # Panics
///
/// If the kernel refuses the mapping or `/dev/zero` cannot be read.
pub fn read_into_fresh_pages(pages: usize) -> u64 {
    use std::io::Read;
    if pages == 0 {
        return 0;
    }
    let mut mapping = FreshMapping::new(pages).expect("mmap of fresh pages failed");
    let bytes = mapping.bytes_mut();
    std::fs::File::open("/dev/zero")
        .and_then(|mut zero| zero.read_exact(bytes))
        .expect("reading /dev/zero failed");
    bytes.len() as u64
}
