//! Workloads whose counts are known in advance, for checking a setup and
//! for perfbench's own tests: on machines without a hardware PMU they are
//! the ground truth that proves counts exact (page faults, and allocations
//! where the counting allocator is installed).

use std::hint::black_box;

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

/// The most boxes [`boxes_of_64`] keeps.
pub const MAX_BOXES: usize = 8;

/// Allocates `n` blocks of 64 bytes, keeps them alive until it returns and
/// frees them: with `perfbench::CountingAllocator` installed, exactly `n`
/// allocs, `64 · n` alloc-bytes, `n` deallocs and no reallocs. Returns `n`.
///
/// ```
/// assert_eq!(perfbench::fixtures::boxes_of_64(3), 3);
/// ```
///
/// # Panics
///
/// If `n` is above [`MAX_BOXES`].
pub fn boxes_of_64(n: usize) -> usize {
    assert!(
        n <= MAX_BOXES,
        "boxes_of_64 keeps at most {MAX_BOXES} boxes, not {n}"
    );
    // An array, not a Vec: the boxes are the only allocations.
    let boxes: [Option<Box<[u8; 64]>>; MAX_BOXES] =
        std::array::from_fn(|i| (i < n).then(|| black_box(Box::new([i as u8; 64]))));
    black_box(&boxes).iter().flatten().count()
}

/// Allocates 64 bytes, grows them to 256 and shrinks them to 16 with
/// `realloc`, and frees them: with `perfbench::CountingAllocator`
/// installed, exactly 1 alloc, 256 alloc-bytes (64, then 192 grown), 2
/// reallocs and 1 dealloc. Returns the final capacity, 16.
///
/// ```
/// assert_eq!(perfbench::fixtures::grow_and_shrink(), 16);
/// ```
pub fn grow_and_shrink() -> usize {
    let mut v: Vec<u8> = black_box(Vec::with_capacity(64));
    v.reserve_exact(256);
    black_box(&mut v).extend_from_slice(&[7; 16]);
    v.shrink_to_fit();
    black_box(v).capacity()
}
