// `args` belongs on a benchmark, not on its group.
#[perfbench::group(args = [1, 2])]
mod encoding {
    #[perfbench::perfbench]
    fn f() -> u64 {
        1
    }
}

fn main() {}
