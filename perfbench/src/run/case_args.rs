//! How the arguments of `#[perfbench(args = …)]` reach the function and
//! name their benchmarks: what `#[perfbench]` generates calls these.

use std::fmt::{Debug, Display};

/// The argument of index `index` of `args`, an expression that iterates
/// over the arguments; evaluated each time the benchmark runs, outside the
/// measurement.
pub fn nth_arg<I: IntoIterator>(args: I, index: usize) -> I::Item {
    args.into_iter()
        .nth(index)
        .expect("`args` yielded fewer arguments when run than when listed")
}

/// An argument as the function takes it: by value, or cloned from the
/// reference an iterable over borrowed values yields (`args = SIZES` with
/// `const SIZES: &[usize]` calls `fn f(b: &mut Bencher, n: usize)`).
#[diagnostic::on_unimplemented(
    message = "`args` yields `{Self}`, but the function takes `{T}`",
    label = "each argument must be a `{T}`, or a reference to a cloneable one",
    note = "`args = …` takes any expression that iterates over the arguments: a list, a constant, a range, a call"
)]
pub trait IntoArg<T> {
    /// The argument as the function takes it.
    fn into_arg(self) -> T;
}

impl<T> IntoArg<T> for T {
    fn into_arg(self) -> T {
        self
    }
}

impl<T: Clone> IntoArg<T> for &T {
    fn into_arg(self) -> T {
        self.clone()
    }
}

/// An argument the function borrows (`size: &usize`, Criterion's
/// `bench_with_input(id, &size, …)` habit): the case's value lives for the
/// call and the function gets a reference to it, or the reference `args`
/// yielded (`args = SIZES` with `const SIZES: &[usize]`).
#[diagnostic::on_unimplemented(
    message = "`args` yields `{Self}`, but the function borrows a `{T}`",
    label = "each argument must be a `{T}`, or a reference to one",
    note = "a parameter `&T` is given a reference to each value of `args`"
)]
pub trait ArgRef<T: ?Sized> {
    /// The reference the function is given.
    fn arg_ref(&self) -> &T;
}

impl<T: ?Sized> ArgRef<T> for T {
    fn arg_ref(&self) -> &T {
        self
    }
}

impl<T: ?Sized> ArgRef<T> for &T {
    fn arg_ref(&self) -> &T {
        self
    }
}

impl<T: ?Sized> ArgRef<T> for &&T {
    fn arg_ref(&self) -> &T {
        self
    }
}

/// An argument being named for its benchmark's id: with its `Display`
/// where it has one ([`ViaDisplay`]), else its `Debug` ([`ViaDebug`]).
/// `(&&ArgId(&arg)).arg_id()` picks the first that applies, since method
/// lookup tries the receiver with more references first.
pub struct ArgId<'a, T: ?Sized>(pub &'a T);

/// Names an argument with its `Display`: `64`, `sorted`.
pub trait ViaDisplay {
    /// The argument's part of the id.
    fn arg_id(&self) -> String;
}

impl<T: Display + ?Sized> ViaDisplay for &ArgId<'_, T> {
    fn arg_id(&self) -> String {
        self.0.to_string()
    }
}

/// Names an argument without `Display` with its `Debug`: `(64, 2)`,
/// `Shuffled`, `[1, 2]`.
pub trait ViaDebug {
    /// The argument's part of the id.
    fn arg_id(&self) -> String;
}

impl<T: Debug + ?Sized> ViaDebug for ArgId<'_, T> {
    fn arg_id(&self) -> String {
        format!("{:?}", self.0)
    }
}

/// The work an `args` value stands for, for `throughput = bytes|elements`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot give a throughput",
    label = "`throughput = …` takes the work per iteration from the argument",
    note = "use an integer, a string or a slice as the argument, or call `b.throughput(…)` yourself"
)]
pub trait Amount {
    /// The value as a number of bytes or elements.
    fn amount(&self) -> u64;
}

macro_rules! integer_amount {
    ($($t:ty)*) => {$(
        impl Amount for $t {
            fn amount(&self) -> u64 {
                u64::try_from(*self).unwrap_or(0)
            }
        }
    )*};
}
integer_amount!(u8 u16 u32 u64 usize i8 i16 i32 i64 isize u128 i128);

impl Amount for str {
    fn amount(&self) -> u64 {
        self.len() as u64
    }
}

impl Amount for String {
    fn amount(&self) -> u64 {
        self.len() as u64
    }
}

impl<T> Amount for [T] {
    fn amount(&self) -> u64 {
        self.len() as u64
    }
}

impl<T> Amount for Vec<T> {
    fn amount(&self) -> u64 {
        self.len() as u64
    }
}

impl<T: Amount + ?Sized> Amount for &T {
    fn amount(&self) -> u64 {
        (**self).amount()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    enum Order {
        Shuffled,
    }

    #[test]
    // The two references are the point: they make method lookup try
    // `ViaDisplay` first, as the generated code does.
    #[allow(clippy::needless_borrow)]
    fn arguments_are_named_by_display_else_debug() {
        assert_eq!((&&ArgId(&64u32)).arg_id(), "64");
        assert_eq!((&&ArgId(&"sorted")).arg_id(), "sorted");
        assert_eq!((&&ArgId(&Order::Shuffled)).arg_id(), "Shuffled");
        assert_eq!((&&ArgId(&(64, "a"))).arg_id(), "(64, \"a\")");
        assert_eq!((&&ArgId(&vec![1, 2])).arg_id(), "[1, 2]");
    }

    #[test]
    fn arguments_are_taken_by_value_or_cloned() {
        const SIZES: &[usize] = &[8, 64];
        let by_ref: usize = IntoArg::into_arg(nth_arg(SIZES, 1));
        let by_value: String = IntoArg::into_arg(nth_arg(vec!["a".to_string()], 0));
        let range: u64 = IntoArg::into_arg(nth_arg(10..20u64, 3));
        assert_eq!((by_ref, by_value.as_str(), range), (64, "a", 13));
    }

    #[test]
    fn borrowed_arguments_are_the_value_or_the_reference_yielded() {
        let value: &usize = ArgRef::arg_ref(&64usize);
        let yielded: &str = ArgRef::arg_ref(&"a");
        let twice: &str = ArgRef::arg_ref(&&"b");
        assert_eq!((*value, yielded, twice), (64, "a", "b"));
    }
}
