//! Pinning the measuring thread to one CPU for the length of a run.

use crate::kernel::sys::{self, CpuSet};

/// Keeps the calling thread on one CPU while it lives, restoring the
/// previous affinity when dropped.
pub struct ThreadPin {
    cpu: usize,
    previous: CpuSet,
}

impl ThreadPin {
    /// Pins to `cpu`, or to the CPU the thread is on now.
    pub fn new(cpu: Option<usize>) -> Result<ThreadPin, String> {
        let previous =
            sys::thread_affinity().map_err(|e| format!("cannot read the CPU affinity: {e}"))?;
        let cpu = match cpu {
            Some(cpu) => cpu,
            None => sys::current_cpu().map_err(|e| format!("cannot tell the current CPU: {e}"))?,
        };
        if !previous.contains(cpu) {
            return Err(format!(
                "cannot pin to CPU {cpu}: this process may run on CPUs {:?} only",
                previous.cpus()
            ));
        }
        let set = CpuSet::single(cpu).ok_or_else(|| format!("CPU {cpu} is out of range"))?;
        sys::set_thread_affinity(&set).map_err(|e| format!("cannot pin to CPU {cpu}: {e}"))?;
        Ok(ThreadPin { cpu, previous })
    }

    /// The CPU the thread is pinned to.
    pub fn cpu(&self) -> usize {
        self.cpu
    }
}

impl Drop for ThreadPin {
    fn drop(&mut self) {
        let _ = sys::set_thread_affinity(&self.previous);
    }
}
