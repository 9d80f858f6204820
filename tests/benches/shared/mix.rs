//! The spin of the fixtures' routines, one definition included by
//! spin.rs, profiled.rs and paired.rs (`#[path]`, a module of each bench
//! target, so it compiles into the routine as a private function does).

use std::hint::black_box;

/// `rounds` rounds of a xorshift-multiply on `x`: each waits for the last,
/// and no algebra folds them together. `#[inline]` keeps it inlined into
/// its callers as when each target wrote it out, so that no frame of its
/// own shows in a profile and the routines measure what they did.
#[inline]
pub fn mix(x: u64, rounds: u64) -> u64 {
    (0..black_box(rounds)).fold(x, |a, _| {
        (a ^ (a >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9)
    })
}
