// `throughput` without `args`: the error is on the throughput kind.
// `perfbench::Bencher` is spelled out because the macro emits nothing on
// error, so an imported `Bencher` would add an unused-import warning.
use perfbench::perfbench;

#[perfbench(throughput = bytes)]
fn f(b: &mut perfbench::Bencher) {
    b.iter(|| 1);
}

fn main() {}
