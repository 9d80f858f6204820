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

use std::fmt;
use std::io;
use std::ops::Range;
use std::os::fd::{AsFd, OwnedFd};

use crate::counter::denial::{Cause, Denial};
use crate::counter::event::{Event, Source};
use crate::kernel::sys::{self, CounterAttr, MmapPage};
use crate::kernel::{alloc, pmu, rdpmc};

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

/// Cumulative values of a group at one instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Nanoseconds the group was enabled.
    pub time_enabled: u64,
    /// Nanoseconds the group was on the PMU; less than `time_enabled` means
    /// the kernel multiplexed it.
    pub time_running: u64,
    /// One value per event, in the order the group was opened with.
    pub values: Vec<u64>,
}

impl Counts {
    /// What was counted between `earlier` and `self`; an error if any value
    /// or time went backwards, which no counter of one group does (a wrap
    /// or a mix-up of reads must not pass for a huge count).
    pub fn since(&self, earlier: &Counts) -> io::Result<Counts> {
        let delta = |now: u64, then: u64| {
            now.checked_sub(then).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a counter went backwards, from {then} to {now}"),
                )
            })
        };
        Ok(Counts {
            time_enabled: delta(self.time_enabled, earlier.time_enabled)?,
            time_running: delta(self.time_running, earlier.time_running)?,
            values: self
                .values
                .iter()
                .zip(&earlier.values)
                .map(|(&now, &then)| delta(now, then))
                .collect::<io::Result<_>>()?,
        })
    }

    /// Adds what `other` counted (both from one group), saturating.
    pub fn add(&mut self, other: &Counts) {
        self.time_enabled = self.time_enabled.saturating_add(other.time_enabled);
        self.time_running = self.time_running.saturating_add(other.time_running);
        for (v, o) in self.values.iter_mut().zip(&other.values) {
            *v = v.saturating_add(*o);
        }
    }
}

/// Why an event could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// This machine cannot count the event (no PMU, unknown to this CPU).
    Unsupported {
        /// The event as the user wrote it.
        event: String,
        /// Why, in a user's words.
        why: String,
    },
    /// The kernel, or a filter before it, refused.
    PermissionDenied {
        /// The event as the user wrote it.
        event: String,
        /// Why, told apart by cause.
        denial: Denial,
    },
    /// The event may count user space only here, where the kernel never
    /// raises it ([`Event::kernel_only`]): it would always read 0.
    KernelOnly {
        /// The event as the user wrote it.
        event: String,
        /// Why kernel counting was refused.
        denial: Denial,
    },
    /// Anything else the kernel said.
    Other {
        /// The event as the user wrote it.
        event: String,
        /// The kernel's error.
        error: io::Error,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Unsupported { event, .. } => write!(f, "cannot count `{event}` here: "),
            OpenError::PermissionDenied { event, .. } => {
                write!(f, "permission denied opening `{event}`: ")
            }
            OpenError::KernelOnly { event, .. } => write!(f, "not counting `{event}`: "),
            OpenError::Other { event, .. } => write!(f, "cannot open `{event}`: "),
        }?;
        f.write_str(&self.reason())
    }
}

impl std::error::Error for OpenError {}

impl OpenError {
    /// The event as the user wrote it.
    pub fn event(&self) -> &str {
        match self {
            OpenError::Unsupported { event, .. }
            | OpenError::PermissionDenied { event, .. }
            | OpenError::KernelOnly { event, .. }
            | OpenError::Other { event, .. } => event,
        }
    }

    /// Why the event cannot be opened, without naming it.
    pub fn reason(&self) -> String {
        match self {
            OpenError::Unsupported { why, .. } => why.clone(),
            OpenError::PermissionDenied { denial, .. } => denial.to_string(),
            OpenError::KernelOnly { denial, .. } => format!(
                "raised by the kernel only in its own context, so user-space counting would \
                 always read 0; {denial}"
            ),
            OpenError::Other { error, .. } => error.to_string(),
        }
    }

