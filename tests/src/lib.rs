//! Routines for the fixture benchmarks the end-to-end tests run.

/// Maps `pages` fresh anonymous pages, writes each once and unmaps them:
/// exactly `pages` page faults.
pub fn touch_fresh_pages(pages: usize) -> u64 {
    let page = 4096;
    let len = pages * page;
    // SAFETY: a new private anonymous mapping of `len` bytes.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED, "mmap of {len} bytes failed");
    let base = p.cast::<u8>();
    let mut sum = 0;
    for i in 0..pages {
        // SAFETY: i * page < len: inside the mapping.
        unsafe {
            std::ptr::write_volatile(base.add(i * page), 1);
            sum += u64::from(std::ptr::read_volatile(base.add(i * page)));
        }
    }
    // SAFETY: unmaps exactly the mapping made above.
    unsafe { libc::munmap(p, len) };
    sum
}
