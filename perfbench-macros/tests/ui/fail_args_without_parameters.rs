// `args` on a plain function: the error is on `args`.
use perfbench::perfbench;

#[perfbench(args = [1, 2])]
fn f() -> u64 {
    1
}

fn main() {}
