//! Which events are Intel's topdown ones, whose user-space read is no
//! count.

use std::path::Path;

use super::{core_pmu_names, Pmu};

/// Whether PMU `root`'s event of type `kind` and config `config` is one of
/// Intel's topdown events, whose user-space read is no count: the
/// `slots` event (`event=0x00,umask=0x04`, fixed counter 3, which the
/// kernel resets whenever it reads the metrics) or a metric
/// (`event=0x00,umask=0x80` and up: `topdown-retiring`, `-bad-spec`,
/// `-fe-bound`, `-be-bound`, …), whose mmap page `index` names the packed
/// PERF_METRICS register rather than a counter. Only a PMU that lists a
/// `slots` alias has these (as perf decides it has perf metrics); the
/// umask range is the kernel's and wider, so an unknown future metric is
/// read as one too. Atom cores' `topdown-*` aliases are ordinary events
/// (event codes other than 0) and are not.
pub fn is_topdown(root: &Path, kind: u32, config: u64) -> bool {
    let (event, umask) = (config & 0xff, (config >> 8) & 0xff);
    if event != 0 || !(umask == 0x04 || umask >= 0x80) {
        return false;
    }
    core_pmu_names(root).iter().any(|name| {
        Pmu::load(root, name).is_ok_and(|pmu| pmu.kind == kind && pmu.aliases.contains_key("slots"))
    })
}
