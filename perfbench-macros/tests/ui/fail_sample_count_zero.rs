use perfbench::perfbench;

#[perfbench(sample_count = 0)]
fn f() -> u64 {
    1
}

perfbench::main!();
