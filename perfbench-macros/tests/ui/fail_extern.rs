// A benchmark with a foreign ABI: the error is on `extern "C"`.
use perfbench::perfbench;

#[perfbench]
extern "C" fn f() -> u64 {
    1
}

fn main() {}
