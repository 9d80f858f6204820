// A second parameter without `args`: the error is on the parameter.
// `perfbench::Bencher` is spelled out because the macro emits nothing on
// error, so an imported `Bencher` would add an unused-import warning.
use perfbench::perfbench;

#[perfbench]
fn f(b: &mut perfbench::Bencher, n: usize) {
    b.iter(|| n);
}

fn main() {}
