use perfbench::perfbench;

#[perfbench(measurement_time = -1.5)]
fn f() -> u64 {
    1
}

perfbench::main!();
