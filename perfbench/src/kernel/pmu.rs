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
//! Every function takes the directory that holds the PMUs as a parameter
//! ([`LIVE_ROOT`] on a real machine), so that tests can build fake trees.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// Where the running kernel lists its PMUs.
pub const LIVE_ROOT: &str = "/sys/bus/event_source/devices";

/// The live PMU directory as a path.
pub fn live_root() -> &'static Path {
    Path::new(LIVE_ROOT)
}

/// Which `perf_event_attr` word a format term writes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConfigWord {
    /// `config`
    Config,
    /// `config1`
    Config1,
    /// `config2`
    Config2,
}

impl ConfigWord {
    fn index(self) -> usize {
        match self {
            ConfigWord::Config => 0,
            ConfigWord::Config1 => 1,
            ConfigWord::Config2 => 2,
        }
    }

    /// The word as sysfs spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigWord::Config => "config",
            ConfigWord::Config1 => "config1",
            ConfigWord::Config2 => "config2",
        }
    }

    /// The word a term name stands for when it names a whole word
    /// (`config=0x1234`, perf's convention).
    pub fn from_name(name: &str) -> Option<ConfigWord> {
        match name {
            "config" => Some(ConfigWord::Config),
            "config1" => Some(ConfigWord::Config1),
            "config2" => Some(ConfigWord::Config2),
            _ => None,
        }
    }
}

/// The three config words of `perf_event_attr`: `config`, `config1`,
/// `config2`, in that order.
pub type ConfigWords = [u64; 3];

/// Where a format term's value goes: a word and the bit ranges in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatField {
    /// The word written.
    pub word: ConfigWord,
    /// Inclusive `(low, high)` bit ranges, in the order the value fills
    /// them (low value bits first).
    pub ranges: Vec<(u32, u32)>,
}

impl FormatField {
    /// Parses a format file's content: `config:0-7`, `config1:8`,
    /// `config:0-7,32-35`.
    pub fn parse(text: &str) -> Result<FormatField, String> {
        let text = text.trim();
        let (word, bits) = text
            .split_once(':')
            .ok_or_else(|| format!("`{text}` is not `config[12]:BITS`"))?;
        let word = ConfigWord::from_name(word)
            .ok_or_else(|| format!("`{word}` is not config, config1 or config2"))?;
        let mut ranges = Vec::new();
        for part in bits.split(',') {
            let bit = |s: &str| -> Result<u32, String> {
                match s.trim().parse::<u32>() {
                    Ok(b) if b < 64 => Ok(b),
                    _ => Err(format!("`{s}` is not a bit number 0-63 in `{text}`")),
                }
            };
            let (lo, hi) = match part.split_once('-') {
                Some((lo, hi)) => (bit(lo)?, bit(hi)?),
                None => (bit(part)?, bit(part)?),
            };
            if lo > hi {
                return Err(format!("range `{part}` runs backwards in `{text}`"));
            }
            ranges.push((lo, hi));
        }
        Ok(FormatField { word, ranges })
    }

    /// How many bits of value the field holds.
    pub fn width(&self) -> u32 {
        self.ranges.iter().map(|(lo, hi)| hi - lo + 1).sum()
    }

    /// The bits of the word the field covers.
    pub fn mask(&self) -> u64 {
        self.ranges
            .iter()
            .fold(0, |m, &(lo, hi)| m | (ones(hi - lo + 1) << lo))
    }

    /// Writes `value` into `words`, replacing what the field held; the
    /// value's low bits fill the first range. `term` names the field in the
    /// error when the value does not fit.
    pub fn encode(&self, term: &str, value: u64, words: &mut ConfigWords) -> Result<(), String> {
        let width = self.width();
        if width < 64 && value >> width != 0 {
            return Err(format!(
                "value {value:#x} of `{term}` is wider than its {width}-bit field ({})",
                self
            ));
        }
        let word = &mut words[self.word.index()];
        *word &= !self.mask();
        let mut rest = value;
        for &(lo, hi) in &self.ranges {
            let n = hi - lo + 1;
            *word |= (rest & ones(n)) << lo;
            rest = if n >= 64 { 0 } else { rest >> n };
        }
        Ok(())
    }
}

