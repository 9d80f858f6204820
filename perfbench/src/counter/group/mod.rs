//! Counter groups: a set of events the kernel schedules together, started,
//! stopped and read as one.
//!
//! The leader is opened disabled and its members enabled, and only the
//! leader is toggled. Members cannot count while their leader is off, so the
//! group starts and stops as a unit. The seemingly obvious alternative,
//! `ioctl(leader, ENABLE, PERF_IOC_FLAG_GROUP)`, loses the members of a
//! mixed-PMU group after the first DISABLE on current kernels (seen on Linux
//! 6.18: with a `task-clock` leader, `page-faults` members read 0 forever
//! after it); `tests::every_member_counts_in_every_cycle` proves the chosen
//! form.
//!
//! A group may end with allocation counts ([`Source::Allocator`]), which
//! the kernel does not count: enabling the group opens the counting
//! allocator's window (`kernel::alloc`) around the kernel's, and every read
//! of the group loads its totals after the kernel's values, so they are
//! read at exactly the points the kernel's counters are, in every mode.
//!
//! The group's parts live in files of their own: what a read returns
//! (`counts.rs`), why an event does not open (`open_error.rs`), whether
//! one opens alone and as what (`probe.rs`), the split of an event list
//! into passes (`passes.rs`) and the inline reads of a running group
//! (`reader.rs`).

use std::io;
use std::os::fd::{AsFd, OwnedFd};

use crate::counter::event::{Event, Source};
use crate::kernel::sampling::{Sampler, SamplingError, SamplingSpec};
use crate::kernel::sys::{self, MmapPage};
use crate::kernel::{alloc, pmu};

mod counts;
mod open_error;
mod passes;
mod probe;
mod reader;

pub use counts::Counts;
pub use open_error::OpenError;
pub use passes::{names, open_groups, split_into_groups, together, Groups};
pub use probe::{countable, probe, Countable, NO_COUNTING_ALLOCATOR};
pub use reader::{GroupReader, ReadPath, Side};

/// An open group of counters on the calling thread: the kernel's, then any
/// allocation counts.
pub struct CounterGroup {
    events: Vec<Event>,
    /// The kernel's counters, for the first events; `None` where every
    /// event is an allocation count.
    kernel: Option<KernelCounters>,
    /// The `kernel::alloc` total each of the last events reads.
    allocation: Vec<usize>,
    /// The group holds one of Intel's topdown events ([`holds_topdown`]),
    /// so it is never read from user space.
    topdown: bool,
    /// A sampler is a member ([`CounterGroup::open_sampler`]).
    sampled: bool,
}

/// The kernel's part of a group: its leader and members.
struct KernelCounters {
    leader: OwnedFd,
    /// Kept open for as long as the group lives; closed on drop.
    members: Vec<OwnedFd>,
    /// The kernel id of each counter, leader first.
    ids: Vec<u64>,
    words: Vec<u64>,
}

/// The longest rotation interval of the PMUs counting `events` (4 ms, the
/// kernel's default, where unreadable); `None` if all are software events.
fn rotation_interval(events: &[Event]) -> Option<std::time::Duration> {
    let root = pmu::live_root();
    let default = std::time::Duration::from_millis(4);
    let read = |name: &str| pmu::mux_interval(root, name);
    // The CPU's PMUs are looked up once, however many hardware events.
    let core = std::cell::OnceCell::new();
    let core_interval = || {
        *core.get_or_init(|| {
            pmu::core_pmu_names(root)
                .iter()
                .filter_map(|name| read(name))
                .max()
                .unwrap_or(default)
        })
    };
    events
        .iter()
        .filter_map(|e| match e.source {
            Source::Software | Source::Allocator => None,
            Source::Hardware => Some(core_interval()),
            Source::Pmu => Some(e.name.split('/').next().and_then(read).unwrap_or(default)),
        })
        .max()
}

