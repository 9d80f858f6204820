// An unknown key is an error on the key.
use perfbench::perfbench;

#[perfbench(foo = 1)]
fn f() -> u64 {
    1
}

fn main() {}
