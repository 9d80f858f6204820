//! Hostile inputs, run by tests/tests/inputs.rs only: ids with control
//! characters, an argument whose `Display` panics (with
//! `FIXTURE_PANIC_DISPLAY` set) and arguments written alike (with
//! `FIXTURE_DUPLICATE_IDS` set). Every routine touches fresh pages, so its
//! page-fault count is exact.

use std::fmt;

use perfbench::fixtures::touch_fresh_pages;
use perfbench::{perfbench, Bencher};

#[perfbench]
fn plain(b: &mut Bencher) {
    b.iter(|| touch_fresh_pages(1));
}

/// A newline, ESC with a colour command, and NUL in its ids.
#[perfbench(args = ["line\nbreak", "esc\u{1b}[31mred", "nul\0byte"])]
fn hostile(b: &mut Bencher, _name: &str) {
    b.iter(|| touch_fresh_pages(2));
}

/// An argument whose `Display` panics where `FIXTURE_PANIC_DISPLAY` is set.
struct Touchy;

impl fmt::Display for Touchy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if std::env::var_os("FIXTURE_PANIC_DISPLAY").is_some() {
            panic!("deliberate panic in a Display");
        }
        f.write_str("touchy")
    }
}

#[perfbench(args = [Touchy])]
fn touchy(b: &mut Bencher, _arg: Touchy) {
    b.iter(|| touch_fresh_pages(1));
}

/// Two arguments written alike where `FIXTURE_DUPLICATE_IDS` is set.
fn names() -> Vec<String> {
    let same = std::env::var_os("FIXTURE_DUPLICATE_IDS").is_some();
    let second = if same { "dup" } else { "other" };
    vec!["dup".to_string(), second.to_string()]
}

#[perfbench(args = names())]
fn named(b: &mut Bencher, _name: String) {
    b.iter(|| touch_fresh_pages(1));
}

perfbench::main!();