impl CounterGroup {
    /// Opens `events` as one group, the first as leader, all stopped. The
    /// allocation counts among them must come last. A group of no events
    /// counts nothing: its pass measures wall time alone.
    pub fn open(events: &[Event]) -> Result<CounterGroup, OpenError> {
        let on_kernel = events
            .iter()
            .take_while(|e| e.source != Source::Allocator)
            .count();
        let (kernel, allocation) = events.split_at(on_kernel);
        if let Some(e) = allocation.iter().find(|e| e.source != Source::Allocator) {
            return Err(OpenError::Other {
                event: e.name.clone(),
                error: io::Error::other(
                    "in a group, allocation counts come after the kernel's events",
                ),
            });
        }
        let kernel = if kernel.is_empty() {
            None
        } else {
            Some(KernelCounters::open(kernel)?)
        };
        Ok(CounterGroup {
            events: events.to_vec(),
            kernel,
            allocation: allocation.iter().map(|e| e.attr.config as usize).collect(),
            topdown: holds_topdown(events, pmu::live_root()),
            sampled: false,
        })
    }

    /// Whether the group is on the PMU all the time it is enabled: runs it
    /// through a whole rotation interval of its PMUs and compares
    /// `time_running` with `time_enabled`. Groups of software events alone
    /// are never multiplexed and are not run.
    pub fn is_scheduled_whole(&mut self) -> io::Result<bool> {
        let Some(interval) = rotation_interval(&self.events) else {
            return Ok(true);
        };
        let before = self.read()?;
        self.enable()?;
        let start = std::time::Instant::now();
        while start.elapsed() < interval + std::time::Duration::from_millis(1) {
            std::hint::spin_loop();
        }
        self.disable()?;
        let probe = self.read()?.since(&before)?;
        Ok(probe.time_running >= probe.time_enabled)
    }

    /// Opens `spec` as a member of the group's kernel counters, sampling
    /// exactly in the windows the group counts (a profiling pass): the
    /// group's own toggles switch it, and its reads leave it out. `None`
    /// where the group has no kernel counter to follow.
    pub fn open_sampler(&mut self, spec: &SamplingSpec) -> Option<Result<Sampler, SamplingError>> {
        let k = self.kernel.as_mut()?;
        let sampler = Sampler::open_member(spec, k.leader.as_fd());
        if sampler.is_ok() {
            // A group read holds every member's value and id.
            k.words.extend([0, 0]);
            self.sampled = true;
        }
        Some(sampler)
    }

    /// Whether a sampler is a member: then the group must be toggled around
    /// every window it samples, since reads around a window keep what runs
    /// between windows out of the counts but not out of the samples.
    pub fn is_sampled(&self) -> bool {
        self.sampled
    }

    /// The events of the group, in the order of [`Counts::values`].
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Starts counting. The allocation window opens before the kernel's
    /// counters start and closes after they stop, so that they never count
    /// its bookkeeping; their toggles allocate nothing.
    #[inline]
    pub fn enable(&self) -> io::Result<()> {
        if !self.allocation.is_empty() {
            alloc::start_counting();
        }
        self.kernel
            .as_ref()
            .map_or(Ok(()), |k| sys::enable(k.leader.as_fd()))
    }

    /// Stops counting.
    #[inline]
    pub fn disable(&self) -> io::Result<()> {
        let stopped = self
            .kernel
            .as_ref()
            .map_or(Ok(()), |k| sys::disable(k.leader.as_fd()));
        if !self.allocation.is_empty() {
            alloc::stop_counting();
        }
        stopped
    }

    /// Reads every counter of the group: the kernel's in one `read()`,
    /// matching values to events by their kernel id, then the allocation
    /// counts.
    pub fn read(&mut self) -> io::Result<Counts> {
        let mut values = vec![0; self.events.len()];
        let (time_enabled, time_running) = self.read_into(&mut values)?;
        Ok(Counts {
            time_enabled,
            time_running,
            values,
        })
    }

    /// Loads the allocation counts into `slots`, one per allocation count
    /// of the group, in order: plain loads, no allocation.
    // Always inlined: see `GroupReader::read_into`.
    #[inline(always)]
    fn read_allocations(&self, slots: &mut [u64]) {
        for (slot, &index) in slots.iter_mut().zip(&self.allocation) {
            *slot = alloc::total(index);
        }
    }

    /// How many of the group's events the kernel counts: the first ones.
    fn on_kernel(&self) -> usize {
        self.events.len() - self.allocation.len()
    }
}

