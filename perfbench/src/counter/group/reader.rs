//! Inline reads of a running group, on the path chosen once per group:
//! `rdpmc` through the counters' pages, one group `read()`, or, for
//! allocation counts alone, plain loads.

use std::fmt;
use std::io;

use super::CounterGroup;
use crate::kernel::rdpmc;
use crate::kernel::sys::{self, MmapPage};

impl CounterGroup {
    /// A reader for inline reads of the group, choosing `rdpmc` where the
    /// kernel allows user-space reads ([`sys::user_reads_allowed`]), every
    /// counter's page offers them (`cap_user_rdpmc`) and the group holds
    /// no topdown event ([`holds_topdown`](super::holds_topdown)), and one
    /// group `read()` otherwise.
    ///
    /// The choice does not depend on where the counters are at this moment:
    /// a group the kernel has multiplexed off the PMU keeps its path, and
    /// only the reads that find a counter off its hardware counter fall
    /// back. Pages are mapped only to try `rdpmc` (never on architectures
    /// without it) and are dropped again when the syscall path is chosen.
    /// A group of allocation counts alone reads them with loads alone
    /// ([`ReadPath::AtomicLoads`]).
    pub fn reader(&mut self) -> GroupReader<'_> {
        let pages = if self.kernel.is_some() && !self.topdown && sys::user_reads_allowed() {
            self.user_pages()
                .ok()
                .filter(|pages| pages.iter().all(MmapPage::cap_user_rdpmc))
        } else {
            None
        };
        GroupReader {
            path: match (&self.kernel, &pages) {
                (None, _) => ReadPath::AtomicLoads,
                (Some(_), Some(_)) => ReadPath::Rdpmc,
                (Some(_), None) => ReadPath::Syscall,
            },
            pages: pages.unwrap_or_default(),
            group: self,
            fallbacks: 0,
            retries: 0,
        }
    }
}

/// How a [`GroupReader`] reads the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadPath {
    /// `rdpmc` through each counter's mmap'd page (the seqlock loop), no
    /// system call.
    Rdpmc,
    /// One `read()` of the whole group.
    Syscall,
    /// No counter of the kernel's, only allocation counts: a load of each
    /// of perfbench's totals, no system call. (Allocation counts are read
    /// that way on every path.)
    AtomicLoads,
}

impl ReadPath {
    /// Every path, for reading stored results.
    pub const ALL: [ReadPath; 3] = [ReadPath::Rdpmc, ReadPath::Syscall, ReadPath::AtomicLoads];

    /// `"rdpmc"`, `"read()"` or `"atomic loads"`, for reports.
    pub fn name(self) -> &'static str {
        match self {
            ReadPath::Rdpmc => "rdpmc",
            ReadPath::Syscall => "read()",
            ReadPath::AtomicLoads => "atomic loads",
        }
    }
}

impl fmt::Display for ReadPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Inline reads of a [`CounterGroup`] on the path [`CounterGroup::reader`]
/// chose. It stays on the thread that made it, the counted thread: a
/// user-space read elsewhere would read another CPU's counter.
///
/// ```compile_fail
/// fn to_another_thread<T: Send>() {}
/// to_another_thread::<perfbench::counter::group::GroupReader<'static>>();
/// ```
pub struct GroupReader<'a> {
    group: &'a mut CounterGroup,
    /// One per event when `path` is `Rdpmc`, else empty.
    pages: Vec<MmapPage>,
    path: ReadPath,
    fallbacks: u64,
    retries: u64,
}

impl GroupReader<'_> {
    /// The path chosen for the group.
    pub fn path(&self) -> ReadPath {
        self.path
    }

    /// How many reads on the `Rdpmc` path found a counter off its hardware
    /// counter (`index == 0`, e.g. multiplexed out) and used one group
    /// `read()` instead.
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks
    }

    /// How many counter reads on the `Rdpmc` path were retried because the
    /// kernel updated the counter's page meanwhile (it rescheduled the
    /// counter): each retry repeats the read, so it costs more than
    /// calibrated.
    pub fn retries(&self) -> u64 {
        self.retries
    }

    /// The group itself (to enable, disable or `read()` it).
    pub fn group(&mut self) -> &mut CounterGroup {
        self.group
    }

    /// The cumulative value of every counter, one per event in
    /// [`CounterGroup::events`] order, and the group's `(time_enabled,
    /// time_running)`, for a read on `side` of what is measured.
    ///
    /// Counters must be read while enabled for the `rdpmc` path to hold; a
    /// counter that cannot be read with `rdpmc` at that moment makes this
    /// read fall back to `read()` for the whole group, so the values always
    /// come from one path. On the `rdpmc` path the times are the leader's
    /// (the kernel schedules a group on and off the PMU as one), read
    /// outside the span of the counter reads: first before, last after.
    // Always inlined, with everything it calls on either path: the reads
    // bracket what is measured, so their code must be the same in the
    // calibration's instantiation (in perfbench) and a benchmark's (in its
    // crate), whatever LLVM makes of the codegen unit each lands in; left
    // to `#[inline]`, splitting a module moved the arm64 rig's empty
    // `iter_custom` 7 instructions off its calibration.
    #[inline(always)]
    pub fn read_into(&mut self, values: &mut [u64], side: Side) -> io::Result<(u64, u64)> {
        if self.path == ReadPath::Rdpmc {
            assert_eq!(values.len(), self.group.events.len(), "one slot per event");
            let (kernel, allocation) = values.split_at_mut(self.pages.len());
            let leader = &self.pages[0];
            let before = (side == Side::Before).then(|| rdpmc::page_times(leader));
            let retries = &mut self.retries;
            let read_all = kernel
                .iter_mut()
                .zip(&self.pages)
                .all(|(slot, page)| rdpmc::read_page(page, retries).map(|v| *slot = v).is_some());
            if read_all {
                let times = before.unwrap_or_else(|| rdpmc::page_times(leader));
                self.group.read_allocations(allocation);
                return Ok(times);
            }
            self.fallbacks += 1;
        }
        self.group.read_into(values)
    }
}

/// Which side of the measured code a [`GroupReader::read_into`] is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The read that starts the measured span.
    Before,
    /// The read that ends it.
    After,
}
