use perfbench::perfbench;

#[perfbench(mode = "sometimes")]
fn f() -> u64 {
    1
}

perfbench::main!();
