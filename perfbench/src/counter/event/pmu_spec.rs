//! PMU events of sysfs PMUs: `pmu/alias/`, `pmu/term=value,…/` through the
//! PMU's `format/` bit ranges, and generalized events aimed at a core PMU
//! (`cpu_core/cycles/`).

use std::path::Path;

use super::{
    generalized, is_core_pmu, privilege_levels, spec_error, with_extended_type, Event, Scale,
    Source, SpecError, Unit,
};
use crate::kernel::pmu::{self, Alias, ConfigWords, Pmu, PmuError, Term, TermValue};
use crate::kernel::sys::CounterAttr;

/// The privilege levels excluded: `(user, kernel, hypervisor)`.
type Levels = (bool, bool, bool);

/// `pmu/terms/modifiers`; `rest` is what follows the first slash.
pub(super) fn parse_pmu(
    spec: &str,
    pmu_name: &str,
    rest: &str,
    root: &Path,
) -> Result<Event, SpecError> {
    let (body, modifiers) = split_spec(spec, pmu_name, rest)?;
    let levels = levels_of(spec, pmu_name, modifiers)?;
    let pmu = load(spec, pmu_name, root)?;
    let terms = pmu::parse_terms(body).map_err(|why| spec_error(spec, why))?;
    if let Some(event) = generalized_on_core(spec, &pmu, &terms, levels) {
        return Ok(event);
    }
    let (words, scale) = encode_terms(spec, &pmu, &terms)?;
    let source = if is_core_pmu(pmu_name) {
        Source::Hardware
    } else {
        Source::Pmu
    };
    Ok(event(spec, attr(pmu.kind, words, levels), source, scale))
}

/// The terms between the slashes, and the modifiers after the closing one.
fn split_spec<'a>(
    spec: &str,
    pmu_name: &str,
    rest: &'a str,
) -> Result<(&'a str, Option<&'a str>), SpecError> {
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
    Ok((body, modifiers))
}

/// The levels to exclude. Uncore-like PMUs (`msr`, `power`, …) count things
/// that belong to no privilege level, and most reject any exclude flag (the
/// kernel's PERF_PMU_CAP_NO_EXCLUDE: EINVAL), so without modifiers they
/// count everything; core PMUs keep the user-space-only default.
fn levels_of(spec: &str, pmu_name: &str, modifiers: Option<&str>) -> Result<Levels, SpecError> {
    if modifiers.is_none() && !is_core_pmu(pmu_name) {
        Ok((false, false, false))
    } else {
        privilege_levels(modifiers, spec)
    }
}

