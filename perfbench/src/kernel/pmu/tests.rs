//! Fake sysfs trees (an Intel hybrid, an AMD and an Arm big.LITTLE
//! machine) shared by every test that reads PMUs, and the tests of this
//! module on them.

use super::*;

pub(crate) use crate::kernel::scratch_dir::ScratchDir;

/// An Intel hybrid machine: `cpu_core` (type 4, CPUs 0-7,16) and
/// `cpu_atom` (type 10, CPUs 8-15), plus `msr` and `power`.
pub(crate) fn intel_hybrid() -> ScratchDir {
    let t = ScratchDir::new("intel");
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
pub(crate) fn amd() -> ScratchDir {
    let t = ScratchDir::new("amd");
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
pub(crate) fn big_little() -> ScratchDir {
    let t = ScratchDir::new("big-little");
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
fn per_cpu(tree: &ScratchDir, cpus: std::ops::Range<u32>, file: &str, content: &str) {
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
    let arm = ScratchDir::new("one-arm-pmu");
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
    let e = e.to_string();
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
    let t = ScratchDir::new("garbage");
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

#[test]
fn sysfs_text_errors_hold_their_culprit_and_print_one_line() {
    let cases: [(Result<(), TermError>, TermError, &str); 5] = [
        (
            FormatField::parse("config:7-0").map(drop),
            TermError::Backwards {
                range: "7-0".into(),
                text: "config:7-0".into(),
            },
            "range `7-0` runs backwards in `config:7-0`",
        ),
        (
            FormatField::parse("config:0-7,32-35")
                .unwrap()
                .encode("event", 0x1000, &mut [0; 3]),
            TermError::TooWideForField {
                term: "event".into(),
                value: 0x1000,
                field: FormatField::parse("config:0-7,32-35").unwrap(),
            },
            "value 0x1000 of `event` is wider than its 12-bit field (config:0-7,32-35)",
        ),
        (
            parse_terms("event=0xc0,,umask=1").map(drop),
            TermError::EmptyTerm,
            "empty term (a stray comma?)",
        ),
        (
            parse_terms("event=0x10000000000000000").map(drop),
            TermError::ValueTooWide {
                part: "event=0x10000000000000000".into(),
                value: "0x10000000000000000".into(),
            },
            "`event=0x10000000000000000`: value `0x10000000000000000` is wider than 64 bits",
        ),
        (
            Pmu {
                name: "msr".into(),
                kind: 9,
                formats: BTreeMap::new(),
                aliases: BTreeMap::new(),
                cpus: None,
            }
            .encode_term("event", 1, &mut [0; 3]),
            TermError::NoSuchTerm {
                pmu: "msr".into(),
                term: "event".into(),
                known: Vec::new(),
            },
            "PMU `msr` has no term `event` (its terms: none)",
        ),
    ];
    for (got, error, text) in cases {
        assert_eq!(got, Err(error.clone()));
        assert_eq!(error.to_string(), text);
    }
    let range = CpuListError::BadRange {
        range: "3-1".into(),
    };
    assert_eq!(parse_cpu_list("3-1"), Err(range.clone()));
    assert_eq!(range.to_string(), "bad CPU range `3-1`");
    let cpu = CpuListError::NotCpu {
        part: "a".into(),
        text: "0,a".into(),
    };
    assert_eq!(parse_cpu_list("0,a"), Err(cpu.clone()));
    assert_eq!(cpu.to_string(), "`a` is not a CPU number in `0,a`");
}
