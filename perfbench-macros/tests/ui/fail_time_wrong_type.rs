use perfbench::perfbench;

const SECONDS: f64 = 2.0;

#[perfbench(warm_up_time = SECONDS)]
fn f() -> u64 {
    1
}

perfbench::main!();
