// A key given twice: the error is on the second one.
use perfbench::perfbench;

#[perfbench(args = [1], args = [2])]
fn f(b: &mut perfbench::Bencher, n: usize) {
    b.iter(|| n);
}

fn main() {}
