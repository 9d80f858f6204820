// A group goes on a module.
#[perfbench::group(sample_count = 10)]
fn f() -> u64 {
    1
}

fn main() {}
