// A generic benchmark: the error is on the generics.
use perfbench::perfbench;

#[perfbench]
fn f<T: Default>() -> T {
    T::default()
}

fn main() {}
