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
    /// Do not count in user space.
    pub exclude_user: bool,
    /// Do not count in the kernel.
    pub exclude_kernel: bool,
    /// Do not count in the hypervisor.
    pub exclude_hv: bool,
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
    raw.set_disabled(u64::from(disabled));
    raw.set_exclude_user(u64::from(attr.exclude_user));
    raw.set_exclude_kernel(u64::from(attr.exclude_kernel));
    raw.set_exclude_hv(u64::from(attr.exclude_hv));
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

/// The content of `/proc/sys/kernel/perf_event_paranoid`, if readable.
pub fn perf_event_paranoid() -> Option<i32> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()?
        .trim()
        .parse()
        .ok()
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

/// Maps `pages` fresh anonymous pages, writes one byte to each and unmaps
/// them: exactly `pages` page faults, whatever the allocator does. The
/// ground truth that proves counts exact on machines without a hardware PMU.
///
/// ```
/// assert_eq!(perfbench::sys::touch_fresh_pages(16), 16);
/// ```
pub fn touch_fresh_pages(pages: usize) -> u64 {
    let page = 4096;
    let len = pages * page;
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
    assert_ne!(p, libc::MAP_FAILED, "mmap failed");
    let base = p.cast::<u8>();
    let mut sum = 0u64;
    for i in 0..pages {
        // SAFETY: i * page < len, inside the mapping made above.
        unsafe {
            std::ptr::write_volatile(base.add(i * page), 1);
            sum += u64::from(std::ptr::read_volatile(base.add(i * page)));
        }
    }
    // SAFETY: unmaps exactly the mapping made above; nothing refers to it now.
    unsafe { libc::munmap(p, len) };
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

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
