//! Every event there is here, grouped like `perf list`, with whether each
//! opens: the data of `--list-events` (output::event_list writes it).

use std::path::Path;

use super::{known_names, parse_in, Event, Scale, TYPE_ALLOCATOR};
use crate::kernel::pmu::{self, Pmu};
use crate::kernel::sys;

/// What a group of the list holds.
#[derive(Clone, Debug, PartialEq)]
pub enum ListedKind {
    /// Generalized hardware events.
    Hardware,
    /// Generalized hardware cache events.
    HardwareCache,
    /// The kernel's software events.
    Software,
    /// perfbench's allocation counts (`kernel::alloc`).
    Allocation,
    /// The aliases of a sysfs PMU, with its format terms.
    Pmu {
        /// The PMU's name.
        name: String,
        /// Its `format/` terms.
        terms: Vec<String>,
    },
}

/// One event of the list.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    /// The spec that names it.
    pub name: String,
    /// The PMU's `.scale` and `.unit` for it, if any.
    pub scale: Option<Scale>,
    /// Why it does not open here; `None` if it does.
    pub unavailable: Option<String>,
    /// How it counts here where that is not as named (`user space only, as
    /// page-faults:u`); `None` if as named.
    pub remark: Option<String>,
}

/// What a probe says of an event: `Ok(None)` it opens as named, `Ok(Some(how))`
/// it opens otherwise, `Err(why)` it does not open here.
pub type Probed = Result<Option<String>, String>;

impl Listed {
    /// The event `name`, with what `probed` says of it.
    fn probed(name: String, scale: Option<Scale>, probed: Probed) -> Listed {
        let (remark, unavailable) = match probed {
            Ok(remark) => (remark, None),
            Err(why) => (None, Some(why)),
        };
        Listed {
            name,
            scale,
            unavailable,
            remark,
        }
    }
}

/// A group of the list.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedGroup {
    /// What it holds.
    pub kind: ListedKind,
    /// Its events, in perf's order.
    pub events: Vec<Listed>,
}

/// Every event perfbench knows and each sysfs PMU's aliases under `root`:
/// hardware, hardware cache and software events, allocation counts, then
/// /// one group per PMU with aliases. `probe` says whether and how an event
/// opens here ([`Probed`]).
pub fn catalogue(root: &Path, probe: impl Fn(&Event) -> Probed) -> Vec<ListedGroup> {
    let mut groups: Vec<ListedGroup> = [
        ListedKind::Hardware,
        ListedKind::HardwareCache,
        ListedKind::Software,
        ListedKind::Allocation,
    ]
    .into_iter()
    .map(|kind| ListedGroup {
        kind,
        events: Vec::new(),
    })
    .collect();
    for name in known_names() {
        let Ok(e) = parse_in(&name, root) else {
            continue;
        };
        let slot = match e.attr.kind {
            sys::TYPE_HARDWARE => 0,
            sys::TYPE_HW_CACHE => 1,
            TYPE_ALLOCATOR => 3,
            _ => 2,
        };
        groups[slot]
            .events
            .push(Listed::probed(name, None, probe(&e)));
    }
    groups.extend(
        pmu::pmu_names(root)
            .iter()
            .filter_map(|name| pmu_group(root, name, &probe)),
    );
    groups
}

/// The aliases of the PMU `pmu_name` as a group; `None` for a PMU without
/// aliases or one that does not load.
fn pmu_group(
    root: &Path,
    pmu_name: &str,
    probe: &impl Fn(&Event) -> Probed,
) -> Option<ListedGroup> {
    let pmu = Pmu::load(root, pmu_name).ok()?;
    if pmu.aliases.is_empty() {
        return None;
    }
    let events = pmu
        .aliases
        .values()
        .map(|alias| {
            let name = format!("{pmu_name}/{}/", alias.name);
            match parse_in(&name, root) {
                Ok(e) => Listed::probed(name, e.scale.clone(), probe(&e)),
                Err(err) => Listed::probed(name, None, Err(err.reason)),
            }
        })
        .collect();
    Some(ListedGroup {
        kind: ListedKind::Pmu {
            name: pmu_name.to_string(),
            terms: pmu.formats.keys().cloned().collect(),
        },
        events,
    })
}
