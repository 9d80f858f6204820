//! An event list split into as few groups as the PMUs hold at once: one
//! pass over each benchmark per group, never multiplexed within a pass.

use std::io;
use std::ops::Range;

use super::{CounterGroup, OpenError};
use crate::counter::event::Event;

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
