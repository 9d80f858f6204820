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
    let terms = pmu::parse_terms(body).map_err(|why| spec_error(spec, why.to_string()))?;
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
                    .map_err(|why| spec_error(spec, why.to_string()))?;
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
            .map_err(|why| spec_error(spec, why.to_string()))
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
mod tests;
