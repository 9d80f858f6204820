//! What counters reveal, one workload at a time. Run with
//! `cargo bench -p perfbench-examples`.

use perfbench::fixtures::touch_fresh_pages;
use perfbench::{black_box, perfbench, BatchSize, Bencher};
use perfbench_examples::*;

/// Branch prediction: the same 256 KiB, sorted or shuffled. Same instruction
/// count, very different `branch-misses` and cycles (and 4–5× the time on
/// our VM). Smaller inputs can be learnt by today's predictors when the
/// same data comes round again and again.
mod branches {
    use super::*;

    #[perfbench(args = ["sorted", "shuffled"])]
    fn sum_large_bytes(b: &mut Bencher, order: &str) {
        let data = branch_input(256 * 1024, order == "sorted");
        b.iter(|| sum_large(black_box(&data)));
    }
}

/// The memory hierarchy: 4096 dependent loads per iteration in a ring of
/// 32 KiB (fits in L1) or 256 MiB (larger than any last-level cache). Each
/// iteration goes on where the last one stopped, so the large ring's loads
/// keep missing.
mod memory {
    use super::*;

    #[perfbench(args = [32 << 10, 256 << 20])]
    fn pointer_chase(b: &mut Bencher, ring_bytes: usize) {
        let ring = pointer_ring(ring_bytes / std::mem::size_of::<usize>());
        let mut at = 0;
        b.iter(|| {
            at = chase(black_box(&ring), at, 4096);
            at
        });
    }
}

/// Throughput: the sum of the branch example over 1 KiB, 64 KiB and 4 MiB
/// of sorted bytes. `throughput = bytes` takes the bytes per iteration from
/// the argument, so each benchmark also reports bytes per second, and the
/// report charts that rate across the sizes.
mod throughput {
    use super::*;

    #[perfbench(args = [1 << 10, 64 << 10, 4 << 20], throughput = bytes)]
    fn sum_sorted_bytes(b: &mut Bencher, len: usize) {
        let data = branch_input(len, true);
        b.iter(|| sum_large(black_box(&data)));
    }
}

/// The kernel at work: 16 fresh pages per iteration, exactly 16 page faults.
#[perfbench]
fn touch_16_pages() -> u64 {
    touch_fresh_pages(black_box(16))
}

/// Pure arithmetic: no memory traffic, no branch misses.
#[perfbench]
fn multiply_add_1000() -> u64 {
    arithmetic(black_box(1000))
}

/// Two ways to sort the same data: a module is a group, so after the run
/// the table compares them side by side at each size (`1.00×` the best).
mod sort {
    use super::*;

    const SIZES: &[usize] = &[1_000, 100_000];

    #[perfbench(args = SIZES)]
    fn stable(b: &mut Bencher, n: usize) {
        let data = pseudo_random(n, 7);
        b.iter_batched_ref(|| data.clone(), |v| v.sort(), BatchSize::LargeInput);
    }

    #[perfbench(args = SIZES)]
    fn unstable(b: &mut Bencher, n: usize) {
        let data = pseudo_random(n, 7);
        b.iter_batched_ref(
            || data.clone(),
            |v| v.sort_unstable(),
            BatchSize::LargeInput,
        );
    }
}

/// A setup a thousand times dearer than the routine. `iter_batched` keeps it
/// out of every figure, whatever the batch size: `mix_batched/*` measures
/// what `mix_plain` does.
mod setup {
    use super::*;

    #[perfbench]
    fn mix_plain(b: &mut Bencher) {
        let seed = expensive_seed();
        b.iter(|| mix(black_box(seed)));
    }

    #[perfbench(args = ["small", "large", "per-iteration"])]
    fn mix_batched(b: &mut Bencher, size: &str) {
        let size = match size {
            "small" => BatchSize::SmallInput,
            "large" => BatchSize::LargeInput,
            _ => BatchSize::PerIteration,
        };
        b.iter_batched(expensive_seed, mix, size);
    }
}

perfbench::main!();
