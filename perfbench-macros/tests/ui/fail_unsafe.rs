// An unsafe benchmark: the error is on `unsafe`.
use perfbench::perfbench;

#[perfbench]
unsafe fn f() -> u64 {
    1
}

fn main() {}
