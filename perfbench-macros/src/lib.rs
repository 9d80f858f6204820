//! The `#[perfbench]` attribute, which registers a benchmark, and
//! `#[perfbench::group]`, which gives a module's benchmarks shared settings;
//! use them through `perfbench::perfbench` and `perfbench::group`.

mod expand;
mod group;
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
/// - `fn name(b: &mut Bencher, x: &T)` (or `&x: &T`), Criterion's
///   `bench_with_input(id, &x, |b, &x| …)`: the function borrows each
///   argument, which lives for the call.
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
/// - `sample_count = N` (or Criterion's name, `sample_size = N`),
///   `warm_up_time = S`, `measurement_time = S` (seconds, or a `Duration`),
///   `events = "…"` and `mode = "batch" | "per-iter"`: the benchmark's own
///   settings, which the command line, the environment and `--quick`
///   override. [`macro@group`] on a module gives its benchmarks shared ones.
/// - `ignore`, or libtest's `#[ignore]` on the function: the benchmark is
///   skipped and listed as ignored, unless run with `--ignored` or
///   `--include-ignored`.
///
/// # Examples
///
/// Each option compiles as shown (these examples are doc tests).
///
/// A plain function, and the `Bencher` form:
///
/// ```no_run
/// use perfbench::{black_box, perfbench, Bencher};
///
/// #[perfbench]
/// fn square() -> u64 {
///     black_box(12u64) * black_box(12u64)
/// }
///
/// #[perfbench]
/// fn sum_1000(b: &mut Bencher) {
///     let v: Vec<u64> = (0..1000).collect();
///     b.iter(|| v.iter().sum::<u64>());
/// }
///
/// perfbench::main!();
/// ```
///
/// `args`, as a list or any expression that iterates, with `throughput`:
///
/// ```no_run
/// use perfbench::{perfbench, Bencher};
///
/// const SIZES: [usize; 3] = [64, 4096, 65536];
///
/// #[perfbench(args = SIZES, throughput = bytes)] // zeroed/64, zeroed/4096, …
/// fn zeroed(b: &mut Bencher, len: usize) {
///     b.iter(|| vec![0u8; len]);
/// }
///
/// #[perfbench(args = 1..=3, throughput = elements)] // shifts/1, shifts/2, shifts/3
/// fn shifts(b: &mut Bencher, n: u32) {
///     b.iter(|| perfbench::black_box(1u64) << n);
/// }
///
/// #[perfbench(args = [(64, 2), (4096, 8)])] // chunks/(64, 2): named by Debug
/// fn chunks(b: &mut Bencher, (len, parts): (usize, usize)) {
///     let v = vec![1u8; len];
///     b.iter(|| v.chunks(len / parts).count());
/// }
///
/// perfbench::main!();
/// ```
///
/// Arguments by reference, as Criterion's `bench_with_input` passes them:
///
/// ```no_run
/// use perfbench::{perfbench, Bencher};
///
/// #[perfbench(args = [64, 4096])] // or `len: &usize`
/// fn filled(b: &mut Bencher, &len: &usize) {
///     b.iter(|| vec![1u8; len]);
/// }
///
/// perfbench::main!();
/// ```
///
/// `types` on a generic function:
///
/// ```no_run
/// use perfbench::{perfbench, Bencher};
///
/// #[perfbench(types = [u8, u64])] // default::<u8>, default::<u64>
/// fn default<T: Default>(b: &mut Bencher) {
///     b.iter(T::default);
/// }
///
/// perfbench::main!();
/// ```
///
/// `threads`: the plain form runs its body on each thread; the `Bencher`
/// form shares one routine through `iter_shared`:
///
/// ```no_run
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use perfbench::{perfbench, Bencher};
///
/// #[perfbench(threads = [1, 2, 4])] // contended/threads=1, …=2, …=4
/// fn contended(b: &mut Bencher) {
///     let counter = AtomicU64::new(0);
///     b.iter_shared(|| counter.fetch_add(1, Ordering::Relaxed));
/// }
///
/// perfbench::main!();
/// ```
///
/// `group`, and a benchmark's own settings:
///
/// ```no_run
/// use perfbench::{black_box, perfbench};
///
/// #[perfbench(group = "hashers", sample_count = 30, warm_up_time = 0.5, measurement_time = 2)]
/// fn fnv() -> u64 {
///     black_box(b"perfbench").iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
///         (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
///     })
/// }
///
/// perfbench::main!();
/// ```
///
/// Criterion's `sample_size` is `sample_count`:
///
/// ```no_run
/// #[perfbench::perfbench(sample_size = 20)]
/// fn answer() -> u64 {
///     perfbench::black_box(42)
/// }
///
/// perfbench::main!();
/// ```
///
/// `events` and `mode`:
///
/// ```no_run
/// use perfbench::{black_box, perfbench};
///
/// #[perfbench(events = "task-clock,page-faults", mode = "per-iter")]
/// fn touch_page() -> u8 {
///     let page = black_box(vec![1u8; 4096]);
///     page[4095]
/// }
///
/// perfbench::main!();
/// ```
///
/// `ignore`, or libtest's `#[ignore]`:
///
/// ```no_run
/// use perfbench::{black_box, perfbench};
///
/// #[perfbench(ignore)]
/// fn slow() -> u64 {
///     (0..black_box(1u64 << 30)).sum()
/// }
///
/// #[perfbench]
/// #[ignore]
/// fn slower() -> u64 {
///     (0..black_box(1u64 << 34)).sum()
/// }
///
/// perfbench::main!();
/// ```
///
/// Misuse is a compile error pointing at the culprit: an unknown key (the
/// error suggests the nearest one),
///
/// ```compile_fail
/// #[perfbench::perfbench(sample_cont = 10)]
/// fn unknown_key() {}
/// ```
///
/// `args` without a parameter to take them,
///
/// ```compile_fail
/// #[perfbench::perfbench(args = [1, 2])]
/// fn no_parameter(b: &mut perfbench::Bencher) {
///     b.iter(|| 1);
/// }
/// ```
///
/// or a generic function without `types`.
///
/// ```compile_fail
/// #[perfbench::perfbench]
/// fn generic<T: Default>(b: &mut perfbench::Bencher) {
///     b.iter(T::default);
/// }
/// ```
#[proc_macro_attribute]
pub fn perfbench(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = syn::parse_macro_input!(item as ItemFn);
    options::parse(attr.into())
        .and_then(|options| expand::expand(&func, &options))
        .unwrap_or_else(|error| with_error(&func, error))
        .into()
}

