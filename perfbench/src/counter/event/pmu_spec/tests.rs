//! The sysfs PMU specs' tests, on the fake sysfs trees of
//! `kernel::pmu::tests`: aliases, terms through format bit ranges,
//! generalized events aimed at a hybrid core's PMU, and malformed specs.

use super::super::*;
use super::*;
use crate::kernel::pmu::tests::{amd, intel_hybrid, ScratchDir};

/// (spec, type, config, config1): values worked out by hand from the
/// fake trees' format files (event=config:0-7, umask=config:8-15,
/// edge=config:18, cmask=config:24-31, ldlat=config1:0-15; AMD
/// event=config:0-7,32-35).
type SpecCase = (&'static str, u32, u64, u64);

fn check(root: &Path, cases: &[SpecCase]) {
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
    let garbage = ScratchDir::new("garbage-event");
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
        assert!(
            !e.to_string().contains("  "),
            "a run of spaces: {spec}: {e}"
        );
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
fn live_msr_tsc_resolves_to_the_msr_type() {
    let root = pmu::live_root();
    let Ok(kind) = std::fs::read_to_string(root.join("msr/type")) else {
        return; // no msr PMU here
    };
    let e = parse("msr/tsc/").unwrap();
    assert_eq!(e.attr.kind, kind.trim().parse::<u32>().unwrap());
    assert_eq!((e.attr.config, e.attr.config1, e.attr.config2), (0, 0, 0));
    assert_eq!(e.source, Source::Pmu);
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
