//! The routines both harnesses measure, compiled once here so that
//! perfbench, Criterion and the plain loop (`plain-loop`, the oracle) call
//! the very same machine code: each is `#[inline(never)]` and not generic,
//! so it is compiled in this crate and linked unchanged into every binary
//! (`same-code.sh` checks that).

use std::hash::{DefaultHasher, Hasher};
use std::hint::black_box;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

/// base64 of 50 bytes: allocates and frees a 68-byte `String`.
#[inline(never)]
pub fn base64_encode_50(input: &[u8; 50]) -> String {
    STANDARD.encode(input)
}

/// base64 of 68 characters back to 50 bytes: allocates and frees a
/// 51-byte `Vec` (the decoder's estimate of the length).
#[inline(never)]
pub fn base64_decode_68(input: &[u8; 68]) -> Vec<u8> {
    STANDARD.decode(input).unwrap_or_default()
}

/// SipHash-1-3 (std's `DefaultHasher`, fixed keys) of 50 bytes: no
/// allocation, a short dependent chain of arithmetic.
#[inline(never)]
pub fn siphash_50(input: &[u8; 50]) -> u64 {
    let mut h = DefaultHasher::new();
    h.write(input);
    h.finish()
}

/// A small parse: the sum of the numbers in a 50-byte line of
/// comma-separated decimals (`str::split` and `u32::from_str`).
#[inline(never)]
pub fn parse_csv_50(line: &str) -> u32 {
    line.split(',')
        .map(|n| n.parse::<u32>().unwrap_or(0))
        .fold(0, u32::wrapping_add)
}

/// base64 of 4 KiB: the large counterpart of `base64_encode_50` (µs).
#[inline(never)]
pub fn base64_encode_4096(input: &[u8]) -> String {
    STANDARD.encode(input)
}

/// Nothing, behind a call: the loop around a routine and the call itself,
/// as each harness and the plain loop run it. The `black_box` keeps the
/// call, which LLVM would otherwise drop as having no effect.
#[inline(never)]
pub fn empty(x: &u64) -> u64 {
    black_box(*x)
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
    /// Their base64, 68 characters to decode.
    pub chars_68: [u8; 68],
    /// A 50-byte line of comma-separated numbers to parse.
    pub csv_50: String,
    /// 4 KiB to encode.
    pub bytes_4096: Vec<u8>,
    /// 1,000 numbers to sum.
    pub numbers: Vec<u64>,
    /// 4 MiB to stride over.
    pub buffer: Vec<u8>,
}

impl Default for Inputs {
    fn default() -> Self {
        let bytes_50 = std::array::from_fn(|i| i as u8);
        let mut chars_68 = [0; 68];
        let written = STANDARD.encode_slice(bytes_50, &mut chars_68);
        assert_eq!(written, Ok(68), "50 bytes are 68 characters of base64");
        let csv_50 = "1234,56789,101112,1314,151617,1819,202122,23242526".to_string();
        assert_eq!(csv_50.len(), 50);
        Inputs {
            bytes_50,
            chars_68,
            csv_50,
            bytes_4096: (0..4096).map(|i| (i * 7) as u8).collect(),
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
        "base64_decode_68" => (0..n).for_each(|_| {
            black_box(base64_decode_68(black_box(&inputs.chars_68)));
        }),
        "siphash_50" => (0..n).for_each(|_| {
            black_box(siphash_50(black_box(&inputs.bytes_50)));
        }),
        "parse_csv_50" => (0..n).for_each(|_| {
            black_box(parse_csv_50(black_box(&inputs.csv_50)));
        }),
        "base64_encode_4096" => (0..n).for_each(|_| {
            black_box(base64_encode_4096(black_box(&inputs.bytes_4096)));
        }),
        "empty" => (0..n).for_each(|_| {
            black_box(empty(black_box(&0)));
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
