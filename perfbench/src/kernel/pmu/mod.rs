//! Dynamic PMUs as the kernel describes them in sysfs
//! (`/sys/bus/event_source/devices/<pmu>/`):
//!
//! - `type`: the number to put in `perf_event_attr.type`;
//! - `format/<term>`: where a config term's bits go, e.g. `config:0-7`,
//!   `config:8`, `config:0-7,32-35` (a value's low bits fill the first range,
//!   the next bits the second, …), `config1:0-15`, `config2:…`;
//! - `events/<alias>`: named events as terms, e.g. `event=0xc0,umask=0x01`,
//!   with optional `events/<alias>.scale` (a factor) and `.unit`;
//! - `cpus`: the CPUs a PMU counts on (hybrid `cpu_core`/`cpu_atom`), a list
//!   such as `0-7,16`.
//!
//! This file reads the PMU list and each PMU's files; the format and event
//! terms (`terms.rs`), CPU lists (`cpu_list.rs`), a hybrid CPU's kinds of
//! core (`core_types.rs`) and Intel's topdown events (`topdown.rs`) have
//! files of their own, re-exported here.
//!
//! Every function takes the directory that holds the PMUs as a parameter
//! ([`LIVE_ROOT`] on a real machine), so that tests can build fake trees.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

mod core_types;
mod cpu_list;
mod terms;
mod topdown;

pub use core_types::{
    core_type_of, core_types, hybrid_core_types, live_cpu_root, CoreType, LIVE_CPU_ROOT,
};
pub use cpu_list::{parse_cpu_list, CpuList, CpuListError};
pub use terms::{
    is_name_char, parse_number, parse_terms, ConfigWord, ConfigWords, FormatField, Term, TermError,
    TermValue,
};
pub use topdown::is_topdown;

/// Where the running kernel lists its PMUs.
pub const LIVE_ROOT: &str = "/sys/bus/event_source/devices";

/// The live PMU directory as a path.
pub fn live_root() -> &'static Path {
    Path::new(LIVE_ROOT)
}

/// A named event of a PMU (`events/<name>`).
#[derive(Clone, Debug, PartialEq)]
pub struct Alias {
    /// The file name.
    pub name: String,
    /// Its terms, in file order.
    pub terms: Vec<Term>,
    /// `events/<name>.scale`: what to multiply a count by.
    pub scale: Option<f64>,
    /// `events/<name>.unit`: the unit of a scaled count (`Joules`, `MiB`).
    pub unit: Option<String>,
}

/// A PMU's sysfs description.
#[derive(Clone, Debug, PartialEq)]
pub struct Pmu {
    /// The directory name (`cpu`, `cpu_core`, `msr`, …).
    pub name: String,
    /// `perf_event_attr.type` for its events.
    pub kind: u32,
    /// Its format terms by name.
    pub formats: BTreeMap<String, FormatField>,
    /// Its aliases by name.
    pub aliases: BTreeMap<String, Alias>,
    /// The CPUs it covers, if it has a `cpus` (or `cpumask`) file.
    pub cpus: Option<Vec<u32>>,
}

/// Why a PMU could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PmuError {
    /// There is no such PMU under the root.
    Missing,
    /// The PMU's files are unreadable or malformed; the text says which.
    Malformed(String),
}

impl fmt::Display for PmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PmuError::Missing => f.write_str("no such PMU"),
            PmuError::Malformed(why) => f.write_str(why),
        }
    }
}

/// The names of the PMUs under `root`, sorted; empty if `root` is unreadable.
pub fn pmu_names(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("type").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

fn read(path: &Path) -> Result<String, PmuError> {
    fs::read_to_string(path)
        .map_err(|e| PmuError::Malformed(format!("cannot read {}: {e}", path.display())))
}

fn files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect();
    files.sort();
    files
}

/// The PMU's `type` file: the number `perf_event_attr.type` takes.
fn read_type(dir: &Path) -> Result<u32, PmuError> {
    let path = dir.join("type");
    let text = read(&path)?;
    text.trim().parse::<u32>().map_err(|_| {
        PmuError::Malformed(format!(
            "{}: `{}` is not a PMU type number",
            path.display(),
            text.trim()
        ))
    })
}

/// The `format/` files: which bits of the config words each term sets.
fn read_formats(dir: &Path) -> Result<BTreeMap<String, FormatField>, PmuError> {
    let mut formats = BTreeMap::new();
    for (term, path) in files(&dir.join("format")) {
        let field = FormatField::parse(&read(&path)?)
            .map_err(|why| PmuError::Malformed(format!("format file {}: {why}", path.display())))?;
        formats.insert(term, field);
    }
    Ok(formats)
}

