//! The raw kernel interface: `perf_event_open(2)`, its ioctls and group read
//! format, and thread CPU affinity.
//!
//! This is the only module with `unsafe` code. Everything above it works with
//! owned file descriptors and plain values.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

use perf_event_open_sys as kernel;
use perf_event_open_sys::bindings;

/// `perf_event_attr.type` of the generalized hardware events.
pub const TYPE_HARDWARE: u32 = bindings::PERF_TYPE_HARDWARE;
/// `perf_event_attr.type` of the software events.
pub const TYPE_SOFTWARE: u32 = bindings::PERF_TYPE_SOFTWARE;
/// `perf_event_attr.type` of the generalized hardware cache events.
pub const TYPE_HW_CACHE: u32 = bindings::PERF_TYPE_HW_CACHE;
/// `perf_event_attr.type` of raw, model-specific hardware events.
pub const TYPE_RAW: u32 = bindings::PERF_TYPE_RAW;

/// What to count: the part of `perf_event_attr` that names an event and the
/// privilege levels it counts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterAttr {
    /// `perf_event_attr.type`: a `TYPE_*` constant or a dynamic PMU's type.
    pub kind: u32,
    /// `perf_event_attr.config`.
    pub config: u64,
    /// `perf_event_attr.config1`: extra event bits of dynamic PMUs (format
    /// terms such as `ldlat=config1:0-15`); 0 for other events.
    pub config1: u64,
    /// `perf_event_attr.config2`: more extra event bits of dynamic PMUs; 0
    /// for other events.
    pub config2: u64,
    /// Do not count in user space.
    pub exclude_user: bool,
    /// Do not count in the kernel.
    pub exclude_kernel: bool,
    /// Do not count in the hypervisor.
    pub exclude_hv: bool,
    /// Count the threads the measured thread creates while counting too
    /// (`inherit`): their counts are added in when they exit. Such a
    /// counter cannot be mmap'd, so it is never read from user space.
    pub inherit: bool,
}

