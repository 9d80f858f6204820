//! Counter groups: a set of events the kernel schedules together, started,
//! stopped and read as one.
//!
//! The leader is opened disabled and its members enabled, and only the
//! leader is toggled. Members cannot count while their leader is off, so the
//! group starts and stops as a unit. The seemingly obvious alternative,
//! `ioctl(leader, ENABLE, PERF_IOC_FLAG_GROUP)`, loses the members of a
//! mixed-PMU group after the first DISABLE on current kernels (see
//! DESIGN.md, "Group toggling trap"); `tests::every_member_counts_in_every_cycle`
//! proves the chosen form.

use std::fmt;
use std::io;
use std::os::fd::{AsFd, OwnedFd};

use crate::event::{Event, Source};
use crate::sys::{self, GroupReading};

/// An open group of counters on the calling thread.
pub struct CounterGroup {
    events: Vec<Event>,
    leader: OwnedFd,
    /// Kept open for as long as the group lives; closed on drop.
    _members: Vec<OwnedFd>,
    /// The kernel id of each event, in `events` order.
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
    /// What was counted between `earlier` and `self`.
    pub fn since(&self, earlier: &Counts) -> Counts {
        Counts {
            time_enabled: self.time_enabled - earlier.time_enabled,
            time_running: self.time_running - earlier.time_running,
            values: self
                .values
                .iter()
                .zip(&earlier.values)
                .map(|(now, then)| now - then)
                .collect(),
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
    /// The kernel refused for lack of privilege.
    PermissionDenied {
        /// The event as the user wrote it.
        event: String,
        /// `/proc/sys/kernel/perf_event_paranoid`, if readable.
        paranoid: Option<i32>,
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
            OpenError::Other { event, .. } => write!(f, "cannot open `{event}`: "),
        }?;
        f.write_str(&self.reason())
    }
}

impl std::error::Error for OpenError {}

impl OpenError {
    /// Why the event cannot be opened, without naming it.
    pub fn reason(&self) -> String {
        match self {
            OpenError::Unsupported { why, .. } => why.clone(),
            OpenError::PermissionDenied { paranoid, .. } => {
                let level = paranoid.map_or("unreadable".to_string(), |p| p.to_string());
                format!(
                    "kernel.perf_event_paranoid is {level}; user-space counting needs it at 2 or \
                     below, kernel counting (`:k`) at 1 or below (sudo sysctl \
                     kernel.perf_event_paranoid=1), or run with CAP_PERFMON"
                )
            }
            OpenError::Other { error, .. } => error.to_string(),
        }
    }

    fn classify(event: &Event, error: io::Error) -> OpenError {
        let name = event.name.clone();
        match error.raw_os_error() {
            Some(libc::EACCES | libc::EPERM) => OpenError::PermissionDenied {
                event: name,
                paranoid: sys::perf_event_paranoid(),
            },
            Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV | libc::EINVAL)
                if event.source == Source::Hardware =>
            {
                let why = if crate::event::has_cpu_pmu() {
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

/// Opens `event` alone and closes it again: whether this machine can count it.
pub fn probe(event: &Event) -> Result<(), OpenError> {
    sys::open_counter(&event.attr, None, true)
        .map(drop)
        .map_err(|e| OpenError::classify(event, e))
}

impl CounterGroup {
    /// Opens `events` as one group, the first as leader, all stopped.
    pub fn open(events: &[Event]) -> Result<CounterGroup, OpenError> {
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
        Ok(CounterGroup {
            words: vec![0; 3 + 2 * events.len()],
            events: events.to_vec(),
            leader,
            _members: members,
            ids,
        })
    }

    /// The events of the group, in the order of [`Counts::values`].
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Starts counting.
    #[inline]
    pub fn enable(&self) -> io::Result<()> {
        sys::enable(self.leader.as_fd())
    }

    /// Stops counting.
    #[inline]
    pub fn disable(&self) -> io::Result<()> {
        sys::disable(self.leader.as_fd())
    }

    /// Reads every counter of the group in one `read()`, matching values to
    /// events by their kernel id.
    pub fn read(&mut self) -> io::Result<Counts> {
        let n = sys::read_words(self.leader.as_fd(), &mut self.words)?;
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
        let reading = GroupReading::parse(&self.words[..n])
            .ok_or_else(|| bad("group read does not match the read format"))?;
        let values = self
            .ids
            .iter()
            .map(|id| {
                reading
                    .values
                    .iter()
                    .find(|(rid, _)| rid == id)
                    .map(|&(_, v)| v)
                    .ok_or_else(|| bad("group read lacks a member's id"))
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Counts {
            time_enabled: reading.time_enabled,
            time_running: reading.time_running,
            values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::parse_list;
    use crate::sys::touch_fresh_pages;

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
                let delta = now.since(&last);
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
    fn a_stopped_group_counts_nothing() {
        let mut group =
            CounterGroup::open(&parse_list("page-faults,minor-faults").unwrap()).unwrap();
        let before = group.read().unwrap();
        std::hint::black_box(touch_fresh_pages(8));
        let after = group.read().unwrap();
        assert_eq!(after.since(&before).values, vec![0, 0]);
        group.enable().unwrap();
        std::hint::black_box(touch_fresh_pages(8));
        group.disable().unwrap();
        assert_eq!(group.read().unwrap().since(&after).values, vec![8, 8]);
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
            Ok(()) => assert!(crate::event::has_cpu_pmu()),
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
    fn permission_errors_name_perf_event_paranoid() {
        let event = &parse_list("cycles:k").unwrap()[0];
        let e = OpenError::classify(event, io::Error::from_raw_os_error(libc::EACCES));
        let text = e.to_string();
        assert!(text.contains("`cycles:k`"), "{text}");
        assert!(text.contains("kernel.perf_event_paranoid is "), "{text}");
    }
}
