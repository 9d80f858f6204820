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
//! ```
//! let events = perfbench::event::parse_list("task-clock,page-faults:u").unwrap();
//! assert_eq!(events[1].name, "page-faults:u");
//! ```

use std::fmt;
use std::path::Path;

use crate::kernel::pmu::{self, Pmu, PmuError, TermValue};
use crate::kernel::sys::{self, CounterAttr};

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
}

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
}

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

const GENERALIZED_HARDWARE: &[(&str, u64)] = &[
    ("cycles", 0),
    ("cpu-cycles", 0),
    ("instructions", 1),
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
    ("task-clock", 1),
    ("page-faults", 2),
    ("faults", 2),
    ("context-switches", 3),
    ("cs", 3),
    ("cpu-migrations", 4),
    ("migrations", 4),
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
    names
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
    let root = crate::kernel::pmu::live_root();
    crate::kernel::pmu::CPU_PMUS
        .iter()
        .any(|pmu| root.join(pmu).exists())
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
    let (exclude_user, exclude_kernel, exclude_hv) = privilege_levels(modifiers, spec)?;
    let unit = if kind == sys::TYPE_SOFTWARE && config <= 1 {
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
        },
        unit,
        source,
        scale: None,
    })
}

fn spec_error(spec: &str, reason: impl Into<String>) -> SpecError {
    SpecError {
        culprit: spec.to_string(),
        reason: reason.into(),
    }
}

/// Whether generalized event names may be aimed at the PMU `name`.
fn is_core_pmu(name: &str) -> bool {
    name == "cpu" || pmu::HYBRID_PMUS.contains(&name) || name.starts_with("armv8_")
}

/// A generalized hardware or cache event by name: `(type, config)`.
fn generalized(name: &str) -> Option<(u32, u64)> {
    GENERALIZED_HARDWARE
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, c)| (sys::TYPE_HARDWARE, c))
        .or_else(|| cache_config(name).map(|c| (sys::TYPE_HW_CACHE, c)))
}