/// The `events/` aliases with their `.scale` and `.unit` files. Like perf,
/// an alias whose description does not parse is skipped rather than making
/// the whole PMU unusable.
fn read_aliases(dir: &Path) -> BTreeMap<String, Alias> {
    let events = dir.join("events");
    let sibling = |alias: &str, suffix: &str| {
        let path = events.join(format!("{alias}.{suffix}"));
        fs::read_to_string(path).ok().map(|s| s.trim().to_string())
    };
    let mut aliases = BTreeMap::new();
    for (alias, path) in files(&events) {
        if alias.ends_with(".scale") || alias.ends_with(".unit") {
            continue;
        }
        let Ok(terms) = read(&path)
            .and_then(|t| parse_terms(&t).map_err(|e| PmuError::Malformed(e.to_string())))
        else {
            continue;
        };
        let alias_of = Alias {
            name: alias.clone(),
            terms,
            scale: sibling(&alias, "scale").and_then(|s| s.parse::<f64>().ok()),
            unit: sibling(&alias, "unit").filter(|u| !u.is_empty()),
        };
        aliases.insert(alias, alias_of);
    }
    aliases
}

/// The CPUs the PMU counts on (`cpus` of hybrid PMUs, else `cpumask`).
fn read_cpus(dir: &Path, name: &str) -> Result<Option<Vec<u32>>, PmuError> {
    ["cpus", "cpumask"]
        .iter()
        .find_map(|f| fs::read_to_string(dir.join(f)).ok())
        .map(|t| parse_cpu_list(&t))
        .transpose()
        .map_err(|why| PmuError::Malformed(format!("{name}/cpus: {why}")))
}

impl Pmu {
    /// Reads the PMU `name` under `root`.
    pub fn load(root: &Path, name: &str) -> Result<Pmu, PmuError> {
        if name.is_empty() || !name.chars().all(is_name_char) || name.starts_with('.') {
            return Err(PmuError::Missing);
        }
        let dir = root.join(name);
        if !dir.join("type").is_file() {
            return Err(PmuError::Missing);
        }
        Ok(Pmu {
            name: name.to_string(),
            kind: read_type(&dir)?,
            formats: read_formats(&dir)?,
            aliases: read_aliases(&dir),
            cpus: read_cpus(&dir, name)?,
        })
    }

    /// Writes the term `name` with `value` into `words`: a format term goes
    /// into its bits, `config`/`config1`/`config2` (when the PMU has no format
    /// term of that name) replace the whole word.
    pub fn encode_term(
        &self,
        name: &str,
        value: u64,
        words: &mut ConfigWords,
    ) -> Result<(), TermError> {
        if let Some(field) = self.formats.get(name) {
            return field.encode(name, value, words);
        }
        if let Some(word) = ConfigWord::from_name(name) {
            words[word.index()] = value;
            return Ok(());
        }
        Err(TermError::NoSuchTerm {
            pmu: self.name.clone(),
            term: name.into(),
            known: self.formats.keys().cloned().collect(),
        })
    }
}

/// The hybrid core PMUs perfbench knows: generalized events can be aimed at
/// them with an extended type.
pub const HYBRID_PMUS: &[&str] = &["cpu_core", "cpu_atom"];

/// Whether the sysfs PMU `name` is a CPU's own: `cpu` (x86), a hybrid
/// core's, or an Arm core's (`armv8_pmuv3`, `armv8_cortex_a72`, …).
pub fn is_core_pmu(name: &str) -> bool {
    name == "cpu" || HYBRID_PMUS.contains(&name) || name.starts_with("armv8_")
}

/// The CPU PMUs under `root`, sorted.
pub fn core_pmu_names(root: &Path) -> Vec<String> {
    pmu_names(root)
        .into_iter()
        .filter(|name| is_core_pmu(name))
        .collect()
}

/// How often the kernel rotates the groups of PMU `name` that do not all
/// fit at once: its `perf_event_mux_interval_ms`, if readable.
pub fn mux_interval(root: &Path, name: &str) -> Option<std::time::Duration> {
    if !name.chars().all(is_name_char) {
        return None;
    }
    let text = std::fs::read_to_string(root.join(name).join("perf_event_mux_interval_ms")).ok()?;
    text.trim()
        .parse()
        .ok()
        .map(std::time::Duration::from_millis)
}

/// On a hybrid machine (`cpu_core`/`cpu_atom` PMUs under `root`), the type of
/// the PMU whose `cpus` list holds `cpu`; `None` elsewhere.
pub fn hybrid_type_for_cpu(root: &Path, cpu: u32) -> Option<u32> {
    HYBRID_PMUS.iter().find_map(|name| {
        let pmu = Pmu::load(root, name).ok()?;
        pmu.cpus
            .as_ref()
            .filter(|cpus| cpus.contains(&cpu))
            .map(|_| pmu.kind)
    })
}

#[cfg(test)]
pub(crate) mod tests;
