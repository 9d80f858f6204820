// `threads` takes a list even for one count: the error is on the value.
use perfbench::perfbench;

#[perfbench(threads = 4)]
fn f() -> u64 {
    1
}

perfbench::main!();
