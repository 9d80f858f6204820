use perfbench::perfbench;

#[perfbench(sample_count = 1_000_001)]
fn f() -> u64 {
    1
}

perfbench::main!();
