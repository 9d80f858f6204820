//! Two builds measured in alternating rounds on one machine, judged from
//! the differences within each block of rounds: what the machine does to
//! both sides in the same seconds cancels, and so does drift that is
//! linear over a block.

use super::welch::{relative_change, Change, TwoSided};
use super::{check_confidence, signed_rank, Interval};

/// Four rounds of one metric measured one after the other in the order
/// baseline, candidate, candidate, baseline (ABBA): each round's
/// per-iteration value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbbaBlock {
    /// The first and the fourth round, the baseline build's.
    pub base: [f64; 2],
    /// The second and the third round, the candidate build's.
    pub new: [f64; 2],
}

impl AbbaBlock {
    /// The candidate's rounds less the baseline's, halved: a drift
    /// `v + s·t` over the four rounds adds `s + 2s` to the candidate and
    /// `0 + 3s` to the baseline, so it cancels. Each round less its
    /// partner first, so that equal rounds differ by exactly 0 (summed
    /// first, rounding can leave 1e-14, an exact change of nothing).
    fn difference(&self) -> f64 {
        ((self.new[0] - self.base[0]) + (self.new[1] - self.base[1])) / 2.0
    }

    fn base_mean(&self) -> f64 {
        (self.base[0] + self.base[1]) / 2.0
    }
}

/// How [`compare_paired`] takes the centre of the blocks' differences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockCentre {
    /// Their mean, with Student's interval (the blocks' spread, `blocks -
    /// 1` degrees of freedom): for counts, whose few distinct values tie
    /// the ranks, and where one block far out is a real change.
    Mean,
    /// Their Hodges–Lehmann centre, with the signed-rank interval
    /// ([`signed_rank`](fn@super::signed_rank)): for times, where a block the machine disturbed
    /// (a preempted round) is one difference far out, which widens
    /// Student's interval on every side but moves neither end of this one
    /// among 20 blocks. The mean where the blocks are too few for the
    /// confidence (under 6 at 95 %).
    HodgesLehmann,
}

/// The change from the baseline build to the candidate over `blocks`, at
/// `confidence` (0.95 for a 95 % interval): the blocks' differences'
/// centre (`centre`) over the baseline's mean, with its interval and
/// two-sided p-value. Every block giving the same difference (exact
/// counts) makes the interval zero-wide, and any difference then certain.
///
/// `None` under two blocks: one block has no spread to judge by.
///
/// ```
/// use perfbench::stats::{compare_paired, AbbaBlock, BlockCentre};
///
/// // The machine slows by 5 % a round while the candidate does 10 % more
/// // work: the drift cancels within each block.
/// let round = |i: usize, work: f64| work * (1.0 + 0.05 * i as f64);
/// let blocks: Vec<AbbaBlock> = (0..5)
///     .map(|k| AbbaBlock {
///         base: [round(4 * k, 100.0), round(4 * k + 3, 100.0)],
///         new: [round(4 * k + 1, 110.0), round(4 * k + 2, 110.0)],
///     })
///     .collect();
/// for centre in [BlockCentre::Mean, BlockCentre::HodgesLehmann] {
///     let c = compare_paired(&blocks, 0.95, centre).unwrap();
///     assert!(c.ci.unwrap().low > 0.0 && c.p_value < 0.05, "{c:?}");
/// }
/// ```
pub fn compare_paired(
    blocks: &[AbbaBlock],
    confidence: f64,
    centre: BlockCentre,
) -> Option<Change> {
    check_confidence(confidence);
    if blocks.len() < 2 {
        return None;
    }
    let differences: Vec<f64> = blocks.iter().map(AbbaBlock::difference).collect();
    let base = blocks.iter().map(AbbaBlock::base_mean).sum::<f64>() / blocks.len() as f64;
    if centre == BlockCentre::HodgesLehmann {
        if let Some(change) = by_signed_rank(&differences, base, confidence) {
            return Some(change);
        }
    }
    Some(by_mean(&differences, base, confidence))
}

/// The change as the Hodges–Lehmann centre of `differences` over `base`,
/// with the signed-rank interval; `None` where they are too few for
/// `confidence`.
fn by_signed_rank(differences: &[f64], base: f64, confidence: f64) -> Option<Change> {
    let s = signed_rank(differences, confidence)?;
    let relative = relative_change(base, base + s.estimate);
    let ci = match relative {
        Some(_) if base != 0.0 => {
            let (a, b) = (s.interval.low / base, s.interval.high / base);
            Some(Interval {
                low: a.min(b),
                high: a.max(b),
            })
        }
        Some(_) => Some(Interval::point(0.0)),
        None => None,
    };
    Some(Change {
        relative,
        difference: s.estimate,
        ci,
        p_value: s.p_value,
        runs: 1,
    })
}

