// A Bencher benchmark with a return type: the error is on the type.
// `perfbench::Bencher` is spelled out because the macro emits nothing on
// error, so an imported `Bencher` would add an unused-import warning.
use perfbench::perfbench;

#[perfbench]
fn f(b: &mut perfbench::Bencher) -> u64 {
    b.iter(|| 1);
    1
}

fn main() {}
