//! What cannot mean under perfbench what it means under Criterion, said in
//! one line, once a run: a suite's group functions run once per round, and
//! their settings with them.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// The lines said so far.
static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Says `line` with `say`, unless it was said before.
fn once(line: &str, say: fn(&str)) {
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if said.insert(line.to_string()) {
        say(line);
    }
}

/// Says `line` as a note on stderr, unless it was said before.
pub(crate) fn note_once(line: &str) {
    once(line, perfbench::run::stderr::note);
}

/// Says that a suite's `setting` has no effect under perfbench, and why.
pub(crate) fn not_used(setting: &str, why: &str) {
    note_once(&format!("the suite's `{setting}` is not used: {why}"));
}

/// Says `line` as an error on stderr, unless it was said before.
pub(crate) fn error_once(line: &str) {
    once(line, perfbench::run::stderr::error);
}
