//! The CPU registers user space reads without a system call: a PMU
//! counter (`rdpmc` on x86_64, `PMEVCNTR<n>_EL0` on arm64) and the
//! timestamp counter the counter pages' times convert from.

/// The arm64 cycle counter's index: `index - 1` of its mmap'd page.
#[cfg(target_arch = "aarch64")]
const ARM64_CYCLE_COUNTER: u32 = 31;

/// Reads arm64 PMU counter `counter` from EL0: `PMCCNTR_EL0` for the cycle
/// counter (31), else `PMEVCNTR<counter>_EL0`; 0 for a number no counter
/// has. An `isb` first, so that the instructions before it have completed.
///
/// Only meaningful where a mapped page of one of this thread's counters says
/// `cap_user_rdpmc` and `index == counter + 1`: the kernel then lets EL0
/// read the counters (PMUSERENR_EL0.ER and CR). Elsewhere the read traps and
/// the process dies of `SIGILL`: a crash, not undefined behaviour.
#[cfg(target_arch = "aarch64")]
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn rdpmc(counter: u32) -> u64 {
    macro_rules! read_register {
        ($($n:literal)*) => {
            match counter {
                ARM64_CYCLE_COUNTER => read_register!(@ "pmccntr_el0"),
                $($n => read_register!(@ concat!("pmevcntr", $n, "_el0")),)*
                _ => 0,
            }
        };
        (@ $register:expr) => {{
            let value: u64;
            // SAFETY: `isb` and `mrs` of a PMU counter register read no
            // memory and write only the declared output register; an
            // unpermitted read traps (SIGILL) rather than returning garbage.
            // Not `nomem`, so it orders the compiler's memory accesses
            // around it, as the seqlock loop needs.
            unsafe {
                std::arch::asm!(
                    "isb",
                    concat!("mrs {value}, ", $register),
                    value = out(reg) value,
                    options(nostack, preserves_flags),
                );
            }
            value
        }};
    }
    read_register!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30)
}

/// Reads hardware performance counter `counter` with the `rdpmc`
/// instruction, between two `lfence`s: the first so that it is not executed
/// before the instructions preceding it have completed, the second so that
/// the instructions after it do not start before it has read.
///
/// Only meaningful where a mapped page of one of this thread's counters says
/// `cap_user_rdpmc` and `index == counter + 1` (read it under the seqlock:
/// [`crate::kernel::rdpmc::read_counter`]). Where the kernel has not enabled user
/// `rdpmc` the CPU raises a general-protection fault and the process dies of
/// `SIGSEGV`: a crash, not undefined behaviour.
#[cfg(target_arch = "x86_64")]
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn rdpmc(counter: u32) -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: `lfence` and `rdpmc` read no memory and write none; `rdpmc`
    // reads the counter selected by ECX into EDX:EAX, both declared as
    // outputs, and neither instruction touches the stack or the flags. An
    // unpermitted read faults (SIGSEGV) rather than returning garbage. The
    // block is not `nomem`, so it also orders the compiler's memory accesses
    // around it, as the seqlock loop needs.
    unsafe {
        std::arch::asm!(
            "lfence",
            "rdpmc",
            "lfence",
            in("ecx") counter,
            out("eax") lo,
            out("edx") hi,
            options(nostack, preserves_flags),
        );
    }
    (u64::from(hi) << 32) | u64::from(lo)
}

/// The timestamp counter the mmap page's `time_*` fields convert to the
/// perf clock (`cap_user_time`): the TSC on x86_64, the virtual counter
/// `CNTVCT_EL0` on aarch64 (after an `isb`, so it is not read early).
#[cfg(target_arch = "x86_64")]
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn user_timestamp() -> u64 {
    // SAFETY: `rdtsc` reads the time-stamp counter, which user space may
    // always read on Linux (CR4.TSD is clear); it touches no memory.
    unsafe { std::arch::x86_64::_rdtsc() }
}

/// The timestamp counter read once every earlier instruction has
/// completed (`lfence; rdtsc`), as the kernel's `rdtsc_ordered` and so
/// `clock_gettime` read it: for timing a span of code. A plain `rdtsc` lets
/// the timed code still run after the closing read (one iteration of 6.5 ns
/// read 1.35 ns); a second `lfence` after it, as well, isolates the code
/// from its neighbours and measured 14 ns for the same iteration.
#[cfg(target_arch = "x86_64")]
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn ordered_timestamp() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: `lfence` and `rdtsc`, which user space may always run on
    // Linux (CR4.TSD is clear); no memory is read or written. Not `nomem`,
    // so the compiler keeps the timed code's memory accesses between two
    // reads.
    unsafe {
        std::arch::asm!(
            "lfence",
            "rdtsc",
            out("eax") lo,
            out("edx") hi,
            options(nostack, preserves_flags),
        );
    }
    (u64::from(hi) << 32) | u64::from(lo)
}

/// See the x86_64 version: on aarch64 [`user_timestamp`] is already in
/// order, its `isb` before the read of `CNTVCT_EL0` waiting for every
/// earlier instruction, as the vDSO's `clock_gettime` does.
#[cfg(target_arch = "aarch64")]
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn ordered_timestamp() -> u64 {
    user_timestamp()
}

/// See the x86_64 version.
#[cfg(target_arch = "aarch64")]
// Always inlined: see `counter::group::GroupReader::read_into`.
#[inline(always)]
pub fn user_timestamp() -> u64 {
    let value: u64;
    // SAFETY: `isb` and `mrs` of CNTVCT_EL0, which Linux lets EL0 read
    // (CNTKCTL_EL1.EL0VCTEN); no memory is read or written. Not `nomem`, so
    // it orders the compiler's memory accesses around it in the seqlock loop.
    unsafe {
        std::arch::asm!(
            "isb",
            "mrs {value}, cntvct_el0",
            value = out(reg) value,
            options(nostack, preserves_flags),
        );
    }
    value
}
