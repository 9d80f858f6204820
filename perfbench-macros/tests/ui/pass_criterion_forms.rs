// Criterion's forms: `sample_size`, parameters by reference, and a group's
// shared settings (compile, and run once in test mode).
use perfbench::{black_box, perfbench, Bencher};

#[perfbench(sample_size = 10)]
fn criterion_sample_size() -> u64 {
    black_box(1)
}

#[perfbench(args = [64, 4096])]
fn by_reference(b: &mut Bencher, size: &usize) {
    b.iter(|| vec![0u8; *size]);
}

#[perfbench(args = [64, 4096], throughput = bytes)]
fn by_reference_pattern(b: &mut Bencher, &size: &usize) {
    b.iter(|| vec![0u8; size]);
}

const SIZES: &[usize] = &[8, 16];

#[perfbench(args = SIZES)]
fn by_reference_from_a_slice(b: &mut Bencher, size: &usize) {
    b.iter(|| black_box(*size));
}

#[perfbench(args = 1..3)]
fn by_reference_from_a_range(b: &mut Bencher, &n: &u32) {
    b.iter(|| black_box(n));
}

#[perfbench(args = [vec![1u8, 2], vec![3]])]
fn by_reference_to_a_vec(b: &mut Bencher, v: &Vec<u8>) {
    b.iter(|| v.len());
}

#[perfbench(args = ["a", "bc"])]
fn str_still_by_value(b: &mut Bencher, s: &str) {
    b.iter(|| black_box(s).len());
}

#[perfbench(args = ["a", "bc"])]
fn static_str(b: &mut Bencher, s: &'static str) {
    b.iter(|| black_box(s).len());
}

#[perfbench(types = [u8, u64], args = [1, 2])]
fn generic_by_reference<T: Default + Clone>(b: &mut Bencher, n: &usize) {
    b.iter(|| vec![T::default(); *n]);
}

#[perfbench::group(name = "encode", sample_size = 10, warm_up_time = 0.01, measurement_time = 0.02)]
mod encoding {
    use perfbench::{black_box, perfbench, Bencher};

    #[perfbench(args = [1, 2])]
    fn member(b: &mut Bencher, n: &u64) {
        b.iter(|| black_box(*n));
    }

    #[perfbench(sample_count = 20, group = "own")]
    fn own_settings() -> u64 {
        black_box(1)
    }

    #[perfbench::perfbench]
    fn bare() -> u64 {
        black_box(2)
    }

    mod nested {
        #[perfbench::perfbench(events = "task-clock",)]
        fn inherits() -> u64 {
            perfbench::black_box(3)
        }
    }

    #[perfbench::group(sample_count = 5)]
    mod inner {
        #[perfbench::perfbench]
        fn inner_group() -> u64 {
            perfbench::black_box(4)
        }
    }
}

perfbench::main!();
