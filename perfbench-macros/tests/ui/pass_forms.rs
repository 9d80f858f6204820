// Every documented form compiles (and runs once, in test mode).
use perfbench::{black_box, perfbench, Bencher};

#[perfbench]
fn plain() -> u64 {
    black_box(2) + black_box(3)
}

#[perfbench]
fn with_bencher(b: &mut Bencher) {
    let v: Vec<u64> = (0..16).collect();
    b.iter(|| v.iter().sum::<u64>());
}

#[perfbench(args = [1, 16, 256])]
fn integer_args(b: &mut Bencher, len: usize) {
    b.iter(|| vec![0u8; len]);
}

#[perfbench(args = ["", "a", "hello"])]
fn str_args(b: &mut Bencher, s: &str) {
    b.iter(|| black_box(s).len());
}

#[perfbench(args = [8, 64], throughput = bytes)]
fn bytes_throughput(b: &mut Bencher, len: usize) {
    b.iter(|| vec![1u8; len]);
}

#[perfbench(args = ["abc", "defgh"], throughput = elements)]
fn elements_throughput(b: &mut Bencher, s: &str) {
    b.iter(|| black_box(s).chars().count());
}

#[perfbench]
fn explicit_unit_return(b: &mut Bencher) -> () {
    b.iter(|| 1u8)
}

#[perfbench]
#[ignore]
fn ignored_attribute() -> u64 {
    black_box(1)
}

#[perfbench]
#[ignore = "slow"]
fn ignored_with_reason(b: &mut Bencher) {
    b.iter(|| black_box(1));
}

#[perfbench(args = [1, 2], ignore)]
fn ignored_key(b: &mut Bencher, n: u64) {
    b.iter(|| black_box(n));
}

mod nested {
    use perfbench::{perfbench, Bencher};

    #[perfbench]
    fn in_a_module(b: &mut Bencher) {
        b.iter_batched(|| vec![1u8; 8], |v| v.len(), perfbench::BatchSize::SmallInput);
    }
}

perfbench::main!();
