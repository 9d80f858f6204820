// Two equal literals would give two benchmarks one id: the error is on the
// second.
use perfbench::perfbench;

#[perfbench(args = ["dup", "other", "dup"])]
fn f(s: &str) -> usize {
    s.len()
}

perfbench::main!();
