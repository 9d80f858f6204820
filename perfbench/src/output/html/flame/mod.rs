//! Flame graphs of a benchmark's profile, as sections of its page: the
//! profile's own ([`flame_graph`]) and what moved between two profiles
//! ([`differential_flame_graph`]: the after profile's shape with the
//! frames only the before profile had, each frame coloured by the growth,
//! red, or shrinkage, blue, of its samples per iteration).
//!
//! Each is inline SVG, a nested `<svg>` per frame (which clips its label
//! to its width), with a small script (`flame.js`): hovering a frame shows
//! its name and figures, clicking zooms into it, a button resets. No
//! network resource, no inline handler; every name is in the markup only,
//! HTML-escaped ([`esc`]), and the script reads it from the DOM, so no
//! name is ever part of a script. One profile always makes the same bytes;
//! its size is bounded by the layout (`layout.rs`).

mod layout;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::text::esc;
use crate::analysis::notes::{count, four_digits};
use crate::measure::environment::stable_hash;
use crate::output::format::percent;
use crate::profile::Profile;
use layout::{layout, samples_in, stacks_of, DrawnFrame, Stacks};

pub use layout::{MAX_DRAWN, MIN_SHARE_OF};

/// The script of every flame graph: hover, zoom, reset. No data of its
/// own.
const SCRIPT: &str = include_str!("flame.js");

/// The height of a frame's row, in pixels.
const ROW: usize = 17;

/// The section of `profile`'s flame graph.
pub fn flame_graph(profile: &Profile) -> String {
    let mut out = section_head("profile", "Profile");
    let stacks = stacks_of(&profile.stacks);
    let _ = writeln!(
        out,
        "<p>{} of <code>{}</code> standing for {} in {}{}. Hover a frame for its figures, click \
         to zoom.</p>",
        count_u128(profile.samples.into(), "sample"),
        esc(&profile.event),
        count_u128(profile.events().into(), "event"),
        count_u128(profile.iterations.into(), "iteration"),
        lost(profile.lost)
    );
    let (frames, total) = layout(&stacks);
    if total == 0 {
        out.push_str("<p class=\"note\">No samples: no flame graph.</p>\n</section>\n");
        return out;
    }
    graph(&mut out, &frames, total, |f| {
        let share = percent_of(f.samples, total);
        let figures = format!("{} ({share})", count_u128(f.samples, "event"));
        (name_of(f, &stacks), figures, colour(f, &stacks), "")
    });
    section_end(&mut out);
    out
}

/// The section of the differential flame graph of `before` and `after`:
/// the shape of both (`both_shapes`: `after`'s, and what only `before`
/// had, so a function that vanished shows, blue), each frame coloured by
/// the change of its samples per iteration (each stack's count over its
/// profile's iterations), red where it grew and blue where it shrank, as
/// deep as the largest change.
pub fn differential_flame_graph(before: &Profile, after: &Profile) -> String {
    let mut out = section_head("profile-change", "Profile change");
    let _ = writeln!(
        out,
        "<p>Per iteration, this profile ({} of <code>{}</code> in {}) against the one \
         before ({} of <code>{}</code> in {}): red grew, blue shrank; a frame only the \
         one before had is drawn as wide as it was per iteration. Hover a frame for its \
         figures, click to zoom.</p>",
        count_u128(after.samples.into(), "sample"),
        esc(&after.event),
        count_u128(after.iterations.into(), "iteration"),
        count_u128(before.samples.into(), "sample"),
        esc(&before.event),
        count_u128(before.iterations.into(), "iteration"),
    );
    let why_not = if before.event != after.event {
        Some("the two profiles sample different events")
    } else if before.iterations == 0 || after.iterations == 0 {
        Some("a profile of no iterations has no events per iteration")
    } else {
        None
    };
    let why_not = why_not.or((after.events() == 0).then_some("no samples after"));
    if let Some(why) = why_not {
        let _ = writeln!(out, "<p class=\"note\">Not drawn: {why}.</p>\n</section>");
        return out;
    }
    let union = both_shapes(before, after);
    let stacks = stacks_of(&union);
    let (frames, total) = layout(&stacks);
    let per = |n: u128, p: &Profile| n as f64 / p.iterations as f64;
    let was = samples_in(&frames, &stacks, &before.stacks);
    let is = samples_in(&frames, &stacks, &after.stacks);
    let moved: Vec<(f64, f64)> = (was.into_iter().zip(is))
        .map(|(was, is)| (per(was, before), per(is, after)))
        .collect();
    let largest = moved.iter().map(|(b, a)| (a - b).abs()).fold(0.0, f64::max);
    let mut at = 0;
    graph(&mut out, &frames, total, |f| {
        let (b, a) = moved[at];
        at += 1;
        let change = match (b, a) {
            (0.0, _) => "new".to_string(),
            (_, 0.0) => "gone".to_string(),
            (b, a) => percent(a / b - 1.0),
        };
        let figures = format!(
            "before {} events per iteration, after {} ({change})",
            four_digits(b),
            four_digits(a)
        );
        let (fill, class) = change_colour(a - b, largest);
        (name_of(f, &stacks), figures, fill, class)
    });
    section_end(&mut out);
    out
}