impl KernelCounters {
    /// Opens `events`, none of them an allocation count, as one group of
    /// the kernel's, the first as leader, all stopped.
    fn open(events: &[Event]) -> Result<KernelCounters, OpenError> {
        let (first, rest) = events
            .split_first()
            .expect("a group has at least one event");
        let leader = sys::open_counter(&first.attr, None, true)
            .map_err(|e| OpenError::classify(first, e))?;
        let members = rest
            .iter()
            .map(|e| {
                sys::open_counter(&e.attr, Some(leader.as_fd()), false)
                    .map_err(|err| OpenError::classify(e, err))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ids = std::iter::once(&leader)
            .chain(&members)
            .zip(events)
            .map(|(fd, e)| {
                sys::counter_id(fd.as_fd()).map_err(|error| OpenError::Other {
                    event: e.name.clone(),
                    error,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(KernelCounters {
            words: vec![0; 3 + 2 * events.len()],
            leader,
            members,
            ids,
        })
    }

    /// One `read()` of the group into `values`, one per counter, matched by
    /// id; returns `(time_enabled, time_running)`.
    // Always inlined: see `GroupReader::read_into`.
    #[inline(always)]
    fn read_into(&mut self, values: &mut [u64]) -> io::Result<(u64, u64)> {
        let n = sys::read_words(self.leader.as_fd(), &mut self.words)?;
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
        let words = &self.words[..n];
        if words.len() < 3 || words.len() % 2 == 0 || (words.len() - 3) as u64 / 2 != words[0] {
            return Err(bad("group read does not match the read format"));
        }
        let pairs = &words[3..];
        for (slot, id) in values.iter_mut().zip(&self.ids) {
            *slot = pairs
                .chunks_exact(2)
                .find(|p| p[1] == *id)
                .map(|p| p[0])
                .ok_or_else(|| bad("group read lacks a member's id"))?;
        }
        Ok((words[1], words[2]))
    }

    /// The first page of every counter, leader first.
    fn user_pages(&self) -> io::Result<Vec<MmapPage>> {
        std::iter::once(&self.leader)
            .chain(&self.members)
            .map(|fd| MmapPage::map(fd.as_fd()))
            .collect()
    }
}

impl CounterGroup {
    /// Reads every counter of the group into `values` (one per event, in
    /// [`CounterGroup::events`] order): the kernel's in one `read()`,
    /// matched by id, then the allocation counts; returns `(time_enabled,
    /// time_running)`, both 0 for a group of allocation counts alone.
    /// Unlike [`CounterGroup::read`] it allocates nothing, so it can bracket
    /// a routine without adding work (page faults, allocations) to the
    /// counts.
    ///
    /// Panics if `values` does not hold one slot per event.
    // Always inlined: see `GroupReader::read_into`.
    #[inline(always)]
    pub fn read_into(&mut self, values: &mut [u64]) -> io::Result<(u64, u64)> {
        assert_eq!(values.len(), self.events.len(), "one slot per event");
        let (kernel, allocation) = values.split_at_mut(self.on_kernel());
        let times = match &mut self.kernel {
            Some(k) => k.read_into(kernel)?,
            None => (0, 0),
        };
        self.read_allocations(allocation);
        Ok(times)
    }

    /// Maps the first page (`perf_event_mmap_page`) of every counter of the
    /// kernel's, in [`CounterGroup::events`] order: what reading the group
    /// with `rdpmc` needs. None for a group of allocation counts alone.
    pub fn user_pages(&self) -> io::Result<Vec<MmapPage>> {
        self.kernel
            .as_ref()
            .map_or(Ok(Vec::new()), KernelCounters::user_pages)
    }
}

/// Whether `events` hold one of Intel's topdown events on the PMUs under
/// `root` ([`pmu::is_topdown`]: `slots` or a metric such as
/// `topdown-retiring`). Such a group is read with `read()`, where the kernel
/// decodes the metrics from the packed PERF_METRICS register; a user-space
/// read would take that register (which the page's `index` names) for a
/// counter, and `slots`, which the kernel resets when it reads the metrics,
/// for a running count.
pub fn holds_topdown(events: &[Event], root: &std::path::Path) -> bool {
    events
        .iter()
        .any(|e| pmu::is_topdown(root, e.attr.kind, e.attr.config))
}

#[cfg(test)]
mod tests;