/// `pmu/terms/modifiers`; `rest` is what follows the first slash.
fn parse_pmu(spec: &str, pmu_name: &str, rest: &str, root: &Path) -> Result<Event, SpecError> {
    if pmu_name.is_empty() {
        return Err(spec_error(
            spec,
            "no PMU name before `/` (write `pmu/terms/`)",
        ));
    }
    let Some((body, after)) = rest.split_once('/') else {
        return Err(spec_error(
            spec,
            format!("unterminated PMU spec: no closing `/` after `{pmu_name}/{rest}`"),
        ));
    };
    if after.contains('/') {
        return Err(spec_error(
            spec,
            format!("unexpected `/` in the modifiers `{after}` after the closing slash"),
        ));
    }
    let modifiers = match after.strip_prefix(':') {
        Some(m) => Some(m),
        None if after.is_empty() => None,
        None => Some(after),
    };
    // Uncore-like PMUs (`msr`, `power`, …) count things that belong to no
    // privilege level, and most reject any exclude flag (the kernel's
    // PERF_PMU_CAP_NO_EXCLUDE: EINVAL), so without modifiers they count
    // everything; core PMUs keep the user-space-only default.
    let (exclude_user, exclude_kernel, exclude_hv) =
        if modifiers.is_none() && !is_core_pmu(pmu_name) {
            (false, false, false)
        } else {
            privilege_levels(modifiers, spec)?
        };
    let pmu = match Pmu::load(root, pmu_name) {
        Ok(pmu) => pmu,
        Err(PmuError::Missing) => {
            let names = pmu::pmu_names(root);
            return Err(spec_error(
                spec,
                format!(
                    "unknown PMU `{pmu_name}` (PMUs here: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
        Err(PmuError::Malformed(why)) => {
            return Err(spec_error(spec, format!("PMU `{pmu_name}`: {why}")))
        }
    };
    let terms = pmu::parse_terms(body).map_err(|why| spec_error(spec, why))?;
    let attr = |kind, [config, config1, config2]: pmu::ConfigWords| CounterAttr {
        kind,
        config,
        config1,
        config2,
        exclude_user,
        exclude_kernel,
        exclude_hv,
    };
    let event = |attr, source, scale| Event {
        name: spec.to_string(),
        attr,
        unit: Unit::Count,
        source,
        scale,
    };

    // `cpu_core/cycles/`: a generalized event on that core PMU.
    if let [only] = terms.as_slice() {
        if only.value == TermValue::Bare
            && !pmu.aliases.contains_key(&only.name)
            && !pmu.formats.contains_key(&only.name)
            && is_core_pmu(pmu_name)
        {
            if let Some((kind, config)) = generalized(&only.name) {
                let plain = event(attr(kind, [config, 0, 0]), Source::Hardware, None);
                return Ok(if pmu::HYBRID_PMUS.contains(&pmu_name) {
                    with_extended_type(&plain, pmu.kind)
                } else {
                    plain
                });
            }
        }
    }

    let mut words: pmu::ConfigWords = [0; 3];
    let mut scale = None;
    for (i, term) in terms.iter().enumerate() {
        match term.value {
            TermValue::Bare => {
                if let Some(alias) = pmu.aliases.get(&term.name) {
                    for at in &alias.terms {
                        let value = match at.value {
                            TermValue::Number(v) => v,
                            TermValue::Bare => 1,
                            TermValue::Required => {
                                let given = terms[i + 1..].iter().any(|t| {
                                    t.name == at.name && matches!(t.value, TermValue::Number(_))
                                });
                                if !given {
                                    return Err(spec_error(
                                        spec,
                                        format!(
                                            "alias `{}` needs a value for `{}`                                              (`{pmu_name}/{},{}=N/`)",
                                            term.name, at.name, term.name, at.name
                                        ),
                                    ));
                                }
                                continue;
                            }
                        };
                        pmu.encode_term(&at.name, value, &mut words)
                            .map_err(|why| {
                                spec_error(spec, format!("alias `{}`: {why}", term.name))
                            })?;
                    }
                    if alias.scale.is_some() || alias.unit.is_some() {
                        scale = Some(Scale {
                            factor: alias.scale.unwrap_or(1.0),
                            unit: alias.unit.clone().unwrap_or_default(),
                        });
                    }
                } else if pmu.formats.contains_key(&term.name) {
                    pmu.encode_term(&term.name, 1, &mut words)
                        .map_err(|why| spec_error(spec, why))?;
                } else if generalized(&term.name).is_some() && is_core_pmu(pmu_name) {
                    return Err(spec_error(
                        spec,
                        format!(
                            "generalized event `{}` cannot be combined with other terms                              (write `{pmu_name}/{}/` alone)",
                            term.name, term.name
                        ),
                    ));
                } else {
                    return Err(spec_error(spec, unknown_pmu_term(&pmu, &term.name)));
                }
            }
            TermValue::Number(value) => {
                if !pmu.formats.contains_key(&term.name)
                    && pmu::ConfigWord::from_name(&term.name).is_none()
                {
                    return Err(spec_error(spec, unknown_pmu_term(&pmu, &term.name)));
                }
                pmu.encode_term(&term.name, value, &mut words)
                    .map_err(|why| spec_error(spec, why))?;
            }
            TermValue::Required => {
                return Err(spec_error(
                    spec,
                    format!("`{}=?`: give the term a number", term.name),
                ));
            }
        }
    }
    let source = if is_core_pmu(pmu_name) {
        Source::Hardware
    } else {
        Source::Pmu
    };
    Ok(event(attr(pmu.kind, words), source, scale))
}

fn unknown_pmu_term(pmu: &Pmu, name: &str) -> String {
    let mut known: Vec<&str> = pmu
        .aliases
        .keys()
        .chain(pmu.formats.keys())
        .map(String::as_str)
        .collect();
    known.sort_by_key(|k| (strsim::levenshtein(k, name), *k));
    known.truncate(5);
    format!(
        "PMU `{}` has no event or term `{name}`{}",
        pmu.name,
        if known.is_empty() {
            String::new()
        } else {
            format!(" (closest: {})", known.join(", "))
        }
    )
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

/// The text of `--list-events`, grouped like `perf list`: hardware, hardware
/// cache and software events, then each sysfs PMU under `root` with its
/// aliases as `pmu/alias/`. `probe` says whether an event opens here (`Err`
/// with the reason if not); an event that does not is marked with the reason,
/// or, when every event of a group fails for the same reason, the reason is
/// given once in the group's heading.
pub fn list_events(root: &Path, probe: impl Fn(&Event) -> Result<(), String>) -> String {
    /// An event name, a note, and if it does not open here, why.
    type Status = (String, String, Option<String>);
    let mut groups: Vec<(String, Vec<Status>)> = vec![
        ("hardware events".into(), Vec::new()),
        ("hardware cache events".into(), Vec::new()),
        ("software events".into(), Vec::new()),
    ];
    for name in known_names() {
        let Ok(e) = parse_in(&name, root) else {
            continue;
        };
        let slot = match e.attr.kind {
            sys::TYPE_HARDWARE => 0,
            sys::TYPE_HW_CACHE => 1,
            _ => 2,
        };
        let status = probe(&e).err();
        groups[slot].1.push((name, String::new(), status));
    }
    for pmu_name in pmu::pmu_names(root) {
        let Ok(pmu) = Pmu::load(root, &pmu_name) else {
            continue;
        };
        if pmu.aliases.is_empty() {
            continue;
        }
        let mut events = Vec::new();
        for alias in pmu.aliases.values() {
            let spec = format!("{pmu_name}/{}/", alias.name);
            let (note, status) = match parse_in(&spec, root) {
                Ok(e) => {
                    let note = e
                        .scale
                        .as_ref()
                        .map(|s| format!(" (× {:e} {})", s.factor, s.unit).replace("  ", " "))
                        .unwrap_or_default();
                    (note, probe(&e).err())
                }
                Err(err) => (String::new(), Some(err.reason)),
            };
            events.push((spec, note, status));
        }
        let terms: Vec<&str> = pmu.formats.keys().map(String::as_str).collect();
        let title = if terms.is_empty() {
            format!("{pmu_name} PMU events")
        } else {
            format!("{pmu_name} PMU events (terms: {})", terms.join(", "))
        };
        groups.push((title, events));
    }
    let mut out = String::new();
    for (title, events) in groups {
        if events.is_empty() {
            continue;
        }
        let shared = events[0]
            .2
            .clone()
            .filter(|first| events.iter().all(|(_, _, s)| s.as_ref() == Some(first)));
        match &shared {
            Some(why) => out.push_str(&format!("{title} (none countable here: {why}):\n")),
            None => out.push_str(&format!("{title}:\n")),
        }
        for (name, note, status) in &events {
            let shown = format!("{name}{note}");
            match status {
                Some(why) if shared.is_none() => {
                    out.push_str(&format!("  {shown:<28} not countable here: {why}\n"))
                }
                _ => out.push_str(&format!("  {shown}\n")),
            }
        }
    }
    out.push_str(
        "\nModifiers: :u user, :k kernel, :h hypervisor (default: user space only); on PMU \
         events after the closing slash (msr/tsc/u). Raw: rNNNN (hex). PMU terms: \
         pmu/term=value,…/ (decimal or 0x hex).\n",
    );
    out
}

fn resolve(base: &str, spec: &str) -> Result<(u32, u64, Source), SpecError> {
    let lookup = |table: &[(&str, u64)]| table.iter().find(|(n, _)| *n == base).map(|p| p.1);
    if let Some(config) = lookup(GENERALIZED_HARDWARE) {
        return Ok((sys::TYPE_HARDWARE, config, Source::Hardware));
    }
    if let Some(config) = lookup(SOFTWARE) {
        return Ok((sys::TYPE_SOFTWARE, config, Source::Software));
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

fn unknown_name_reason(base: &str) -> String {
    let mut close: Vec<(usize, String)> = known_names()
        .into_iter()
        .map(|n| {
            (
                strsim::levenshtein(&base.to_lowercase(), &n.to_lowercase()),
                n,
            )
        })
        .filter(|(d, n)| *d <= (n.len() / 3).max(2))
        .collect();
    close.sort();
    close.truncate(3);
    let mut reason = "unknown event name".to_string();
    if !close.is_empty() {
        let names: Vec<String> = close.into_iter().map(|(_, n)| format!("`{n}`")).collect();
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
    fn default_counts_user_space_only_and_modifiers_select_levels() {
        let levels = |s: &str| {
            let a = parse(s).unwrap().attr;
            (a.exclude_user, a.exclude_kernel, a.exclude_hv)
        };
        assert_eq!(levels("cycles"), (false, true, true));
        assert_eq!(levels("cycles:u"), (false, true, true));
        assert_eq!(levels("cycles:k"), (true, false, true));
        assert_eq!(levels("cycles:uk"), (false, false, true));
        assert_eq!(levels("cycles:ukh"), (false, false, false));
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

#[cfg(test)]
mod pmu_spec_tests {
    use super::*;
    use crate::kernel::pmu::tests::{amd, intel_hybrid, FakeTree};

    /// (spec, type, config, config1): values worked out by hand from the
    /// fake trees' format files (event=config:0-7, umask=config:8-15,
    /// edge=config:18, cmask=config:24-31, ldlat=config1:0-15; AMD
    /// event=config:0-7,32-35).
    type Case = (&'static str, u32, u64, u64);

    fn check(root: &Path, cases: &[Case]) {
        for &(spec, kind, config, config1) in cases {
            let e = parse_in(spec, root).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(
                (e.attr.kind, e.attr.config, e.attr.config1, e.attr.config2),
                (kind, config, config1, 0),
                "{spec}"
            );
            assert_eq!(e.name, spec);
        }
    }

    #[test]
    fn intel_hybrid_spellings() {
        let t = intel_hybrid();
        check(
            t.root(),
            &[
                ("cpu_core/event=0xc0,umask=0x01/", 4, 0x1c0, 0),
                ("cpu_core/event=192,umask=1/", 4, 0x1c0, 0),
                ("cpu_core/config=0x1234/", 4, 0x1234, 0),
                ("cpu_core/config1=7/", 4, 0, 7),
                // 0x3c | 1 << 18 | 2 << 24
                ("cpu_core/event=0x3c,edge,cmask=2/", 4, 0x0204_003c, 0),
                ("cpu_core/event=0x3c,edge=0/", 4, 0x3c, 0),
                // alias event=0xcd,umask=0x1,ldlat=3
                ("cpu_core/mem-loads/", 4, 0x01cd, 3),
                ("cpu_core/mem-loads,ldlat=0x80/", 4, 0x01cd, 0x80),
                ("cpu_core/mem-stores,ldlat=50/", 4, 0x02cd, 50),
                ("cpu_core/ldlat=0xffff/", 4, 0, 0xffff),
                // alias event=0xc0 plus cmask=1 << 24
                ("cpu_core/instructions,cmask=1/", 4, 0x0100_00c0, 0),
                // a later term replaces the alias's field
                ("cpu_core/instructions,event=0x3c/", 4, 0x3c, 0),
                ("cpu_atom/instructions/", 10, 0xc0, 0),
                ("cpu_core/topdown-retiring/", 4, 0x8200, 0),
                // generalized events with the PMU type in config's upper half
                ("cpu_core/cycles/", 0, 4 << 32, 0),
                ("cpu_atom/cycles/", 0, 10 << 32, 0),
                ("cpu_core/branch-misses/", 0, (4 << 32) | 5, 0),
                ("cpu_atom/LLC-load-misses/", 3, (10 << 32) | 0x1_0002, 0),
                ("msr/tsc/", 9, 0, 0),
                ("msr/event=0x00/u", 9, 0, 0),
                ("msr/aperf/", 9, 1, 0),
                ("msr/event=0xffffffffffffffff/", 9, u64::MAX, 0),
                ("msr//", 9, 0, 0),
                ("power/energy-pkg/", 23, 2, 0),
            ],
        );
    }

    #[test]
    fn amd_spellings() {
        let t = amd();
        check(
            t.root(),
            &[
                ("cpu/event=0xc0,umask=0x01/", 4, 0x1c0, 0),
                // bits 0-7 of 0x1d6 (0xd6) to config:0-7, bit 8 to config:32
                ("cpu/event=0x1d6/", 4, 0x1_0000_00d6, 0),
                ("cpu/event=0xfff/", 4, 0xf_0000_00ff, 0),
                ("cpu/config=0x1234/", 4, 0x1234, 0),
                ("cpu/cpu-cycles/", 4, 0x76, 0),
                ("cpu/instructions,umask=2/", 4, 0x2c0, 0),
                // not an alias here: the generalized event, no extended type
                // on a non-hybrid PMU
                ("cpu/cycles/", 0, 0, 0),
                ("cpu/L1-dcache-load-misses/", 3, 0x1_0000, 0),
            ],
        );
    }

    #[test]
    fn pmu_modifiers_follow_the_closing_slash() {
        let t = intel_hybrid();
        let levels = |s: &str| {
            let a = parse_in(s, t.root()).unwrap().attr;
            (a.exclude_user, a.exclude_kernel, a.exclude_hv)
        };
        assert_eq!(levels("msr/tsc/"), (false, false, false));
        assert_eq!(levels("cpu_core/event=0xc0/"), (false, true, true));
        assert_eq!(levels("msr/tsc/u"), (false, true, true));
        assert_eq!(levels("cpu_core/event=0xc0/k"), (true, false, true));
        assert_eq!(levels("msr/tsc/:uk"), (false, false, true));
        assert_eq!(levels("cpu_core/cycles/ukh"), (false, false, false));
    }

    #[test]
    fn sources_and_scales() {
        let t = intel_hybrid();
        let e = parse_in("power/energy-pkg/", t.root()).unwrap();
        assert_eq!(e.source, Source::Pmu);
        assert_eq!(
            e.scale,
            Some(Scale {
                factor: 2.328_306_436_538_696_3e-10,
                unit: "Joules".into()
            })
        );
        assert_eq!(e.unit, Unit::Count);
        let e = parse_in("msr/tsc/", t.root()).unwrap();
        assert_eq!((e.source, e.scale), (Source::Pmu, None));
        let e = parse_in("cpu_core/event=0xc0/", t.root()).unwrap();
        assert_eq!(e.source, Source::Hardware);
        assert_eq!(parse_in("cycles", t.root()).unwrap().scale, None);
    }

    #[test]
    fn lists_do_not_split_inside_slashes() {
        let t = intel_hybrid();
        let events = parse_list_in(
            "msr/tsc/u, cpu_core/event=0xc0,umask=0x01/k,task-clock,cpu_atom/mem-loads,ldlat=4/",
            t.root(),
        )
        .unwrap();
        let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "msr/tsc/u",
                "cpu_core/event=0xc0,umask=0x01/k",
                "task-clock",
                "cpu_atom/mem-loads,ldlat=4/"
            ]
        );
        assert_eq!(events[1].attr.config, 0x1c0);
        assert_eq!(events[3].attr.config1, 4);
        let e = parse_list_in("msr/tsc,cycles", t.root()).unwrap_err();
        assert!(e.reason.contains("unterminated"), "{e}");
    }

    #[test]
    fn malformed_pmu_specs_are_one_line_errors_naming_the_part() {
        let t = intel_hybrid();
        let garbage = FakeTree::new("garbage-event");
        garbage
            .file("bad/type", "12\n")
            .file("bad/format/event", "config:0-7-9\n");
        for (spec, needle) in [
            ("cpu_core/event=/", "`event=`"),
            ("cpu_core/event=0xzz/", "`0xzz` is not a number"),
            ("cpu_core/event=0xc0,,umask=1/", "empty term"),
            ("nosuchpmu/x/", "unknown PMU `nosuchpmu`"),
            ("msr/nosuchterm=1/", "no event or term `nosuchterm`"),
            ("msr/nosuchalias/", "no event or term `nosuchalias`"),
            (
                "cpu_core/umask=0x100/",
                "`umask` is wider than its 8-bit field",
            ),
            (
                "cpu_core/ldlat=0x10000/",
                "`ldlat` is wider than its 16-bit field",
            ),
            ("msr/event=0x1ffffffffffffffff/", "wider than 64 bits"),
            ("msr/tsc", "unterminated"),
            ("msr/", "unterminated"),
            ("//", "no PMU name"),
            ("/tsc/", "no PMU name"),
            ("msr/tsc/z", "modifier `z`"),
            ("msr/tsc/:", "no modifier"),
            ("msr/tsc//", "unexpected `/`"),
            ("cpu_core/mem-stores/", "needs a value for `ldlat`"),
            ("cpu_core/ldlat=?/", "give the term a number"),
            ("cpu_core/cycles,event=1/", "cannot be combined"),
            ("cpu_core/a b/", "is not a term"),
        ] {
            let e = parse_in(spec, t.root()).unwrap_err();
            assert_eq!(e.culprit, spec);
            assert!(e.to_string().contains(needle), "{spec}: {e}");
            assert!(!e.to_string().contains('\n'), "{spec}: {e}");
        }
        let e = parse_in("bad/event=1/", garbage.root()).unwrap_err();
        assert!(e.reason.contains("format/event"), "{e}");
        assert!(!e.to_string().contains('\n'), "{e}");
        for spec in ["cycles:z", "r", "rXYZ", "L1-dcache-bogus"] {
            assert!(parse_in(spec, t.root()).is_err(), "{spec}");
        }
    }

    #[test]
    fn extended_type_goes_to_the_upper_half() {
        let t = intel_hybrid();
        let cycles = parse_in("cycles", t.root()).unwrap();
        let on_atom = with_extended_type(&cycles, 10);
        assert_eq!((on_atom.attr.kind, on_atom.attr.config), (0, 0xa_0000_0000));
        let l1 = parse_in("L1-dcache-load-misses", t.root()).unwrap();
        assert_eq!(with_extended_type(&l1, 4).attr.config, 0x4_0001_0000);
        // replacing, not or-ing, an earlier extended type
        assert_eq!(with_extended_type(&on_atom, 4).attr.config, 0x4_0000_0000);
        let sw = parse_in("task-clock", t.root()).unwrap();
        assert_eq!(with_extended_type(&sw, 4), sw);
        let cpu = hybrid_type_for_cpu(t.root(), 9).unwrap();
        assert_eq!(with_extended_type(&cycles, cpu).attr.config, 10 << 32);
    }

    #[test]
    fn listing_groups_like_perf_list_and_shares_common_reasons() {
        let t = intel_hybrid();
        let text = list_events(t.root(), |e| match e.source {
            Source::Hardware => Err("no hardware PMU".into()),
            Source::Software => Ok(()),
            Source::Pmu if e.name.starts_with("power/") => Err("CPU-wide only".into()),
            Source::Pmu if e.name == "msr/aperf/" => Err("not here".into()),
            Source::Pmu => Ok(()),
        });
        let lines: Vec<&str> = text.lines().collect();
        let at = |heading: &str| {
            lines
                .iter()
                .position(|l| l.starts_with(heading))
                .unwrap_or_else(|| panic!("no `{heading}` in\n{text}"))
        };
        assert_eq!(
            lines[at("hardware events")],
            "hardware events (none countable here: no hardware PMU):"
        );
        assert!(at("hardware events") < at("hardware cache events"));
        assert!(at("hardware cache events") < at("software events:"));
        assert!(at("software events:") < at("cpu_atom PMU events"));
        assert!(lines.contains(&"  L1-dcache-load-misses"));
        assert!(lines.contains(&"  task-clock"));
        assert!(lines.contains(&"  msr/tsc/"));
        assert!(lines
            .iter()
            .any(|l| l.starts_with("  msr/aperf/") && l.ends_with("not countable here: not here")));
        assert!(lines
            .iter()
            .any(|l| l.starts_with("power PMU events") && l.contains("CPU-wide only")));
        assert!(lines
            .iter()
            .any(|l| l.contains("power/energy-pkg/") && l.contains("Joules")));
        assert!(lines
            .iter()
            .any(|l| l.starts_with("  cpu_core/mem-stores/") && l.contains("ldlat")));
    }

    #[test]
    fn live_msr_tsc_resolves_to_the_msr_type() {
        let root = pmu::live_root();
        let Ok(kind) = std::fs::read_to_string(root.join("msr/type")) else {
            return; // no msr PMU here
        };
        let e = parse("msr/tsc/").unwrap();
        assert_eq!(e.attr.kind, kind.trim().parse::<u32>().unwrap());
        assert_eq!((e.attr.config, e.attr.config1, e.attr.config2), (0, 0, 0));
        assert_eq!(e.source, Source::Pmu);
        let listing = list_events(root, |_| Ok(()));
        assert!(listing.lines().any(|l| l.trim() == "msr/tsc/"), "{listing}");
    }

    /// A stand-in for the cargo-fuzz target (which needs nightly): seeded
    /// random and mutated specs must give `Ok` or `Err`, never a panic.
    #[test]
    fn random_and_mutated_specs_never_panic() {
        let t = intel_hybrid();
        let seeds = [
            "cycles",
            "cycles:u",
            "r01c2",
            "L1-dcache-load-misses:k",
            "task-clock,page-faults",
            "msr/tsc/",
            "msr/event=0x00/u",
            "cpu_core/event=0xc0,umask=0x01/k",
            "cpu_core/mem-loads,ldlat=0x80/",
            "cpu_atom/cycles/",
            "cpu_core/instructions,cmask=1/:uk",
            "power/energy-pkg/",
            "cpu_core/config=0x1234,config1=3/",
        ];
        let alphabet: Vec<char> = "/,=:?0x1fFuUkhz-_.aAé🦀 \t\n\0"
            .chars()
            .chain('a'..='z')
            .collect();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..4000 {
            let seed = seeds[(next() % seeds.len() as u64) as usize];
            let mut chars: Vec<char> = match next() % 4 {
                0 => Vec::new(),
                1 => format!("{seed},{}", seeds[(next() % seeds.len() as u64) as usize])
                    .chars()
                    .collect(),
                _ => seed.chars().collect(),
            };
            for _ in 0..(next() % 6) {
                let c = alphabet[(next() % alphabet.len() as u64) as usize];
                let pos = (next() % (chars.len() as u64 + 1)) as usize;
                match next() % 4 {
                    0 if !chars.is_empty() => {
                        chars.remove(pos.min(chars.len() - 1));
                    }
                    1 if !chars.is_empty() => {
                        let i = pos.min(chars.len() - 1);
                        chars[i] = c;
                    }
                    2 => {
                        let from = (next() % (chars.len() as u64 + 1)) as usize;
                        let piece: Vec<char> = chars[from.min(pos)..from.max(pos)].to_vec();
                        chars.splice(pos..pos, piece);
                    }
                    _ => chars.insert(pos, c),
                }
            }
            let spec: String = chars.into_iter().collect();
            if let Err(e) = parse_list_in(&spec, t.root()) {
                assert!(!e.to_string().contains('\n'), "{spec:?}: {e}");
            }
        }
    }
}
