//! What one read of a group gives: its times and a value per event, and
//! the arithmetic between two reads.

use std::io;

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
