//! The kinds of core of a hybrid CPU (Intel's `cpu_core` and `cpu_atom`,
//! Arm big.LITTLE's one PMU per core design), performance cores first.

use std::fs;
use std::path::Path;

use super::{core_pmu_names, Pmu};

/// Where the kernel lists the CPUs (`cpuN/cpu_capacity`,
/// `cpuN/cpufreq/cpuinfo_max_freq`).
pub const LIVE_CPU_ROOT: &str = "/sys/devices/system/cpu";

/// The live CPU directory as a path.
pub fn live_cpu_root() -> &'static Path {
    Path::new(LIVE_CPU_ROOT)
}

/// One kind of core of a hybrid CPU: the core PMU that counts on it and
/// its CPUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreType {
    /// The core PMU's name (`cpu_core`, `cpu_atom`, `armv8_cortex_a76`).
    pub pmu: String,
    /// The CPUs of that kind, from the PMU's `cpus` file.
    pub cpus: Vec<u32>,
}

/// The kinds of core under `root`, in name order: each core PMU with a
/// non-empty `cpus` list, where there are at least two (a hybrid CPU:
/// Intel's `cpu_core` and `cpu_atom`, or Arm big.LITTLE's one PMU per
/// core design). Empty where the CPU has one kind of core.
pub fn hybrid_core_types(root: &Path) -> Vec<CoreType> {
    let types: Vec<CoreType> = core_pmu_names(root)
        .into_iter()
        .filter_map(|name| {
            let cpus = Pmu::load(root, &name).ok()?.cpus?;
            (!cpus.is_empty()).then_some(CoreType { pmu: name, cpus })
        })
        .collect();
    if types.len() < 2 {
        return Vec::new();
    }
    types
}

/// [`hybrid_core_types`], the performance cores first. The rule, in order:
/// Intel's names (the kernel calls the performance cores' PMU `cpu_core`
/// and the efficient cores' `cpu_atom`); then the highest `cpu_capacity`
/// among a type's CPUs under `cpu_root` (the scheduler's measure of a
/// core's speed, 1024 for the fastest, on arm64); then the highest
/// `cpufreq/cpuinfo_max_freq`; ties, and machines offering none of these,
/// keep name order, so that every run of a machine picks the same type.
pub fn core_types(root: &Path, cpu_root: &Path) -> Vec<CoreType> {
    let mut types = hybrid_core_types(root);
    // Sorting is stable: types that tie keep name order.
    types.sort_by_key(|t| std::cmp::Reverse(speed(t, cpu_root)));
    types
}

/// What ranks a core type: Intel's name, then capacity, then top frequency.
fn speed(t: &CoreType, cpu_root: &Path) -> (u8, u64, u64) {
    let intel = match t.pmu.as_str() {
        "cpu_core" => 2,
        "cpu_atom" => 1,
        _ => 0,
    };
    let highest = |file: &str| {
        t.cpus
            .iter()
            .filter_map(|cpu| {
                let path = cpu_root.join(format!("cpu{cpu}")).join(file);
                fs::read_to_string(path).ok()?.trim().parse::<u64>().ok()
            })
            .max()
            .unwrap_or(0)
    };
    (
        intel,
        highest("cpu_capacity"),
        highest("cpufreq/cpuinfo_max_freq"),
    )
}

/// On a hybrid CPU, the core type `cpu` belongs to; `None` elsewhere.
pub fn core_type_of(root: &Path, cpu: usize) -> Option<String> {
    hybrid_core_types(root)
        .into_iter()
        .find(|t| t.cpus.iter().any(|&c| c as usize == cpu))
        .map(|t| t.pmu)
}
