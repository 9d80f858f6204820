//! Event specs in perf's spelling (`cycles`, `page-faults:u`, `r01c2`,
//! `msr/tsc/`, `cpu/event=0xc0,umask=0x01/k`, `cpu_core/cycles/`, …) and what
//! they mean to the kernel.
//!
//! Dynamic PMU specs are `pmu/terms/modifiers`: the terms are aliases from
//! the PMU's sysfs `events/` directory, `term=value` for its `format/` terms
//! (decimal or `0x` hex; a bare term name means `term=1`), or `config=`,
//! `config1=`, `config2=` for whole words, comma-separated and applied left to
//! right (so `cpu/instructions,cmask=1/` overrides the alias's terms). The
//! modifiers follow the closing slash, optionally after a colon (`msr/tsc/u`,
//! `msr/tsc/:u`); without modifiers, events of PMUs other than the CPU's
//! (`msr`, `power`, …) count at every privilege level, because such PMUs
//! mostly refuse exclude flags. On core PMUs (`cpu`, `cpu_core`, `cpu_atom`) a generalized
//! hardware or cache name that is not one of the PMU's aliases means that
//! generalized event; on the hybrid `cpu_core`/`cpu_atom` it is aimed at that
//! PMU with the extended type ([`with_extended_type`]).
//!
//! `allocs`, `alloc-bytes`, `deallocs` and `reallocs` are perfbench's own
//! counts of calls to the global allocator ([`Source::Allocator`]), which
//! count where the bench target installs the counting allocator.
//!
//! ```
//! let events = perfbench::counter::event::parse_list("task-clock,page-faults:u").unwrap();
//! assert_eq!(events[1].name, "page-faults:u");
//! ```

mod catalogue;
mod pmu_spec;

use std::fmt;
use std::path::Path;

use crate::kernel::alloc;
use crate::kernel::pmu::{self, is_core_pmu};
use crate::kernel::sys::{self, CounterAttr};

pub use catalogue::{catalogue, Listed, ListedGroup, ListedKind, Probed};
use pmu_spec::parse_pmu;

pub use crate::kernel::pmu::hybrid_type_for_cpu;

/// One event the user asked for, resolved to what the kernel counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The spec exactly as the user wrote it; results are keyed by it.
    pub name: String,
    /// What to open.
    pub attr: CounterAttr,
    /// The unit of one count.
    pub unit: Unit,
    /// Where the event comes from; decides how an open failure is explained.
    pub source: Source,
    /// For a PMU alias with `events/<alias>.scale` or `.unit` files (e.g.
    /// `power/energy-pkg/`: 2.3e-10 Joules per count), how to turn a count
    /// into that unit; `None` for every other event, whose counts are
    /// reported as they are.
    pub scale: Option<Scale>,
    /// The event counts the kernel by default rather than by a modifier (a
    /// software event without `:u`/`:k`): where privilege forbids that, it
    /// may be narrowed to user space ([`Event::user_only`]).
    pub kernel_by_default: bool,
}

impl Event {
    /// This event counting user space only, if it counts the kernel by
    /// default: what can still be counted where kernel counting is refused.
    ///
    /// It is named as perf names it, with `:u` (`page-faults:u`): it counts
    /// less than the event of the plain name, and results must not pass
    /// for that event's.
    pub fn user_only(&self) -> Option<Event> {
        self.kernel_by_default.then(|| {
            let mut narrowed = self.clone();
            // Other modifiers keep their place: `faults:D` becomes `faults:Du`.
            let modifier = if self.name.contains(':') { "u" } else { ":u" };
            narrowed.name.push_str(modifier);
            narrowed.attr.exclude_kernel = true;
            narrowed.attr.exclude_hv = true;
            narrowed.kernel_by_default = false;
            narrowed
        })
    }

    /// Whether the kernel raises this event only from its own context, so
    /// that counted in user space only it always reads 0: `context-switches`
    /// and `cpu-migrations` are counted by the scheduler with the kernel's
    /// registers.
    pub fn kernel_only(&self) -> bool {
        self.attr.kind == sys::TYPE_SOFTWARE
            && [SW_CONTEXT_SWITCHES, SW_CPU_MIGRATIONS].contains(&self.attr.config)
    }
}

