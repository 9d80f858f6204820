// `args` must be a list: the error is on the value.
// `perfbench::Bencher` is spelled out because the macro emits nothing on
// error, so an imported `Bencher` would add an unused-import warning.
use perfbench::perfbench;

#[perfbench(args = 5)]
fn f(b: &mut perfbench::Bencher, n: usize) {
    b.iter(|| n);
}

fn main() {}
