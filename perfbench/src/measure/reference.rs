//! The machine's own speed: a fixed reference workload timed before every
//! round of every benchmark.
//!
//! On a shared machine (a cloud VM, a CI runner) the same code can run half
//! again as slowly for seconds at a time: another tenant on the sibling
//! hyperthread, a noisy neighbour in the cache. Such a spell can cover a
//! whole run, so the spread within the run does not show it; a run judged
//! against a baseline measured in another spell would call the machine's
//! change the code's. Timing the same small workload in both runs measures
//! the machine's change, so that comparisons can allow for it
//! (`analysis::compare`).

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

/// Slots of the ring: 32 KiB of `usize`, resident in any L1 data cache.
const SLOTS: usize = 4096;

/// Chases through the ring per timing.
const REPEATS: usize = 9;

/// A ring visiting every slot once, in a scrambled order: each load
/// depends on the last, so the chase runs at the core's load latency, the
/// figure that slows most when another thread shares the core.
fn ring() -> &'static [usize] {
    static RING: OnceLock<Vec<usize>> = OnceLock::new();
    RING.get_or_init(|| {
        // 1 + 4k multiplier and odd increment: a full-period generator over
        // the power-of-two ring (Hull–Dobell), so every slot is visited.
        let next = |i: usize| (i.wrapping_mul(4 * 1021 + 1).wrapping_add(2 * 777 + 1)) % SLOTS;
        let mut ring = vec![0; SLOTS];
        let mut at = 0;
        for _ in 0..SLOTS {
            let to = next(at);
            ring[at] = to;
            at = to;
        }
        ring
    })
}

/// Follows the ring from `from` for `hops` loads.
fn chase(ring: &[usize], from: usize, hops: usize) -> usize {
    (0..hops).fold(from, |at, _| ring[at])
}

/// Nanoseconds one chase around the reference ring takes now: the median
/// of a few, so that an interrupt in one does not count. About 100 µs in
/// all on a 3 GHz core.
pub fn reference_ns() -> u64 {
    let ring = ring();
    let mut at = chase(ring, 0, SLOTS); // bring the ring into the cache
    let mut times: Vec<u64> = (0..REPEATS)
        .map(|_| {
            let start = Instant::now();
            at = chase(black_box(ring), at, SLOTS);
            u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
        })
        .collect();
    black_box(at);
    times.sort_unstable();
    times[REPEATS / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_is_one_cycle_through_every_slot() {
        let ring = ring();
        let mut seen = vec![false; SLOTS];
        let mut at = 0;
        for _ in 0..SLOTS {
            assert!(!seen[at], "slot {at} visited twice");
            seen[at] = true;
            at = ring[at];
        }
        assert_eq!(at, 0, "back at the start after {SLOTS} hops");
        assert!(seen.iter().all(|&s| s));
    }
}
