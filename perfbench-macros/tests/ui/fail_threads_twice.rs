// A count given twice would give two benchmarks one id: the error is on
// the second.
use perfbench::perfbench;

#[perfbench(threads = [2, 4, 2])]
fn f() -> u64 {
    1
}

perfbench::main!();
