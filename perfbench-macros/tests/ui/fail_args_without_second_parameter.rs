// `args` without a parameter to receive them: the error is on `args`.
// `perfbench::Bencher` is spelled out because the macro emits nothing on
// error, so an imported `Bencher` would add an unused-import warning.
use perfbench::perfbench;

#[perfbench(args = [1, 2])]
fn f(b: &mut perfbench::Bencher) {
    b.iter(|| 1);
}

fn main() {}