/// The stacks a differential lays out: each of `after`'s with its events,
/// and each only `before` has with its events scaled to `after`'s
/// iterations (at least 1), so that a frame that vanished is as wide as
/// it was per iteration. A frame's figures never come from these widths
/// but from each profile's own stacks ([`samples_in`]).
fn both_shapes(before: &Profile, after: &Profile) -> BTreeMap<Vec<String>, u64> {
    let mut union = after.stacks.clone();
    for (stack, &n) in &before.stacks {
        if !union.contains_key(stack) {
            let scaled =
                u128::from(n) * u128::from(after.iterations) / u128::from(before.iterations);
            union.insert(
                stack.clone(),
                u64::try_from(scaled).unwrap_or(u64::MAX).max(1),
            );
        }
    }
    union
}

/// The start of a section `id` titled `title`.
fn section_head(id: &str, title: &str) -> String {
    format!("<section id=\"{id}\" class=\"flame\">\n<h2>{title}</h2>\n")
}

/// The hover line, the reset button and the script, closing the section.
fn section_end(out: &mut String) {
    let _ = write!(
        out,
        "<p class=\"flame-hover\">&nbsp;</p>\n<button type=\"button\" class=\"flame-reset\">\
         Reset zoom</button>\n<script>\n{SCRIPT}</script>\n</section>\n"
    );
}

/// The graph of `frames` (of `total` samples), each drawn with what
/// `describe` gives it: its name, its figures, its fill and a class.
fn graph<'a>(
    out: &mut String,
    frames: &[DrawnFrame],
    total: u128,
    mut describe: impl FnMut(&DrawnFrame) -> (String, String, String, &'a str),
) {
    let depth = frames.iter().map(|f| f.depth + 1).max().unwrap_or(1);
    let _ = writeln!(
        out,
        "<svg class=\"flame-graph\" width=\"100%\" height=\"{}\" data-total=\"{total}\" \
         role=\"img\" aria-label=\"flame graph\">",
        depth * ROW
    );
    for f in frames {
        let (name, figures, fill, class) = describe(f);
        let name = esc(&name);
        let class = if class.is_empty() {
            String::new()
        } else {
            format!(" {class}")
        };
        let _ = writeln!(
            out,
            "<svg class=\"f{class}\" x=\"{}%\" y=\"{}\" width=\"{}%\" height=\"{}\" \
             data-s=\"{}\" data-n=\"{}\" data-d=\"{}\" fill=\"{fill}\">\
             <title>{name}\n{}</title><rect width=\"100%\" height=\"100%\"/>\
             <text x=\"3\" y=\"12\">{name}</text></svg>",
            share(f.start, total),
            f.depth * ROW,
            share(f.samples, total),
            ROW - 1,
            f.start,
            f.samples,
            f.depth,
            esc(&figures)
        );
    }
    out.push_str("</svg>\n");
}

/// A frame's name, or what a merged box holds.
fn name_of(f: &DrawnFrame, stacks: &Stacks<'_>) -> String {
    match f.merged {
        None => f.path(stacks).last().expect("a frame").clone(),
        Some(n) => format!("{} merged", count(n, "narrow frame")),
    }
}

/// `n` of `total` as a percentage of the width, exact to 4 decimals.
fn share(n: u128, total: u128) -> String {
    let text = format!("{:.4}", n as f64 * 100.0 / total as f64);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

/// `n` of `total` as a share: `12.50 %`.
fn percent_of(n: u128, total: u128) -> String {
    format!("{:.2} %", n as f64 * 100.0 / total as f64)
}

/// `n` things, for counts past `usize`.
fn count_u128(n: u128, noun: &str) -> String {
    match usize::try_from(n) {
        Ok(n) => count(n, noun),
        Err(_) => format!("{n} {noun}s"),
    }
}

/// `, N lost` where the kernel dropped samples.
fn lost(n: u64) -> String {
    match n {
        0 => String::new(),
        n => format!(
            " ({} lost: the ring was full)",
            count_u128(n.into(), "sample")
        ),
    }
}

/// A frame's warm colour, from its name (the same name, the same colour);
/// grey for a merged box.
fn colour(f: &DrawnFrame, stacks: &Stacks<'_>) -> String {
    if f.merged.is_some() {
        return "#cccccc".to_string();
    }
    let h = stable_hash(name_of(f, stacks).as_bytes());
    let r = 205 + h % 50;
    let g = 80 + (h >> 8) % 130;
    let b = 30 + (h >> 16) % 50;
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The fill and class of a change `d` of events per iteration, as deep as
/// its share of the `largest`: red where it grew, blue where it shrank,
/// white where it did not move.
fn change_colour(d: f64, largest: f64) -> (String, &'static str) {
    if d == 0.0 || largest == 0.0 {
        return ("#ffffff".to_string(), "same");
    }
    let k = (d.abs() / largest * 200.0).round() as u64;
    let pale = 255 - k.min(200);
    match d > 0.0 {
        true => (format!("#ff{pale:02x}{pale:02x}"), "grew"),
        false => (format!("#{pale:02x}{pale:02x}ff"), "shrank"),
    }
}

#[cfg(test)]
mod tests;