/// `PERF_COUNT_SW_CONTEXT_SWITCHES`.
const SW_CONTEXT_SWITCHES: u64 = 3;
/// `PERF_COUNT_SW_CPU_MIGRATIONS`.
const SW_CPU_MIGRATIONS: u64 = 4;

/// The sysfs scale of an alias: a count times `factor` is an amount of
/// `unit`.
#[derive(Clone, Debug)]
pub struct Scale {
    /// `events/<alias>.scale`, 1 if the file is missing.
    pub factor: f64,
    /// `events/<alias>.unit`, empty if the file is missing.
    pub unit: String,
}

impl PartialEq for Scale {
    fn eq(&self, other: &Scale) -> bool {
        self.factor.to_bits() == other.factor.to_bits() && self.unit == other.unit
    }
}

impl Eq for Scale {}

/// The unit of an event's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// The count is a duration in nanoseconds (`task-clock`, `cpu-clock`).
    Nanoseconds,
    /// A plain count of occurrences.
    Count,
}

impl Unit {
    /// The unit as results and reports write it.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Nanoseconds => "ns",
            Unit::Count => "count",
        }
    }
}

/// The family an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Counted by the CPU's PMU (generalized, cache and raw events).
    Hardware,
    /// Counted by the kernel itself; available everywhere.
    Software,
    /// A dynamic PMU from sysfs other than the CPU's (`msr`, `power`, …).
    Pmu,
    /// perfbench's own count of calls to the global allocator, where the
    /// bench target installs [`CountingAllocator`](crate::kernel::alloc::CountingAllocator);
    /// its [`Event::attr`] has kind [`TYPE_ALLOCATOR`] and, as config, the
    /// index of the total it reads (`kernel::alloc::ALLOCS`, …).
    Allocator,
}

/// The [`CounterAttr::kind`] of allocation counts ([`Source::Allocator`]):
/// no type the kernel hands out (it numbers PMUs up from 0), so code that
/// looks for the kernel's types never takes one for an event of its own.
/// Such an event is never opened on the kernel.
pub const TYPE_ALLOCATOR: u32 = u32::MAX;

/// The allocation counts, by name, with the index of the total each reads.
const ALLOCATION: &[(&str, u64)] = &[
    ("allocs", alloc::ALLOCS as u64),
    ("alloc-bytes", alloc::ALLOC_BYTES as u64),
    ("deallocs", alloc::DEALLOCS as u64),
    ("reallocs", alloc::REALLOCS as u64),
];

/// A spec that does not name an event perfbench knows how to open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The offending part of the spec, as written.
    pub culprit: String,
    /// What is wrong with it, and what would be right.
    pub reason: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event `{}`: {}",
            one_line(&self.culprit),
            one_line(&self.reason)
        )
    }
}

/// `text` with control characters escaped, so that an error stays one line
/// whatever the user typed.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

impl std::error::Error for SpecError {}

/// The name of the `cycles` event, which a headline prefers.
pub const CYCLES: &str = "cycles";
/// The name of the `instructions` event, which a history prefers.
pub const INSTRUCTIONS: &str = "instructions";
/// The name of the `task-clock` event.
pub const TASK_CLOCK: &str = "task-clock";
/// The name of the `cpu-migrations` event, always 0 on a pinned thread.
pub const CPU_MIGRATIONS: &str = "cpu-migrations";

const GENERALIZED_HARDWARE: &[(&str, u64)] = &[
    (CYCLES, 0),
    ("cpu-cycles", 0),
    (INSTRUCTIONS, 1),
    ("cache-references", 2),
    ("cache-misses", 3),
    ("branches", 4),
    ("branch-instructions", 4),
    ("branch-misses", 5),
    ("bus-cycles", 6),
    ("stalled-cycles-frontend", 7),
    ("idle-cycles-frontend", 7),
    ("stalled-cycles-backend", 8),
    ("idle-cycles-backend", 8),
    ("ref-cycles", 9),
];

