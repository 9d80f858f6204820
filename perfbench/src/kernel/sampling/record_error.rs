//! What can be wrong with the bytes of a ring buffer: more unread than the
//! ring holds, a record whose size is below its header or beyond the bytes
//! there are, or a sample whose fields run past its record.

use std::fmt;

/// A ring's bytes that are not records as the kernel writes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// `data_head - data_tail` exceeds the data area.
    Overrun {
        /// Bytes claimed unread.
        unread: u64,
        /// Bytes of the data area.
        size: usize,
    },
    /// A record's `size` is smaller than its 8-byte header.
    BelowHeader {
        /// The size the header claims.
        size: u16,
    },
    /// A record's `size` runs past the unread bytes.
    BeyondData {
        /// The size the header claims.
        size: u16,
        /// Bytes left from the record's start.
        left: usize,
    },
    /// A record's fields run past its `size`.
    Truncated {
        /// The record's `type`.
        kind: u32,
        /// The field that did not fit.
        field: &'static str,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Overrun { unread, size } => write!(
                f,
                "the ring claims {unread} unread bytes in a data area of {size}"
            ),
            RecordError::BelowHeader { size } => {
                write!(f, "a record of {size} bytes, smaller than its header")
            }
            RecordError::BeyondData { size, left } => {
                write!(f, "a record of {size} bytes where only {left} are unread")
            }
            RecordError::Truncated { kind, field } => {
                write!(f, "a record of type {kind} ends inside its {field}")
            }
        }
    }
}

impl std::error::Error for RecordError {}
