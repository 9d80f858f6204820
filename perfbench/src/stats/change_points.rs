//! Where a series of per-run estimates steps: binary segmentation gated by
//! Welch's t, the method of Hunter and Apache Otava (E-divisive means, whose
//! energy statistic with exponent 2 is the difference of means used here,
//! and a Student's t test in place of its permutation test), with the
//! noise threshold the regression gate uses as a smallest step.
//!
//! A segment is split where the between-segment sum of squares (the
//! reduction in squared error a step there gives) peaks, found in one pass
//! over prefix sums; a change point is kept only where Welch's t test of
//! the two sides gives a p-value below [`ChangeSettings::max_p`] and the step
//! is at least [`ChangeSettings::min_relative`] of the level before it
//! (or, where neither side varies at all, as an exact count, any step).
//! While splitting, significance alone keeps a split, and each side is
//! split again; then each split is tested again, with the smallest step
//! too, against the segments between its neighbours, and the weakest that
//! fails is dropped until all pass. The cost is O(n) per level of splitting: O(n·k) for k
//! change points, with no permutations.

use super::welch::{relative_change, TwoSided};

/// What makes a step a change point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangeSettings {
    /// Largest p-value of Welch's t test of the two sides of a kept step
    /// (Hunter and Otava default to 0.001).
    pub max_p: f64,
    /// Smallest step, relative to the level before it: the gate's noise
    /// threshold of the metric (3 % of a time, 1 % of a count). Zero-variance
    /// sides (exact counts) are judged without it, as the gate judges them.
    pub min_relative: f64,
    /// Fewest runs on either side of a step: a shorter stretch is an
    /// outlier, not a level.
    pub min_segment: usize,
}

impl Default for ChangeSettings {
    fn default() -> Self {
        ChangeSettings {
            max_p: 0.001,
            min_relative: 0.03,
            min_segment: 5,
        }
    }
}

/// A step in a series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangePoint {
    /// The first value at the new level.
    pub index: usize,
    /// The mean of the segment before it (from the change point before).
    pub before: f64,
    /// The mean of the segment after it (to the change point after).
    pub after: f64,
    /// Welch's two-sided p-value of the two segments.
    pub p_value: f64,
}

impl ChangePoint {
    /// `(after - before) / before`; `None` for a step from 0.
    pub fn relative(&self) -> Option<f64> {
        relative_change(self.before, self.after)
    }
}

/// The change points of `values`, in order. Values that are not finite
/// make no split.
///
/// ```
/// use perfbench::stats::{change_points, ChangeSettings};
///
/// let mut runs = vec![100.0; 30];
/// runs.extend([101.0; 20]);
/// let found = change_points(&runs, &ChangeSettings::default());
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].index, 30);
/// ```
pub fn change_points(values: &[f64], settings: &ChangeSettings) -> Vec<ChangePoint> {
    if values.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let mut splits = Vec::new();
    let mut pending = vec![(0, values.len())];
    while let Some((start, end)) = pending.pop() {
        let Some(k) = best_split(&values[start..end], settings.min_segment) else {
            continue;
        };
        let k = start + k;
        // Significance alone here: a step too small to keep may still
        // separate larger ones (a bump up and back), which the retest
        // judges against their neighbours with the smallest size too.
        let significant = ChangeSettings {
            min_relative: 0.0,
            ..*settings
        };
        if step(&values[start..k], &values[k..end], &significant).is_some() {
            splits.push(k);
            pending.push((start, k));
            pending.push((k, end));
        }
    }
    splits.sort_unstable();
    retest(values, splits, settings)
}

