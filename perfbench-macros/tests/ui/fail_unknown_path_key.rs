// An unknown key that is a path: the error names the whole path.
use perfbench::perfbench;

#[perfbench(foo::bar = 3)]
fn f() -> u64 {
    1
}

fn main() {}
