use perfbench::perfbench;

#[perfbench(types = [u8])]
fn f<A: Default, B>() -> A {
    A::default()
}

perfbench::main!();
