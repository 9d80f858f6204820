//! The run-wide settings a suite's code gives (`save_baseline`,
//! `noise_threshold`, `without_plots`, …), as the command-line flags that
//! mean the same: perfbench reads them before the command line, whose
//! flags win, as Criterion's do over its config.

use std::cell::{Cell, RefCell};

thread_local! {
    /// Whether the group functions run to collect them.
    static COLLECTING: Cell<bool> = const { Cell::new(false) };
    /// The flags collected, with their values.
    static FLAGS: RefCell<Vec<Vec<String>>> = const { RefCell::new(Vec::new()) };
}

/// Gives `flag` (with its value, if any) for the whole run, when the
/// suite's flags are being collected.
pub(crate) fn give(flag: &[&str]) {
    if COLLECTING.with(Cell::get) {
        FLAGS.with(|f| {
            f.borrow_mut()
                .push(flag.iter().map(|s| s.to_string()).collect())
        });
    }
}

/// The flags `run` gives while it runs, each once, in the order first
/// given (a flag given again with another value: the later holds, as on a
/// command line).
pub(crate) fn collect(run: impl FnOnce()) -> Vec<String> {
    COLLECTING.with(|c| c.set(true));
    FLAGS.with(|f| f.borrow_mut().clear());
    run();
    COLLECTING.with(|c| c.set(false));
    let given = FLAGS.with(|f| std::mem::take(&mut *f.borrow_mut()));
    let mut once: Vec<Vec<String>> = Vec::new();
    for flag in given {
        if !once.contains(&flag) {
            once.push(flag);
        }
    }
    once.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_given_once_and_only_while_collected() {
        give(&["--noplot"]);
        let flags = collect(|| {
            give(&["--noplot"]);
            give(&["--save-baseline", "main"]);
            give(&["--noplot"]);
            give(&["--save-baseline", "next"]);
        });
        assert_eq!(
            flags,
            [
                "--noplot",
                "--save-baseline",
                "main",
                "--save-baseline",
                "next"
            ]
        );
        give(&["--noplot"]);
        assert!(collect(|| {}).is_empty());
    }
}
