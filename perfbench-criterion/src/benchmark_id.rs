//! [`BenchmarkId`]: a benchmark's function name and parameter in its group,
//! as Criterion names them.

use std::fmt::Display;

/// A benchmark's id in its group: a function name, a parameter, or both.
/// Its full id is `group/function/parameter`, leaving out what it lacks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BenchmarkId {
    pub(crate) function: Option<String>,
    pub(crate) parameter: Option<String>,
}

impl BenchmarkId {
    /// The benchmark of `function_name` with `parameter` (its `Display`).
    pub fn new<S: Into<String>, P: Display>(function_name: S, parameter: P) -> BenchmarkId {
        BenchmarkId {
            function: Some(function_name.into()),
            parameter: Some(parameter.to_string()),
        }
    }

    /// The benchmark of a parameter alone, in a group that compares one
    /// function over parameters.
    pub fn from_parameter<P: Display>(parameter: P) -> BenchmarkId {
        BenchmarkId {
            function: None,
            parameter: Some(parameter.to_string()),
        }
    }

    /// The id `group` gives it: `group/function/parameter`, leaving out
    /// what it lacks.
    pub(crate) fn full(&self, group: &str) -> String {
        let parts = [
            Some(group),
            self.function.as_deref(),
            self.parameter.as_deref(),
        ];
        parts.into_iter().flatten().collect::<Vec<_>>().join("/")
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::BenchmarkId {}
    impl<S: Into<String>> Sealed for S {}
}

/// What a group's `bench_function` takes as an id: a [`BenchmarkId`], or
/// a function name (`&str`, `String`).
pub trait IntoBenchmarkId: sealed::Sealed {
    /// The id.
    fn into_benchmark_id(self) -> BenchmarkId;
}

impl IntoBenchmarkId for BenchmarkId {
    fn into_benchmark_id(self) -> BenchmarkId {
        self
    }
}

impl<S: Into<String>> IntoBenchmarkId for S {
    /// A function name; an empty one is refused, as Criterion refuses it.
    fn into_benchmark_id(self) -> BenchmarkId {
        let function = self.into();
        assert!(!function.is_empty(), "Function name must not be empty.");
        BenchmarkId {
            function: Some(function),
            parameter: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_ids_join_what_is_there_as_criterion_does() {
        assert_eq!(BenchmarkId::new("parse", 64).full("json"), "json/parse/64");
        assert_eq!(BenchmarkId::from_parameter("1 KiB").full("g"), "g/1 KiB");
        assert_eq!("f".into_benchmark_id().full("g"), "g/f");
        let alone = BenchmarkId {
            function: None,
            parameter: None,
        };
        assert_eq!(alone.full("fib 20"), "fib 20");
    }
}
