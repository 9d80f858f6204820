//! The text of `--list-events`.

use std::path::Path;

use crate::counter::event::{list_events, Event};

/// The event list, grouped like `perf list`; `probe` says whether an event
/// opens here.
pub fn render(root: &Path, probe: impl Fn(&Event) -> Result<(), String>) -> String {
    list_events(root, probe)
}
