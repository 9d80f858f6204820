//! [`CountingAllocator`]: a global allocator that counts the calls made to
//! it while a counter group holding allocation counts is enabled, and the
//! process-wide totals those groups read.
//!
//! It lives here because a `GlobalAlloc` impl is `unsafe`; everything else
//! about allocation counts (their names, their place in a group) is the
//! counter layer's. Nothing here runs on an allocation unless a bench target
//! installs the allocator: a binary without it allocates as before.
//!
//! The totals are one set for the whole process, so a window counts what
//! every thread allocates while it is open, the threads the routine spawns
//! included. Windows are opened and closed by one measuring thread at a
//! time, as perfbench measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

/// Index of successful allocations (`alloc`, `alloc_zeroed`) in [`total`].
pub const ALLOCS: usize = 0;
/// Index of bytes allocated in [`total`]: each allocation's size, and what
/// a `realloc` grows by (a shrink adds nothing).
pub const ALLOC_BYTES: usize = 1;
/// Index of deallocations in [`total`].
pub const DEALLOCS: usize = 2;
/// Index of successful reallocations, growing or shrinking, in [`total`].
pub const REALLOCS: usize = 3;

/// Whether a window is open, and the totals, on one cache line: an
/// allocation while counting touches nothing else, and one while not
/// counting only reads it.
#[repr(align(64))]
struct Tally {
    counting: AtomicBool,
    totals: [AtomicU64; 4],
}

static TALLY: Tally = Tally {
    counting: AtomicBool::new(false),
    totals: [
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
    ],
};

/// A global allocator that counts allocations, bytes, deallocations and
/// reallocations for perfbench's `allocs`, `alloc-bytes`, `deallocs` and
/// `reallocs` metrics, and otherwise passes every call to the allocator it
/// wraps (the system allocator with [`CountingAllocator::system`]).
///
/// Install it in a bench target with one line; the default event set then
/// gains the four metrics, and `--events` can name them:
///
/// ```no_run
/// use perfbench::{black_box, perfbench, CountingAllocator};
///
/// #[global_allocator]
/// static ALLOC: CountingAllocator = CountingAllocator::system();
///
/// #[perfbench] // 1 allocs, 4096 alloc-bytes, 1 deallocs per iteration
/// fn zeroed_page() -> usize {
///     vec![0u8; black_box(4096)].len()
/// }
///
/// perfbench::main!();
/// ```
///
/// What counts: everything the process allocates while the routine runs,
/// on any thread, so the threads it spawns count too. A value the routine
/// returns to `iter` is dropped inside the measurement, so its deallocation
/// counts; `iter_batched`'s setup and the outputs it keeps are outside.
/// Outside the measured windows an allocation costs one extra load.
#[derive(Debug, Default)]
pub struct CountingAllocator<A = System> {
    inner: A,
}

impl CountingAllocator<System> {
    /// Counting around the system allocator.
    pub const fn system() -> Self {
        CountingAllocator { inner: System }
    }
}

impl<A> CountingAllocator<A> {
    /// Counting around `inner`, any other global allocator.
    pub const fn new(inner: A) -> Self {
        CountingAllocator { inner }
    }
}

/// Adds to the totals where a window is open.
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
fn tally(counted: usize, bytes: usize) {
    if TALLY.counting.load(Ordering::Relaxed) {
        TALLY.totals[counted].fetch_add(1, Ordering::Relaxed);
        if bytes > 0 {
            TALLY.totals[ALLOC_BYTES].fetch_add(bytes as u64, Ordering::Relaxed);
        }
    }
}

// SAFETY: every method passes its arguments unchanged to `inner`, which
// upholds GlobalAlloc's contract, and returns what `inner` returned;
// counting touches atomics only and never allocates.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller keeps `alloc`'s contract, which is `inner`'s.
        let ptr = unsafe { self.inner.alloc(layout) };
        if !ptr.is_null() {
            tally(ALLOCS, layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller keeps `alloc_zeroed`'s contract, which is
        // `inner`'s.
        let ptr = unsafe { self.inner.alloc_zeroed(layout) };
        if !ptr.is_null() {
            tally(ALLOCS, layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, so from `inner`, with
        // `layout`, as the caller guarantees.
        unsafe { self.inner.dealloc(ptr, layout) };
        tally(DEALLOCS, 0);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `inner` with `layout`, and `new_size` is
        // valid for it, as the caller guarantees.
        let new = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            tally(REALLOCS, new_size.saturating_sub(layout.size()));
        }
        new
    }
}

/// Opens the window: from now on the allocator adds to the totals.
#[inline]
pub fn start_counting() {
    TALLY.counting.store(true, Ordering::Relaxed);
}

/// Closes the window.
#[inline]
pub fn stop_counting() {
    TALLY.counting.store(false, Ordering::Relaxed);
}

/// The total at `index` ([`ALLOCS`], [`ALLOC_BYTES`], [`DEALLOCS`] or
/// [`REALLOCS`]) over every window so far: a plain load, which allocates
/// nothing.
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn total(index: usize) -> u64 {
    TALLY.totals[index].load(Ordering::Relaxed)
}

/// Whether this binary's global allocator is a [`CountingAllocator`]: one
/// allocation in a window, made once, moves the totals only if it is. Not
/// to be called while a window is open elsewhere (it closes it).
pub fn installed() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        let before = total(ALLOCS);
        start_counting();
        drop(black_box(Box::new(0u8)));
        stop_counting();
        total(ALLOCS) != before
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit tests' binary keeps the system allocator: the counts must
    /// not move, and detection must say so. (perfbench/tests/allocations.rs
    /// installs it and checks what it counts.)
    #[test]
    fn without_the_allocator_nothing_counts_and_detection_says_so() {
        assert!(!installed());
        let before: Vec<u64> = (0..4).map(total).collect();
        start_counting();
        let v = black_box(vec![1u8; 100]);
        drop(v);
        stop_counting();
        assert_eq!((0..4).map(total).collect::<Vec<_>>(), before);
    }
}
