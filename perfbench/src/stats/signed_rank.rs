//! The centre of paired differences that a disturbed block or two cannot
//! drag: the Hodges–Lehmann estimate, with the interval and p-value of
//! Wilcoxon's signed-rank test (Hollander, Wolfe and Chicken,
//! "Nonparametric Statistical Methods", 3rd ed., §3.1–3.3). Both assume
//! only that the differences are spread symmetrically about their centre;
//! on normal data they give up about 5 % of Student's efficiency.

use statrs::distribution::{ContinuousCDF, Normal};

use super::{check_confidence, median_of_sorted, Interval};

/// Most differences whose signed-rank distribution is counted exactly;
/// beyond, its normal approximation (with continuity correction) is used,
/// which is within a rank of the exact one there.
const EXACT_UP_TO: usize = 50;

/// The centre of a set of differences by their signed ranks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignedRank {
    /// The Hodges–Lehmann estimate: the median of the Walsh averages (the
    /// means of every two differences, each with itself too).
    pub estimate: f64,
    /// The Walsh averages ranked `k` and `M + 1 - k` of `M`, with `k` the
    /// largest rank the signed-rank statistic falls below with probability
    /// at most half of `1 - confidence`: at least `confidence` of such
    /// intervals hold the centre.
    pub interval: Interval,
    /// Two-sided p-value of the signed-rank test of a centre at 0, the
    /// statistic counted as the Walsh averages above 0 (one at 0 counting
    /// a half): `p < 1 - confidence` where the interval leaves out 0.
    pub p_value: f64,
}

/// The Hodges–Lehmann estimate of `differences`' centre, with the
/// signed-rank interval at `confidence` and its p-value. `None` where
/// there are too few differences for that confidence: all on one side
/// happens with probability `2^-n`, which must be at most half of `1 -
/// confidence` (six differences at 95 %). Equal differences give a
/// zero-width interval at their value.
///
/// ```
/// use perfbench::stats::signed_rank;
///
/// // Nine blocks near +5, one disturbed to +60: the interval's ends stay
/// // among the undisturbed ones.
/// let d = [4.8, 5.1, 5.0, 4.9, 5.2, 60.0, 5.0, 4.7, 5.3, 5.1];
/// let s = signed_rank(&d, 0.95).unwrap();
/// assert!(s.interval.low > 4.7 && s.interval.low < 5.0, "{s:?}");
/// assert!(s.estimate < 5.2 && s.p_value < 0.01, "{s:?}");
/// ```
pub fn signed_rank(differences: &[f64], confidence: f64) -> Option<SignedRank> {
    check_confidence(confidence);
    let null = NullDistribution::of(differences.len());
    let k = null.interval_rank(confidence)?;
    let walsh = walsh_averages(differences);
    let m = walsh.len();
    let above = walsh.iter().filter(|&&w| w > 0.0).count() as f64;
    let at_zero = walsh.iter().filter(|&&w| w == 0.0).count() as f64;
    let statistic = above + at_zero / 2.0;
    let tail = statistic.min(m as f64 - statistic).floor() as usize;
    Some(SignedRank {
        estimate: median_of_sorted(&walsh),
        interval: Interval {
            low: walsh[k - 1],
            high: walsh[m - k],
        },
        p_value: (2.0 * null.lower_tail(tail)).min(1.0),
    })
}

/// The means of every two differences `(d_i + d_j) / 2` with `i <= j`,
/// sorted.
fn walsh_averages(d: &[f64]) -> Vec<f64> {
    let mut walsh = Vec::with_capacity(d.len() * (d.len() + 1) / 2);
    for i in 0..d.len() {
        for j in i..d.len() {
            walsh.push((d[i] + d[j]) / 2.0);
        }
    }
    walsh.sort_unstable_by(f64::total_cmp);
    walsh
}

