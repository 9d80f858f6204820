// `ignore` is a flag: a value is an error, pointing at the key.
use perfbench::perfbench;

#[perfbench(ignore = true)]
fn f() -> u64 {
    1
}

fn main() {}
