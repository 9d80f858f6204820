//! The routines both harnesses measure, compiled once here so that
//! perfbench and Criterion call the very same machine code.

use std::hint::black_box;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

/// base64 of 50 bytes: allocates and frees a 68-byte `String`.
#[inline(never)]
pub fn base64_encode_50(input: &[u8; 50]) -> String {
    STANDARD.encode(input)
}

/// `base64_encode_50` as a user writes it in a benchmark: `encode` is
/// generic, so it is compiled, and may be inlined, into the caller's loop
/// (the `_inlined` routine of the harnesses calls this).
#[inline(always)]
pub fn base64_encode_50_inlined(input: &[u8; 50]) -> String {
    STANDARD.encode(input)
}

/// A 68-byte `Vec` allocated, written once and returned (freed by the
/// caller): the allocation of `base64_encode_50` without the encoding.
#[inline(never)]
pub fn alloc_free_68(byte: u8) -> Vec<u8> {
    let mut v = Vec::with_capacity(68);
    v.push(byte);
    v
}

/// Arithmetic on registers: a chain of 100 dependent multiply-adds.
#[inline(never)]
pub fn mul_chain(seed: u64) -> u64 {
    let mut x = seed;
    for i in 0..100u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    x
}

/// Arithmetic over a small slice in cache: the sum of 1,000 `u64`s.
#[inline(never)]
pub fn sum_1000(v: &[u64]) -> u64 {
    v.iter().sum()
}

/// Memory-bound: one load per 4 KiB page of a 4 MiB buffer, 1,024 loads
/// that miss the caches and TLB more often than not.
#[inline(never)]
pub fn stride_4mib(v: &[u8]) -> u64 {
    v.iter().step_by(4096).map(|&b| u64::from(b)).sum()
}

/// The inputs of the routines, made once, outside any measurement.
pub struct Inputs {
    /// 50 bytes to encode.
    pub bytes_50: [u8; 50],
    /// 1,000 numbers to sum.
    pub numbers: Vec<u64>,
    /// 4 MiB to stride over.
    pub buffer: Vec<u8>,
}

impl Default for Inputs {
    fn default() -> Self {
        Inputs {
            bytes_50: std::array::from_fn(|i| i as u8),
            numbers: (0..1000).collect(),
            buffer: (0..4 << 20).map(|i| i as u8).collect(),
        }
    }
}

/// Runs the routine `name` `n` times on `inputs`, each output through
/// `black_box` and dropped, as both harnesses' `iter` do: the plain loop
/// `perf stat` times. `None` for a name that is not a routine.
pub fn repeat(name: &str, inputs: &Inputs, n: u64) -> Option<()> {
    match name {
        "base64_encode_50" => (0..n).for_each(|_| {
            black_box(base64_encode_50(black_box(&inputs.bytes_50)));
        }),
        "base64_encode_50_inlined" => (0..n).for_each(|_| {
            black_box(base64_encode_50_inlined(black_box(&inputs.bytes_50)));
        }),
        "alloc_free_68" => (0..n).for_each(|_| {
            black_box(alloc_free_68(black_box(7)));
        }),
        "sum_1000" => (0..n).for_each(|_| {
            black_box(sum_1000(black_box(&inputs.numbers)));
        }),
        "mul_chain" => (0..n).for_each(|_| {
            black_box(mul_chain(black_box(3)));
        }),
        "stride_4mib" => (0..n).for_each(|_| {
            black_box(stride_4mib(black_box(&inputs.buffer)));
        }),
        _ => return None,
    }
    Some(())
}
