//! A sampling event's mmap'd ring buffer: the header page
//! (`perf_event_mmap_page`) and `2^n` data pages the kernel writes records
//! into. User space reads `data_head` (acquire: the records before it are
//! written), copies out what lies between `data_tail` and it, and then
//! writes `data_tail` (release: the copies are done, the kernel may reuse
//! the space). The mapping is writable, so the kernel never overwrites
//! records not yet read: it drops them and counts them in a
//! `PERF_RECORD_LOST` instead.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use perf_event_open_sys::bindings;

/// The mapped ring, unmapped on drop. Neither `Send` nor `Sync`: one
/// reader, the thread that samples itself.
pub struct RingMapping {
    base: NonNull<u8>,
    len: usize,
    data_offset: usize,
    data_size: usize,
}

impl RingMapping {
    /// Maps the header page and `2^log2` data pages of the sampling event
    /// `fd`, readable and writable (so that `data_tail` is honoured).
    pub fn map(fd: BorrowedFd<'_>, log2: u32, page_size: usize) -> io::Result<RingMapping> {
        let data_size = page_size
            .checked_shl(log2)
            .filter(|s| s.is_power_of_two())
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        let len = page_size
            .checked_add(data_size)
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        if page_size < std::mem::size_of::<bindings::perf_event_mmap_page>() {
            return Err(io::Error::from(io::ErrorKind::Unsupported));
        }
        // SAFETY: a new shared mapping of the perf event `fd` at offset 0,
        // at an address the kernel chooses: no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let base = NonNull::new(p.cast()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(RingMapping {
            base,
            len,
            // The data area is the pages after the header; the header's own
            // `data_offset`/`data_size` say the same on kernels that set them.
            data_offset: page_size,
            data_size,
        })
    }

    /// Bytes of the data area: a power of two.
    pub fn data_size(&self) -> usize {
        self.data_size
    }

    /// A header field of type `u64` as an atomic.
    fn header_word(
        &self,
        field: fn(*mut bindings::perf_event_mmap_page) -> *mut u64,
    ) -> &AtomicU64 {
        let ptr = field(self.base.as_ptr().cast());
        // SAFETY: `ptr` points at a `u64` field inside the header page, which
        // is mapped for as long as `self` lives; the field is 8-aligned (the
        // page is page-aligned and the struct `repr(C)`), and the kernel
        // accesses it atomically too, so an atomic view of it is sound.
        unsafe { AtomicU64::from_ptr(ptr) }
    }

    /// `data_head`, read with acquire ordering: every record before it has
    /// been written in full.
    pub fn head(&self) -> u64 {
        // SAFETY: only the field's address is computed (`addr_of_mut!`), no
        // reference to the page; `page` points at the mapped header.
        self.header_word(|page| unsafe { std::ptr::addr_of_mut!((*page).data_head) })
            .load(Ordering::Acquire)
    }

    /// `data_tail`: how far user space has read.
    pub fn tail(&self) -> u64 {
        // SAFETY: as in `head`.
        self.header_word(|page| unsafe { std::ptr::addr_of_mut!((*page).data_tail) })
            .load(Ordering::Relaxed)
    }

    /// Writes `data_tail` with release ordering: the bytes before it have
    /// been copied out and the kernel may write over them.
    pub fn set_tail(&self, tail: u64) {
        // SAFETY: as in `head`.
        self.header_word(|page| unsafe { std::ptr::addr_of_mut!((*page).data_tail) })
            .store(tail, Ordering::Release);
    }

    /// Copies `out.len()` bytes from `offset` in the data area into `out`;
    /// `false` (nothing copied) if they are not all inside the data area.
    pub fn copy_out(&self, offset: usize, out: &mut [u8]) -> bool {
        let fits = offset
            .checked_add(out.len())
            .is_some_and(|end| end <= self.data_size);
        if !fits {
            return false;
        }
        // SAFETY: `data_offset + offset .. + out.len()` lies inside the
        // mapping (checked above: the data area is `data_size` bytes after
        // `data_offset`, and `len = data_offset + data_size`); the caller
        // reads only between `data_tail` and `data_head`, which the kernel
        // does not write until `data_tail` moves past it; `out` is a
        // separate, writable buffer of ours, so the ranges do not overlap.
        unsafe {
            let src = self.base.as_ptr().add(self.data_offset + offset);
            std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), out.len());
        }
        true
    }
}

impl Drop for RingMapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`; nothing borrows
        // it after drop (every atomic view borrows `self`).
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

impl std::fmt::Debug for RingMapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RingMapping")
            .field("data_size", &self.data_size)
            .field("head", &self.head())
            .field("tail", &self.tail())
            .finish()
    }
}