impl fmt::Display for FormatField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ranges: Vec<String> = self
            .ranges
            .iter()
            .map(|&(lo, hi)| {
                if lo == hi {
                    lo.to_string()
                } else {
                    format!("{lo}-{hi}")
                }
            })
            .collect();
        write!(f, "{}:{}", self.word.as_str(), ranges.join(","))
    }
}

fn ones(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// One term of an alias or a spec: `name=value`, or a bare `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// The term's name.
    pub name: String,
    /// Its value; a bare name is read as 1 for a format term (perf's
    /// convention).
    pub value: TermValue,
}

/// The value of a [`Term`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermValue {
    /// No `=`: a bare name.
    Bare,
    /// `=N`, decimal or `0x` hex.
    Number(u64),
    /// `=?` in an alias: the user has to supply the value.
    Required,
}

/// Parses a number as perf writes term values: decimal or `0x` hex.
pub fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(hex, 16).ok()
    } else if !text.is_empty() && text.chars().all(|c| c.is_ascii_digit()) {
        text.parse().ok()
    } else {
        None
    }
}

/// Parses a comma-separated term list (`event=0xc0,umask=0x01,edge`).
/// An empty list is fine; an empty term, an empty name or a value that is
/// not a number is an error naming it.
pub fn parse_terms(text: &str) -> Result<Vec<Term>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|part| {
            let part = part.trim();
            if part.is_empty() {
                return Err("empty term (a stray comma?)".to_string());
            }
            let (name, value) = match part.split_once('=') {
                Some((name, value)) => {
                    let value = value.trim();
                    let value = if value == "?" {
                        TermValue::Required
                    } else {
                        TermValue::Number(
                            parse_number(value).ok_or_else(|| bad_value(part, value))?,
                        )
                    };
                    (name.trim(), value)
                }
                None => (part, TermValue::Bare),
            };
            if name.is_empty() || !name.chars().all(is_name_char) {
                return Err(format!("`{part}` is not a term (`name` or `name=value`)"));
            }
            Ok(Term {
                name: name.to_string(),
                value,
            })
        })
        .collect()
}

fn bad_value(part: &str, value: &str) -> String {
    let digits = match value.strip_prefix("0x") {
        Some(hex) => !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()),
        None => !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()),
    };
    if digits {
        format!("`{part}`: value `{value}` is wider than 64 bits")
    } else {
        format!("`{part}`: value `{value}` is not a number (decimal or 0x hex)")
    }
}

/// Characters of PMU, alias and term names.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
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
        let Ok(terms) = read(&path).and_then(|t| parse_terms(&t).map_err(PmuError::Malformed))
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
    ) -> Result<(), String> {
        if let Some(field) = self.formats.get(name) {
            return field.encode(name, value, words);
        }
        if let Some(word) = ConfigWord::from_name(name) {
            words[word.index()] = value;
            return Ok(());
        }
        let known: Vec<&str> = self.formats.keys().map(String::as_str).collect();
        Err(format!(
            "PMU `{}` has no term `{name}` (its terms: {})",
            self.name,
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ))
    }
}