/// Opens one counter for the calling thread on whatever CPU it runs.
///
/// Every counter is opened with the group read format `GROUP | ID |
/// TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING`, so a `read()` of the leader
/// returns the whole group (see [`GroupReading::parse`]). `leader` is the
/// group leader's descriptor (`None` opens a new leader); `disabled` opens
/// the counter stopped.
pub fn open_counter(
    attr: &CounterAttr,
    leader: Option<BorrowedFd<'_>>,
    disabled: bool,
) -> io::Result<OwnedFd> {
    let mut raw = bindings::perf_event_attr {
        size: std::mem::size_of::<bindings::perf_event_attr>() as u32,
        type_: attr.kind,
        config: attr.config,
        read_format: u64::from(
            bindings::PERF_FORMAT_GROUP
                | bindings::PERF_FORMAT_ID
                | bindings::PERF_FORMAT_TOTAL_TIME_ENABLED
                | bindings::PERF_FORMAT_TOTAL_TIME_RUNNING,
        ),
        ..Default::default()
    };
    raw.__bindgen_anon_3.config1 = config1_of(attr);
    raw.__bindgen_anon_4.config2 = attr.config2;
    raw.set_disabled(u64::from(disabled));
    raw.set_exclude_user(u64::from(attr.exclude_user));
    raw.set_exclude_kernel(u64::from(attr.exclude_kernel));
    raw.set_exclude_hv(u64::from(attr.exclude_hv));
    raw.set_inherit(u64::from(attr.inherit));
    let group_fd = leader.map_or(-1, |fd| fd.as_raw_fd());
    // SAFETY: `raw` is a fully initialised perf_event_attr whose `size` is its
    // own size; it asks only for counting (no sampling, no mmap output), so the
    // kernel writes nothing into our memory. pid 0 / cpu -1 means "this
    // thread, any CPU"; group_fd is -1 or a descriptor borrowed for the call.
    let fd = unsafe {
        kernel::perf_event_open(
            &mut raw,
            0,
            -1,
            group_fd,
            libc::c_ulong::from(bindings::PERF_FLAG_FD_CLOEXEC),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned `fd` as a new descriptor that nothing
    // else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Starts the counter `fd` (not its group members: see `group`).
pub fn enable(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: ENABLE takes an integer flag argument and touches no memory of
    // ours; `fd` is a live perf event descriptor for the duration of the call.
    check(unsafe { kernel::ioctls::ENABLE(fd.as_raw_fd(), 0) })
}

/// Stops the counter `fd` (not its group members: see `group`).
pub fn disable(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: as for `enable`.
    check(unsafe { kernel::ioctls::DISABLE(fd.as_raw_fd(), 0) })
}

/// The kernel's unique id of the counter `fd`, as it appears in group reads.
pub fn counter_id(fd: BorrowedFd<'_>) -> io::Result<u64> {
    let mut id = 0u64;
    // SAFETY: ID writes one u64 through the pointer, which points at `id`.
    check(unsafe { kernel::ioctls::ID(fd.as_raw_fd(), &mut id) })?;
    Ok(id)
}

/// Reads a group leader into `buf`, returning the number of `u64` words the
/// kernel wrote. `buf` must hold `3 + 2 × members` words.
pub fn read_words(fd: BorrowedFd<'_>, buf: &mut [u64]) -> io::Result<usize> {
    let bytes = std::mem::size_of_val(buf);
    // SAFETY: `buf` is valid for writes of `bytes` bytes and any bit pattern
    // is a valid u64.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), bytes) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n as usize / std::mem::size_of::<u64>())
}

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// One `read()` of a group opened with `GROUP | ID | TOTAL_TIME_ENABLED |
/// TOTAL_TIME_RUNNING`: the kernel's layout is
/// `{ nr, time_enabled, time_running, { value, id } × nr }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupReading {
    /// Nanoseconds the leader was enabled, cumulative since it was opened.
    pub time_enabled: u64,
    /// Nanoseconds the group was actually on the PMU, cumulative.
    pub time_running: u64,
    /// `(id, value)` of each counter, in the kernel's order.
    pub values: Vec<(u64, u64)>,
}

impl GroupReading {
    /// Decodes the words a group `read()` returned; `None` if they are not
    /// laid out as the read format says.
    pub fn parse(words: &[u64]) -> Option<GroupReading> {
        let (&nr, rest) = words.split_first()?;
        let nr = usize::try_from(nr).ok()?;
        if rest.len() != 2 + nr.checked_mul(2)? {
            return None;
        }
        Some(GroupReading {
            time_enabled: rest[0],
            time_running: rest[1],
            values: rest[2..].chunks_exact(2).map(|p| (p[1], p[0])).collect(),
        })
    }
}

/// The first page of a counter's mmap: the kernel's `perf_event_mmap_page`,
/// mapped read-only and unmapped on drop.
///
/// Neither `Send` nor `Sync` (it holds a raw pointer): a user-space read
/// through it reads the counter register of the CPU the reading thread is
/// on, which is the counted thread's only on the counted thread itself.
///
/// ```compile_fail
/// fn to_another_thread<T: Send>() {}
/// to_another_thread::<perfbench::kernel::sys::MmapPage>();
/// ```
///
/// Its fields change under our feet (the kernel updates them whenever the
/// counter is scheduled), so every accessor is a volatile read, and a
/// consistent set must be taken under the page's seqlock (see
/// [`crate::kernel::rdpmc::read_counter`]).
pub struct MmapPage {
    page: std::ptr::NonNull<bindings::perf_event_mmap_page>,
    len: usize,
}

/// A volatile read of one field of the mapped page.
macro_rules! page_field {
    ($self:ident, $($field:tt)+) => {{
        let page = $self.page.as_ptr();
        // SAFETY: `page` points at a live, readable mapping of at least one
        // page (made in `MmapPage::map`, unmapped only on drop), which holds
        // the whole `perf_event_mmap_page` header; the field is a plain
        // integer, valid for every bit pattern, and naturally aligned because
        // the mapping is page-aligned and the struct is `repr(C)`.
        unsafe { std::ptr::read_volatile(std::ptr::addr_of!((*page).$($field)+)) }
    }};
}

/// Bit of `perf_event_mmap_page.capabilities` that is `cap_user_rdpmc`
/// (after `cap_bit0` and `cap_bit0_is_deprecated`).
const CAP_USER_RDPMC: u64 = 1 << 2;
/// Bit of `capabilities` that is `cap_user_time`.
const CAP_USER_TIME: u64 = 1 << 3;
/// Bit of `capabilities` that is `cap_user_time_short` (after
/// `cap_user_time_zero`).
const CAP_USER_TIME_SHORT: u64 = 1 << 5;

impl MmapPage {
    /// Maps the first page of the counter `fd`, read-only and shared. A
    /// counting event needs no data pages, so this is the whole mapping.
    pub fn map(fd: BorrowedFd<'_>) -> io::Result<MmapPage> {
        // SAFETY: sysconf has no memory effects.
        let len = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let len = usize::try_from(len).unwrap_or(4096);
        if len < std::mem::size_of::<bindings::perf_event_mmap_page>() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "page smaller than perf_event_mmap_page",
            ));
        }
        // SAFETY: a new shared read-only mapping of the perf event `fd` at
        // offset 0, chosen by the kernel; no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let page = std::ptr::NonNull::new(p.cast())
            .ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(MmapPage { page, len })
    }

    /// `lock`: the seqlock, changed by the kernel around every update.
    #[inline]
    pub fn lock(&self) -> u32 {
        page_field!(self, lock)
    }

    /// `index`: the hardware counter number plus one; 0 when the counter is
    /// not on a hardware counter right now (or never is: software events).
    #[inline]
    pub fn index(&self) -> u32 {
        page_field!(self, index)
    }

    /// `offset`: added to the sign-extended hardware counter value.
    #[inline]
    pub fn offset(&self) -> i64 {
        page_field!(self, offset)
    }

    /// `pmc_width`: bits of the value `rdpmc` returns.
    #[inline]
    pub fn pmc_width(&self) -> u16 {
        page_field!(self, pmc_width)
    }

    /// `time_enabled` as of the kernel's last update of the page.
    #[inline]
    pub fn time_enabled(&self) -> u64 {
        page_field!(self, time_enabled)
    }

    /// `time_running` as of the kernel's last update of the page.
    #[inline]
    pub fn time_running(&self) -> u64 {
        page_field!(self, time_running)
    }

    /// The `capabilities` word.
    #[inline]
    pub fn capabilities(&self) -> u64 {
        page_field!(self, __bindgen_anon_1.capabilities)
    }

    /// `cap_user_rdpmc`: user space may read this counter with `rdpmc`.
    #[inline]
    pub fn cap_user_rdpmc(&self) -> bool {
        self.capabilities() & CAP_USER_RDPMC != 0
    }

    /// `cap_user_time`: `time_mult`, `time_shift` and `time_offset` convert
    /// [`user_timestamp`] to the perf clock.
    #[inline]
    pub fn cap_user_time(&self) -> bool {
        self.capabilities() & CAP_USER_TIME != 0
    }

    /// `cap_user_time_short`: the timestamp counter is narrower than 64
    /// bits; `time_cycles` and `time_mask` widen it.
    #[inline]
    pub fn cap_user_time_short(&self) -> bool {
        self.capabilities() & CAP_USER_TIME_SHORT != 0
    }

    /// `time_mult`: the multiplier from timestamp ticks to nanoseconds.
    #[inline]
    pub fn time_mult(&self) -> u32 {
        page_field!(self, time_mult)
    }

    /// `time_shift`: the right shift after multiplying by `time_mult`.
    #[inline]
    pub fn time_shift(&self) -> u16 {
        page_field!(self, time_shift)
    }

    /// `time_offset`: added to the converted timestamp.
    #[inline]
    pub fn time_offset(&self) -> u64 {
        page_field!(self, time_offset)
    }

    /// `time_cycles`: the timestamp at the kernel's last update, for
    /// `cap_user_time_short`.
    #[inline]
    pub fn time_cycles(&self) -> u64 {
        page_field!(self, time_cycles)
    }

    /// `time_mask`: the timestamp counter's width as a mask, for
    /// `cap_user_time_short`.
    #[inline]
    pub fn time_mask(&self) -> u64 {
        page_field!(self, time_mask)
    }
}

