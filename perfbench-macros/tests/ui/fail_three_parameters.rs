// Three parameters: the error is on the extra (third) one.
// `perfbench::Bencher` is spelled out because the macro emits nothing on
// error, so an imported `Bencher` would add an unused-import warning.
use perfbench::perfbench;

#[perfbench(args = [1, 2])]
fn f(b: &mut perfbench::Bencher, n: usize, m: usize) {
    b.iter(|| n + m);
}

fn main() {}
