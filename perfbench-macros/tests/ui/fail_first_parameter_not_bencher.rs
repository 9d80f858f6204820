// A first parameter that is not `&mut Bencher`: the error is on it.
use perfbench::perfbench;

#[perfbench]
fn f(x: u32) -> u32 {
    x
}

fn main() {}
