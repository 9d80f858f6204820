use perfbench::perfbench;

#[perfbench(warm_up_time = 86401)]
fn f() -> u64 {
    1
}

perfbench::main!();
