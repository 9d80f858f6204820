use perfbench::perfbench;

#[perfbench(types = [u8, u64])]
fn f() -> u64 {
    1
}

perfbench::main!();
