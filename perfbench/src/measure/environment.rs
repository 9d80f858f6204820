//! The machine a run measured on: recorded with every result, shown in the
//! table header, and checked for settings that harm measurement.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kernel::pmu::{core_type_of, is_core_pmu};

/// Facts about the machine and the run that change what counts mean. As
/// JSON (result files, summaries, JSON lines) its fields are written in the
/// order of their names, as they are declared here; read back, a field of
/// the wrong type reads as unknown, and fields added after the first
/// schema are optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// Whether arm64's pseudo-NMIs are on (`irqchip.gicv3_pseudo_nmi=1`):
    /// without them the NMI watchdog takes no counter there. Written only
    /// where on, so that other records keep their bytes.
    #[serde(default, deserialize_with = "flag", skip_serializing_if = "is_false")]
    pub arm_pseudo_nmi: bool,
    /// The branch of the commit measured, where known (git, else the CI's
    /// variables). Like the commit and the time, it says what was measured
    /// when, not where: no comparison is refused for it.
    #[serde(
        default,
        deserialize_with = "label",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<String>,
    /// The full id of the commit measured, where known.
    #[serde(
        default,
        deserialize_with = "commit_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub commit: Option<String>,
    /// On a hybrid CPU, the kind of core measured: the core PMU of the
    /// pinned CPU (`cpu_core`, `cpu_atom`, `armv8_cortex_a76`). Written
    /// only where there is one.
    #[serde(
        default,
        deserialize_with = "or_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub core_type: Option<String>,
    /// The CPU the measuring thread was pinned to (a record holds it, if
    /// only as `null`).
    #[serde(deserialize_with = "cpu")]
    pub cpu: Option<usize>,
    /// `model name` from `/proc/cpuinfo`.
    pub cpu_model: String,
    /// Whether the working tree had changes to tracked files beside the
    /// commit, where git could tell.
    #[serde(
        default,
        deserialize_with = "or_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub dirty: Option<bool>,
    /// The frequency governor of the pinned CPU, where cpufreq exists.
    #[serde(default, deserialize_with = "or_none")]
    pub governor: Option<String>,
    /// A stable, anonymous id of the machine: 16 hex digits hashed from
    /// its machine id, so that runs of one machine can be told from
    /// another's without naming it.
    #[serde(
        default,
        deserialize_with = "label",
        skip_serializing_if = "Option::is_none"
    )]
    pub host: Option<String>,
    /// The kernel release (`uname -r`).
    pub kernel: String,
    /// `kernel.nmi_watchdog` (1: it holds a hardware counter).
    #[serde(default, deserialize_with = "int")]
    pub nmi_watchdog: Option<i32>,
    /// `kernel.perf_event_paranoid`.
    #[serde(default, deserialize_with = "int")]
    pub perf_event_paranoid: Option<i32>,
    /// The PMUs in `/sys/bus/event_source/devices`, sorted.
    #[serde(default, deserialize_with = "names")]
    pub pmus: Vec<String>,
    /// The CPU PMU's `rdpmc` setting (0 disables user-space reads).
    #[serde(default, deserialize_with = "int")]
    pub rdpmc: Option<i32>,
    /// When the run started, in UTC (RFC 3339, to the second).
    #[serde(
        default,
        deserialize_with = "label",
        skip_serializing_if = "Option::is_none"
    )]
    pub started: Option<String>,
    /// Whether the CPU reports running under a hypervisor.
    #[serde(default, deserialize_with = "flag")]
    pub virtual_machine: bool,
}

/// A stored field as a `T`, or `None` where it is of another type.
fn or_none<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(Value::deserialize(d)?).ok())
}

/// A stored CPU number, `None` where it is none.
fn cpu<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    Ok(or_none::<D, u64>(d)?.map(|c| c as usize))
}

/// A stored setting's number (kept as `i32`, as it was read).
fn int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
    Ok(or_none::<D, i64>(d)?.map(|n| n as i32))
}

/// A stored yes or no, no where it is neither.
fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(or_none(d)?.unwrap_or(false))
}

