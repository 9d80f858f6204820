//! The records of a sampling ring, parsed from the bytes copied out of it:
//! `PERF_RECORD_SAMPLE` into a [`ThreadSample`] as its `sample_type` lays it out,
//! `PERF_RECORD_LOST` into the number of records the kernel dropped, every
//! other type skipped by its size. Every length is checked against the
//! bytes there are: a bad one is a [`RecordError`], never a panic.

use perf_event_open_sys::bindings;

use super::RecordError;

/// The size of `perf_event_header`: `type: u32, misc: u16, size: u16`.
const HEADER: usize = 8;

/// Call-chain entries at or above this (`PERF_CONTEXT_MAX`, -4095) mark
/// where the kernel's or user space's frames start, not return addresses.
const CONTEXT_MAX: u64 = (-4095i64) as u64;

/// One `PERF_RECORD_SAMPLE`: the fields its `sample_type` asked for; the
/// others are 0 or empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadSample {
    /// The instruction pointer (`PERF_SAMPLE_IP`).
    pub ip: u64,
    /// The process id (`PERF_SAMPLE_TID`).
    pub pid: u32,
    /// The thread id (`PERF_SAMPLE_TID`).
    pub tid: u32,
    /// The perf clock's time in nanoseconds (`PERF_SAMPLE_TIME`).
    pub time: u64,
    /// The events this sample stands for: the period since the last one
    /// (`PERF_SAMPLE_PERIOD`), which the kernel varies where it keeps a
    /// frequency.
    pub period: u64,
    /// The user-space return addresses, innermost first, without the
    /// kernel's context markers (`PERF_SAMPLE_CALLCHAIN`).
    pub callchain: Vec<u64>,
    /// The user registers of `sample_regs_user`, lowest bit first
    /// (`PERF_SAMPLE_REGS_USER`); empty where the sample interrupted no
    /// user code (ABI none).
    pub regs: Vec<u64>,
    /// The user stack from the stack pointer up, as many bytes as the
    /// kernel could copy (`PERF_SAMPLE_STACK_USER`'s `dyn_size`).
    pub stack: Vec<u8>,
}

/// One record of the ring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RingRecord {
    /// A sample.
    Sample(ThreadSample),
    /// The kernel dropped this many records: the ring was full.
    Lost(u64),
    /// Another record type, skipped.
    Other(u32),
}

/// How the samples of one event are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleLayout {
    /// The event's `sample_type`.
    pub sample_type: u64,
    /// The event's `sample_regs_user`: its bit count is the number of
    /// registers a sample carries.
    pub regs_user: u64,
}

/// The records in `bytes`, in order; the first bad one ends the iteration
/// with its error.
pub fn records(bytes: &[u8], layout: SampleLayout) -> RingRecords<'_> {
    RingRecords {
        bytes,
        layout,
        failed: false,
    }
}

/// An iterator over the records of a byte buffer (see [`records`]).
#[derive(Debug)]
pub struct RingRecords<'a> {
    bytes: &'a [u8],
    layout: SampleLayout,
    failed: bool,
}

impl Iterator for RingRecords<'_> {
    type Item = Result<RingRecord, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.bytes.is_empty() {
            return None;
        }
        let result = self.split_record().and_then(|(kind, body)| match kind {
            bindings::PERF_RECORD_SAMPLE => parse_sample(body, self.layout).map(RingRecord::Sample),
            bindings::PERF_RECORD_LOST => parse_lost(body).map(RingRecord::Lost),
            other => Ok(RingRecord::Other(other)),
        });
        self.failed = result.is_err();
        Some(result)
    }
}

impl<'a> RingRecords<'a> {
    /// Takes the next record off the buffer: its type and the bytes after
    /// its header.
    fn split_record(&mut self) -> Result<(u32, &'a [u8]), RecordError> {
        let left = self.bytes.len();
        let Some(header) = self.bytes.get(..HEADER) else {
            return Err(RecordError::BeyondData {
                size: HEADER as u16,
                left,
            });
        };
        let kind = u32::from_ne_bytes([header[0], header[1], header[2], header[3]]);
        let size = u16::from_ne_bytes([header[6], header[7]]);
        if usize::from(size) < HEADER {
            return Err(RecordError::BelowHeader { size });
        }
        let Some(record) = self.bytes.get(..usize::from(size)) else {
            return Err(RecordError::BeyondData { size, left });
        };
        self.bytes = &self.bytes[usize::from(size)..];
        Ok((kind, &record[HEADER..]))
    }
}

