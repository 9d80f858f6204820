// `throughput = bytes` with an argument that is no amount of work: the error
// says what would be.
use perfbench::perfbench;

#[perfbench(args = [1.5], throughput = bytes)]
fn f(b: &mut perfbench::Bencher, x: f64) {
    b.iter(|| x * 2.0);
}

fn main() {}
