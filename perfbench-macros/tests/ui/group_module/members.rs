// The members of tests/ui/fail_group_not_inline.rs's module.
#[perfbench::perfbench]
fn f() -> u64 {
    1
}