/// A bounded reader of a record's native-endian fields.
struct Fields<'a> {
    bytes: &'a [u8],
    kind: u32,
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], RecordError> {
        if n > self.bytes.len() {
            return Err(RecordError::Truncated {
                kind: self.kind,
                field,
            });
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn u64(&mut self, field: &'static str) -> Result<u64, RecordError> {
        let b = self.take(8, field)?;
        Ok(u64::from_ne_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]))
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, RecordError> {
        let b = self.take(4, field)?;
        Ok(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// `n` words, `n` as read from the record: checked before allocating.
    fn words(&mut self, n: u64, field: &'static str) -> Result<Vec<u64>, RecordError> {
        let bytes = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(8))
            .unwrap_or(usize::MAX);
        let b = self.take(bytes, field)?;
        Ok(b.chunks_exact(8)
            .map(|w| u64::from_ne_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
            .collect())
    }
}

fn has(layout: SampleLayout, bit: u32) -> bool {
    layout.sample_type & u64::from(bit) != 0
}

/// A `PERF_RECORD_SAMPLE`'s body, in the kernel's order of the fields this
/// crate asks for: IP, TID, TIME, PERIOD, CALLCHAIN, REGS_USER, STACK_USER.
fn parse_sample(body: &[u8], layout: SampleLayout) -> Result<ThreadSample, RecordError> {
    let mut f = Fields {
        bytes: body,
        kind: bindings::PERF_RECORD_SAMPLE,
    };
    let mut s = ThreadSample::default();
    if has(layout, bindings::PERF_SAMPLE_IP) {
        s.ip = f.u64("ip")?;
    }
    if has(layout, bindings::PERF_SAMPLE_TID) {
        s.pid = f.u32("pid")?;
        s.tid = f.u32("tid")?;
    }
    if has(layout, bindings::PERF_SAMPLE_TIME) {
        s.time = f.u64("time")?;
    }
    if has(layout, bindings::PERF_SAMPLE_PERIOD) {
        s.period = f.u64("period")?;
    }
    if has(layout, bindings::PERF_SAMPLE_CALLCHAIN) {
        let nr = f.u64("callchain")?;
        s.callchain = f.words(nr, "callchain")?;
        s.callchain.retain(|&ip| ip < CONTEXT_MAX);
    }
    if has(layout, bindings::PERF_SAMPLE_REGS_USER) && f.u64("regs abi")? != 0 {
        s.regs = f.words(u64::from(layout.regs_user.count_ones()), "regs")?;
    }
    if has(layout, bindings::PERF_SAMPLE_STACK_USER) {
        s.stack = parse_stack(&mut f)?;
    }
    Ok(s)
}

/// `{ size, data[size], dyn_size }` (no `dyn_size` when `size` is 0): the
/// first `dyn_size` bytes of `data` are the stack's.
fn parse_stack(f: &mut Fields<'_>) -> Result<Vec<u8>, RecordError> {
    let size = f.u64("stack size")?;
    if size == 0 {
        return Ok(Vec::new());
    }
    let data = f.take(usize::try_from(size).unwrap_or(usize::MAX), "stack")?;
    let dyn_size = f.u64("stack dyn_size")?;
    let used = usize::try_from(dyn_size).map_or(data.len(), |d| d.min(data.len()));
    Ok(data[..used].to_vec())
}

/// A `PERF_RECORD_LOST`'s body: `{ id, lost }`.
fn parse_lost(body: &[u8]) -> Result<u64, RecordError> {
    let mut f = Fields {
        bytes: body,
        kind: bindings::PERF_RECORD_LOST,
    };
    f.u64("id")?;
    f.u64("lost")
}
