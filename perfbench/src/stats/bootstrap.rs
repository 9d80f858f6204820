//! The seeded percentile bootstrap: its settings, its generator
//! (SplitMix64) and the resampling of statistics and changes.

use super::{percentile_interval, Estimate, SampleStats};

/// Settings of the bootstrap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bootstrap {
    /// Confidence level of every interval, strictly between 0 and 1
    /// (0.95 for 95 %).
    pub confidence: f64,
    /// Number of resamples; 0 gives zero-width intervals.
    pub resamples: usize,
    /// Seed of the resampling: the same data and seed give the same figures.
    pub seed: u64,
}

impl Default for Bootstrap {
    /// 95 % intervals from 1000 resamples with a fixed seed.
    fn default() -> Bootstrap {
        Bootstrap {
            confidence: 0.95,
            resamples: 1000,
            seed: 0x5EED_F0CA_CC1A_0001,
        }
    }
}

/// Bootstrap intervals of mean, median, std dev and MAD of sorted values.
///
/// Each resample draws `n` indices into the sorted values and counts them;
/// expanding the counts in index order gives the resample already sorted,
/// so every statistic is O(n) and the buffers are reused.
pub(super) fn bootstrap_sample_stats(
    sorted: &[f64],
    point: &SampleStats,
    bootstrap: &Bootstrap,
) -> [Estimate; 4] {
    let n = sorted.len();
    let b = bootstrap.resamples;
    let mut rng = SplitMix64::new(bootstrap.seed);
    let mut counts = vec![0u32; n];
    // Four spare slots: a count of up to 4 (nearly all of them) is written
    // as 4 copies, without a data-dependent branch.
    let mut resample = vec![0.0; n + 4];
    let mut dist: [Vec<f64>; 4] = std::array::from_fn(|_| Vec::with_capacity(b));
    for _ in 0..b {
        counts.fill(0);
        for _ in 0..n {
            counts[rng.below(n)] += 1;
        }
        let mut k = 0;
        for (&v, &c) in sorted.iter().zip(&counts) {
            let c = c as usize;
            if c <= 4 {
                resample[k..k + 4].fill(v);
            } else {
                resample[k..k + c].fill(v);
            }
            k += c;
        }
        let s = SampleStats::of_sorted(&resample[..n]);
        for (d, v) in dist.iter_mut().zip(s.values()) {
            d.push(v);
        }
    }
    let alpha = 1.0 - bootstrap.confidence;
    let points = point.values();
    std::array::from_fn(|i| Estimate {
        point: points[i],
        ci: percentile_interval(&mut dist[i], alpha),
    })
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast generator whose
/// output passes BigCrush; plenty for resampling, and for the seeded
/// synthetic histories the change-point detector is measured on.
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The generator started from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` by multiply-shift (Lemire): the bias is below
    /// `n / 2^64`, far below anything a bootstrap can see.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `(0, 1]`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal value (Box–Muller), for synthetic noise.
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit(), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}
