//! The calling thread's CPU affinity (`sched_getaffinity(2)`,
//! `sched_setaffinity(2)`) and the CPU it runs on: what pinning needs.

use std::io;

use super::check;

/// A set of CPUs, as `sched_setaffinity(2)` takes it.
#[derive(Clone)]
pub struct CpuSet(libc::cpu_set_t);

impl CpuSet {
    /// The set holding `cpu` alone; `None` if `cpu` is beyond what a
    /// `cpu_set_t` can name.
    pub fn single(cpu: usize) -> Option<CpuSet> {
        if cpu >= libc::CPU_SETSIZE as usize {
            return None;
        }
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `cpu` was checked against CPU_SETSIZE above.
        unsafe { libc::CPU_SET(cpu, &mut set) };
        Some(CpuSet(set))
    }

    /// Whether `cpu` is in the set.
    pub fn contains(&self, cpu: usize) -> bool {
        // SAFETY: CPU_ISSET only reads the bit array, and bounds the index.
        cpu < libc::CPU_SETSIZE as usize && unsafe { libc::CPU_ISSET(cpu, &self.0) }
    }

    /// The CPUs in the set, lowest first.
    pub fn cpus(&self) -> Vec<usize> {
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| self.contains(c))
            .collect()
    }
}

/// The calling thread's CPU affinity mask.
pub fn thread_affinity() -> io::Result<CpuSet> {
    // SAFETY: all zeroes is a valid (empty) cpu_set_t.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the kernel writes at most size_of::<cpu_set_t>() bytes into
    // `set`; pid 0 is the calling thread.
    check(unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) })?;
    Ok(CpuSet(set))
}

/// Restricts the calling thread to the CPUs of `set`.
pub fn set_thread_affinity(set: &CpuSet) -> io::Result<()> {
    // SAFETY: the kernel only reads `set`; pid 0 is the calling thread.
    check(unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set.0), &set.0) })
}

/// The CPU the calling thread is running on right now.
pub fn current_cpu() -> io::Result<usize> {
    // SAFETY: sched_getcpu has no arguments and no memory effects.
    let cpu = unsafe { libc::sched_getcpu() };
    if cpu < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(cpu as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_set_holds_exactly_the_cpu_it_was_made_with() {
        let s = CpuSet::single(3).unwrap();
        assert_eq!(s.cpus(), vec![3]);
        assert!(CpuSet::single(libc::CPU_SETSIZE as usize).is_none());
    }

    #[test]
    fn affinity_round_trips_on_this_thread() {
        let before = thread_affinity().unwrap();
        let cpu = before.cpus()[0];
        set_thread_affinity(&CpuSet::single(cpu).unwrap()).unwrap();
        assert_eq!(thread_affinity().unwrap().cpus(), vec![cpu]);
        assert_eq!(current_cpu().unwrap(), cpu);
        set_thread_affinity(&before).unwrap();
        assert_eq!(thread_affinity().unwrap().cpus(), before.cpus());
    }
}