    fn classify(event: &Event, error: io::Error) -> OpenError {
        Self::classify_with(event, error, &Denial::here)
    }

    /// [`OpenError::classify`], with `denied` telling why a permission was
    /// denied (the machine's settings, or a test's).
    fn classify_with(event: &Event, error: io::Error, denied: &Denied) -> OpenError {
        let name = event.name.clone();
        match error.raw_os_error() {
            Some(errno @ (libc::EACCES | libc::EPERM)) => OpenError::PermissionDenied {
                event: name,
                denial: denied(errno, event.attr.exclude_kernel),
            },
            Some(libc::ENOSYS) => OpenError::Unsupported {
                event: name,
                why: "this kernel has no perf_event_open (built without perf events, or a \
                      filter hides the call)"
                    .into(),
            },
            Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV | libc::EINVAL)
                if event.source == Source::Hardware =>
            {
                let why = if crate::counter::event::has_cpu_pmu() {
                    "this CPU's PMU does not support it"
                } else {
                    "no hardware PMU is available (usual in VMs and CI runners: enable the \
                     virtual PMU, e.g. `-cpu host` or vPMU, or run on bare metal)"
                };
                OpenError::Unsupported {
                    event: name,
                    why: why.into(),
                }
            }
            Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV) => OpenError::Unsupported {
                event: name,
                why: format!("the kernel does not support it ({error})"),
            },
            _ => OpenError::Other { event: name, error },
        }
    }
}

/// Splits `n` events, in their order, into consecutive groups that `open`
/// accepts, each as large as it will take: a group grows one event at a
/// time until opening it fails. `open(range)` opens those events as one
/// group. Fails only if an event cannot be opened even alone.
pub fn split_into_groups<G, E>(
    n: usize,
    mut open: impl FnMut(Range<usize>) -> Result<G, E>,
) -> Result<Vec<(G, Range<usize>)>, E> {
    let mut groups = Vec::new();
    let mut start = 0;
    while start < n {
        let mut group = open(start..start + 1)?;
        let mut end = start + 1;
        while end < n {
            match open(start..end + 1) {
                Ok(larger) => {
                    group = larger;
                    end += 1;
                }
                Err(_) => break,
            }
        }
        groups.push((group, start..end));
        start = end;
    }
    Ok(groups)
}

/// Counter groups with the positions of their events in the event list:
/// one pass over each benchmark per group.
pub type Groups = Vec<(CounterGroup, Range<usize>)>;

/// The names of the events of each group.
pub fn names(groups: &Groups, events: &[Event]) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|(_, r)| events[r.clone()].iter().map(|e| e.name.clone()).collect())
        .collect()
}

