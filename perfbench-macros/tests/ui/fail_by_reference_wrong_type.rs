// A parameter by reference: a value of another type is the error, at the value.
use perfbench::{perfbench, Bencher};

#[perfbench(args = [1, "two"])]
fn f(b: &mut Bencher, n: &usize) {
    b.iter(|| *n);
}

fn main() {}
