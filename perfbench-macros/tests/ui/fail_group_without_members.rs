// A group with no `#[perfbench]` function: its settings would apply to nothing.
#[perfbench::group(sample_count = 10)]
mod empty {
    #[allow(dead_code)]
    fn helper() {}
}

fn main() {}
