//! The sampling event's descriptor: opened disabled for the calling
//! thread, and switched on and off around the windows to sample.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use super::{SamplingError, SamplingSpec};
use crate::kernel::sys;

/// An open sampling event of the calling thread, stopped until
/// [`enable`](SamplingEvent::enable)d.
#[derive(Debug)]
pub struct SamplingEvent {
    fd: OwnedFd,
    spec: SamplingSpec,
}

impl SamplingEvent {
    /// Opens `spec` for the calling thread on any CPU, disabled.
    pub fn open(spec: &SamplingSpec) -> Result<SamplingEvent, SamplingError> {
        Self::open_in(spec, None)
    }

    /// Opens `spec` for the calling thread, disabled on its own, or as an
    /// enabled member of the group of `leader`: then it samples exactly
    /// while its leader counts, toggled with it.
    pub fn open_in(
        spec: &SamplingSpec,
        leader: Option<BorrowedFd<'_>>,
    ) -> Result<SamplingEvent, SamplingError> {
        if let Some(what) = spec.invalid() {
            return Err(SamplingError::Invalid(what));
        }
        let mut raw = spec.raw();
        raw.set_disabled(u64::from(leader.is_none()));
        let fd = sys::open_raw(&mut raw, leader).map_err(SamplingError::of_open)?;
        Ok(SamplingEvent { fd, spec: *spec })
    }

    /// What it samples.
    pub fn spec(&self) -> &SamplingSpec {
        &self.spec
    }

    /// Starts sampling.
    pub fn enable(&self) -> Result<(), SamplingError> {
        sys::enable(self.fd.as_fd()).map_err(SamplingError::Kernel)
    }

    /// Stops sampling; samples already taken stay in the ring.
    pub fn disable(&self) -> Result<(), SamplingError> {
        sys::disable(self.fd.as_fd()).map_err(SamplingError::Kernel)
    }
}

impl AsFd for SamplingEvent {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}