/// Gives the `#[perfbench]` functions of an inline module one group and
/// shared settings, as Criterion's `benchmark_group` with its
/// `sample_size`, `warm_up_time` and `measurement_time`.
///
/// Keys: `name = "…"` (the group its members are compared in, else the
/// module's name), and `sample_count` (or `sample_size`), `warm_up_time`,
/// `measurement_time`, `events` and `mode`, as `#[perfbench]` takes them.
/// A member (or a nested group) that gives a key itself keeps its own
/// value; the command line, the environment and `--quick` override both,
/// as they override a benchmark's own settings. The members are the
/// functions marked `#[perfbench]` (or `#[perfbench::perfbench]`) in the
/// module and its inline modules.
///
/// ```no_run
/// #[perfbench::group(name = "encode", sample_size = 30, warm_up_time = 0.5, measurement_time = 2)]
/// mod encoding {
///     use perfbench::{perfbench, Bencher};
///
///     #[perfbench(args = [64, 4096])] // 30 samples, in group `encode`
///     fn hex(b: &mut Bencher, len: usize) {
///         let data = vec![7u8; len];
///         b.iter(|| data.iter().map(|x| format!("{x:02x}")).collect::<String>());
///     }
///
///     #[perfbench(sample_count = 100)] // its own sample count wins
///     fn hex_small(b: &mut Bencher) {
///         b.iter(|| format!("{:02x}", perfbench::black_box(7u8)));
///     }
/// }
///
/// perfbench::main!();
/// ```
///
/// On a module in a file of its own (`mod name;`) it is an error: an
/// attribute cannot see into that file.
#[proc_macro_attribute]
pub fn group(attr: TokenStream, item: TokenStream) -> TokenStream {
    group::expand(attr.into(), item.into()).into()
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
