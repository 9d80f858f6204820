// benches/hashing.rs
use perfbench::{black_box, perfbench, BatchSize, Bencher};

fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }

#[perfbench]                       // plain function: its body is the routine,
fn fib_20() -> u64 {               // its return value is black-boxed
    fib(black_box(20))
}

#[perfbench]                       // Bencher form: setup outside the routine
fn sum_1000(b: &mut Bencher) {
    let v: Vec<u64> = (0..1000).collect();
    b.iter(|| v.iter().sum::<u64>());
}

#[perfbench(args = [64, 4096, 65536], throughput = bytes)]
fn zeroed(b: &mut Bencher, len: usize) {        // one benchmark per argument:
    b.iter(|| vec![0u8; len]);                  // ids zeroed/64, zeroed/4096, …
}

#[perfbench(args = ["ascii", "emoji 🦀"])]
fn parse(b: &mut Bencher, input: &str) {
    b.iter_batched(|| input.to_string(), |s| s.len(), BatchSize::SmallInput);
}

#[perfbench]                       // skipped and named as ignored, unless
#[ignore]                          // run with --ignored or --include-ignored
fn fib_35() -> u64 {               // (also: #[perfbench(ignore)])
    fib(black_box(35))
}

perfbench::main!();
