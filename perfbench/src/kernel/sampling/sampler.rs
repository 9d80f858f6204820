//! A sampler of the calling thread: its sampling event and the ring buffer
//! its samples arrive in, drained by the caller as it goes (the ring is
//! small where `perf_event_mlock_kb` bounds it: 512 KiB by default).

use std::os::fd::{AsFd, BorrowedFd};

use super::record::{records, RingRecord, SampleLayout, ThreadSample};
use super::ring::RingMapping;
use super::unread::copy_unread;
use super::{
    first_log2, mlock_kb, next_log2, SamplingError, SamplingEvent, SamplingSpec,
    MAX_DATA_PAGES_LOG2,
};
use crate::kernel::sys;

/// A sampling event of the calling thread with its ring buffer; stopped
/// until [`enable`](Sampler::enable)d. Not `Send`: it samples the thread
/// that opened it, and only that thread should toggle and drain it.
///
/// ```compile_fail
/// fn to_another_thread<T: Send>() {}
/// to_another_thread::<perfbench::kernel::sampling::Sampler>();
/// ```
#[derive(Debug)]
pub struct Sampler {
    // Declared before `event` so that it is unmapped before the descriptor
    // closes (either order is sound; this one is the kernel's own).
    ring: RingMapping,
    event: SamplingEvent,
    layout: SampleLayout,
    lost: u64,
    scratch: Vec<u8>,
}

impl Sampler {
    /// Opens `spec` for the calling thread, disabled, and maps its ring:
    /// as many data pages as `perf_event_mlock_kb` allows, fewer if the
    /// kernel refuses that many.
    pub fn open(spec: &SamplingSpec) -> Result<Sampler, SamplingError> {
        Self::open_capped(spec, MAX_DATA_PAGES_LOG2)
    }

    /// As [`open`](Sampler::open), with at most `2^max_log2` data pages:
    /// for samplers that share the user's `perf_event_mlock_kb` with
    /// others, and for tests of a small ring.
    pub fn open_capped(spec: &SamplingSpec, max_log2: u32) -> Result<Sampler, SamplingError> {
        Self::open_with(SamplingEvent::open(spec)?, max_log2)
    }

    /// Opens `spec` as a member of the group of `leader`, sampling exactly
    /// while the leader counts: [`enable`](Sampler::enable) and
    /// [`disable`](Sampler::disable) are the leader's to call then.
    pub fn open_member(
        spec: &SamplingSpec,
        leader: BorrowedFd<'_>,
    ) -> Result<Sampler, SamplingError> {
        Self::open_with(
            SamplingEvent::open_in(spec, Some(leader))?,
            MAX_DATA_PAGES_LOG2,
        )
    }

    /// `event` with its ring of at most `2^max_log2` data pages.
    fn open_with(event: SamplingEvent, max_log2: u32) -> Result<Sampler, SamplingError> {
        let spec = *event.spec();
        let page = sys::page_size();
        let mut log2 = first_log2(mlock_kb(), page).min(max_log2);
        let ring = loop {
            match RingMapping::map(event.as_fd(), log2, page) {
                Ok(ring) => break ring,
                Err(e) => match e.raw_os_error().and_then(|errno| next_log2(log2, errno)) {
                    Some(fewer) => log2 = fewer,
                    None => return Err(SamplingError::Mmap(e)),
                },
            }
        };
        Ok(Sampler {
            ring,
            event,
            layout: SampleLayout {
                sample_type: spec.sample_type(),
                regs_user: spec.regs_user,
            },
            lost: 0,
            scratch: Vec::new(),
        })
    }

    /// Starts sampling.
    pub fn enable(&self) -> Result<(), SamplingError> {
        self.event.enable()
    }

    /// Stops sampling.
    pub fn disable(&self) -> Result<(), SamplingError> {
        self.event.disable()
    }

    /// Bytes of the ring's data area.
    pub fn ring_size(&self) -> usize {
        self.ring.data_size()
    }

    /// Bytes written to the ring and not drained yet.
    pub fn pending(&self) -> u64 {
        self.ring.head().wrapping_sub(self.ring.tail())
    }

    /// Records the kernel dropped because the ring was full, over every
    /// drain so far.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Moves the samples written since the last drain into `out`, counts
    /// the lost ones, and frees their space in the ring. A malformed ring
    /// is an error; its unread bytes are given back to the kernel all the
    /// same, and the samples parsed before the bad record stay in `out`.
    pub fn drain(&mut self, out: &mut Vec<ThreadSample>) -> Result<(), SamplingError> {
        let head = self.ring.head();
        let tail = self.ring.tail();
        let ring = &self.ring;
        let copied = copy_unread(
            ring.data_size(),
            tail,
            head,
            &mut self.scratch,
            |at, into| {
                // In bounds by construction of `copy_unread`; a `false` would
                // leave zeros, which parse as a record below its header.
                let _ = ring.copy_out(at, into);
            },
        );
        let parsed = copied.and_then(|()| {
            for record in records(&self.scratch, self.layout) {
                match record? {
                    RingRecord::Sample(s) => out.push(s),
                    RingRecord::Lost(n) => self.lost = self.lost.saturating_add(n),
                    RingRecord::Other(_) => {}
                }
            }
            Ok(())
        });
        self.ring.set_tail(head);
        parsed.map_err(SamplingError::RingRecord)
    }
}
