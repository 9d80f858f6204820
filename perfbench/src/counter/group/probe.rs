//! Whether this machine counts an event, found by opening it alone: as
//! asked, or narrowed to user space where privilege forbids the kernel.

use std::io;

use super::open_error::Denied;
use super::OpenError;
use crate::counter::denial::{Cause, Denial};
use crate::counter::event::{Event, Source};
use crate::kernel::alloc;
use crate::kernel::sys::{self, CounterAttr};

/// Opens `event` alone and closes it again: whether this machine can count it.
pub fn probe(event: &Event) -> Result<(), OpenError> {
    probe_with(event, open_alone, &Denial::here)
}

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
pub(super) fn countable_with(
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
pub(super) fn probe_with(
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
