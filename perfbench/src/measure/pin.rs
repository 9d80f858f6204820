//! Pinning the measuring thread to one CPU for the length of a run, and on
//! hybrid CPUs choosing which kind of core: the same on every run, so that
//! runs compare.

use std::{fmt, io};

use crate::kernel::pmu::{CoreType, CpuList};
use crate::kernel::sys::{self, CpuSet};

/// Why the thread cannot be pinned, or where to: the system's refusal, or
/// a `--cpu`/`--cpu-type` that does not fit this machine. One line each.
#[derive(Debug)]
pub enum PinError {
    /// The thread's affinity could not be read.
    Affinity(io::Error),
    /// The CPU the thread is on could not be told.
    CurrentCpu(io::Error),
    /// `cpu` is not among the CPUs the process may run on.
    NotAllowed {
        /// The CPU asked.
        cpu: usize,
        /// Those it may run on.
        allowed: Vec<usize>,
    },
    /// `cpu` is beyond what a CPU set holds.
    OutOfRange(usize),
    /// The system refused to pin to `cpu`.
    Refused(usize, io::Error),
    /// `--cpu-type` on a CPU with one kind of core.
    NotHybrid(String),
    /// `--cpu-type` that names no core type here (the types' names).
    UnknownType(String, String),
    /// `--cpu-type` none of whose CPUs the process may run on.
    TypeNotAllowed(String, Vec<u32>),
    /// No CPU the process may run on has a core type (the types' names).
    NoTypeAllowed(String),
}

impl fmt::Display for PinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PinError::Affinity(e) => write!(f, "cannot read the CPU affinity: {e}"),
            PinError::CurrentCpu(e) => write!(f, "cannot tell the current CPU: {e}"),
            PinError::NotAllowed { cpu, allowed } => write!(
                f,
                "cannot pin to CPU {cpu}: this process may run on CPUs {allowed:?} only"
            ),
            PinError::OutOfRange(cpu) => write!(f, "CPU {cpu} is out of range"),
            PinError::Refused(cpu, e) => write!(f, "cannot pin to CPU {cpu}: {e}"),
            PinError::NotHybrid(name) => write!(
                f,
                "--cpu-type `{name}`: this CPU has one kind of core (not a hybrid CPU)"
            ),
            PinError::UnknownType(name, types) => write!(
                f,
                "--cpu-type `{name}`: not a core type of this CPU ({types})"
            ),
            PinError::TypeNotAllowed(name, cpus) => write!(
                f,
                "--cpu-type `{name}`: none of its CPUs ({}) is one this process may run on",
                CpuList(cpus)
            ),
            PinError::NoTypeAllowed(types) => write!(
                f,
                "none of the CPUs this process may run on belongs to a core type ({types}); \
                 pin with --cpu N or --no-pin"
            ),
        }
    }
}

impl std::error::Error for PinError {}

/// Keeps the calling thread on one CPU while it lives, restoring the
/// previous affinity when dropped.
pub struct ThreadPin {
    cpu: usize,
    previous: CpuSet,
}