/// Parses a CPU list as sysfs writes it: `0-7,16`, `3`, or empty.
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, String> {
    let text = text.trim();
    let mut cpus = Vec::new();
    if text.is_empty() {
        return Ok(cpus);
    }
    for part in text.split(',') {
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{s}` is not a CPU number in `{text}`"))
        };
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi) = (num(lo)?, num(hi)?);
                if lo > hi || hi - lo > 65_536 {
                    return Err(format!("bad CPU range `{part}`"));
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(num(part)?),
        }
    }
    Ok(cpus)
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A temporary directory removed on drop.
    pub(crate) struct FakeTree(pub PathBuf);

    impl FakeTree {
        pub(crate) fn new(tag: &str) -> FakeTree {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let dir = std::env::temp_dir().join(format!(
                "perfbench-pmu-{tag}-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            FakeTree(dir)
        }

        /// Writes `content` to `rel` (e.g. `cpu/format/event`).
        pub(crate) fn file(&self, rel: &str, content: &str) -> &FakeTree {
            let path = self.0.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
            self
        }

        pub(crate) fn root(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for FakeTree {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// An Intel hybrid machine: `cpu_core` (type 4, CPUs 0-7,16) and
    /// `cpu_atom` (type 10, CPUs 8-15), plus `msr` and `power`.
    pub(crate) fn intel_hybrid() -> FakeTree {
        let t = FakeTree::new("intel");
        for (pmu, kind, cpus) in [("cpu_core", "4", "0-7,16\n"), ("cpu_atom", "10", "8-15\n")] {
            t.file(&format!("{pmu}/type"), &format!("{kind}\n"))
                .file(&format!("{pmu}/cpus"), cpus)
                .file(&format!("{pmu}/format/event"), "config:0-7\n")
                .file(&format!("{pmu}/format/umask"), "config:8-15\n")
                .file(&format!("{pmu}/format/cmask"), "config:24-31\n")
                .file(&format!("{pmu}/format/edge"), "config:18\n")
                .file(&format!("{pmu}/format/ldlat"), "config1:0-15\n")
                .file(&format!("{pmu}/events/instructions"), "event=0xc0\n")
                .file(
                    &format!("{pmu}/events/mem-loads"),
                    "event=0xcd,umask=0x1,ldlat=3\n",
                )
                .file(
                    &format!("{pmu}/events/mem-stores"),
                    "event=0xcd,umask=0x2,ldlat=?\n",
                );
        }
        t.file(
            "cpu_core/events/topdown-retiring",
            "event=0x00,umask=0x82\n",
        )
        .file("msr/type", "9\n")
        .file("msr/format/event", "config:0-63\n")
        .file("msr/events/tsc", "event=0x00\n")
        .file("msr/events/aperf", "event=0x01\n")
        .file("power/type", "23\n")
        .file("power/cpumask", "0\n")
        .file("power/format/event", "config:0-7\n")
        .file("power/events/energy-pkg", "event=0x02\n")
        .file(
            "power/events/energy-pkg.scale",
            "2.3283064365386962890625e-10\n",
        )
        .file("power/events/energy-pkg.unit", "Joules\n")
        .file("software/type", "1\n");
        t
    }

    /// An AMD machine: `cpu` (type 4) with the split event field.
    pub(crate) fn amd() -> FakeTree {
        let t = FakeTree::new("amd");
        t.file("cpu/type", "4\n")
            .file("cpu/format/event", "config:0-7,32-35\n")
            .file("cpu/format/umask", "config:8-15\n")
            .file("cpu/format/edge", "config:18\n")
            .file("cpu/format/cmask", "config:24-31\n")
            .file("cpu/events/instructions", "event=0xc0\n")
            .file("cpu/events/cpu-cycles", "event=0x76\n")
            .file("cpu/events/branch-misses", "event=0xc3\n")
            .file("software/type", "1\n");
        t
    }

    /// An arm64 big.LITTLE machine: `armv8_cortex_a55` (type 8, CPUs 0-3)
    /// and `armv8_cortex_a76` (type 9, CPUs 4-7); the CPUs' own files
    /// (`cpu_capacity`, `cpufreq/`) under `cpu/` of the same tree.
    pub(crate) fn big_little() -> FakeTree {
        let t = FakeTree::new("big-little");
        for (pmu, kind, cpus) in [
            ("armv8_cortex_a55", "8", "0-3\n"),
            ("armv8_cortex_a76", "9", "4-7\n"),
        ] {
            t.file(&format!("pmu/{pmu}/type"), &format!("{kind}\n"))
                .file(&format!("pmu/{pmu}/cpus"), cpus)
                .file(&format!("pmu/{pmu}/format/event"), "config:0-15\n");
        }
        t.file("pmu/software/type", "1\n");
        t
    }

    /// Writes `file` (e.g. `cpu_capacity`) of each CPU of `cpus` under
    /// `tree`'s `cpu/`.
    fn per_cpu(tree: &FakeTree, cpus: std::ops::Range<u32>, file: &str, content: &str) {
        for cpu in cpus {
            tree.file(&format!("cpu/cpu{cpu}/{file}"), content);
        }
    }

    fn names(types: &[CoreType]) -> Vec<&str> {
        types.iter().map(|t| t.pmu.as_str()).collect()
    }

    #[test]
    fn intel_performance_cores_are_cpu_core_whatever_the_name_order() {
        let t = intel_hybrid();
        let cpu_root = t.root().join("cpu");
        // Name order puts cpu_atom first; the rule puts the P-cores first,
        // even where the E-cores report a higher top frequency.
        assert_eq!(
            names(&hybrid_core_types(t.root())),
            ["cpu_atom", "cpu_core"]
        );
        per_cpu(&t, 8..16, "cpufreq/cpuinfo_max_freq", "5000000\n");
        let types = core_types(t.root(), &cpu_root);
        assert_eq!(names(&types), ["cpu_core", "cpu_atom"]);
        assert_eq!(types[0].cpus, [0, 1, 2, 3, 4, 5, 6, 7, 16]);
        assert_eq!(core_type_of(t.root(), 16).as_deref(), Some("cpu_core"));
        assert_eq!(core_type_of(t.root(), 9).as_deref(), Some("cpu_atom"));
        assert_eq!(core_type_of(t.root(), 17), None);
    }

    #[test]
    fn arm_big_cores_are_known_by_capacity_then_by_top_frequency() {
        let t = big_little();
        let (pmus, cpu_root) = (t.root().join("pmu"), t.root().join("cpu"));
        // Nothing to tell them apart: name order, the same on every run.
        let types = core_types(&pmus, &cpu_root);
        assert_eq!(names(&types), ["armv8_cortex_a55", "armv8_cortex_a76"]);
        per_cpu(&t, 0..4, "cpufreq/cpuinfo_max_freq", "1800000\n");
        per_cpu(&t, 4..8, "cpufreq/cpuinfo_max_freq", "2400000\n");
        let types = core_types(&pmus, &cpu_root);
        assert_eq!(names(&types), ["armv8_cortex_a76", "armv8_cortex_a55"]);
        assert_eq!(types[0].cpus, [4, 5, 6, 7]);
        // Capacity outranks frequency (a made-up case where they disagree).
        per_cpu(&t, 0..4, "cpu_capacity", "1024\n");
        per_cpu(&t, 4..8, "cpu_capacity", "512\n");
        let types = core_types(&pmus, &cpu_root);
        assert_eq!(names(&types), ["armv8_cortex_a55", "armv8_cortex_a76"]);
        assert_eq!(core_type_of(&pmus, 5).as_deref(), Some("armv8_cortex_a76"));
    }

    #[test]
    fn a_cpu_with_one_kind_of_core_has_no_core_types() {
        let amd = amd();
        assert_eq!(core_types(amd.root(), &amd.root().join("cpu")), []);
        assert_eq!(core_type_of(amd.root(), 0), None);
        let arm = FakeTree::new("one-arm-pmu");
        arm.file("armv8_pmuv3_0/type", "8\n")
            .file("armv8_pmuv3_0/cpus", "0-3\n");
        assert_eq!(hybrid_core_types(arm.root()), []);
        // A second core PMU without CPUs does not make a hybrid either.
        arm.file("armv8_cortex_a53/type", "9\n");
        assert_eq!(hybrid_core_types(arm.root()), []);
    }

    /// The config `alias` of `pmu` encodes to under `root`.
    fn alias_config(root: &Path, pmu: &str, alias: &str) -> u64 {
        let pmu = Pmu::load(root, pmu).unwrap();
        let mut words = [0; 3];
        for term in &pmu.aliases[alias].terms {
            let value = match term.value {
                TermValue::Number(value) => value,
                TermValue::Bare => 1,
                // `ldlat=?` of mem-stores: any value is no topdown event.
                TermValue::Required => 0,
            };
            pmu.encode_term(&term.name, value, &mut words).unwrap();
        }
        words[0]
    }

    #[test]
    fn topdown_events_are_known_by_config_on_a_pmu_with_slots() {
        let t = intel_hybrid();
        for (alias, terms) in [
            ("slots", "event=0x00,umask=0x4\n"),
            ("topdown-bad-spec", "event=0x00,umask=0x81\n"),
            ("topdown-be-bound", "event=0x00,umask=0x83\n"),
            ("topdown-mem-bound", "event=0x00,umask=0x87\n"),
            ("ref-cycles", "event=0x00,umask=0x03\n"),
        ] {
            t.file(&format!("cpu_core/events/{alias}"), terms);
        }
        // Gracemont's topdown events are ordinary counters.
        t.file(
            "cpu_atom/events/topdown-retiring",
            "event=0xc2,umask=0x02\n",
        )
        .file(
            "cpu_atom/events/topdown-fe-bound",
            "event=0x71,umask=0x00\n",
        );
        let core = Pmu::load(t.root(), "cpu_core").unwrap();
        let topdown: Vec<&str> = core
            .aliases
            .keys()
            .filter(|a| is_topdown(t.root(), 4, alias_config(t.root(), "cpu_core", a)))
            .map(String::as_str)
            .collect();
        assert_eq!(
            topdown,
            [
                "slots",
                "topdown-bad-spec",
                "topdown-be-bound",
                "topdown-mem-bound",
                "topdown-retiring"
            ]
        );
        for alias in ["topdown-retiring", "topdown-fe-bound", "instructions"] {
            let config = alias_config(t.root(), "cpu_atom", alias);
            assert!(!is_topdown(t.root(), 10, config), "cpu_atom/{alias}");
        }
        // The metric's config on another PMU, or with an event code, is
        // an ordinary event; an unknown metric of the range is not.
        assert!(!is_topdown(t.root(), 10, 0x8200));
        assert!(!is_topdown(t.root(), 9, 0x8200), "msr");
        assert!(!is_topdown(t.root(), 4, 0x82c0));
        assert!(is_topdown(t.root(), 4, 0x8f00));
        // A PMU without `slots` (AMD, Intel before Ice Lake) has none.
        assert!(!is_topdown(amd().root(), 4, 0x8200));
        assert!(!is_topdown(amd().root(), 4, 0x0400));
    }

    #[test]
    fn format_fields_parse_and_encode_low_bits_first() {
        let f = FormatField::parse("config:0-7,32-35\n").unwrap();
        assert_eq!(f.word, ConfigWord::Config);
        assert_eq!(f.ranges, [(0, 7), (32, 35)]);
        assert_eq!(f.width(), 12);
        assert_eq!(f.mask(), 0xf_0000_00ff);
        let mut w = [0; 3];
        // 0x1c0: low byte 0xc0 → bits 0-7, next nibble 0x1 → bits 32-35.
        f.encode("event", 0x1c0, &mut w).unwrap();
        assert_eq!(w, [0x1_0000_00c0, 0, 0]);
        let e = f.encode("event", 0x1000, &mut w).unwrap_err();
        assert!(e.contains("`event`") && e.contains("12-bit"), "{e}");

        let f = FormatField::parse("config1:8").unwrap();
        assert_eq!(
            (f.word, f.width(), f.mask()),
            (ConfigWord::Config1, 1, 0x100)
        );
        let mut w = [0; 3];
        f.encode("any", 1, &mut w).unwrap();
        assert_eq!(w, [0, 0x100, 0]);
        assert!(f.encode("any", 2, &mut w).is_err());

        let f = FormatField::parse("config:0-63").unwrap();
        let mut w = [0; 3];
        f.encode("event", u64::MAX, &mut w).unwrap();
        assert_eq!(w[0], u64::MAX);

        for bad in [
            "",
            "config",
            "config:",
            "config3:1",
            "config:7-0",
            "config:64",
            "config:a-b",
            "config:1,",
        ] {
            assert!(FormatField::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn encoding_replaces_the_fields_previous_value() {
        let f = FormatField::parse("config:8-15").unwrap();
        let mut w = [0xffff, 0, 0];
        f.encode("umask", 0x01, &mut w).unwrap();
        assert_eq!(w[0], 0x01ff);
    }

    #[test]
    fn terms_and_numbers() {
        assert_eq!(parse_number("0x1F"), Some(31));
        assert_eq!(parse_number("42"), Some(42));
        for bad in ["", "0x", "x1", "-1", "1e3", "0xg", "99999999999999999999"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
        let t = parse_terms("event=0xc0, umask=1,edge,ldlat=?").unwrap();
        assert_eq!(
            t.iter()
                .map(|t| (t.name.as_str(), t.value))
                .collect::<Vec<_>>(),
            [
                ("event", TermValue::Number(0xc0)),
                ("umask", TermValue::Number(1)),
                ("edge", TermValue::Bare),
                ("ldlat", TermValue::Required),
            ]
        );
        assert!(parse_terms("event=").is_err());
        assert!(parse_terms("event=0xc0,,umask=1").is_err());
        assert!(parse_terms("=3").is_err());
        assert!(parse_terms("a b=1").is_err());
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(
            parse_cpu_list("0-3,8,10-11\n").unwrap(),
            [0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(parse_cpu_list("").unwrap(), Vec::<u32>::new());
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("a").is_err());
    }

    #[test]
    fn core_pmus_are_the_cpu_s_own_and_no_others() {
        for name in [
            "cpu",
            "cpu_core",
            "cpu_atom",
            "armv8_pmuv3",
            "armv8_cortex_a72",
        ] {
            assert!(is_core_pmu(name), "{name}");
        }
        for name in [
            "msr",
            "power",
            "software",
            "cpu_",
            "uncore_imc_0",
            "arm_cmn",
        ] {
            assert!(!is_core_pmu(name), "{name}");
        }
        let t = intel_hybrid();
        assert_eq!(core_pmu_names(t.root()), ["cpu_atom", "cpu_core"]);
    }

    #[test]
    fn loads_a_fake_hybrid_tree() {
        let t = intel_hybrid();
        assert_eq!(
            pmu_names(t.root()),
            ["cpu_atom", "cpu_core", "msr", "power", "software"]
        );
        let core = Pmu::load(t.root(), "cpu_core").unwrap();
        assert_eq!(core.kind, 4);
        assert_eq!(core.formats["ldlat"].word, ConfigWord::Config1);
        assert_eq!(core.aliases["mem-loads"].terms.len(), 3);
        assert_eq!(core.cpus.as_ref().unwrap().len(), 9);
        let power = Pmu::load(t.root(), "power").unwrap();
        let pkg = &power.aliases["energy-pkg"];
        assert_eq!(pkg.unit.as_deref(), Some("Joules"));
        assert_eq!(pkg.scale, Some(2.328_306_436_538_696_3e-10));
        assert!(!power.aliases.contains_key("energy-pkg.scale"));
        assert_eq!(Pmu::load(t.root(), "nosuch"), Err(PmuError::Missing));
        assert_eq!(Pmu::load(t.root(), "../x"), Err(PmuError::Missing));
    }

    #[test]
    fn mux_intervals_are_read_per_pmu() {
        let t = intel_hybrid();
        t.file("cpu_core/perf_event_mux_interval_ms", "4\n")
            .file("msr/perf_event_mux_interval_ms", "junk\n");
        let ms = std::time::Duration::from_millis;
        assert_eq!(mux_interval(t.root(), "cpu_core"), Some(ms(4)));
        assert_eq!(mux_interval(t.root(), "cpu_atom"), None, "no file");
        assert_eq!(mux_interval(t.root(), "msr"), None, "not a number");
        assert_eq!(
            mux_interval(t.root(), "../cpu_core"),
            None,
            "not a PMU name"
        );
    }

    #[test]
    fn hybrid_type_follows_the_cpus_files() {
        let t = intel_hybrid();
        assert_eq!(hybrid_type_for_cpu(t.root(), 0), Some(4));
        assert_eq!(hybrid_type_for_cpu(t.root(), 16), Some(4));
        assert_eq!(hybrid_type_for_cpu(t.root(), 8), Some(10));
        assert_eq!(hybrid_type_for_cpu(t.root(), 15), Some(10));
        assert_eq!(hybrid_type_for_cpu(t.root(), 17), None);
        assert_eq!(hybrid_type_for_cpu(amd().root(), 0), None);
    }

    #[test]
    fn garbage_format_files_are_errors_naming_the_file() {
        let t = FakeTree::new("garbage");
        t.file("bad/type", "7\n")
            .file("bad/format/event", "config:zz\n");
        let PmuError::Malformed(why) = Pmu::load(t.root(), "bad").unwrap_err() else {
            panic!("garbage accepted")
        };
        assert!(why.contains("format/event") && why.contains("zz"), "{why}");
        t.file("badtype/type", "seven\n");
        assert!(matches!(
            Pmu::load(t.root(), "badtype"),
            Err(PmuError::Malformed(_))
        ));
    }

    #[test]
    fn the_live_msr_pmu_reads_like_sysfs_says() {
        let Ok(msr) = Pmu::load(live_root(), "msr") else {
            return; // no msr PMU on this machine
        };
        let kind: u32 = fs::read_to_string("/sys/bus/event_source/devices/msr/type")
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(msr.kind, kind);
        assert_eq!(msr.formats["event"].ranges, [(0, 63)]);
        assert_eq!(
            msr.aliases["tsc"].terms,
            [Term {
                name: "event".into(),
                value: TermValue::Number(0)
            }]
        );
    }
}
