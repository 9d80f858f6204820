// An unknown throughput kind: the error is on it.
// `perfbench::Bencher` is spelled out because the macro emits nothing on
// error, so an imported `Bencher` would add an unused-import warning.
use perfbench::perfbench;

#[perfbench(args = [1, 2], throughput = seconds)]
fn f(b: &mut perfbench::Bencher, n: usize) {
    b.iter(|| n);
}

fn main() {}