const SOFTWARE: &[(&str, u64)] = &[
    ("cpu-clock", 0),
    (TASK_CLOCK, 1),
    ("page-faults", 2),
    ("faults", 2),
    ("context-switches", SW_CONTEXT_SWITCHES),
    ("cs", SW_CONTEXT_SWITCHES),
    (CPU_MIGRATIONS, SW_CPU_MIGRATIONS),
    ("migrations", SW_CPU_MIGRATIONS),
    ("minor-faults", 5),
    ("major-faults", 6),
    ("alignment-faults", 7),
    ("emulation-faults", 8),
];

/// perf's hardware cache names: `<cache>-<op>[-misses]`, e.g.
/// `L1-dcache-load-misses`; the access count is the plural (`LLC-loads`).
const CACHES: &[(&str, u64)] = &[
    ("L1-dcache", 0),
    ("L1-icache", 1),
    ("LLC", 2),
    ("dTLB", 3),
    ("iTLB", 4),
    ("branch", 5),
    ("node", 6),
];
const CACHE_OPS: &[(&str, &str, u64)] = &[
    ("loads", "load-misses", 0),
    ("stores", "store-misses", 1),
    ("prefetches", "prefetch-misses", 2),
];

/// Every event name this module accepts, for `--list-events` and suggestions.
pub fn known_names() -> Vec<String> {
    let mut names: Vec<String> = GENERALIZED_HARDWARE
        .iter()
        .chain(SOFTWARE)
        .map(|(n, _)| n.to_string())
        .collect();
    for (cache, _) in CACHES {
        for (access, miss, _) in CACHE_OPS {
            names.push(format!("{cache}-{access}"));
            names.push(format!("{cache}-{miss}"));
        }
    }
    names.extend(ALLOCATION.iter().map(|(n, _)| n.to_string()));
    names
}

/// The allocation counts, in the order `--list-events` shows them: what
/// the default set gains where the bench target installs the counting
/// allocator.
pub fn allocation_list() -> Vec<Event> {
    ALLOCATION
        .iter()
        .map(|(name, _)| parse(name).expect("the allocation counts parse"))
        .collect()
}

/// The default set: the generalized hardware events where `hardware` is true,
/// else the software events that work everywhere.
pub fn default_list(hardware: bool) -> Vec<Event> {
    let spec = if hardware {
        "cycles,instructions,branches,branch-misses,cache-references,cache-misses"
    } else {
        "task-clock,page-faults,context-switches,cpu-migrations"
    };
    parse_list(spec).expect("the default event lists parse")
}

/// Whether this machine exposes a CPU PMU to the kernel's perf subsystem.
pub fn has_cpu_pmu() -> bool {
    !pmu::core_pmu_names(pmu::live_root()).is_empty()
}

/// Parses a comma-separated list of specs (`--events`), keeping the order,
/// against the live sysfs PMUs.
pub fn parse_list(list: &str) -> Result<Vec<Event>, SpecError> {
    parse_list_in(list, pmu::live_root())
}

