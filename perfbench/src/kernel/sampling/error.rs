//! Why a sampling event could not be opened or mapped, told apart by
//! cause: a seccomp filter, a kernel closed to unprivileged users, an event
//! this machine cannot sample, or another error of the kernel's.

use std::fmt;
use std::io;

use super::RecordError;
use crate::kernel::sys;

/// Why a [`Sampler`](super::Sampler) could not be made.
#[derive(Debug)]
pub enum SamplingError {
    /// The spec asks for something the kernel refuses outright.
    Invalid(&'static str),
    /// A seccomp filter refuses `perf_event_open` (`EPERM`), as container
    /// runtimes' default profiles do.
    Seccomp,
    /// `perf_event_paranoid` (the level) is above 2: the kernel refuses
    /// perf events to users without `CAP_PERFMON` (`EACCES`/`EPERM`).
    Paranoid(i32),
    /// Refused for lack of privilege although neither of the above holds:
    /// kernel sampling at paranoid 2, a security module, another policy.
    Denied(io::Error),
    /// The event does not exist here or cannot sample: no PMU (a VM's
    /// `cycles`), `ENOENT`, `EOPNOTSUPP` or `ENODEV`.
    NoPmu(io::Error),
    /// The ring buffer could not be mapped even at its smallest.
    Mmap(io::Error),
    /// Another error of `perf_event_open` or an `ioctl`.
    Kernel(io::Error),
    /// The ring held bytes that are not records as the kernel writes them.
    RingRecord(RecordError),
}

impl SamplingError {
    /// The cause of a failed `perf_event_open` of this process.
    pub fn of_open(e: io::Error) -> SamplingError {
        Self::classify(e, sys::seccomp_filtered(), sys::perf_event_paranoid())
    }

    /// The cause of `e`, given whether a seccomp filter watches the process
    /// and `perf_event_paranoid`.
    pub fn classify(e: io::Error, seccomp: bool, paranoid: Option<i32>) -> SamplingError {
        match e.raw_os_error() {
            Some(libc::EPERM) if seccomp => SamplingError::Seccomp,
            Some(libc::EPERM | libc::EACCES) => match paranoid {
                Some(p) if p > 2 => SamplingError::Paranoid(p),
                _ => SamplingError::Denied(e),
            },
            Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV) => SamplingError::NoPmu(e),
            _ => SamplingError::Kernel(e),
        }
    }
}

impl fmt::Display for SamplingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SamplingError::Invalid(what) => write!(f, "sampling cannot take {what}"),
            SamplingError::Seccomp => write!(
                f,
                "sampling refused: a seccomp filter blocks perf_event_open"
            ),
            SamplingError::Paranoid(p) => write!(
                f,
                "sampling refused: kernel.perf_event_paranoid is {p}, which denies perf events \
                 to users without CAP_PERFMON"
            ),
            SamplingError::Denied(e) => write!(f, "sampling refused: {e}"),
            SamplingError::NoPmu(e) => {
                write!(
                    f,
                    "sampling unavailable: no PMU samples this event here ({e})"
                )
            }
            SamplingError::Mmap(e) => write!(f, "sampling's ring buffer could not be mapped: {e}"),
            SamplingError::Kernel(e) => write!(f, "sampling failed: {e}"),
            SamplingError::RingRecord(e) => write!(f, "sampling's ring buffer is malformed: {e}"),
        }
    }
}

impl std::error::Error for SamplingError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SamplingError::Denied(e)
            | SamplingError::NoPmu(e)
            | SamplingError::Mmap(e)
            | SamplingError::Kernel(e) => Some(e),
            SamplingError::RingRecord(e) => Some(e),
            _ => None,
        }
    }
}
