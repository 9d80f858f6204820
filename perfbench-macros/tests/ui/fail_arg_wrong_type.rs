// An argument of the wrong type: the error is on that argument, not the good one.
use perfbench::{perfbench, Bencher};

#[perfbench(args = [1, "x"])]
fn f(b: &mut Bencher, n: usize) {
    b.iter(|| n);
}

fn main() {}
