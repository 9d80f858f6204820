// A type listed twice would give two benchmarks one id: the error is on the
// second.
use perfbench::perfbench;

#[perfbench(types = [u8, Vec<u64>, u16, Vec<u64>])]
fn f<T: Default>() -> T {
    T::default()
}

perfbench::main!();