/// The signed-rank statistic `T` of `n` differences with no centre shift:
/// counted exactly, as the subsets of the ranks `1..=n` summing to each
/// total, up to [`EXACT_UP_TO`] differences; else its normal
/// approximation with continuity correction.
struct NullDistribution {
    n: usize,
    /// `P(T ≤ t)` for each total `t`, where counted exactly.
    cdf: Option<Vec<f64>>,
}

impl NullDistribution {
    /// The distribution for `n` differences.
    fn of(n: usize) -> NullDistribution {
        let m = n * (n + 1) / 2;
        let cdf = (n <= EXACT_UP_TO).then(|| {
            // ways[t]: the subsets of the ranks so far summing to t, over
            // 2^ranks.
            let mut ways = vec![0.0; m + 1];
            ways[0] = 1.0;
            for rank in 1..=n {
                for t in (0..=m).rev() {
                    let with = if t >= rank { ways[t - rank] } else { 0.0 };
                    ways[t] = (ways[t] + with) / 2.0;
                }
            }
            let mut sum = 0.0;
            ways.iter()
                .map(|w| {
                    sum += w;
                    sum
                })
                .collect()
        });
        NullDistribution { n, cdf }
    }

    /// `P(T ≤ c)`.
    fn lower_tail(&self, c: usize) -> f64 {
        let n = self.n as f64;
        if c >= self.n * (self.n + 1) / 2 {
            return 1.0;
        }
        match &self.cdf {
            Some(cdf) => cdf[c],
            None => {
                let mean = n * (n + 1.0) / 4.0;
                let sd = (n * (n + 1.0) * (2.0 * n + 1.0) / 24.0).sqrt();
                Normal::standard().cdf((c as f64 + 0.5 - mean) / sd)
            }
        }
    }