/// Splits a list at the commas that are not between a PMU spec's slashes.
fn split_list(list: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut slashes) = (0, 0usize);
    for (i, c) in list.char_indices() {
        match c {
            '/' => slashes += 1,
            ',' if slashes % 2 == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
                slashes = 0;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts
}

/// [`parse_list`] with the PMUs under `root` instead of the live ones.
pub fn parse_list_in(list: &str, root: &Path) -> Result<Vec<Event>, SpecError> {
    let mut events: Vec<Event> = Vec::new();
    for spec in split_list(list).into_iter().map(str::trim) {
        if spec.is_empty() {
            return Err(SpecError {
                culprit: list.to_string(),
                reason: "empty name in the list (a stray comma?)".into(),
            });
        }
        let event = parse_in(spec, root)?;
        if events.iter().any(|e| e.name == event.name) {
            return Err(SpecError {
                culprit: spec.to_string(),
                reason: "listed twice".into(),
            });
        }
        events.push(event);
    }
    Ok(events)
}

/// Parses one spec against the live sysfs PMUs: a name, optionally followed
/// by `:` and modifiers, or a PMU spec `pmu/terms/modifiers`.
pub fn parse(spec: &str) -> Result<Event, SpecError> {
    parse_in(spec, pmu::live_root())
}

/// [`parse`] with the PMUs under `root` (a directory laid out like
/// `/sys/bus/event_source/devices`) instead of the live ones.
pub fn parse_in(spec: &str, root: &Path) -> Result<Event, SpecError> {
    if let Some((pmu_name, rest)) = spec.split_once('/') {
        return parse_pmu(spec, pmu_name, rest, root);
    }
    let (base, modifiers) = match spec.split_once(':') {
        Some((base, modifiers)) => (base, Some(modifiers)),
        None => (spec, None),
    };
    let (kind, config, source) = resolve(base, spec)?;
    if source == Source::Allocator && modifiers.is_some() {
        return Err(spec_error(
            spec,
            "allocation counts take no modifier: they count calls to the allocator, in user space",
        ));
    }
    // Context switches, migrations and faults taken on the user's behalf
    // happen in kernel context: software events count what the kernel
    // counts unless a modifier says otherwise. The clocks are left
    // user-only: the kernel ignores the filter for them, and an
    // unprivileged user may open them that way.
    let clock = kind == sys::TYPE_SOFTWARE && config <= 1;
    let kernel_by_default = source == Source::Software && !clock && modifiers.is_none();
    let (exclude_user, exclude_kernel, exclude_hv) = if kernel_by_default {
        (false, false, false)
    } else {
        privilege_levels(modifiers, spec)?
    };
    let unit = if clock {
        Unit::Nanoseconds
    } else {
        Unit::Count
    };
    Ok(Event {
        name: spec.to_string(),
        attr: CounterAttr {
            kind,
            config,
            exclude_user,
            exclude_kernel,
            exclude_hv,
            config1: 0,
            config2: 0,
            inherit: false,
        },
        unit,
        source,
        scale: None,
        kernel_by_default,
    })
}

fn spec_error(spec: &str, reason: impl Into<String>) -> SpecError {
    SpecError {
        culprit: spec.to_string(),
        reason: reason.into(),
    }
}

/// A generalized hardware or cache event by name: `(type, config)`.
fn generalized(name: &str) -> Option<(u32, u64)> {
    GENERALIZED_HARDWARE
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, c)| (sys::TYPE_HARDWARE, c))
        .or_else(|| cache_config(name).map(|c| (sys::TYPE_HW_CACHE, c)))
}

/// `event` aimed at the PMU of type `pmu_type` (a hybrid `cpu_core` or
/// `cpu_atom`): for generalized hardware and cache events the type goes into
/// the upper 32 bits of `config`, perf_event_open(2)'s "extended type";
/// other events are returned unchanged.
pub fn with_extended_type(event: &Event, pmu_type: u32) -> Event {
    let mut event = event.clone();
    if matches!(event.attr.kind, sys::TYPE_HARDWARE | sys::TYPE_HW_CACHE) {
        event.attr.config = (event.attr.config & 0xffff_ffff) | (u64::from(pmu_type) << 32);
    }
    event
}

fn resolve(base: &str, spec: &str) -> Result<(u32, u64, Source), SpecError> {
    let lookup = |table: &[(&str, u64)]| table.iter().find(|(n, _)| *n == base).map(|p| p.1);
    if let Some(config) = lookup(GENERALIZED_HARDWARE) {
        return Ok((sys::TYPE_HARDWARE, config, Source::Hardware));
    }
    if let Some(config) = lookup(SOFTWARE) {
        return Ok((sys::TYPE_SOFTWARE, config, Source::Software));
    }
    if let Some(config) = lookup(ALLOCATION) {
        return Ok((TYPE_ALLOCATOR, config, Source::Allocator));
    }
    if let Some(config) = cache_config(base) {
        return Ok((sys::TYPE_HW_CACHE, config, Source::Hardware));
    }
    if let Some(hex) = base.strip_prefix('r') {
        if !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return match u64::from_str_radix(hex, 16) {
                Ok(config) => Ok((sys::TYPE_RAW, config, Source::Hardware)),
                Err(_) => Err(SpecError {
                    culprit: spec.to_string(),
                    reason: "raw event code wider than 64 bits".into(),
                }),
            };
        }
    }
    Err(SpecError {
        culprit: spec.to_string(),
        reason: unknown_name_reason(base),
    })
}