/// Tests each split against the segments between its neighbours, dropping
/// those that fail, until all pass; the survivors with their figures.
fn retest(values: &[f64], mut splits: Vec<usize>, settings: &ChangeSettings) -> Vec<ChangePoint> {
    loop {
        let bounds = |i: usize, splits: &[usize]| {
            let start = if i == 0 { 0 } else { splits[i - 1] };
            let end = splits.get(i + 1).copied().unwrap_or(values.len());
            (start, end)
        };
        let tested: Vec<Option<ChangePoint>> = (0..splits.len())
            .map(|i| {
                let (start, end) = bounds(i, &splits);
                let k = splits[i];
                step(&values[start..k], &values[k..end], settings).map(|(p, before, after)| {
                    ChangePoint {
                        index: k,
                        before,
                        after,
                        p_value: p,
                    }
                })
            })
            .collect();
        if tested.iter().all(Option::is_some) {
            return tested.into_iter().flatten().collect();
        }
        // Drop the weakest failing one only: its neighbours' segments grow,
        // which may make the others pass.
        let weakest = (0..splits.len())
            .filter(|&i| tested[i].is_none())
            .min_by(|&a, &b| {
                let gain = |i: usize| {
                    let (start, end) = bounds(i, &splits);
                    split_gain(&values[start..end], splits[i] - start)
                };
                gain(a).total_cmp(&gain(b))
            })
            .expect("one failed");
        splits.remove(weakest);
    }
}

/// Where in `values` a step explains the most: the split `k` (at least
/// `min_segment` from each end) maximising `nL·nR/n·(meanL - meanR)²`;
/// `None` where the series is too short or flat.
fn best_split(values: &[f64], min_segment: usize) -> Option<usize> {
    let n = values.len();
    let min = min_segment.max(1);
    if n < 2 * min {
        return None;
    }
    // Shifted by the first value, so that sums of large, nearly equal
    // values keep their digits.
    let shift = values[0];
    let total: f64 = values.iter().map(|v| v - shift).sum();
    let mut left = 0.0;
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in values[..n - min].iter().enumerate() {
        left += v - shift;
        // The split after value `i`: the new level starts at `i + 1`.
        let k = i + 1;
        if k < min {
            continue;
        }
        let gain = gain_of(left, total - left, k, n);
        if gain > best.map_or(0.0, |(_, g)| g) {
            best = Some((k, gain));
        }
    }
    best.map(|(k, _)| k)
}

/// The between-segment sum of squares of splitting `values` at `k`.
fn split_gain(values: &[f64], k: usize) -> f64 {
    let shift = values[0];
    let left: f64 = values[..k].iter().map(|v| v - shift).sum();
    let right: f64 = values[k..].iter().map(|v| v - shift).sum();
    gain_of(left, right, k, values.len())
}

/// `nL·nR/n·(meanL - meanR)²` from the sums of both sides.
fn gain_of(left: f64, right: f64, k: usize, n: usize) -> f64 {
    let (nl, nr) = (k as f64, (n - k) as f64);
    let d = left / nl - right / nr;
    nl * nr / n as f64 * d * d
}

/// Whether the step from `before` to `after` is a change point: the
/// p-value of Welch's t test of the two, and their means, where it is.
fn step(before: &[f64], after: &[f64], settings: &ChangeSettings) -> Option<(f64, f64, f64)> {
    let min = settings.min_segment.max(1);
    if before.len() < min || after.len() < min {
        return None;
    }
    let (mb, vb) = mean_variance(before);
    let (ma, va) = mean_variance(after);
    let parts = [
        (vb / before.len() as f64, before.len()),
        (va / after.len() as f64, after.len()),
    ];
    let p = TwoSided::of(ma - mb, &parts).p_value();
    let exact = vb == 0.0 && va == 0.0;
    let large = relative_change(mb, ma).is_none_or(|r| r.abs() >= settings.min_relative);
    (p < settings.max_p && (exact || large)).then_some((p, mb, ma))
}

/// The mean and sample variance (divisor `n - 1`; 0 for one value), in two
/// passes so that a constant series has variance exactly 0.
fn mean_variance(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.iter().all(|&v| v == values[0]) {
        return (values[0], 0.0);
    }
    let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    (mean, squares / (n - 1.0).max(1.0))
}