    /// The 1-based rank `k` of the interval's lower end among the Walsh
    /// averages: the largest with `P(T ≤ k - 1) ≤ (1 - confidence) / 2`.
    /// `None` where even `k = 1` is too likely.
    fn interval_rank(&self, confidence: f64) -> Option<usize> {
        let half_alpha = (1.0 - confidence) / 2.0;
        if self.n == 0 || self.lower_tail(0) > half_alpha {
            return None;
        }
        let m = self.n * (self.n + 1) / 2;
        Some(
            (0..m)
                .take_while(|&c| self.lower_tail(c) <= half_alpha)
                .count(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exact_null_distribution_matches_the_published_table() {
        // n = 10: P(T ≤ 8) = 25/1024, P(T ≤ 9) = 33/1024 (Hollander and
        // Wolfe, table A.4); n = 3: T takes 0..=6 with 1,1,1,2,1,1,1 of 8.
        assert_eq!(NullDistribution::of(10).lower_tail(8), 25.0 / 1024.0);
        assert_eq!(NullDistribution::of(10).lower_tail(9), 33.0 / 1024.0);
        assert_eq!(NullDistribution::of(3).lower_tail(3), 5.0 / 8.0);
        assert_eq!(NullDistribution::of(3).lower_tail(6), 1.0);
        // So at 95 % with 10 differences the interval runs from the 9th
        // Walsh average to the 47th of 55.
        assert_eq!(NullDistribution::of(10).interval_rank(0.95), Some(9));
        assert_eq!(NullDistribution::of(20).interval_rank(0.95), Some(53));
        assert_eq!(NullDistribution::of(6).interval_rank(0.95), Some(1));
        assert_eq!(NullDistribution::of(5).interval_rank(0.95), None);
    }

    #[test]
    fn the_normal_approximation_is_within_a_rank_of_the_exact_count() {
        let exact = |n: usize| {
            let m = n * (n + 1) / 2;
            let mut ways = vec![0.0; m + 1];
            ways[0] = 1.0;
            for rank in 1..=n {
                for t in (rank..=m).rev() {
                    ways[t] += ways[t - rank];
                }
            }
            let all = 2f64.powi(n as i32);
            (0..m)
                .take_while(|&c| ways[..=c].iter().sum::<f64>() / all <= 0.025)
                .count()
        };
        for n in [51, 60, 80] {
            let approx = NullDistribution::of(n).interval_rank(0.95).unwrap();
            assert!(approx.abs_diff(exact(n)) <= 1, "{n}: {approx} {}", exact(n));
        }
    }

    #[test]
    fn walsh_averages_and_the_estimate_by_hand() {
        // Differences 1, 2, 4: averages 1, 1.5, 2, 2.5, 3, 4; median 2.25.
        assert_eq!(
            walsh_averages(&[4.0, 1.0, 2.0]),
            [1.0, 1.5, 2.0, 2.5, 3.0, 4.0]
        );
        let d: Vec<f64> = (1..=10).map(f64::from).collect();
        let s = signed_rank(&d, 0.95).unwrap();
        assert_eq!(s.estimate, 5.5);
        // The 9th and the 47th of the 55 averages of 1..=10.
        assert_eq!((s.interval.low, s.interval.high), (3.0, 8.0));
        // All above 0: T = 55, p = 2 / 1024.
        assert_eq!(s.p_value, 2.0 / 1024.0);
    }

    #[test]
    fn how_far_out_one_difference_of_twenty_lies_moves_neither_end() {
        // 20 blocks: each end is the 53rd average of 210 from its side, and
        // one difference far beyond the others is in only the 20 averages
        // at its end: at 200 or at 600, the ends are the same, and inside
        // the others' range (40 to 59).
        let calm: Vec<f64> = (0..20).map(|i| f64::from(40 + (i * 7) % 20)).collect();
        for (near, far) in [(200.0, 600.0), (-200.0, -600.0)] {
            let with = |value: f64| {
                let mut d = calm.clone();
                d[5] = value;
                signed_rank(&d, 0.95).unwrap().interval
            };
            assert_eq!(with(near), with(far), "{far}");
            assert!(
                with(far).low > 40.0 && with(far).high < 59.0,
                "{:?}",
                with(far)
            );
        }
    }

    #[test]
    fn with_ten_differences_one_far_out_reaches_only_its_own_end() {
        // 10 blocks: the ends are the 9th average of 55 from each side, and
        // one difference far out is in the 10 at its end.
        let calm = [48.0, 51.0, 50.0, 49.0, 52.0, 50.0, 47.0, 53.0, 51.0, 50.0];
        let mut high = calm;
        high[5] = 600.0;
        let (a, b) = (
            signed_rank(&calm, 0.95).unwrap(),
            signed_rank(&high, 0.95).unwrap(),
        );
        assert_eq!(a.interval.low, b.interval.low);
        assert!(b.interval.high > 300.0, "{b:?}");
    }

    #[test]
    fn equal_differences_give_a_point_and_no_change_gives_p_one() {
        let s = signed_rank(&[2.5; 8], 0.95).unwrap();
        assert_eq!(
            (s.estimate, s.interval.low, s.interval.high),
            (2.5, 2.5, 2.5)
        );
        assert_eq!(s.p_value, 2.0 / 256.0);
        let s = signed_rank(&[0.0; 8], 0.95).unwrap();
        assert_eq!((s.estimate, s.p_value), (0.0, 1.0));
    }

    #[test]
    fn an_interval_leaving_out_zero_has_a_p_value_below_the_level() {
        // Symmetric about 0 but for one sign: every shift of these
        // differences, p below 5 % exactly where 0 falls outside.
        let base = [-3.0, -1.5, -0.4, 0.2, 0.9, 1.7, 2.4, 3.3, 4.1, 5.6, 6.2];
        for shift in [-4.0, -2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 5.0] {
            let d: Vec<f64> = base.iter().map(|x| x + shift).collect();
            let s = signed_rank(&d, 0.95).unwrap();
            let outside = s.interval.low > 0.0 || s.interval.high < 0.0;
            assert_eq!(outside, s.p_value < 0.05, "{shift}: {s:?}");
        }
    }

    #[test]
    fn too_few_differences_for_the_confidence_are_none() {
        assert_eq!(signed_rank(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95), None);
        assert!(signed_rank(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.90).is_some());
        assert_eq!(signed_rank(&[], 0.95), None);
    }
}