/// The names in a stored list, leaving out what is not a name.
fn names<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let list: Vec<Value> = or_none(d)?.unwrap_or_default();
    Ok(list
        .into_iter()
        .filter_map(|p| p.as_str().map(String::from))
        .collect())
}

/// A stored name or time: text of at most 200 characters and no control
/// characters, else unknown (a stored record may be hostile).
fn label<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text: Option<String> = or_none(d)?;
    Ok(text.filter(|t| t.chars().count() <= 200 && !t.chars().any(char::is_control)))
}

/// A stored commit id: 7 to 64 hex digits, else unknown.
fn commit_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text: Option<String> = or_none(d)?;
    Ok(text.filter(|t| is_commit_id(t)))
}

/// Whether `text` is a commit id as git or a CI writes one: 7 to 64 hex
/// digits.
pub fn is_commit_id(text: &str) -> bool {
    (7..=64).contains(&text.len()) && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// A commit as people read it: its first 7 digits, with `+dirty` where
/// tracked files had changed (`92d5b55+dirty`); `None` where unknown.
pub fn commit_label(commit: Option<&str>, dirty: Option<bool>) -> Option<String> {
    let commit = commit?;
    let short = commit.get(..7).unwrap_or(commit);
    let dirty = if dirty == Some(true) { "+dirty" } else { "" };
    Some(format!("{short}{dirty}"))
}

/// FNV-1a: a stable hash (the standard library's may change between
/// releases, and what is hashed into names and ids must not).
pub fn stable_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// `time` in UTC as RFC 3339 to the second (`2026-11-25T22:41:07Z`), from
/// Howard Hinnant's civil-from-days; 1970 for a time before it.
pub fn utc_time(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// The machine's anonymous id: its machine id (or, in a container without
/// one, its host name) hashed with perfbench's own key, as machine-id(5)
/// asks of programs that show an id, so that the machine id itself never
/// leaves the machine.
fn host_id(root: &Path) -> Option<String> {
    [
        "/etc/machine-id",
        "/var/lib/dbus/machine-id",
        "/proc/sys/kernel/hostname",
    ]
    .iter()
    .find_map(|path| read(root, path).filter(|id| !id.is_empty()))
    .map(|id| {
        format!(
            "{:016x}",
            stable_hash(format!("perfbench host {id}").as_bytes())
        )
    })
}

/// Whether `b` is false: a flag left out of the record.
fn is_false(b: &bool) -> bool {
    !b
}

/// Where the facts are read from: `/` on a live system, a fake tree in
/// tests.
fn read(root: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(root.join(path.trim_start_matches('/')))
        .ok()
        .map(|s| s.trim().to_string())
}

impl Environment {
    /// Reads this machine's facts, with the time the run started.
    pub fn current(cpu: Option<usize>) -> Environment {
        Environment {
            started: Some(utc_time(SystemTime::now())),
            ..Environment::read_from(Path::new("/"), cpu)
        }
    }

    /// Reads the facts of the system whose `/proc` and `/sys` are under
    /// `root`.
    pub fn read_from(root: &Path, cpu: Option<usize>) -> Environment {
        let cpuinfo = read(root, "/proc/cpuinfo").unwrap_or_default();
        let field = |name: &str| {
            cpuinfo.lines().find_map(|l| {
                let (key, value) = l.split_once(':')?;
                (key.trim() == name).then(|| value.trim().to_string())
            })
        };
        let number = |path: &str| read(root, path)?.parse::<i32>().ok();
        let mut pmus: Vec<String> = std::fs::read_dir(root.join("sys/bus/event_source/devices"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        pmus.sort();
        let rdpmc = pmus
            .iter()
            .filter(|pmu| is_core_pmu(pmu))
            .find_map(|pmu| number(&format!("/sys/bus/event_source/devices/{pmu}/rdpmc")))
            // arm64 PMUs have no rdpmc file: the sysctl decides there.
            .or_else(|| number("/proc/sys/kernel/perf_user_access"));
        Environment {
            cpu_model: field("model name")
                .or_else(|| arm_cpu_model(&field))
                .unwrap_or_else(|| "unknown".into()),
            kernel: read(root, "/proc/sys/kernel/osrelease").unwrap_or_default(),
            host: host_id(root),
            cpu,
            core_type: cpu
                .and_then(|c| core_type_of(&root.join("sys/bus/event_source/devices"), c)),
            pmus,
            perf_event_paranoid: number("/proc/sys/kernel/perf_event_paranoid"),
            nmi_watchdog: number("/proc/sys/kernel/nmi_watchdog"),
            rdpmc,
            governor: read(
                root,
                &format!(
                    "/sys/devices/system/cpu/cpu{}/cpufreq/scaling_governor",
                    cpu.unwrap_or(0)
                ),
            ),
            virtual_machine: field("flags")
                .is_some_and(|f| f.split_whitespace().any(|w| w == "hypervisor")),
            arm_pseudo_nmi: read(root, "/proc/cmdline").is_some_and(|c| {
                c.split_whitespace()
                    .any(|w| w == "irqchip.gicv3_pseudo_nmi=1")
            }),
            // What was measured and when is the run's to say (run/origin.rs).
            branch: None,
            commit: None,
            dirty: None,
            started: None,
        }
    }

    /// Whether the CPU has more than one kind of core: more than one CPU
    /// PMU among the PMUs.
    pub fn is_hybrid(&self) -> bool {
        self.pmus.iter().filter(|p| is_core_pmu(p)).count() > 1
    }

    /// Whether a CPU PMU is among the PMUs.
    pub fn has_cpu_pmu(&self) -> bool {
        self.pmus.iter().any(|p| is_core_pmu(p))
    }

    /// Whether the NMI watchdog holds one of the CPU PMU's counters: on x86
    /// whenever it runs; on arm64 only with pseudo-NMIs, without which the
    /// kernel's perf hard-lockup detector does not start.
    pub fn watchdog_holds_a_counter(&self) -> bool {
        self.nmi_watchdog == Some(1)
            && self
                .pmus
                .iter()
                .any(|p| is_core_pmu(p) && (!p.starts_with("armv8_") || self.arm_pseudo_nmi))
    }

    /// Settings that harm measurement, each with its fix.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.watchdog_holds_a_counter() {
            out.push(
                "the NMI watchdog holds a hardware counter, so groups get one fewer \
                 (sudo sysctl kernel.nmi_watchdog=0)"
                    .to_string(),
            );
        }
        if let Some(g) = self.governor.as_deref().filter(|g| *g != "performance") {
            out.push(format!(
                "CPU frequency governor is `{g}`, so times vary with the clock \
                 (sudo cpupower frequency-set -g performance)"
            ));
        }
        if self.has_cpu_pmu() && self.rdpmc == Some(0) {
            let fix = if self.pmus.iter().any(|p| p.starts_with("armv8_")) {
                "sudo sysctl kernel.perf_user_access=1"
            } else {
                "echo 1 | sudo tee /sys/bus/event_source/devices/cpu/rdpmc"
            };
            out.push(format!(
                "user-space counter reads (rdpmc) are disabled, so per-iteration mode falls back \
                 to read() ({fix})"
            ));
        }
        out
    }

    /// The machine alone: this record without what was measured and when,
    /// so that two runs of one machine compare equal.
    pub fn machine(&self) -> Environment {
        Environment {
            branch: None,
            commit: None,
            dirty: None,
            started: None,
            ..self.clone()
        }
    }

    /// The commit measured as people read it: its first 7 digits, with
    /// `+dirty` where tracked files had changed (`92d5b55+dirty`); `None`
    /// where it is not known.
    pub fn commit_label(&self) -> Option<String> {
        let commit = self.commit.as_deref()?;
        let short = commit.get(..7).unwrap_or(commit);
        let dirty = if self.dirty == Some(true) {
            "+dirty"
        } else {
            ""
        };
        Some(format!("{short}{dirty}"))
    }

    /// What was measured, for the header: `at 92d5b55+dirty on main`, or
    /// `None` where the commit is not known.
    pub fn origin_summary(&self) -> Option<String> {
        let label = self.commit_label()?;
        Some(match &self.branch {
            Some(branch) => format!("at {label} on {branch}"),
            None => format!("at {label}"),
        })
    }

    /// One line for the table header.
    pub fn summary(&self) -> String {
        let or_na = |v: Option<String>| v.unwrap_or_else(|| "n/a".into());
        format!(
            "{}, kernel {}, {}{}, PMUs: {}, perf_event_paranoid {}, nmi_watchdog {}, rdpmc {}, governor {}",
            self.cpu_model,
            self.kernel,
            self.cpu.map_or("not pinned".into(), |c| match &self.core_type {
                Some(kind) => format!("CPU {c} ({kind})"),
                None => format!("CPU {c}"),
            }),
            if self.virtual_machine { ", virtual machine" } else { "" },
            if self.pmus.is_empty() { "none".into() } else { self.pmus.join(" ") },
            or_na(self.perf_event_paranoid.map(|v| v.to_string())),
            or_na(self.nmi_watchdog.map(|v| v.to_string())),
            or_na(self.rdpmc.map(|v| v.to_string())),
            or_na(self.governor.clone()),
        )
    }

    /// The record as stored in result files and JSON lines.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("an environment serialises")
    }

    /// Reads a stored record; `None` if it is not one (no object, or
    /// without its CPU model, kernel and CPU). Fields added after the
    /// first schema are optional.
    pub fn from_json(v: &Value) -> Option<Environment> {
        // serde also reads a struct from an array of its fields.
        v.is_object()
            .then(|| Environment::deserialize(v).ok())
            .flatten()
    }

    /// Why counts measured on `other` may not compare with counts from
    /// here, if they may not.
    pub fn mismatch(&self, other: &Environment) -> Option<String> {
        if self.cpu_model != other.cpu_model {
            Some(format!(
                "another CPU model (`{}`, here `{}`)",
                other.cpu_model, self.cpu_model
            ))
        } else if self.kernel != other.kernel {
            Some(format!(
                "another kernel ({}, here {})",
                other.kernel, self.kernel
            ))
        } else {
            None
        }
    }
}

/// An arm64 CPU as `/proc/cpuinfo` names it, which has no `model name`
/// there: the implementer (by name where known) and the part number, e.g.
/// `ARM implementer 0x41, part 0xd0c`.
fn arm_cpu_model(field: &impl Fn(&str) -> Option<String>) -> Option<String> {
    let implementer = field("CPU implementer")?;
    let part = field("CPU part").unwrap_or_else(|| "unknown".into());
    let name = match implementer.as_str() {
        "0x41" => "ARM ",
        "0x42" => "Broadcom ",
        "0x43" => "Cavium ",
        "0x46" => "Fujitsu ",
        "0x48" => "HiSilicon ",
        "0x4e" => "NVIDIA ",
        "0x51" => "Qualcomm ",
        "0x61" => "Apple ",
        "0xc0" => "Ampere ",
        _ => "",
    };
    Some(format!("{name}implementer {implementer}, part {part}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn the_commit_reads_short_with_its_dirtiness_and_branch() {
        let mut e = Environment::default();
        assert_eq!(e.origin_summary(), None);
        e.commit = Some("92d5b55b854f3bdea38dd1581bbd20c3fc1a137c".into());
        assert_eq!(e.origin_summary().as_deref(), Some("at 92d5b55"));
        e.dirty = Some(true);
        e.branch = Some("main".into());
        assert_eq!(e.commit_label().as_deref(), Some("92d5b55+dirty"));
        assert_eq!(
            e.origin_summary().as_deref(),
            Some("at 92d5b55+dirty on main")
        );
    }

    #[test]
    fn hostile_stored_origins_read_as_unknown() {
        let mut v = Environment::default().to_json();
        v["commit"] = json!("../../etc/passwd");
        v["branch"] = json!("main\u{1b}[2J");
        v["host"] = json!("x".repeat(201));
        v["started"] = json!(17);
        v["dirty"] = json!("yes");
        let e = Environment::from_json(&v).unwrap();
        assert_eq!(
            (e.commit, e.branch, e.host, e.started, e.dirty),
            (None, None, None, None, None)
        );
        v["commit"] = json!("ABCDEF0");
        v["branch"] = json!("feature/é");
        assert_eq!(
            Environment::from_json(&v).unwrap().commit.as_deref(),
            Some("ABCDEF0")
        );
        assert_eq!(
            Environment::from_json(&v).unwrap().branch.as_deref(),
            Some("feature/é")
        );
    }

    #[test]
    fn the_host_id_is_the_machine_ids_hash_and_stable() {
        let root = fake_root(
            "host",
            &[("etc/machine-id", "0123456789abcdef0123456789abcdef\n")],
        );
        let id = Environment::read_from(&root, None).host.unwrap();
        assert_eq!(id.len(), 16);
        assert!(!id.contains("0123456789abcdef"));
        assert_eq!(Environment::read_from(&root, None).host, Some(id));
        let other = fake_root("host2", &[("proc/sys/kernel/hostname", "builder-7\n")]);
        let by_name = Environment::read_from(&other, None).host.unwrap();
        assert_eq!(
            by_name,
            format!("{:016x}", stable_hash(b"perfbench host builder-7"))
        );
        assert_eq!(
            Environment::read_from(&fake_root("host3", &[]), None).host,
            None
        );
    }

    #[test]
    fn times_are_written_as_rfc_3339_in_utc() {
        let at = |secs| utc_time(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_735_689_599), "2024-12-31T23:59:59Z");
    }

    /// A fake root with the files `files` holds.
    fn fake_root(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let root =
            std::env::temp_dir().join(format!("perfbench-env-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, content) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        root
    }

    #[test]
    fn a_bare_metal_box_with_bad_settings_gets_every_warning() {
        let root = fake_root(
            "metal",
            &[
                (
                    "proc/cpuinfo",
                    "processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu sse2\n",
                ),
                ("proc/sys/kernel/osrelease", "6.1.0-test\n"),
                ("proc/sys/kernel/perf_event_paranoid", "2\n"),
                ("proc/sys/kernel/nmi_watchdog", "1\n"),
                ("sys/bus/event_source/devices/cpu/rdpmc", "0\n"),
                ("sys/bus/event_source/devices/software/type", "1\n"),
                (
                    "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor",
                    "powersave\n",
                ),
            ],
        );
        let env = Environment::read_from(&root, Some(3));
        assert_eq!(env.cpu_model, "Test CPU 9000");
        assert_eq!(env.kernel, "6.1.0-test");
        assert_eq!(env.pmus, ["cpu", "software"]);
        assert_eq!(
            (env.perf_event_paranoid, env.nmi_watchdog, env.rdpmc),
            (Some(2), Some(1), Some(0))
        );
        assert_eq!(env.governor.as_deref(), Some("powersave"));
        assert!(!env.virtual_machine);
        let w = env.warnings();
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("kernel.nmi_watchdog=0"));
        assert!(w[1].contains("`powersave`") && w[1].contains("performance"));
        assert!(w[2].contains("rdpmc"));
        assert_eq!(Environment::from_json(&env.to_json()), Some(env));
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_vm_without_a_pmu_has_nothing_to_fix() {
        let root = fake_root(
            "vm",
            &[
                (
                    "proc/cpuinfo",
                    "model name\t: AMD EPYC\nflags\t\t: fpu hypervisor\n",
                ),
                ("proc/sys/kernel/nmi_watchdog", "1\n"),
                ("sys/bus/event_source/devices/msr/type", "11\n"),
            ],
        );
        let env = Environment::read_from(&root, Some(0));
        assert!(env.virtual_machine);
        assert!(!env.has_cpu_pmu());
        assert_eq!(env.governor, None);
        assert!(env.warnings().is_empty(), "{:?}", env.warnings());
        let line = env.summary();
        assert!(
            line.starts_with("AMD EPYC, kernel , CPU 0, virtual machine, PMUs: msr"),
            "{line}"
        );
        assert!(line.contains("governor n/a"), "{line}");
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn an_arm64_machine_is_named_by_implementer_and_part_and_its_sysctl_is_the_fix() {
        let root = fake_root(
            "arm64",
            &[
                (
                    "proc/cpuinfo",
                    "processor\t: 0\nBogoMIPS\t: 125.00\nCPU implementer\t: 0x41\n\
                     CPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n",
                ),
                ("proc/sys/kernel/perf_user_access", "0\n"),
                ("proc/sys/kernel/nmi_watchdog", "1\n"),
                ("proc/cmdline", "console=ttyAMA0 quiet\n"),
                ("sys/bus/event_source/devices/armv8_pmuv3/type", "8\n"),
            ],
        );
        let mut env = Environment::read_from(&root, Some(0));
        assert_eq!(env.cpu_model, "ARM implementer 0x41, part 0xd0c");
        // Without pseudo-NMIs the arm64 watchdog holds no counter.
        assert!(!env.watchdog_holds_a_counter());
        assert!(!env.warnings().iter().any(|w| w.contains("NMI watchdog")));
        std::fs::write(root.join("proc/cmdline"), "irqchip.gicv3_pseudo_nmi=1\n").unwrap();
        let with_nmi = Environment::read_from(&root, Some(0));
        assert!(with_nmi.watchdog_holds_a_counter());
        assert_eq!(Environment::from_json(&with_nmi.to_json()), Some(with_nmi));
        env.nmi_watchdog = Some(0);
        assert!(!env.watchdog_holds_a_counter());
        assert!(env.has_cpu_pmu());
        assert_eq!(env.rdpmc, Some(0), "perf_user_access stands in for rdpmc");
        let warnings = env.warnings();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("sudo sysctl kernel.perf_user_access=1")),
            "{warnings:?}"
        );
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn records_of_the_first_schema_still_load_and_mismatches_are_named() {
        let old = json!({"cpu_model": "X", "kernel": "6.18", "cpu": 1});
        let env = Environment::from_json(&old).unwrap();
        assert_eq!(
            (env.cpu, env.pmus.len(), env.governor.clone()),
            (Some(1), 0, None)
        );
        let mut other = env.clone();
        other.kernel = "1.0.0".into();
        assert!(env
            .mismatch(&other)
            .unwrap()
            .contains("another kernel (1.0.0"));
        other.cpu_model = "Z80".into();
        assert!(env
            .mismatch(&other)
            .unwrap()
            .contains("another CPU model (`Z80`"));
        assert_eq!(env.mismatch(&env), None);
    }

    #[test]
    fn a_hybrid_cpu_records_the_core_type_measured() {
        let devices = "sys/bus/event_source/devices";
        let root = fake_root(
            "hybrid",
            &[
                ("proc/cpuinfo", "model name\t: Core i7-12700\n"),
                (&format!("{devices}/cpu_core/type")[..], "4\n"),
                (&format!("{devices}/cpu_core/cpus")[..], "0-7\n"),
                (&format!("{devices}/cpu_atom/type")[..], "10\n"),
                (&format!("{devices}/cpu_atom/cpus")[..], "8-11\n"),
            ],
        );
        let atom = Environment::read_from(&root, Some(9));
        assert!(atom.is_hybrid());
        assert_eq!(atom.core_type.as_deref(), Some("cpu_atom"));
        assert!(
            atom.summary().contains(", CPU 9 (cpu_atom), "),
            "{}",
            atom.summary()
        );
        assert_eq!(atom.to_json()["core_type"], "cpu_atom");
        assert_eq!(Environment::from_json(&atom.to_json()), Some(atom));
        let core = Environment::read_from(&root, Some(2));
        assert_eq!(core.core_type.as_deref(), Some("cpu_core"));
        let unpinned = Environment::read_from(&root, None);
        assert_eq!(unpinned.core_type, None);
        assert!(unpinned.to_json().get("core_type").is_none());
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn this_machine_has_a_kernel_release() {
        assert!(!Environment::current(None).kernel.is_empty());
    }
}
