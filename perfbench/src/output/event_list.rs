//! The text of `--list-events`: every event grouped like `perf list`, each
//! marked with why it does not open here, or the reason given once where a
//! whole group shares it.

use std::path::Path;

use crate::counter::event::{catalogue, Event, Listed, ListedGroup, ListedKind, Probed};

/// The event list of the PMUs under `root`; `probe` says whether an event
/// opens here.
pub fn render(root: &Path, probe: impl Fn(&Event) -> Probed) -> String {
    let mut out = String::new();
    for group in catalogue(root, probe) {
        if !group.events.is_empty() {
            out.push_str(&group_text(&group));
        }
    }
    out.push_str(
        "\nModifiers: :u user, :k kernel, :h hypervisor (default: user space only); on PMU \
         events after the closing slash (msr/tsc/u). Raw: rNNNN (hex). PMU terms: \
         pmu/term=value,…/ (decimal or 0x hex).\n",
    );
    out
}

/// A group's heading and its events, one per line.
fn group_text(group: &ListedGroup) -> String {
    let title = title(&group.kind);
    let events = &group.events;
    let shared = events[0]
        .unavailable
        .clone()
        .filter(|first| events.iter().all(|e| e.unavailable.as_ref() == Some(first)));
    let mut out = match &shared {
        Some(why) => format!("{title} (none countable here: {why}):\n"),
        None => format!("{title}:\n"),
    };
    for e in events {
        let shown = format!("{}{}", e.name, note(e));
        match &e.unavailable {
            Some(why) if shared.is_none() => {
                out.push_str(&format!("  {shown:<28} not countable here: {why}\n"))
            }
            _ => match &e.remark {
                Some(how) => out.push_str(&format!("  {shown:<28} {how}\n")),
                None => out.push_str(&format!("  {shown}\n")),
            },
        }
    }
    out
}

/// The heading of a group.
fn title(kind: &ListedKind) -> String {
    match kind {
        ListedKind::Hardware => "hardware events".into(),
        ListedKind::HardwareCache => "hardware cache events".into(),
        ListedKind::Software => "software events".into(),
        ListedKind::Allocation => "allocation counts (perfbench::CountingAllocator)".into(),
        ListedKind::Pmu { name, terms } if terms.is_empty() => format!("{name} PMU events"),
        ListedKind::Pmu { name, terms } => {
            format!("{name} PMU events (terms: {})", terms.join(", "))
        }
    }
}

/// The scale of a PMU event: ` (× 2.3283064365386963e-10 Joules)`.
fn note(e: &Listed) -> String {
    e.scale
        .as_ref()
        .map(|s| format!(" (× {:e} {})", s.factor, s.unit).replace("  ", " "))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::event::{parse, Source};
    use crate::kernel::pmu;
    use crate::kernel::pmu::tests::intel_hybrid;

    #[test]
    fn listing_groups_like_perf_list_and_shares_common_reasons() {
        let t = intel_hybrid();
        let text = render(t.root(), |e| match e.source {
            Source::Hardware => Err("no hardware PMU".into()),
            Source::Software if e.name == "page-faults" => Ok(Some("user space only".into())),
            Source::Software => Ok(None),
            Source::Pmu if e.name.starts_with("power/") => Err("CPU-wide only".into()),
            Source::Pmu if e.name == "msr/aperf/" => Err("not here".into()),
            Source::Pmu => Ok(None),
            Source::Allocator => Err("no CountingAllocator".into()),
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
        assert!(lines.contains(&"  page-faults                  user space only"));
        assert!(
            lines.contains(&"  minor-faults"),
            "as named: the name alone"
        );
        assert!(at("hardware events") < at("hardware cache events"));
        assert!(at("hardware cache events") < at("software events:"));
        assert!(at("software events:") < at("allocation counts"));
        assert!(at("allocation counts") < at("cpu_atom PMU events"));
        assert_eq!(
            lines[at("allocation counts")],
            "allocation counts (perfbench::CountingAllocator) (none countable here: no \
             CountingAllocator):"
        );
        assert!(lines.contains(&"  alloc-bytes"));
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
    fn the_live_msr_pmu_is_listed() {
        let root = pmu::live_root();
        if parse("msr/tsc/").is_err() {
            return; // no msr PMU here
        }
        let listing = render(root, |_| Ok(None));
        assert!(listing.lines().any(|l| l.trim() == "msr/tsc/"), "{listing}");
    }
}