impl ThreadPin {
    /// Pins to `cpu`, or to the CPU the thread is on now.
    pub fn new(cpu: Option<usize>) -> Result<ThreadPin, PinError> {
        let previous = sys::thread_affinity().map_err(PinError::Affinity)?;
        let cpu = match cpu {
            Some(cpu) => cpu,
            None => sys::current_cpu().map_err(PinError::CurrentCpu)?,
        };
        if !previous.contains(cpu) {
            let allowed = previous.cpus();
            return Err(PinError::NotAllowed { cpu, allowed });
        }
        let set = CpuSet::single(cpu).ok_or(PinError::OutOfRange(cpu))?;
        sys::set_thread_affinity(&set).map_err(|e| PinError::Refused(cpu, e))?;
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

/// The CPU a hybrid CPU's run is pinned to, of which kind, and why not the
/// performance cores where it is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreChoice {
    /// The CPU to pin to.
    pub cpu: usize,
    /// Its core type (the core PMU's name).
    pub core_type: String,
    /// A note for the user where the run does not measure what it would
    /// by default.
    pub note: Option<String>,
}

/// Chooses where to pin on a CPU whose kinds of core are `types`, the
/// performance cores first (`kernel::pmu::core_types`): the kind `asked`
/// (`--cpu-type`: a core PMU's name, or Intel's `core` and `atom`), else
/// the performance cores, among the CPUs the process may run on
/// (`allowed`); where none of those is allowed, the fastest kind that is,
/// with a note. Within a kind, the CPU the thread is on (`current`) if it
/// is one, else the first. `None`: no kind asked on a CPU with one kind of
/// core, so nothing to choose. Errors are the user's: a kind that is not
/// here, or none of whose CPUs is allowed.
pub fn choose_core(
    types: &[CoreType],
    asked: Option<&str>,
    allowed: &[usize],
    current: Option<usize>,
) -> Result<Option<CoreChoice>, PinError> {
    let usable = |t: &CoreType| -> Vec<usize> {
        t.cpus
            .iter()
            .map(|&c| c as usize)
            .filter(|c| allowed.contains(c))
            .collect()
    };
    let pick = |t: &CoreType, cpus: Vec<usize>, note| {
        let cpu = current.filter(|c| cpus.contains(c)).unwrap_or(cpus[0]);
        let core_type = t.pmu.clone();
        Some(CoreChoice {
            cpu,
            core_type,
            note,
        })
    };
    if let Some(name) = asked {
        let t = asked_type(types, name)?;
        let cpus = usable(t);
        if cpus.is_empty() {
            return Err(PinError::TypeNotAllowed(name.into(), t.cpus.clone()));
        }
        return Ok(pick(t, cpus, None));
    }
    let Some(fastest) = types.first() else {
        return Ok(None);
    };
    match types
        .iter()
        .map(|t| (t, usable(t)))
        .find(|(_, c)| !c.is_empty())
    {
        Some((t, cpus)) if t == fastest => Ok(pick(t, cpus, None)),
        Some((t, cpus)) => {
            let note = format!(
                "no performance core ({}: CPUs {}) is one this process may run on: measuring \
                 {} cores, which compare only with runs on {} cores (--cpu-type chooses)",
                fastest.pmu,
                CpuList(&fastest.cpus),
                t.pmu,
                t.pmu
            );
            Ok(pick(t, cpus, Some(note)))
        }
        None => Err(PinError::NoTypeAllowed(names(types))),
    }
}

/// The core type `--cpu-type name` names: a core PMU's name, or that name
/// without `cpu_` (Intel's `core`, `atom`).
fn asked_type<'t>(types: &'t [CoreType], name: &str) -> Result<&'t CoreType, PinError> {
    if types.is_empty() {
        return Err(PinError::NotHybrid(name.into()));
    }
    types
        .iter()
        .find(|t| t.pmu == name || t.pmu.strip_prefix("cpu_") == Some(name))
        .ok_or_else(|| PinError::UnknownType(name.into(), names(types)))
}