/// The events of each group, from [`names`], as `[a b], [c]`.
pub fn together(names: &[Vec<String>]) -> String {
    names
        .iter()
        .map(|names| format!("[{}]", names.join(" ")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Opens `events` in as few groups as the PMUs hold, for separate passes
/// over the same benchmark; never multiplexed within a pass by design. No
/// events give one empty group: one pass, which measures wall time alone.
pub fn open_groups(events: &[Event]) -> Result<Groups, OpenError> {
    if events.is_empty() {
        return Ok(vec![(CounterGroup::open(&[])?, 0..0)]);
    }
    split_into_groups(events.len(), |range| {
        let alone = range.len() == 1;
        let mut group = CounterGroup::open(&events[range])?;
        // A group the kernel accepts may still not fit the PMU at once: it
        // would be multiplexed. A single event is kept (and flagged later).
        match group.is_scheduled_whole() {
            Ok(true) => Ok(group),
            Ok(false) if alone => Ok(group),
            Ok(false) => Err(OpenError::Other {
                event: group
                    .events
                    .last()
                    .map_or_else(String::new, |e| e.name.clone()),
                error: io::Error::other("the group would be multiplexed"),
            }),
            Err(error) => Err(OpenError::Other {
                event: group.events[0].name.clone(),
                error,
            }),
        }
    })
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

/// Opens `event` alone and closes it again: whether this machine can count it.
pub fn probe(event: &Event) -> Result<(), OpenError> {
    probe_with(event, open_alone, &Denial::here)
}

/// Why a permission was denied, from `errno` and whether the event left
/// the kernel out: [`Denial::here`], or a test's.
type Denied = dyn Fn(i32, bool) -> Denial;

/// Opens a counter alone, stopped, and closes it again.
fn open_alone(attr: &CounterAttr) -> io::Result<()> {
    sys::open_counter(attr, None, true).map(drop)
}

/// What of an event can be counted here.
#[derive(Debug)]
pub enum Countable {
    /// The event as asked.
    AsAsked(Event),
    /// The event in user space only: it counts the kernel by default, and
    /// the kernel refused that for lack of privilege.
    UserOnly(Event),
}

/// `event` as this machine can count it: as asked, or, where it counts the
/// kernel by default and privilege forbids that, in user space only.
pub fn countable(event: Event) -> Result<Countable, OpenError> {
    countable_with(event, open_alone, &Denial::here)
}

/// [`countable`] with `open` in place of the kernel's `perf_event_open`.
///
/// Narrowing is tried where kernel counting itself was refused, not where a
/// filter or the kernel refuses every event.
fn countable_with(
    event: Event,
    mut open: impl FnMut(&CounterAttr) -> io::Result<()>,
    denied: &Denied,
) -> Result<Countable, OpenError> {
    match probe_with(&event, &mut open, denied) {
        Ok(()) => Ok(Countable::AsAsked(event)),
        Err(OpenError::PermissionDenied { denial, .. })
            if event.kernel_by_default
                && !matches!(denial.cause(), Cause::Seccomp | Cause::NoUserEvents) =>
        {
            let narrowed = event.user_only().expect("counts the kernel by default");
            if narrowed.kernel_only() {
                return Err(OpenError::KernelOnly {
                    event: event.name,
                    denial,
                });
            }
            probe_with(&narrowed, open, denied).map(|()| Countable::UserOnly(narrowed))
        }
        Err(err) => Err(err),
    }
}

/// [`probe`] with `open` in place of the kernel's `perf_event_open`. An
/// allocation count is never opened: it counts where the counting
/// allocator is installed.
fn probe_with(
    event: &Event,
    open: impl FnOnce(&CounterAttr) -> io::Result<()>,
    denied: &Denied,
) -> Result<(), OpenError> {
    if event.source == Source::Allocator {
        return if alloc::installed() {
            Ok(())
        } else {
            Err(OpenError::Unsupported {
                event: event.name.clone(),
                why: NO_COUNTING_ALLOCATOR.into(),
            })
        };
    }
    open(&event.attr).map_err(|e| OpenError::classify_with(event, e, denied))
}

/// Why allocation counts cannot be counted in a binary without the
/// counting allocator, and the line that installs it.
pub const NO_COUNTING_ALLOCATOR: &str = "the bench target's global allocator is not \
    perfbench::CountingAllocator; add `#[global_allocator] static ALLOC: \
    perfbench::CountingAllocator = perfbench::CountingAllocator::system();`";

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
    #[inline]
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
    #[inline]
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
    #[inline]
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

    /// A reader for inline reads of the group, choosing `rdpmc` where the
    /// kernel allows user-space reads ([`sys::user_reads_allowed`]), every
    /// counter's page offers them (`cap_user_rdpmc`) and the group holds
    /// no topdown event ([`holds_topdown`]), and one group `read()`
    /// otherwise.
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
    #[inline]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::event::{self, parse_list};
    use crate::fixtures::touch_fresh_pages;

    /// Opens the group, then runs `K` enable/touch/disable cycles touching
    /// `k + 1` fresh pages in cycle `k`, and returns each cycle's counts.
    fn cycles(spec: &str, k: usize) -> Vec<Counts> {
        let mut group = CounterGroup::open(&parse_list(spec).unwrap()).unwrap();
        let mut last = group.read().unwrap();
        (0..k)
            .map(|i| {
                group.enable().unwrap();
                std::hint::black_box(touch_fresh_pages(i + 1));
                group.disable().unwrap();
                let now = group.read().unwrap();
                let delta = now.since(&last).unwrap();
                last = now;
                delta
            })
            .collect()
    }

    #[test]
    fn every_member_counts_in_every_cycle() {
        for (spec, faults_at) in [("task-clock,page-faults", 1), ("page-faults,task-clock", 0)] {
            let got = cycles(spec, 12);
            for (i, c) in got.iter().enumerate() {
                assert_eq!(
                    c.values[faults_at],
                    i as u64 + 1,
                    "{spec}, cycle {i}: {c:?}"
                );
                assert!(
                    c.values[1 - faults_at] > 0,
                    "{spec}: task-clock idle in cycle {i}"
                );
                assert_eq!(
                    c.time_enabled, c.time_running,
                    "software groups never multiplex"
                );
            }
        }
    }

    #[test]
    fn software_pages_offer_no_rdpmc_and_the_reader_uses_read() {
        let mut group = CounterGroup::open(&parse_list("task-clock,page-faults").unwrap()).unwrap();
        group.enable().unwrap();
        let pages = group.user_pages().unwrap();
        assert_eq!(pages.len(), 2);
        for p in &pages {
            assert_eq!((p.index(), p.cap_user_rdpmc()), (0, false), "{p:?}");
            assert_eq!(rdpmc::read_page(p, &mut 0), None);
        }
        drop(pages);
        let mut reader = group.reader();
        assert_eq!(reader.path(), ReadPath::Syscall);
        let mut before = [0; 2];
        let mut after = [0; 2];
        reader.read_into(&mut before, Side::Before).unwrap();
        std::hint::black_box(touch_fresh_pages(7));
        reader.read_into(&mut after, Side::After).unwrap();
        assert_eq!(after[1] - before[1], 7);
        assert!(after[0] > before[0]);
        assert_eq!(reader.fallbacks(), 0);
        let group = reader.group();
        group.disable().unwrap();
        let mut values = [0; 2];
        let (enabled, running) = group.read_into(&mut values).unwrap();
        let counts = group.read().unwrap();
        assert_eq!(values.to_vec(), counts.values);
        assert!(enabled > 0 && enabled == running);
    }

    #[test]
    #[ignore = "needs a hardware PMU"]
    fn hardware_counters_are_read_with_rdpmc() {
        let mut group = CounterGroup::open(&parse_list("cycles,instructions").unwrap()).unwrap();
        group.enable().unwrap();
        let mut reader = group.reader();
        assert_eq!(reader.path(), ReadPath::Rdpmc);
        let mut before = [0; 2];
        let mut after = [0; 2];
        reader.read_into(&mut before, Side::Before).unwrap();
        // A fold through black_box: a plain sum would become a closed form.
        let work = (0..std::hint::black_box(10_000u64)).fold(0, |a, x| std::hint::black_box(a ^ x));
        std::hint::black_box(work);
        reader.read_into(&mut after, Side::After).unwrap();
        assert!(after[1] - before[1] >= 10_000, "{before:?} {after:?}");
        assert!(after[0] > before[0], "{before:?} {after:?}");
        reader.group().disable().unwrap();
    }

    #[test]
    fn groups_holding_topdown_events_are_told_from_others() {
        let t = crate::kernel::pmu::tests::intel_hybrid();
        t.file("cpu_core/events/slots", "event=0x00,umask=0x4\n")
            .file(
                "cpu_core/events/topdown-be-bound",
                "event=0x00,umask=0x83\n",
            )
            .file(
                "cpu_atom/events/topdown-retiring",
                "event=0xc2,umask=0x02\n",
            );
        let topdown =
            |spec: &str| holds_topdown(&event::parse_list_in(spec, t.root()).unwrap(), t.root());
        for spec in [
            "cpu_core/slots/,cpu_core/topdown-retiring/,cpu_core/topdown-be-bound/",
            "cpu_core/slots/",
            "cycles,cpu_core/topdown-retiring/",
            "r8200",
            "cpu_core/event=0x00,umask=0x85/",
        ] {
            assert!(topdown(spec), "{spec}");
        }
        for spec in [
            "cycles,instructions",
            "cpu_core/instructions/,page-faults",
            "cpu_atom/topdown-retiring/",
            "cpu_atom/event=0x00,umask=0x82/",
            "r00c0",
            "msr/tsc/",
        ] {
            assert!(!topdown(spec), "{spec}");
        }
    }

    #[test]
    fn a_counter_going_backwards_is_an_error_not_a_huge_count() {
        let counts = |enabled, values: &[u64]| Counts {
            time_enabled: enabled,
            time_running: enabled,
            values: values.to_vec(),
        };
        let d = counts(10, &[5, 7]).since(&counts(4, &[2, 7])).unwrap();
        assert_eq!((d.time_enabled, d.values), (6, vec![3, 0]));
        let err = counts(10, &[5, 6]).since(&counts(4, &[2, 7])).unwrap_err();
        assert_eq!(err.to_string(), "a counter went backwards, from 7 to 6");
        assert!(counts(3, &[5]).since(&counts(4, &[2])).is_err());
        let mut sum = counts(4, &[2, 7]);
        sum.add(&counts(6, &[3, u64::MAX]));
        assert_eq!((sum.time_enabled, sum.values), (10, vec![5, u64::MAX]));
    }

    /// An opener that refuses kernel counting for lack of privilege, as
    /// `perf_event_paranoid` 2 does for a user without CAP_PERFMON, and
    /// records what it was asked to open.
    fn paranoid_opener(asked: &mut Vec<bool>) -> impl FnMut(&CounterAttr) -> io::Result<()> + '_ {
        |attr| {
            asked.push(attr.exclude_kernel);
            if attr.exclude_kernel {
                Ok(())
            } else {
                Err(io::Error::from_raw_os_error(libc::EACCES))
            }
        }
    }

    /// A machine at `perf_event_paranoid` `level`, filtered or not.
    fn at_level(level: i32, seccomp: bool) -> impl Fn(i32, bool) -> Denial {
        move |errno, user_only| Denial {
            errno,
            seccomp,
            paranoid: Some(level),
            user_only,
        }
    }

    /// [`countable_with`] at `perf_event_paranoid` 2, unfiltered.
    fn at_two(
        spec: &str,
        open: impl FnMut(&CounterAttr) -> io::Result<()>,
    ) -> Result<Countable, OpenError> {
        let event = crate::counter::event::parse(spec).unwrap();
        countable_with(event, open, &at_level(2, false))
    }

    #[test]
    fn software_events_refused_the_kernel_are_narrowed_to_user_space() {
        let mut asked = Vec::new();
        let got = at_two("page-faults", paranoid_opener(&mut asked)).unwrap();
        let Countable::UserOnly(e) = got else {
            panic!("not narrowed: {got:?}")
        };
        assert!(e.attr.exclude_kernel && !e.attr.exclude_user);
        assert_eq!(e.name, "page-faults:u");
        assert_eq!(asked, vec![false, true], "kernel first, then user only");
    }

    #[test]
    fn events_the_kernel_raises_only_in_its_context_are_never_narrowed() {
        for spec in ["context-switches", "cpu-migrations", "cs"] {
            let mut asked = Vec::new();
            let got = at_two(spec, paranoid_opener(&mut asked));
            let Err(e @ OpenError::KernelOnly { .. }) = got else {
                panic!("{spec}: {got:?}")
            };
            assert_eq!(asked, vec![false], "{spec}: never opened in user space");
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("not counting `{spec}`: raised by the kernel only")),
                "{text}"
            );
            assert!(text.contains("kernel.perf_event_paranoid is 2;"), "{text}");
        }
    }

    #[test]
    fn a_filter_or_a_closed_kernel_is_not_narrowed_around() {
        let refuse = |errno| {
            move |_: &CounterAttr| -> io::Result<()> { Err(io::Error::from_raw_os_error(errno)) }
        };
        let event = || crate::counter::event::parse("page-faults").unwrap();
        let got = countable_with(event(), refuse(libc::EPERM), &at_level(2, true));
        let Err(OpenError::PermissionDenied { denial, .. }) = got else {
            panic!("{got:?}")
        };
        assert_eq!(denial.cause(), Cause::Seccomp);
        let got = countable_with(event(), refuse(libc::EACCES), &at_level(3, false));
        let Err(OpenError::PermissionDenied { denial, .. }) = got else {
            panic!("{got:?}")
        };
        assert_eq!(denial.cause(), Cause::NoUserEvents);
        let got = countable_with(event(), refuse(libc::ENOSYS), &at_level(2, false));
        assert!(
            matches!(&got, Err(OpenError::Unsupported { why, .. }) if why.contains("no perf_event_open")),
            "{got:?}"
        );
    }

    #[test]
    fn levels_asked_for_are_never_narrowed() {
        for spec in ["page-faults:uk", "page-faults:k"] {
            let mut asked = Vec::new();
            let got = at_two(spec, paranoid_opener(&mut asked));
            assert!(
                matches!(got, Err(OpenError::PermissionDenied { .. })),
                "{spec}: {got:?}"
            );
            assert_eq!(asked, vec![false], "{spec}: one try");
        }
        let got = at_two("context-switches", |_| Ok(()));
        assert!(matches!(got, Ok(Countable::AsAsked(_))), "{got:?}");
        let mut asked = Vec::new();
        let got = at_two("cycles", paranoid_opener(&mut asked));
        assert!(
            matches!(got, Ok(Countable::AsAsked(_))),
            "user-only already: {got:?}"
        );
    }

    #[test]
    fn a_stopped_group_counts_nothing() {
        let mut group =
            CounterGroup::open(&parse_list("page-faults,minor-faults").unwrap()).unwrap();
        let before = group.read().unwrap();
        std::hint::black_box(touch_fresh_pages(8));
        let after = group.read().unwrap();
        assert_eq!(after.since(&before).unwrap().values, vec![0, 0]);
        group.enable().unwrap();
        std::hint::black_box(touch_fresh_pages(8));
        group.disable().unwrap();
        assert_eq!(
            group.read().unwrap().since(&after).unwrap().values,
            vec![8, 8]
        );
    }

    /// This binary keeps the system allocator (perfbench/tests/allocations.rs
    /// installs the counting one): allocation counts read 0, open anyway,
    /// and leave the kernel's counts alone.
    #[test]
    fn allocation_counts_follow_the_kernel_s_events_in_a_group() {
        let mut group =
            CounterGroup::open(&parse_list("page-faults,allocs,deallocs").unwrap()).unwrap();
        let before = group.read().unwrap();
        group.enable().unwrap();
        std::hint::black_box(touch_fresh_pages(8));
        drop(std::hint::black_box(vec![0u8; 100]));
        group.disable().unwrap();
        let counted = group.read().unwrap().since(&before).unwrap();
        assert_eq!(counted.values, vec![8, 0, 0]);
        assert!(matches!(group.reader().path(), ReadPath::Syscall));
        let e = CounterGroup::open(&parse_list("allocs,page-faults").unwrap())
            .err()
            .expect("allocation counts first are refused");
        assert_eq!(
            e.to_string(),
            "cannot open `page-faults`: in a group, allocation counts come after the kernel's events"
        );
    }

    #[test]
    fn allocation_counts_alone_open_no_counter_of_the_kernel_s() {
        let mut group = CounterGroup::open(&parse_list("reallocs,allocs").unwrap()).unwrap();
        assert!(group.user_pages().unwrap().is_empty());
        assert!(group.is_scheduled_whole().unwrap());
        group.enable().unwrap();
        group.disable().unwrap();
        let counts = group.read().unwrap();
        assert_eq!(
            (counts.time_enabled, counts.time_running, counts.values),
            (0, 0, vec![0, 0])
        );
        assert_eq!(group.reader().path(), ReadPath::AtomicLoads);
    }

    #[test]
    fn allocation_counts_need_the_counting_allocator() {
        let e = probe(&crate::counter::event::parse("allocs").unwrap()).unwrap_err();
        assert!(matches!(e, OpenError::Unsupported { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            format!("cannot count `allocs` here: {NO_COUNTING_ALLOCATOR}")
        );
        assert!(!e.to_string().contains('\n'));
    }

    #[test]
    fn events_are_split_into_the_fewest_groups_the_pmu_takes() {
        // A fake PMU that holds three counters at a time.
        let mut attempts = Vec::new();
        let groups = split_into_groups(7, |r: Range<usize>| {
            attempts.push(r.clone());
            if r.len() <= 3 {
                Ok(r.len())
            } else {
                Err("too many")
            }
        })
        .unwrap();
        let ranges: Vec<Range<usize>> = groups.iter().map(|(_, r)| r.clone()).collect();
        assert_eq!(ranges, [0..3, 3..6, 6..7]);
        assert_eq!(
            groups.iter().map(|(g, _)| *g).collect::<Vec<_>>(),
            [3, 3, 1]
        );
        assert!(!attempts.iter().any(|r| r.len() > 4), "{attempts:?}");
        // An event that does not open alone is an error, not an empty group.
        let e = split_into_groups(
            2,
            |r: Range<usize>| if r.contains(&1) { Err(r) } else { Ok(()) },
        );
        assert_eq!(e.unwrap_err(), 1..2);
        // Everything fits: one group.
        let one = split_into_groups(4, |r: Range<usize>| Ok::<_, ()>(r.len())).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].1, 0..4);
    }

    #[test]
    fn software_events_open_as_one_group() {
        let events =
            parse_list("task-clock,page-faults,minor-faults,context-switches,cpu-migrations")
                .unwrap();
        let groups = open_groups(&events).unwrap();
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].1, 0..5);
    }

    #[test]
    fn dropping_a_group_closes_every_descriptor() {
        let open_fds = || std::fs::read_dir("/proc/self/fd").unwrap().count();
        let events = parse_list("task-clock,page-faults,minor-faults,context-switches").unwrap();
        // Other tests open and close descriptors concurrently; retry until a
        // quiet moment shows the exact difference.
        let clean = (0..50).any(|_| {
            let before = open_fds();
            let group = CounterGroup::open(&events).unwrap();
            let during = open_fds();
            drop(group);
            let after = open_fds();
            during == before + 4 && after == before
        });
        assert!(
            clean,
            "a group of four left descriptors open or opened other than four"
        );
    }

    #[test]
    fn probing_reports_what_this_machine_lacks() {
        let sw = parse_list("task-clock").unwrap();
        assert!(probe(&sw[0]).is_ok());
        let hw = parse_list("cycles").unwrap();
        match probe(&hw[0]) {
            Ok(()) => assert!(crate::counter::event::has_cpu_pmu()),
            Err(e) => {
                assert!(matches!(e, OpenError::Unsupported { .. }), "{e}");
                assert!(
                    e.to_string().starts_with("cannot count `cycles` here"),
                    "{e}"
                );
            }
        }
    }

    #[test]
    fn permission_errors_name_the_event_and_the_cause() {
        let event = &parse_list("cycles:k").unwrap()[0];
        let eacces = || io::Error::from_raw_os_error(libc::EACCES);
        let e = OpenError::classify_with(event, eacces(), &at_level(2, false));
        assert_eq!(
            e.to_string(),
            "permission denied opening `cycles:k`: kernel.perf_event_paranoid is 2; counting \
             the kernel needs 1 or below (`sudo sysctl kernel.perf_event_paranoid=1`) or \
             CAP_PERFMON"
        );
    }
}
