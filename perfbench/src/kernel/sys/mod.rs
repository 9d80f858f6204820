//! The raw kernel interface: `perf_event_open(2)`, its ioctls and group read
//! format, here; the counter's mmap'd page (`mmap_page.rs`), the registers
//! user space reads counters and time from (`registers.rs`), thread CPU
//! affinity (`affinity.rs`) and fresh anonymous mappings
//! (`fresh_mapping.rs`) in files of their own, re-exported here.
//!
//! This is the only module with `unsafe` code. Everything above it works with
//! owned file descriptors and plain values.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

use perf_event_open_sys as kernel;
use perf_event_open_sys::bindings;

mod affinity;
mod fresh_mapping;
mod mmap_page;
mod private_stdout;
mod registers;

pub use affinity::{current_cpu, set_thread_affinity, thread_affinity, CpuSet};
pub use fresh_mapping::{page_size, FreshMapping};
pub use mmap_page::{user_reads_allowed, MmapPage, RDPMC_AVAILABLE};
pub use private_stdout::take_stdout;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub use registers::{ordered_timestamp, rdpmc, user_timestamp};

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
    let mut raw = event_attr(attr);
    raw.read_format = u64::from(
        bindings::PERF_FORMAT_GROUP
            | bindings::PERF_FORMAT_ID
            | bindings::PERF_FORMAT_TOTAL_TIME_ENABLED
            | bindings::PERF_FORMAT_TOTAL_TIME_RUNNING,
    );
    raw.set_disabled(u64::from(disabled));
    open_raw(&mut raw, leader)
}

/// The `perf_event_attr` that names the event of `attr` and its privilege
/// levels, with nothing else asked for: counting and sampling both start
/// from it (`kernel::sampling` adds the sampling fields).
pub(crate) fn event_attr(attr: &CounterAttr) -> bindings::perf_event_attr {
    let mut raw = bindings::perf_event_attr {
        size: std::mem::size_of::<bindings::perf_event_attr>() as u32,
        type_: attr.kind,
        config: attr.config,
        ..Default::default()
    };
    raw.__bindgen_anon_3.config1 = config1_of(attr);
    raw.__bindgen_anon_4.config2 = attr.config2;
    raw.set_exclude_user(u64::from(attr.exclude_user));
    raw.set_exclude_kernel(u64::from(attr.exclude_kernel));
    raw.set_exclude_hv(u64::from(attr.exclude_hv));
    raw.set_inherit(u64::from(attr.inherit));
    raw
}

/// `perf_event_open(2)` of `raw` for the calling thread on any CPU, in the
/// group of `leader` (`None`: a new leader), closed on exec.
pub(crate) fn open_raw(
    raw: &mut bindings::perf_event_attr,
    leader: Option<BorrowedFd<'_>>,
) -> io::Result<OwnedFd> {
    raw.size = std::mem::size_of::<bindings::perf_event_attr>() as u32;
    let group_fd = leader.map_or(-1, |fd| fd.as_raw_fd());
    // SAFETY: `raw` is a fully initialised perf_event_attr whose `size` is its
    // own size; the call reads it and at most writes its `size` back (E2BIG).
    // A sampling event writes its records only into a ring buffer that is
    // mapped later, by `mmap` of the descriptor, never into our memory here.
    // pid 0 / cpu -1 means "this thread, any CPU"; group_fd is -1 or a
    // descriptor borrowed for the call.
    let fd = unsafe {
        kernel::perf_event_open(
            raw,
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
}
