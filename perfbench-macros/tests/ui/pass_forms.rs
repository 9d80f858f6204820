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

const SIZES: &[usize] = &[8, 64];

#[perfbench(args = SIZES)]
fn const_slice_args(b: &mut Bencher, len: usize) {
    b.iter(|| vec![0u8; len]);
}

fn sizes() -> Vec<u32> {
    vec![2, 3]
}

#[perfbench(args = sizes(), throughput = elements)]
fn call_args(b: &mut Bencher, n: u32) {
    b.iter(|| (0..black_box(n)).sum::<u32>());
}

#[perfbench(args = (1..4).map(|i| i * 10))]
fn range_args(b: &mut Bencher, n: u64) {
    b.iter(|| black_box(n));
}

#[perfbench(args = [(1, 2), (3, 4)])]
fn tuple_args(b: &mut Bencher, (x, y): (u8, u16)) {
    b.iter(|| u16::from(black_box(x)) + black_box(y));
}

#[derive(Debug, Clone, Copy)]
enum Order {
    Sorted,
    Shuffled,
}

#[perfbench(args = [Order::Sorted, Order::Shuffled])]
fn debug_args(b: &mut Bencher, order: Order) {
    b.iter(|| matches!(black_box(order), Order::Sorted));
}

#[perfbench(types = [u8, u64, String])]
fn generic_plain<T: Default>() -> T {
    T::default()
}

#[perfbench(types = [u32, Vec<u8>], args = [1, 2])]
fn generic_with_args<T: Default + Clone>(b: &mut Bencher, n: usize) {
    b.iter(|| vec![T::default(); n]);
}

#[perfbench(types = [u8, u16])]
fn generic_with_bencher<T: From<u8>>(b: &mut Bencher) {
    b.iter(|| T::from(black_box(1)));
}

#[perfbench(
    group = "settings",
    sample_count = 10,
    warm_up_time = 0.01,
    measurement_time = std::time::Duration::from_millis(20)
)]
fn with_settings() -> u64 {
    black_box(1)
}

#[perfbench(events = "task-clock,page-faults", mode = "per-iter")]
fn with_own_setup() -> u64 {
    black_box(1)
}

#[perfbench]
fn custom_timing(b: &mut Bencher) {
    b.iter_custom(|iters| {
        let start = std::time::Instant::now();
        for i in 0..iters {
            black_box(i);
        }
        start.elapsed()
    });
}

#[perfbench(threads = [1, 2, 4])]
fn threaded_plain() -> u64 {
    black_box(2) * black_box(3)
}

#[perfbench(args = [8, 64], threads = [2])]
fn threaded_shared(b: &mut Bencher, len: usize) {
    let hits = std::sync::atomic::AtomicUsize::new(0);
    b.iter_shared(|| hits.fetch_add(black_box(len), std::sync::atomic::Ordering::Relaxed));
}

#[perfbench(types = [u8, String], threads = [3])]
fn threaded_generic<T: Default>() -> T {
    T::default()
}

perfbench::main!();