/// The change as the mean of `differences` over `base`, with Student's
/// interval of that mean.
fn by_mean(differences: &[f64], base: f64, confidence: f64) -> Change {
    let k = differences.len() as f64;
    let difference = differences.iter().sum::<f64>() / k;
    let spread = differences
        .iter()
        .map(|d| (d - difference) * (d - difference))
        .sum::<f64>()
        / (k - 1.0);
    // The variance of the mean difference, in the units the change is
    // given in: the baseline's for a relative change.
    let scaled = |scale: f64| {
        TwoSided::of(
            difference / scale,
            &[(spread / k / (scale * scale), differences.len())],
        )
    };
    let relative = relative_change(base, base + difference);
    let (ci, p_value) = match relative {
        Some(r) if base != 0.0 => {
            let t = scaled(base.abs());
            let half = t.half_width(confidence);
            (
                Some(Interval {
                    low: r - half,
                    high: r + half,
                }),
                t.p_value(),
            )
        }
        Some(_) => (Some(Interval::point(0.0)), 1.0),
        None => (None, scaled(1.0).p_value()),
    };
    Change {
        relative,
        difference,
        ci,
        p_value,
        runs: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(base: [f64; 2], new: [f64; 2]) -> AbbaBlock {
        AbbaBlock { base, new }
    }

    #[test]
    fn drift_linear_over_the_whole_run_cancels_exactly() {
        // +7 a round on both sides, the candidate 10 above the baseline.
        let blocks: Vec<AbbaBlock> = (0..6)
            .map(|k| {
                let t = |i: usize| 7.0 * (4 * k + i) as f64;
                block([100.0 + t(0), 100.0 + t(3)], [110.0 + t(1), 110.0 + t(2)])
            })
            .collect();
        let c = compare_paired(&blocks, 0.95, BlockCentre::Mean).unwrap();
        assert_eq!(c.difference, 10.0);
        // The baseline's mean over the blocks is 100 plus the mean drift.
        let base = 100.0 + 7.0 * 11.5;
        assert_eq!(c.relative, Some(10.0 / base));
        assert_eq!(c.ci.unwrap().low, c.ci.unwrap().high);
        assert_eq!(c.p_value, 0.0);
        assert!(c.is_exact());
    }

    #[test]
    fn equal_rounds_differ_by_exactly_nothing() {
        // Summed before subtracting, these rounds left -1.4e-14: an exact
        // change of nothing, judged certain.
        let rounds = [
            254.94,
            251.7875,
            250.354_545_454_545_44,
            250.957_894_736_842_1,
        ];
        let blocks = [
            block([rounds[0], rounds[1]], [rounds[0], rounds[1]]),
            block([rounds[2], rounds[3]], [rounds[2], rounds[3]]),
        ];
        let c = compare_paired(&blocks, 0.95, BlockCentre::Mean).unwrap();
        assert_eq!((c.relative, c.difference, c.p_value), (Some(0.0), 0.0, 1.0));
    }

    #[test]
    fn the_interval_is_students_over_the_blocks_differences() {
        // Differences 1, 2, 3, 4 on a baseline of 100: mean 2.5, standard
        // deviation sqrt(5/3), t(3, 0.975) = 3.182446305284263.
        let blocks: Vec<AbbaBlock> = [1.0, 2.0, 3.0, 4.0]
            .iter()
            .map(|d| block([100.0, 100.0], [100.0 + d, 100.0 + d]))
            .collect();
        let c = compare_paired(&blocks, 0.95, BlockCentre::Mean).unwrap();
        let half = 3.182446305284263 * (5.0f64 / 3.0).sqrt() / 2.0 / 100.0;
        let ci = c.ci.unwrap();
        assert!((c.relative.unwrap() - 0.025).abs() < 1e-15);
        assert!((ci.low - (0.025 - half)).abs() < 1e-9, "{ci:?}");
        assert!((ci.high - (0.025 + half)).abs() < 1e-9, "{ci:?}");
        // t = 2.5 / (sqrt(5/3) / 2) = 3.8730 at 3 degrees of freedom.
        assert!((c.p_value - 0.030466).abs() < 1e-5, "{}", c.p_value);
    }

    #[test]
    fn identical_builds_with_noise_give_an_interval_around_no_change() {
        let blocks = [
            block([100.0, 103.0], [102.0, 102.0]),
            block([99.0, 98.0], [100.0, 97.0]),
            block([104.0, 101.0], [101.0, 103.0]),
        ];
        let c = compare_paired(&blocks, 0.95, BlockCentre::Mean).unwrap();
        let ci = c.ci.unwrap();
        assert!(ci.low < 0.0 && ci.high > 0.0, "{c:?}");
        assert!(c.p_value > 0.05);
    }

    #[test]
    fn counts_from_zero_and_at_zero() {
        let zero = [block([0.0, 0.0], [0.0, 0.0]); 3];
        let c = compare_paired(&zero, 0.95, BlockCentre::Mean).unwrap();
        assert_eq!((c.relative, c.p_value), (Some(0.0), 1.0));
        let from_zero = [block([0.0, 0.0], [2.0, 2.0]); 3];
        let c = compare_paired(&from_zero, 0.95, BlockCentre::Mean).unwrap();
        assert_eq!(
            (c.relative, c.ci, c.difference, c.p_value),
            (None, None, 2.0, 0.0)
        );
    }

    #[test]
    fn one_block_is_not_judged() {
        assert_eq!(
            compare_paired(&[block([1.0, 1.0], [2.0, 2.0])], 0.95, BlockCentre::Mean),
            None
        );
        assert_eq!(compare_paired(&[], 0.95, BlockCentre::HodgesLehmann), None);
    }
}