impl Drop for MmapPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`; the page is not
        // reachable after drop.
        unsafe { libc::munmap(self.page.as_ptr().cast(), self.len) };
    }
}

impl std::fmt::Debug for MmapPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmapPage")
            .field("lock", &self.lock())
            .field("index", &self.index())
            .field("offset", &self.offset())
            .field("pmc_width", &self.pmc_width())
            .field("cap_user_rdpmc", &self.cap_user_rdpmc())
            .finish()
    }
}

/// Whether this build can read counters from user space: `rdpmc` on x86_64,
/// the PMU's counter registers on aarch64.
pub const RDPMC_AVAILABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// Whether the kernel lets this process read its counters from user space
/// where a counter's page says `cap_user_rdpmc`. On x86_64 the page says
/// so itself. On arm64 it does not: the page offers reads to every event
/// that asked, and `kernel.perf_user_access` (read here, 0 where absent)
/// decides whether the counter's `index` is ever shown.
pub fn user_reads_allowed() -> bool {
    if cfg!(target_arch = "aarch64") {
        return std::fs::read_to_string("/proc/sys/kernel/perf_user_access")
            .is_ok_and(|s| s.trim() == "1");
    }
    RDPMC_AVAILABLE
}

/// On arm64, the `config1` bit of the PMU's `rdpmc` format term
/// (`format/rdpmc` = `config1:1`): the event asks for user-space reads,
/// which the kernel grants when `kernel.perf_user_access` is 1.
#[cfg(target_arch = "aarch64")]
const ARM64_USER_ACCESS: u64 = 1 << 1;

/// The `config1` to open `attr` with: on arm64, CPU PMU events ask for
/// user-space reads, which the kernel grants or silently withholds.
fn config1_of(attr: &CounterAttr) -> u64 {
    #[cfg(target_arch = "aarch64")]
    {
        if matches!(attr.kind, TYPE_HARDWARE | TYPE_HW_CACHE | TYPE_RAW) {
            return attr.config1 | ARM64_USER_ACCESS;
        }
    }
    attr.config1
}

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
#[inline]
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
#[inline]
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
#[inline]
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
#[inline]
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
#[inline]
pub fn ordered_timestamp() -> u64 {
    user_timestamp()
}

/// See the x86_64 version.
#[cfg(target_arch = "aarch64")]
#[inline]
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

/// The content of `/proc/sys/kernel/perf_event_paranoid`, if readable.
pub fn perf_event_paranoid() -> Option<i32> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Whether a seccomp filter watches this process's system calls (`Seccomp:
/// 2` in `/proc/self/status`): what containers' default profiles install.
/// False where the kernel does not say.
pub fn seccomp_filtered() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .filter_map(|l| l.strip_prefix("Seccomp:"))
            .any(|mode| mode.trim() == "2")
    })
}

