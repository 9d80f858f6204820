//! The loop of known length both bench files of the guest measure
//! (`exact.rs` through `#[perfbench]`, `exact_criterion.rs` through
//! perfbench-criterion), and the checker samples itself: the same machine
//! code in each.

#[cfg(not(target_arch = "aarch64"))]
use perfbench::black_box;

/// `trips` rounds of `1: subs x, x, #1; b.ne 1b`: exactly two instructions
/// per round on arm64.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
pub fn spin(trips: u64) {
    // SAFETY: the loop only counts a register down to zero; it reads and
    // writes no memory and leaves the stack alone.
    unsafe {
        std::arch::asm!(
            "1:",
            "subs {n}, {n}, #1",
            "b.ne 1b",
            n = inout(reg) trips => _,
            options(nomem, nostack),
        );
    }
}

/// Elsewhere the same shape in plain Rust, so that the workspace builds on
/// every architecture; only the arm64 counts are checked.
#[cfg(not(target_arch = "aarch64"))]
#[inline(never)]
pub fn spin(trips: u64) {
    let mut n = trips;
    while black_box(n) > 1 {
        n -= 1;
    }
}
