// `sample_size` is `sample_count` under Criterion's name: both is a key given twice.
use perfbench::perfbench;

#[perfbench(sample_count = 10, sample_size = 20)]
fn f() -> u64 {
    1
}

fn main() {}