/// A set of CPUs, as `sched_setaffinity(2)` takes it.
#[derive(Clone)]
pub struct CpuSet(libc::cpu_set_t);

impl CpuSet {
    /// The set holding `cpu` alone; `None` if `cpu` is beyond what a
    /// `cpu_set_t` can name.
    pub fn single(cpu: usize) -> Option<CpuSet> {
        if cpu >= libc::CPU_SETSIZE as usize {
            return None;
        }
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `cpu` was checked against CPU_SETSIZE above.
        unsafe { libc::CPU_SET(cpu, &mut set) };
        Some(CpuSet(set))
    }

    /// Whether `cpu` is in the set.
    pub fn contains(&self, cpu: usize) -> bool {
        // SAFETY: CPU_ISSET only reads the bit array, and bounds the index.
        cpu < libc::CPU_SETSIZE as usize && unsafe { libc::CPU_ISSET(cpu, &self.0) }
    }

    /// The CPUs in the set, lowest first.
    pub fn cpus(&self) -> Vec<usize> {
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| self.contains(c))
            .collect()
    }
}

/// The calling thread's CPU affinity mask.
pub fn thread_affinity() -> io::Result<CpuSet> {
    // SAFETY: all zeroes is a valid (empty) cpu_set_t.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the kernel writes at most size_of::<cpu_set_t>() bytes into
    // `set`; pid 0 is the calling thread.
    check(unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) })?;
    Ok(CpuSet(set))
}

/// Restricts the calling thread to the CPUs of `set`.
pub fn set_thread_affinity(set: &CpuSet) -> io::Result<()> {
    // SAFETY: the kernel only reads `set`; pid 0 is the calling thread.
    check(unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set.0), &set.0) })
}

/// The CPU the calling thread is running on right now.
pub fn current_cpu() -> io::Result<usize> {
    // SAFETY: sched_getcpu has no arguments and no memory effects.
    let cpu = unsafe { libc::sched_getcpu() };
    if cpu < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(cpu as usize)
    }
}

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

    #[test]
    fn group_reading_decodes_the_kernel_layout() {
        let words = [2, 1000, 900, 7, 41, 9, 42];
        let r = GroupReading::parse(&words).unwrap();
        assert_eq!(r.time_enabled, 1000);
        assert_eq!(r.time_running, 900);
        assert_eq!(r.values, vec![(41, 7), (42, 9)]);
    }

    #[test]
    fn group_reading_rejects_a_short_or_long_buffer() {
        assert_eq!(GroupReading::parse(&[]), None);
        assert_eq!(GroupReading::parse(&[2, 1, 1, 7, 41]), None);
        assert_eq!(GroupReading::parse(&[1, 1, 1, 7, 41, 0]), None);
        assert_eq!(GroupReading::parse(&[u64::MAX, 1, 1]), None);
    }

    #[test]
    fn cpu_set_holds_exactly_the_cpu_it_was_made_with() {
        let s = CpuSet::single(3).unwrap();
        assert_eq!(s.cpus(), vec![3]);
        assert!(CpuSet::single(libc::CPU_SETSIZE as usize).is_none());
    }

    #[test]
    fn affinity_round_trips_on_this_thread() {
        let before = thread_affinity().unwrap();
        let cpu = before.cpus()[0];
        set_thread_affinity(&CpuSet::single(cpu).unwrap()).unwrap();
        assert_eq!(thread_affinity().unwrap().cpus(), vec![cpu]);
        assert_eq!(current_cpu().unwrap(), cpu);
        set_thread_affinity(&before).unwrap();
        assert_eq!(thread_affinity().unwrap().cpus(), before.cpus());
    }
}
