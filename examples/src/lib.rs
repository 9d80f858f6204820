//! Workloads whose performance counters tell a story that wall time alone
//! does not.

/// Deterministic pseudo-random numbers (xorshift64), so runs are comparable.
pub fn pseudo_random(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// Sums the bytes at or above 128: one data-dependent branch per byte. On
/// sorted data the branch predictor is nearly always right; on shuffled data
/// it is wrong about half the time, which `branch-misses` shows.
pub fn sum_large(bytes: &[u8]) -> u64 {
    let mut sum = 0u64;
    for &b in bytes {
        if b >= 128 {
            sum = add_large(sum, b);
        }
    }
    sum
}

/// Out of line, so that the compiler cannot replace the branch around it
/// with a conditional move or vector code, which would hide what the
/// workload shows.
#[inline(never)]
fn add_large(sum: u64, b: u8) -> u64 {
    sum + u64::from(b)
}

/// A buffer of `len` bytes of pseudo-random values, sorted if `sorted`.
pub fn branch_input(len: usize, sorted: bool) -> Vec<u8> {
    let mut v: Vec<u8> = pseudo_random(len, 42)
        .into_iter()
        .map(|x| x as u8)
        .collect();
    if sorted {
        v.sort_unstable();
    }
    v
}

/// A single random cycle through `slots` indices (Sattolo's algorithm):
/// following it visits every slot once, in an order no prefetcher guesses.
pub fn pointer_ring(slots: usize) -> Vec<usize> {
    let mut ring: Vec<usize> = (0..slots).collect();
    let random = pseudo_random(slots, 7);
    for i in (1..slots).rev() {
        let j = (random[i] % i as u64) as usize;
        ring.swap(i, j);
    }
    ring
}

/// Follows `hops` links of `ring` from slot `from` and returns where it
/// stopped. Each hop is a dependent load: from cache when the ring fits in
/// it, from memory (cache misses, stalled cycles) when it does not.
pub fn chase(ring: &[usize], from: usize, hops: usize) -> usize {
    let mut at = from;
    for _ in 0..hops {
        at = ring[at];
    }
    at
}

/// A dependent chain of multiply-adds: arithmetic only, no memory traffic;
/// its IPC is bounded by the multiplier's latency.
pub fn arithmetic(rounds: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..rounds {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    x
}

/// About a hundred nanoseconds of dependent arithmetic on `x`: 64 rounds of
/// xorshift and multiply, each waiting for the last.
pub fn mix(mut x: u64) -> u64 {
    for _ in 0..64 {
        x ^= x >> 29;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    x
}

/// A setup a thousand times dearer than [`mix`]: what building a real input
/// (parsing a file, filling a table) costs next to the routine under test.
pub fn expensive_seed() -> u64 {
    (0..1000).fold(7, |x, i| mix(x ^ i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_is_one_cycle_through_every_slot() {
        let ring = pointer_ring(1000);
        let mut seen = vec![false; 1000];
        let mut at = 0;
        for _ in 0..1000 {
            assert!(!seen[at]);
            seen[at] = true;
            at = ring[at];
        }
        assert_eq!(at, 0);
    }

    #[test]
    fn sorted_and_shuffled_inputs_hold_the_same_bytes() {
        let a = branch_input(4096, true);
        let mut b = branch_input(4096, false);
        assert_ne!(a, b);
        b.sort_unstable();
        assert_eq!(a, b);
        assert_eq!(sum_large(&a), sum_large(&b));
    }
}
