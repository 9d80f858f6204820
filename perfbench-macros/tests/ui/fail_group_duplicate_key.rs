// A key given twice on a group, under either of its names.
#[perfbench::group(sample_size = 10, sample_count = 20)]
mod encoding {
    #[perfbench::perfbench]
    fn f() -> u64 {
        1
    }
}

fn main() {}
