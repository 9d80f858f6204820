// An unknown key a typo away from a known one: the error suggests it.
use perfbench::perfbench;

#[perfbench(sample_cuont = 10)]
fn f() -> u64 {
    1
}

fn main() {}
