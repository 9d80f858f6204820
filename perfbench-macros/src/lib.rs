//! The `#[perfbench]` attribute, which registers a benchmark; use it through `perfbench::perfbench`.

mod expand;
mod options;
mod signature;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{Error, ItemFn};

/// Registers a function as a benchmark.
///
/// - `#[perfbench] fn name() -> T { … }`: the body is the routine; its return
///   value is black-boxed.
/// - `#[perfbench] fn name(b: &mut Bencher) { … }`: setup, then `b.iter(…)`.
/// - `#[perfbench(args = [a, b, …])] fn name(b: &mut Bencher, x: T) { … }`:
///   one benchmark per argument, with ids `name/a`, `name/b` (the argument's
///   `Display`).
/// - `throughput = bytes` or `throughput = elements` with `args`: each
///   argument is also the work one iteration does (an integer, or the length
///   of a string or slice).
/// - `args = EXPR` with any other expression that iterates over the
///   arguments (a constant, a range, a call): references it yields are
///   cloned. Arguments without `Display` are named by their `Debug`
///   (tuples: `name/(1, 2)`).
/// - `types = [u8, u64]` on `fn name<T>(…)`: one benchmark per type, ids
///   `name::<u8>` (with `args`: `name::<u8>/64`).
/// - `threads = [1, 2, 4]`: one benchmark per thread count, ids
///   `name/threads=4` (with `args`: `name/64/threads=4`), each running the
///   routine on that many threads at once to show contention: the plain
///   form's body, or the routine given to `b.iter_shared(…)` (`Fn + Sync`,
///   shared by the threads; the other `iter` methods take routines for one
///   thread). An iteration is one call on each thread: counts are totals
///   over the threads, wall time is the iteration's. Batch mode only.
/// - `group = "name"`: the group its benchmarks are compared in after the
///   run (else their module's).
/// - `sample_count = N`, `warm_up_time = S`, `measurement_time = S` (seconds,
///   or a `Duration`), `events = "…"` and `mode = "batch" | "per-iter"`: the
///   benchmark's own settings, which the command line, the environment and
///   `--quick` override.
/// - `ignore`, or libtest's `#[ignore]` on the function: the benchmark is
///   skipped and listed as ignored, unless run with `--ignored` or
///   `--include-ignored`.
#[proc_macro_attribute]
pub fn perfbench(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = syn::parse_macro_input!(item as ItemFn);
    options::parse(attr.into())
        .and_then(|options| expand::expand(&func, &options))
        .unwrap_or_else(|error| with_error(&func, error))
        .into()
}

/// The output when the attribute is misused: the function as written, and
/// the error.
///
/// Keep the function, so that the error is the only diagnostic and tools
/// still see it.
fn with_error(func: &ItemFn, error: Error) -> TokenStream2 {
    let error = error.into_compile_error();
    quote! {
        #[allow(dead_code)]
        #func
        #error
    }
}
