//! The counted windows of one `iter_batched` sample: the group counts for
//! the whole sample, and each batch's window is read around, so that what
//! the setup between windows does is left out without toggling the
//! counters once per batch.

use std::io;
use std::time::Duration;

use super::batch_mode::Measured;
use crate::counter::group::{CounterGroup, Counts};
use crate::kernel::ticks::{Mark, Ticks};

/// The windows of one sample, and what they counted so far.
///
/// Toggling the group around each batch put two `ioctl`s and a read in
/// every window, whose cost after a dear setup (the kernel's code gone
/// cold) varied by microseconds: under `BatchSize::PerIteration`, a 10 ns
/// routine after 20 µs of setup read anything from −5 µs to +0.5 µs. Here
/// a window holds the tail and the head of one group `read()` in the counts
/// and two clock reads around the routine in the wall time: every sample
/// has as many windows (empty ones included), so what they cost lands in
/// the intercept, and it hardly varies.
///
/// The clock inside a window is [`Ticks`]: the CPU's timestamp counter
/// where it is invariant, read in program order, a fixed sequence of
/// instructions, where `Instant::now()` now and then retries its seqlock
/// and added a few instructions to one window (seen on the emulated arm64
/// PMU as an empty routine counting 0.0075 instructions). Its ticks are
/// turned into nanoseconds at the counter's stated rate, or the sample's
/// own ratio of `Instant` time to ticks, read at its start and end,
/// outside every window.
pub(super) struct Windows<'g> {
    group: Option<&'g mut CounterGroup>,
    before: Vec<u64>,
    after: Vec<u64>,
    /// The clock of the windows.
    clock: Ticks,
    /// Its ticks inside the windows, summed.
    ticks: u64,
    /// The sample's start, by both clocks.
    started: Mark,
    /// What the windows counted, summed.
    counts: Counts,
}

impl<'g> Windows<'g> {
    /// Starts a sample: enables `group`, if any, for all of it; a sampled
    /// group is toggled around each window instead ([`Windows::count`]).
    pub(super) fn start(group: Option<&'g mut CounterGroup>) -> io::Result<Self> {
        let events = group.as_ref().map_or(0, |g| g.events().len());
        if let Some(g) = group.as_ref().filter(|g| !g.is_sampled()) {
            g.enable()?;
        }
        let clock = Ticks::new();
        Ok(Windows {
            group,
            clock,
            before: vec![0; events],
            after: vec![0; events],
            ticks: 0,
            started: clock.mark(),
            counts: Counts {
                time_enabled: 0,
                time_running: 0,
                values: vec![0; events],
            },
        })
    }

    /// Runs `body` inside one window: the group read just around it, the
    /// clock just around the body. Nothing allocates between the reads.
    #[inline]
    pub(super) fn count(&mut self, body: impl FnOnce()) -> io::Result<()> {
        let opened = self.open()?;
        body();
        self.close(opened)
    }

    /// The first half of [`Windows::count`]: opens a window.
    #[inline]
    pub(super) fn open(&mut self) -> io::Result<OpenWindow> {
        let group = match self.group.as_deref_mut() {
            Some(group) if !group.is_sampled() => group,
            sampled => {
                // A profiling pass: the group on in the window alone, its
                // counts unread (only the samples are wanted).
                let sampled = sampled.map(|g| &*g);
                sampled.map_or(Ok(()), CounterGroup::enable)?;
                return Ok(OpenWindow {
                    read: None,
                    start: self.clock.now(),
                });
            }
        };
        // A read just before, outside the window, warms the very path the
        // window's first read then takes (after a long setup the kernel's
        // code is cold, and its first system call slow and uneven), and
        // writes the buffer the window's last read fills: a zeroed
        // allocation may still be fresh pages, whose fault the window would
        // count.
        group.read_into(&mut self.after)?;
        // The clock is read inside the window, just around the body: with
        // the reads inside it instead, a preemption at the end of a read
        // (likely on a busy machine) fell into the wall time, and a 10 ns
        // routine read ±5 µs under `PerIteration`. The counts then hold the
        // clock reads, the same in every window (calibration measures them).
        let read = group.read_into(&mut self.before)?;
        Ok(OpenWindow {
            read: Some(read),
            start: self.clock.now(),
        })
    }

    /// The second half of [`Windows::count`]: closes the window `opened`
    /// and adds what it counted.
    #[inline]
    pub(super) fn close(&mut self, opened: OpenWindow) -> io::Result<()> {
        let ticks = self.clock.now().wrapping_sub(opened.start);
        let (Some((enabled_before, running_before)), Some(group)) =
            (opened.read, self.group.as_deref_mut())
        else {
            self.ticks += ticks;
            return self.group.as_deref().map_or(Ok(()), CounterGroup::disable);
        };
        let (enabled_after, running_after) = group.read_into(&mut self.after)?;
        self.ticks += ticks;
        let sum = &mut self.counts;
        sum.time_enabled += enabled_after.saturating_sub(enabled_before);
        sum.time_running += running_after.saturating_sub(running_before);
        for ((total, now), then) in sum.values.iter_mut().zip(&self.after).zip(&self.before) {
            // No counter of one group goes backwards: a wrap or a mix-up
            // of reads must not pass for a huge count.
            let counted = now.checked_sub(*then).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a counter went backwards, from {then} to {now}"),
                )
            })?;
            *total = total.saturating_add(counted);
        }
        Ok(())
    }

    /// Ends the sample: disables the group and returns the windows' wall
    /// time and counts together.
    pub(super) fn finish(mut self) -> io::Result<Measured> {
        let group = self.group.take();
        if let Some(g) = &group {
            g.disable()?;
        }
        Ok(Measured {
            wall: self.wall(),
            counts: group.map(|_| self.counts.clone()),
        })
    }

    /// The windows' ticks in nanoseconds.
    fn wall(&self) -> Duration {
        let ns_per_tick = self.clock.ns_per_tick(self.started);
        Duration::from_nanos((self.ticks as f64 * ns_per_tick).round() as u64)
    }
}

/// An open window: the group's times at its first read, where it was
/// read around, and the clock at its start.
pub(super) struct OpenWindow {
    read: Option<(u64, u64)>,
    start: u64,
}

impl Drop for Windows<'_> {
    /// A sample cut short (a read failed, the routine panicked) leaves the
    /// group stopped, as every sample does.
    fn drop(&mut self) {
        if let Some(g) = &self.group {
            let _ = g.disable();
        }
    }
}