/// The types' names, the performance cores' first and marked.
fn names(types: &[CoreType]) -> String {
    let names: Vec<String> = types.iter().map(|t| t.pmu.clone()).collect();
    format!("{} (performance), {}", names[0], names[1..].join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::pmu::tests::{amd, big_little, intel_hybrid};
    use crate::kernel::pmu::{core_types, CoreType};

    fn intel() -> Vec<CoreType> {
        let t = intel_hybrid();
        core_types(t.root(), &t.root().join("cpu"))
    }

    fn choice(cpu: usize, core_type: &str) -> Option<CoreChoice> {
        Some(CoreChoice {
            cpu,
            core_type: core_type.into(),
            note: None,
        })
    }

    /// Asserts each `(asked, current, cpu, core type)`: asked for that kind
    /// (or none) from the CPU the thread is on, with every CPU of `all`
    /// allowed, the run is pinned to that CPU of that kind, without a note.
    fn chooses(
        types: &[CoreType],
        all: &[usize],
        cases: &[(Option<&str>, Option<usize>, usize, &str)],
    ) {
        for &(asked, current, cpu, core_type) in cases {
            assert_eq!(
                choose_core(types, asked, all, current).ok(),
                Some(choice(cpu, core_type)),
                "--cpu-type {asked:?}, started on {current:?}"
            );
        }
    }

    #[test]
    fn intel_hybrid_runs_on_a_p_core_by_default() {
        let types = intel();
        let all: Vec<usize> = (0..17).collect();
        chooses(
            &types,
            &all,
            &[
                // Started on an E-core, the run still measures a P-core.
                (None, Some(9), 0, "cpu_core"),
                // Started on a P-core: that one.
                (None, Some(16), 16, "cpu_core"),
                (Some("atom"), Some(3), 8, "cpu_atom"),
                (Some("cpu_atom"), Some(12), 12, "cpu_atom"),
            ],
        );
    }

    #[test]
    fn an_affinity_without_p_cores_measures_e_cores_and_says_so() {
        let types = intel();
        let got = choose_core(&types, None, &[9, 10, 11], Some(10)).unwrap();
        let got = got.unwrap();
        assert_eq!((got.cpu, got.core_type.as_str()), (10, "cpu_atom"));
        assert_eq!(
            got.note.as_deref(),
            Some(
                "no performance core (cpu_core: CPUs 0-7,16) is one this process may run on: \
                 measuring cpu_atom cores, which compare only with runs on cpu_atom cores \
                 (--cpu-type chooses)"
            )
        );
        assert_eq!(
            choose_core(&types, Some("core"), &[9, 10], None).map_err(|e| e.to_string()),
            Err(
                "--cpu-type `core`: none of its CPUs (0-7,16) is one this process may run on"
                    .into()
            )
        );
        assert_eq!(
            choose_core(&types, None, &[17, 18], None).map_err(|e| e.to_string()),
            Err(
                "none of the CPUs this process may run on belongs to a core type \
                 (cpu_core (performance), cpu_atom); pin with --cpu N or --no-pin"
                    .into()
            )
        );
    }

    #[test]
    fn big_little_runs_on_the_big_cores() {
        let t = big_little();
        for cpu in 4..8 {
            t.file(&format!("cpu/cpu{cpu}/cpu_capacity"), "1024\n");
        }
        for cpu in 0..4 {
            t.file(&format!("cpu/cpu{cpu}/cpu_capacity"), "446\n");
        }
        let types = core_types(&t.root().join("pmu"), &t.root().join("cpu"));
        let all: Vec<usize> = (0..8).collect();
        chooses(
            &types,
            &all,
            &[
                (None, Some(1), 4, "armv8_cortex_a76"),
                (Some("armv8_cortex_a55"), Some(6), 0, "armv8_cortex_a55"),
            ],
        );
        assert_eq!(
            choose_core(&types, Some("big"), &all, None).map_err(|e| e.to_string()),
            Err(
                "--cpu-type `big`: not a core type of this CPU (armv8_cortex_a76 (performance), \
                 armv8_cortex_a55)"
                    .into()
            )
        );
    }

    #[test]
    fn one_kind_of_core_is_not_pinned_unasked() {
        let t = amd();
        let types = core_types(t.root(), &t.root().join("cpu"));
        assert_eq!(choose_core(&types, None, &[0, 1], Some(1)).ok(), Some(None));
        assert_eq!(
            choose_core(&types, Some("core"), &[0, 1], Some(1)).map_err(|e| e.to_string()),
            Err("--cpu-type `core`: this CPU has one kind of core (not a hybrid CPU)".into())
        );
    }
}