/// The PMU from sysfs, or an error naming the PMUs there are.
fn load(spec: &str, pmu_name: &str, root: &Path) -> Result<Pmu, SpecError> {
    match Pmu::load(root, pmu_name) {
        Ok(pmu) => Ok(pmu),
        Err(PmuError::Missing) => {
            let names = pmu::pmu_names(root);
            Err(spec_error(
                spec,
                format!(
                    "unknown PMU `{pmu_name}` (PMUs here: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ))
        }
        Err(PmuError::Malformed(why)) => Err(spec_error(spec, format!("PMU `{pmu_name}`: {why}"))),
    }
}

/// What to open for these config words at these levels.
fn attr(kind: u32, [config, config1, config2]: ConfigWords, levels: Levels) -> CounterAttr {
    let (exclude_user, exclude_kernel, exclude_hv) = levels;
    CounterAttr {
        kind,
        config,
        config1,
        config2,
        exclude_user,
        exclude_kernel,
        exclude_hv,
        inherit: false,
    }
}

/// The event named by the user's spec.
fn event(spec: &str, attr: CounterAttr, source: Source, scale: Option<Scale>) -> Event {
    Event {
        name: spec.to_string(),
        attr,
        unit: Unit::Count,
        source,
        scale,
        kernel_by_default: false,
    }
}

/// `cpu_core/cycles/`: a generalized event on that core PMU, where the one
/// term is neither an alias nor a format term of the PMU.
fn generalized_on_core(spec: &str, pmu: &Pmu, terms: &[Term], levels: Levels) -> Option<Event> {
    let [only] = terms else { return None };
    let plain_name = only.value == TermValue::Bare
        && !pmu.aliases.contains_key(&only.name)
        && !pmu.formats.contains_key(&only.name);
    if !plain_name || !is_core_pmu(&pmu.name) {
        return None;
    }
    let (kind, config) = generalized(&only.name)?;
    let plain = event(
        spec,
        attr(kind, [config, 0, 0], levels),
        Source::Hardware,
        None,
    );
    Some(if pmu::HYBRID_PMUS.contains(&pmu.name.as_str()) {
        with_extended_type(&plain, pmu.kind)
    } else {
        plain
    })
}

/// The config words of `terms`, and the scale of an alias among them.
fn encode_terms(
    spec: &str,
    pmu: &Pmu,
    terms: &[Term],
) -> Result<(ConfigWords, Option<Scale>), SpecError> {
    let mut words: ConfigWords = [0; 3];
    let mut scale = None;
    for (i, term) in terms.iter().enumerate() {
        match term.value {
            TermValue::Bare => {
                if let Some(alias) = pmu.aliases.get(&term.name) {
                    encode_alias(spec, pmu, alias, &terms[i + 1..], &mut words)?;
                    scale = scale_of(alias).or(scale);
                } else {
                    encode_bare_term(spec, pmu, &term.name, &mut words)?;
                }
            }
            TermValue::Number(value) => {
                if !pmu.formats.contains_key(&term.name)
                    && pmu::ConfigWord::from_name(&term.name).is_none()
                {
                    return Err(spec_error(spec, unknown_pmu_term(pmu, &term.name)));
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
    Ok((words, scale))
}

/// Encodes the terms of `alias`; a term the alias leaves to the user
/// (`term=?`) must be given among the `later` terms of the spec.
fn encode_alias(
    spec: &str,
    pmu: &Pmu,
    alias: &Alias,
    later: &[Term],
    words: &mut ConfigWords,
) -> Result<(), SpecError> {
    let pmu_name = &pmu.name;
    for at in &alias.terms {
        let value = match at.value {
            TermValue::Number(v) => v,
            TermValue::Bare => 1,
            TermValue::Required => {
                let given = later
                    .iter()
                    .any(|t| t.name == at.name && matches!(t.value, TermValue::Number(_)));
                if !given {
                    return Err(spec_error(
                        spec,
                        format!(
                            "alias `{}` needs a value for `{}` (`{pmu_name}/{},{}=N/`)",
                            alias.name, at.name, alias.name, at.name
                        ),
                    ));
                }
                continue;
            }
        };
        pmu.encode_term(&at.name, value, words)
            .map_err(|why| spec_error(spec, format!("alias `{}`: {why}", alias.name)))?;
    }
    Ok(())
}

/// The `.scale` and `.unit` of an alias that has them.
fn scale_of(alias: &Alias) -> Option<Scale> {
    (alias.scale.is_some() || alias.unit.is_some()).then(|| Scale {
        factor: alias.scale.unwrap_or(1.0),
        unit: alias.unit.clone().unwrap_or_default(),
    })
}

/// A bare term that is no alias: a one-bit format term, else an error.
fn encode_bare_term(
    spec: &str,
    pmu: &Pmu,
    name: &str,
    words: &mut ConfigWords,
) -> Result<(), SpecError> {
    let pmu_name = &pmu.name;
    if pmu.formats.contains_key(name) {
        pmu.encode_term(name, 1, words)
            .map_err(|why| spec_error(spec, why))
    } else if generalized(name).is_some() && is_core_pmu(pmu_name) {
        Err(spec_error(
            spec,
            format!(
                "generalized event `{}` cannot be combined with other terms (write `{pmu_name}/{}/` alone)",
                name, name
            ),
        ))
    } else {
        Err(spec_error(spec, unknown_pmu_term(pmu, name)))
    }
}

/// Why `name` is no event or term of `pmu`, with the closest ones.
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

#[cfg(test)]
mod tests {
    use super::super::*;
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
}
