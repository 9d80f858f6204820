//! Fresh anonymous mappings: pages the kernel backs only when first
//! written, so that touching them is a known count of page faults.

use std::io;

/// The size of a memory page, from `sysconf(_SC_PAGESIZE)`.
pub fn page_size() -> usize {
    // SAFETY: sysconf reads a system setting; it has no memory effects.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size)
        .ok()
        .filter(|&s| s > 0)
        .unwrap_or(4096)
}

/// A new private anonymous mapping, unmapped when dropped. The kernel backs
/// none of its pages until they are first written, so the first write to
/// each page is one page fault: a count known in advance.
pub struct FreshMapping {
    base: *mut u8,
    len: usize,
    page: usize,
}

impl FreshMapping {
    /// Maps `pages` fresh pages (at least one).
    pub fn new(pages: usize) -> io::Result<FreshMapping> {
        let page = page_size();
        let len = pages
            .max(1)
            .checked_mul(page)
            .ok_or(io::ErrorKind::InvalidInput)?;
        // SAFETY: a new private anonymous mapping; no existing memory is touched.
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
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(FreshMapping {
            base: p.cast(),
            len,
            page,
        })
    }

    /// The number of pages mapped.
    pub fn pages(&self) -> usize {
        self.len / self.page
    }

    /// The whole mapping as bytes, for the kernel to write into (a `read`
    /// into fresh pages: the kernel takes their faults on the caller's
    /// behalf).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `base` points at `len` readable and writable bytes mapped
        // in `new` (zero-filled by the kernel, so initialised), owned by self
        // alone and borrowed mutably for the slice's lifetime.
        unsafe { std::slice::from_raw_parts_mut(self.base, self.len) }
    }

    /// Writes 1 to the first byte of page `i` and reads it back.
    ///
    /// # Panics
    ///
    /// If `i` is not a page of the mapping.
    pub fn touch(&mut self, i: usize) -> u8 {
        assert!(
            i < self.pages(),
            "page {i} of a mapping of {}",
            self.pages()
        );
        // SAFETY: i * page < len: inside the mapping, which lives as long as
        // self; volatile, so that the write happens and faults.
        unsafe {
            let at = self.base.add(i * self.page);
            std::ptr::write_volatile(at, 1);
            std::ptr::read_volatile(at)
        }
    }
}

impl Drop for FreshMapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`; nothing refers
        // to it once self is gone.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_mappings_are_whole_pages_of_the_system_size() {
        let page = page_size();
        assert!(page >= 4096 && page.is_power_of_two(), "{page}");
        let mut m = FreshMapping::new(3).unwrap();
        assert_eq!((m.pages(), m.len), (3, 3 * page));
        assert_eq!((0..3).map(|i| m.touch(i)).collect::<Vec<_>>(), [1, 1, 1]);
        let outside = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| m.touch(3)));
        assert!(outside.is_err(), "page 3 of 3 is refused");
    }
}
