use perfbench::{perfbench, Bencher};

const NAMES: &[&str] = &["a", "b"];

#[perfbench(args = NAMES)]
fn f(b: &mut Bencher, n: usize) {
    b.iter(|| n);
}

perfbench::main!();
