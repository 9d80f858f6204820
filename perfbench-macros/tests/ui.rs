//! Compile tests of `#[perfbench]`: misuse is a compile error pointing at the
//! culprit, and the documented forms compile (and run once, as tests).
//!
//! Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p perfbench-macros --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail_*.rs");
    t.pass("tests/ui/pass_*.rs");
}