fn cache_config(name: &str) -> Option<u64> {
    CACHES.iter().find_map(|(cache, id)| {
        let rest = name.strip_prefix(cache)?.strip_prefix('-')?;
        CACHE_OPS.iter().find_map(|(access, miss, op)| {
            let result = if rest == *access {
                0
            } else if rest == *miss {
                1
            } else {
                return None;
            };
            Some(id | (op << 8) | (result << 16))
        })
    })
}

/// The names of `names` a typo away from `word`, closest first (at most
/// three): within an edit distance of a third of the name's length (one
/// for names under six characters), ignoring case, a swap of neighbours
/// counting as one edit. The one rule behind every "did you mean" (events and options).
pub fn close_names<'a, S: AsRef<str>>(word: &str, names: &'a [S]) -> Vec<&'a str> {
    let word = word.to_lowercase();
    let mut close: Vec<(usize, &str)> = names
        .iter()
        .map(|n| n.as_ref())
        .map(|n| (strsim::osa_distance(&word, &n.to_lowercase()), n))
        .filter(|&(d, n)| d <= (n.chars().count() / 3).max(1))
        .collect();
    close.sort();
    close.into_iter().take(3).map(|(_, n)| n).collect()
}

fn unknown_name_reason(base: &str) -> String {
    let known = known_names();
    let close = close_names(base, &known);
    let mut reason = "unknown event name".to_string();
    if !close.is_empty() {
        let names: Vec<String> = close.iter().map(|n| format!("`{n}`")).collect();
        reason.push_str(&format!("; did you mean {}?", names.join(" or ")));
    }
    reason.push_str(" (`--list-events` shows every name)");
    reason
}

