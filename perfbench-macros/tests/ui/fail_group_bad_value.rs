// A group's setting is checked as a benchmark's: the error is on the value.
#[perfbench::group(sample_count = 0)]
mod encoding {
    #[perfbench::perfbench]
    fn f() -> u64 {
        1
    }
}

fn main() {}
