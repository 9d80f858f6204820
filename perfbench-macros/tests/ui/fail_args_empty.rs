// `args` must not be empty: the error is on the empty list.
// `perfbench::Bencher` is spelled out because the macro emits nothing on
// error, so an imported `Bencher` would add an unused-import warning.
use perfbench::perfbench;

#[perfbench(args = [])]
fn f(b: &mut perfbench::Bencher, n: usize) {
    b.iter(|| n);
}

fn main() {}