/// perf's `:u`, `:k`, `:h` modifiers: naming any level counts only the levels
/// named. Without modifiers perfbench counts user space only, so that a
/// benchmark's counts are its own code's.
fn privilege_levels(modifiers: Option<&str>, spec: &str) -> Result<(bool, bool, bool), SpecError> {
    let Some(modifiers) = modifiers else {
        return Ok((false, true, true));
    };
    if modifiers.is_empty() {
        return Err(SpecError {
            culprit: spec.to_string(),
            reason: "no modifier after `:` (use u, k or h)".into(),
        });
    }
    let (mut user, mut kernel, mut hv) = (false, false, false);
    for m in modifiers.chars() {
        match m {
            'u' => user = true,
            'k' => kernel = true,
            'h' => hv = true,
            other => {
                return Err(SpecError {
                    culprit: spec.to_string(),
                    reason: format!("unsupported modifier `{other}` (supported: u, k, h)"),
                })
            }
        }
    }
    Ok((!user, !kernel, !hv))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_spellings_resolve_to_the_uapi_numbers() {
        let cases: &[(&str, u32, u64)] = &[
            ("cycles", 0, 0),
            ("instructions", 0, 1),
            ("branch-misses", 0, 5),
            ("ref-cycles", 0, 9),
            ("task-clock", 1, 1),
            ("faults", 1, 2),
            ("cs", 1, 3),
            ("major-faults", 1, 6),
            // cache | op << 8 | result << 16, as perf_event_open(2) documents
            ("L1-dcache-load-misses", 3, 0x10000),
            ("LLC-loads", 3, 2),
            ("dTLB-store-misses", 3, 0x10103),
            ("branch-loads", 3, 5),
            ("iTLB-prefetches", 3, 0x204),
            ("r01c2", 4, 0x1c2),
        ];
        for &(spec, kind, config) in cases {
            let e = parse(spec).unwrap();
            assert_eq!((e.attr.kind, e.attr.config), (kind, config), "{spec}");
        }
    }

    #[test]
    fn cpu_events_count_user_space_and_software_events_the_kernel_by_default() {
        let levels = |s: &str| {
            let a = parse(s).unwrap().attr;
            (a.exclude_user, a.exclude_kernel, a.exclude_hv)
        };
        assert_eq!(levels("cycles"), (false, true, true));
        assert_eq!(levels("cycles:u"), (false, true, true));
        assert_eq!(levels("cycles:k"), (true, false, true));
        assert_eq!(levels("cycles:uk"), (false, false, true));
        assert_eq!(levels("cycles:ukh"), (false, false, false));
        // Software events count what the kernel counts, unless told.
        assert_eq!(levels("page-faults"), (false, false, false));
        assert_eq!(levels("context-switches:u"), (false, true, true));
        assert!(parse("page-faults").unwrap().kernel_by_default);
        assert!(!parse("page-faults:u").unwrap().kernel_by_default);
        assert!(!parse("cycles").unwrap().kernel_by_default);
        assert!(
            !parse("task-clock").unwrap().kernel_by_default,
            "ignores the filter"
        );
        let narrowed = parse("page-faults").unwrap().user_only().unwrap();
        let a = narrowed.attr;
        assert_eq!(
            (a.exclude_user, a.exclude_kernel, a.exclude_hv),
            (false, true, true)
        );
        assert_eq!(narrowed.name, "page-faults:u", "named as perf names it");
        assert!(!narrowed.kernel_only());
        for spec in ["context-switches", "cs", "cpu-migrations:u", "migrations"] {
            assert!(parse(spec).unwrap().kernel_only(), "{spec}");
        }
        assert!(!parse("task-clock").unwrap().kernel_only());
        assert!(parse("page-faults:uk").unwrap().user_only().is_none());
    }

    #[test]
    fn clocks_are_nanoseconds_and_the_rest_counts() {
        assert_eq!(parse("task-clock").unwrap().unit, Unit::Nanoseconds);
        assert_eq!(parse("cpu-clock").unwrap().unit, Unit::Nanoseconds);
        assert_eq!(parse("page-faults").unwrap().unit, Unit::Count);
    }

    #[test]
    fn unknown_names_get_close_suggestions() {
        let e = parse("cyclez").unwrap_err();
        assert_eq!(e.culprit, "cyclez");
        assert!(e.reason.contains("did you mean `cycles`"), "{e}");
        let e = parse("page-fault").unwrap_err();
        assert!(e.reason.contains("`page-faults`"), "{e}");
        let e = parse("zzzzzzzzzzzz").unwrap_err();
        assert!(!e.reason.contains("did you mean"), "{e}");
        // A swap of neighbours is one edit; a short name takes one edit only.
        let e = parse("sc").unwrap_err();
        assert!(e.reason.contains("did you mean `cs`?"), "{e}");
        let e = parse("xy").unwrap_err();
        assert!(!e.reason.contains("did you mean"), "{e}");
    }

    #[test]
    fn malformed_specs_name_the_culprit() {
        for (spec, needle) in [
            ("cycles:z", "modifier `z`"),
            ("cycles:", "no modifier"),
            ("r", "unknown event"),
            ("rXYZ", "unknown event"),
            ("r1ffffffffffffffff", "wider than 64 bits"),
            ("L1-dcache-bogus", "unknown event"),
        ] {
            let e = parse(spec).unwrap_err();
            assert_eq!(e.culprit, spec);
            assert!(e.to_string().contains(needle), "{spec}: {e}");
        }
    }

    #[test]
    fn allocation_counts_are_perfbench_s_own_and_take_no_modifier() {
        let names = ["allocs", "alloc-bytes", "deallocs", "reallocs"];
        for (index, name) in names.into_iter().enumerate() {
            let e = parse(name).unwrap();
            let a = e.attr;
            assert_eq!(
                (e.source, a.kind, a.config, e.unit),
                (Source::Allocator, TYPE_ALLOCATOR, index as u64, Unit::Count),
                "{name}"
            );
            assert!(a.exclude_kernel && !a.exclude_user && !e.kernel_by_default);
            assert!(known_names().contains(&name.to_string()));
        }
        let listed: Vec<String> = allocation_list().into_iter().map(|e| e.name).collect();
        assert_eq!(listed, names);
        let e = parse("allocs:u").unwrap_err();
        assert_eq!(e.culprit, "allocs:u");
        assert!(e.reason.contains("take no modifier"), "{e}");
        let e = parse("alocs").unwrap_err();
        assert!(e.reason.contains("did you mean `allocs`"), "{e}");
    }

    #[test]
    fn lists_keep_order_and_reject_duplicates_and_gaps() {
        let names: Vec<_> = parse_list("page-faults, task-clock")
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["page-faults", "task-clock"]);
        assert!(parse_list("cycles,,instructions")
            .unwrap_err()
            .reason
            .contains("empty"));
        assert_eq!(parse_list("cs,cs").unwrap_err().reason, "listed twice");
    }
}
