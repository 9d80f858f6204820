use perfbench::perfbench;

#[perfbench(group = sorting)]
fn f() -> u64 {
    1
}

perfbench::main!();
