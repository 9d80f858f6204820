//! The bytes between a ring's `data_tail` and `data_head`, copied out in
//! order: a stretch that wraps past the data area's end comes out whole.

use super::RecordError;

/// Copies the unread bytes of a data area of `size` bytes (a power of two)
/// into `out` (cleared first), through `copy(offset, into)`, which fills
/// `into` from `offset` of the area. `head - tail` beyond `size` is an
/// error, and nothing is copied.
pub fn copy_unread(
    size: usize,
    tail: u64,
    head: u64,
    out: &mut Vec<u8>,
    mut copy: impl FnMut(usize, &mut [u8]),
) -> Result<(), RecordError> {
    out.clear();
    let unread = head.wrapping_sub(tail);
    let len = match usize::try_from(unread) {
        Ok(len) if len <= size && size.is_power_of_two() => len,
        _ => return Err(RecordError::Overrun { unread, size }),
    };
    // `size` is a power of two, so the offset is the position modulo it.
    let start = (tail as usize) & (size - 1);
    let first = len.min(size - start);
    out.resize(len, 0);
    let (before_end, after_wrap) = out.split_at_mut(first);
    copy(start, before_end);
    if !after_wrap.is_empty() {
        copy(0, after_wrap);
    }
    Ok(())
}

/// `copy_unread`'s `copy` over a byte slice, for tests: the data area is
/// `area`.
#[cfg(test)]
pub fn from_slice(area: &[u8]) -> impl FnMut(usize, &mut [u8]) + '_ {
    move |offset, into| into.copy_from_slice(&area[offset..offset + into.len()])
}
