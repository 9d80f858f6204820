// A thread count is at least 1: the error is on the 0.
use perfbench::perfbench;

#[perfbench(threads = [1, 0, 4])]
fn f() -> u64 {
    1
}

perfbench::main!();
