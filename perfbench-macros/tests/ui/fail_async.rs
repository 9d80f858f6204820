// An async benchmark: the error is on `async`.
use perfbench::perfbench;

#[perfbench]
async fn f() -> u64 {
    1
}

fn main() {}
