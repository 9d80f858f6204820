//! The cells of the index's summary: a metric's estimate and its change,
//! each as much as a reader needs (a quiet count, `analysis::quiet`, shows
//! no ± and only a verdict that matters). Group pages use the estimate's.

use super::super::text::{
    change_interval, esc, interval, relative_change, sort_key, value, verdict_class,
};
use super::super::{change_of, metric_of};
use super::{not_compared, target_text};
use crate::analysis::comparison::{Target, Verdict};
use crate::analysis::quiet::is_quiet;
use crate::counter::event::Unit;
use crate::store::bench_summary::BenchSummary as Summary;

/// Whether `e`'s `metric` is quiet (`analysis::quiet`): its cells say
/// only what a reader needs of it.
pub(super) fn quiet_in(e: &Summary, metric: &str) -> bool {
    metric_of(e, metric).is_some_and(|m| is_quiet(m.unit, &m.estimate))
}

/// A metric's estimate ± half its interval, the interval on hover; `—`
/// where the benchmark lacks the metric; a quiet one's estimate alone, as
/// its ± is noise around nothing.
pub(in crate::output::html) fn estimate_cell(e: &Summary, metric: &str, unit: Unit) -> String {
    let Some(m) = metric_of(e, metric) else {
        return "<td class=\"num\">—</td>".into();
    };
    let s = &m.estimate;
    if is_quiet(m.unit, s) {
        return format!(
            "<td class=\"num quiet\"{} title=\"95 % interval {}\">{}</td>",
            sort_key(s.point),
            interval(s, unit),
            value(s.point, unit)
        );
    }
    let half = (s.ci.high - s.ci.low) / 2.0;
    format!(
        "<td class=\"num\"{} title=\"95 % interval {}\">{} <small>± {}</small></td>",
        sort_key(s.point),
        interval(s, unit),
        value(s.point, unit),
        value(half, unit)
    )
}

/// A metric's change, coloured (and where it is beyond the noise, bold) by
/// verdict, with the verdict, interval and p-value on hover; `—` with why
/// where there is none.
pub(super) fn change_cell(e: &Summary, metric: &str, against: &Target) -> String {
    let Some(c) = change_of(e.comparison.as_ref(), metric) else {
        return format!(
            "<td class=\"num change\" title=\"{}\">—</td>",
            no_change_why(e)
        );
    };
    let class = verdict_class(c.verdict);
    let (mut relative, key) = relative_change(c);
    let verdict = c.verdict.as_str();
    // A quiet count's relative change is noise (-100 % of 1e-6): its
    // verdict alone where it matters, else nothing.
    if quiet_in(e, metric) {
        if !matches!(c.verdict, Verdict::Regressed | Verdict::Improved) {
            return "<td class=\"num change quiet\" title=\"a rare count: a change is \
                    shown only where it regressed or improved\"></td>"
                .into();
        }
        relative = verdict.to_string();
    }
    let ci = change_interval(c)
        .map(|ci| format!(", 95 % interval {ci}"))
        .unwrap_or_default();
    // A benchmark not in the run shows the change its own run found.
    let other = e
        .comparison
        .as_ref()
        .map(|c| &c.against)
        .filter(|t| *t != against)
        .map(|t| {
            esc(&format!(
                "; as its own run compared it, against {}",
                target_text(t)
            ))
        })
        .unwrap_or_default();
    format!(
        "<td class=\"num change {class}\"{key} title=\"{verdict}{ci}, p = {:.3}{other}\">{relative}</td>",
        c.change.p_value
    )
}

/// Why a benchmark's metric has no change, as an attribute's text.
fn no_change_why(e: &Summary) -> String {
    if let Some((_, why)) = not_compared(e.comparison.as_ref()) {
        return esc(&why);
    }
    let against = e.comparison.as_ref().map(|c| &c.against);
    let target = against.map_or("the baseline".into(), target_text);
    esc(&format!("not in {target}"))
}
