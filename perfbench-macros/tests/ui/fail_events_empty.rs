use perfbench::perfbench;

#[perfbench(events = " ")]
fn f() -> u64 {
    1
}

perfbench::main!();
