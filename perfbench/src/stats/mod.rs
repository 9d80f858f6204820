//! Statistics over the samples of one metric.
//!
//! Sums are taken in exact integer arithmetic, so an exactly linear series
//! (a counter that counts the same per iteration) gives an exact slope: 16
//! page faults per iteration come out as `16.0`, not `15.999999999999998`.
//!
//! [`analyze_metric`] adds confidence intervals, dispersion and Tukey outlier
//! counts, and [`compare`] a baseline with a new run. Intervals of the
//! per-iteration statistics come from a percentile bootstrap with a seeded,
//! hand-written generator (SplitMix64), so the same data and seed give
//! bit-identical results. Zero-variance data (an exact counter) skips the
//! resampling and gives exact figures with zero-width intervals.

pub mod kde;

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The median of sorted values (the mean of the middle two for an even count).
pub fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Least-squares `(slope, intercept)` of `y` on `x`. With fewer than two
/// distinct `x` the line goes through the origin.
pub fn linear_fit(x: &[u64], y: &[u64]) -> (f64, f64) {
    let n = x.len() as i128;
    let sx: i128 = x.iter().map(|&v| i128::from(v)).sum();
    let sy: i128 = y.iter().map(|&v| i128::from(v)).sum();
    let sxx: i128 = x.iter().map(|&v| i128::from(v) * i128::from(v)).sum();
    let sxy: i128 = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| i128::from(a) * i128::from(b))
        .sum();
    let den = n * sxx - sx * sx;
    if den == 0 {
        return (exact_ratio(sy, sx), 0.0);
    }
    (
        exact_ratio(n * sxy - sx * sy, den),
        exact_ratio(sy * sxx - sx * sxy, den),
    )
}

/// `num / den` rounded once: exact whenever the quotient is an integer.
fn exact_ratio(num: i128, den: i128) -> f64 {
    let (q, r) = (num.div_euclid(den), num.rem_euclid(den));
    q as f64 + r as f64 / den as f64
}

/// A confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl Interval {
    /// The zero-width interval `[value, value]`.
    fn point(value: f64) -> Interval {
        Interval {
            low: value,
            high: value,
        }
    }
}

/// A point estimate with its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The estimate from all samples.
    pub point: f64,
    /// Its confidence interval.
    pub ci: Interval,
}

impl Estimate {
    /// An estimate known exactly: its interval has zero width.
    fn exact(value: f64) -> Estimate {
        Estimate {
            point: value,
            ci: Interval::point(value),
        }
    }
}

/// Tukey's fences over per-iteration values, with the quartiles `Q1` and
/// `Q3` interpolated linearly between order statistics: counts below
/// `Q1 - 3 IQR` (`low_severe`), in `[Q1 - 3 IQR, Q1 - 1.5 IQR)`
/// (`low_mild`), in `(Q3 + 1.5 IQR, Q3 + 3 IQR]` (`high_mild`) and above
/// `Q3 + 3 IQR` (`high_severe`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outliers {
    /// Values below `Q1 - 3 IQR`.
    pub low_severe: usize,
    /// Values in `[Q1 - 3 IQR, Q1 - 1.5 IQR)`.
    pub low_mild: usize,
    /// Values in `(Q3 + 1.5 IQR, Q3 + 3 IQR]`.
    pub high_mild: usize,
    /// Values above `Q3 + 3 IQR`.
    pub high_severe: usize,
}

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

/// Full statistics of one metric in batch mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Statistics {
    /// Per-iteration cost: the least-squares slope of total against
    /// iterations ([`linear_fit`]), its interval from Student's t with
    /// `n - 2` degrees of freedom on the slope's standard error. When every
    /// sample ran the same number of iterations the slope is the ratio of the
    /// sums and its interval is Student's t on the mean per-iteration value
    /// (`n - 1` degrees of freedom).
    pub slope: Estimate,
    /// Fixed cost per sample: the intercept of the same line.
    pub intercept: f64,
    /// Coefficient of determination of the line: 1.0 for a perfect fit,
    /// including totals that do not vary; 0.0 when all samples ran the same
    /// number of iterations but their totals differ.
    pub r_squared: f64,
    /// Mean of the per-iteration values (total / iterations), with a
    /// percentile-bootstrap interval.
    pub mean: Estimate,
    /// Median of the per-iteration values, with a bootstrap interval.
    pub median: Estimate,
    /// Sample standard deviation (divisor `n - 1`; 0 for one sample) of the
    /// per-iteration values, with a bootstrap interval.
    pub std_dev: Estimate,
    /// Median absolute deviation of the per-iteration values from their
    /// median, scaled by 1.4826 (like Criterion) to estimate the standard
    /// deviation of normal data, with a bootstrap interval.
    pub mad: Estimate,
    /// Smallest per-iteration value.
    pub min: f64,
    /// Largest per-iteration value.
    pub max: f64,
    /// First and third quartiles (p25, p75) of the per-iteration values.
    pub quartiles: (f64, f64),
    /// Tukey outlier counts of the per-iteration values.
    pub outliers: Outliers,
}

/// Scale of the MAD that makes it a consistent estimator of the standard
/// deviation of normal data (1 / Φ⁻¹(3/4)), as Criterion uses.
const MAD_SCALE: f64 = 1.4826;

/// Statistics of samples that ran `iterations[i]` iterations for a total of
/// `totals[i]`.
///
/// With fewer than three samples, or `resamples == 0`, every interval is
/// the point itself. Zero-variance data (all per-iteration values equal)
/// gives exact figures and zero-width intervals without resampling.
///
/// # Panics
///
/// If the slices differ in length or are empty, an iteration count is 0, or
/// the confidence is not strictly between 0 and 1.
pub fn analyze_metric(iterations: &[u64], totals: &[u64], bootstrap: &Bootstrap) -> Statistics {
    check_samples(iterations, totals);
    check_confidence(bootstrap.confidence);
    let n = iterations.len();
    let (slope, intercept) = linear_fit(iterations, totals);
    let (slope, r_squared) = regression(iterations, totals, slope, bootstrap.confidence);
    let mut sorted = per_iteration(iterations, totals);
    sorted.sort_unstable_by(f64::total_cmp);
    let (min, max) = (sorted[0], sorted[n - 1]);
    if min == max {
        // Zero variance: every statistic is exact, and so is every resample.
        return Statistics {
            slope,
            intercept,
            r_squared,
            mean: Estimate::exact(min),
            median: Estimate::exact(min),
            std_dev: Estimate::exact(0.0),
            mad: Estimate::exact(0.0),
            min,
            max,
            quartiles: (min, max),
            outliers: Outliers::default(),
        };
    }
    let point = SampleStats::of_sorted(&sorted);
    let [mean, median, std_dev, mad] = if n < 3 || bootstrap.resamples == 0 {
        point.values().map(Estimate::exact)
    } else {
        bootstrap_sample_stats(&sorted, &point, bootstrap)
    };
    Statistics {
        slope,
        intercept,
        r_squared,
        mean,
        median,
        std_dev,
        mad,
        min,
        max,
        quartiles: (
            quantile_of_sorted(&sorted, 0.25),
            quantile_of_sorted(&sorted, 0.75),
        ),
        outliers: tukey(&sorted),
    }
}

/// A change between a baseline and a new run of one metric.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    /// `(new - base) / base` of the per-iteration estimates (the slopes);
    /// `None` when the baseline's is 0 and the new one is not, 0.0 when both
    /// are 0.
    pub relative: Option<f64>,
    /// Percentile-bootstrap interval of the relative change: each run's
    /// samples (pairs of iterations and total) are resampled independently
    /// and both slopes refitted. Zero-width when both runs fit their lines
    /// exactly or either has fewer than three samples; `None` where
    /// `relative` is. A resample whose baseline slope is 0 counts as an
    /// infinite change, so a bound may be infinite (never NaN).
    pub ci: Option<Interval>,
    /// Two-sided Welch's t-test on the per-iteration values of the two runs.
    /// When neither run varies: 1.0 if their values are equal, else 0.0.
    pub p_value: f64,
}

/// Compares a baseline (`base_iterations`, `base_totals`) with a new run
/// (`iterations`, `totals`) of the same metric.
///
/// # Panics
///
/// Under the same conditions as [`analyze_metric`], for either run.
pub fn compare(
    base_iterations: &[u64],
    base_totals: &[u64],
    iterations: &[u64],
    totals: &[u64],
    bootstrap: &Bootstrap,
) -> Change {
    check_samples(base_iterations, base_totals);
    check_samples(iterations, totals);
    check_confidence(bootstrap.confidence);
    let base_slope = linear_fit(base_iterations, base_totals).0;
    let new_slope = linear_fit(iterations, totals).0;
    let relative = relative_change(base_slope, new_slope);
    let ci = relative.map(|r| {
        let degenerate = base_iterations.len() < 3
            || iterations.len() < 3
            || bootstrap.resamples == 0
            || (exact_fit(base_iterations, base_totals) && exact_fit(iterations, totals));
        if degenerate {
            Interval::point(r)
        } else {
            bootstrap_change(base_iterations, base_totals, iterations, totals, bootstrap)
        }
    });
    let p_value = welch_p_value(
        &per_iteration(base_iterations, base_totals),
        &per_iteration(iterations, totals),
    );
    Change {
        relative,
        ci,
        p_value,
    }
}

fn check_samples(iterations: &[u64], totals: &[u64]) {
    assert_eq!(
        iterations.len(),
        totals.len(),
        "iterations and totals differ in length"
    );
    assert!(!iterations.is_empty(), "no samples");
    assert!(
        iterations.iter().all(|&i| i > 0),
        "a sample ran no iterations"
    );
}

fn check_confidence(confidence: f64) {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence} is not strictly between 0 and 1"
    );
}

/// The per-iteration values `totals[i] / iterations[i]`, in sample order.
fn per_iteration(iterations: &[u64], totals: &[u64]) -> Vec<f64> {
    iterations
        .iter()
        .zip(totals)
        .map(|(&x, &y)| y as f64 / x as f64)
        .collect()
}

/// `(new - base) / base`, with 0 / 0 = 0 and `None` for a change from 0.
fn relative_change(base: f64, new: f64) -> Option<f64> {
    if base == 0.0 {
        (new == 0.0).then_some(0.0)
    } else {
        Some((new - base) / base)
    }
}

/// The slope's interval and R² (see [`Statistics::slope`] and
/// [`Statistics::r_squared`]).
fn regression(x: &[u64], y: &[u64], slope: f64, confidence: f64) -> (Estimate, f64) {
    let n = x.len();
    let p = (1.0 + confidence) / 2.0;
    if x.iter().all(|&v| v == x[0]) {
        // No spread in x: the slope is sum(y) / sum(x), the mean of the
        // per-iteration values; Student's t on that mean.
        if y.iter().all(|&v| v == y[0]) {
            return (Estimate::exact(slope), 1.0);
        }
        if n < 3 {
            return (Estimate::exact(slope), 0.0);
        }
        let (_, var) = mean_var(&per_iteration(x, y));
        let half = student_t(n as f64 - 1.0).inverse_cdf(p) * (var / n as f64).sqrt();
        return (interval_around(slope, half), 0.0);
    }
    if collinear(x, y) {
        return (Estimate::exact(slope), 1.0);
    }
    // Not collinear, so n >= 3, sxx > 0 and syy > 0.
    let (sxx, syy, sxy) = centred_sums(x, y);
    let r_squared = ((sxy / sxx) * (sxy / syy)).clamp(0.0, 1.0);
    let sse = (syy - sxy * (sxy / sxx)).max(0.0);
    let se = (sse / (n - 2) as f64 / sxx).sqrt();
    let half = student_t((n - 2) as f64).inverse_cdf(p) * se;
    (interval_around(slope, half), r_squared)
}

fn interval_around(point: f64, half_width: f64) -> Estimate {
    Estimate {
        point,
        ci: Interval {
            low: point - half_width,
            high: point + half_width,
        },
    }
}

/// Student's t distribution with `dof > 0` degrees of freedom.
fn student_t(dof: f64) -> StudentsT {
    StudentsT::new(0.0, 1.0, dof).expect("degrees of freedom are positive")
}

/// Whether all points `(x[i], y[i])` lie exactly on one line that is not
/// vertical (false when all `x` are equal).
fn collinear(x: &[u64], y: &[u64]) -> bool {
    let Some(p) = x.iter().position(|&v| v != x[0]) else {
        return false;
    };
    let (x0, y0) = (i128::from(x[0]), i128::from(y[0]));
    let (dx, dy) = (i128::from(x[p]) - x0, i128::from(y[p]) - y0);
    x.iter().zip(y).all(|(&a, &b)| {
        let (ax, by) = (i128::from(a) - x0, i128::from(b) - y0);
        // Overflow (beyond 2^127) only for values near u64::MAX: then the
        // points are taken as not collinear, which costs only exactness.
        matches!((ax.checked_mul(dy), by.checked_mul(dx)), (Some(l), Some(r)) if l == r)
    })
}

/// Whether every resample of the pairs gives the same slope up to
/// degenerate resamples: the points are collinear, or all equal.
fn exact_fit(x: &[u64], y: &[u64]) -> bool {
    if x.iter().all(|&v| v == x[0]) {
        y.iter().all(|&v| v == y[0])
    } else {
        collinear(x, y)
    }
}

/// `(Σ(x - x̄)², Σ(y - ȳ)², Σ(x - x̄)(y - ȳ))`, from exact integer sums
/// where they fit in an `i128`, else in floating point.
fn centred_sums(x: &[u64], y: &[u64]) -> (f64, f64, f64) {
    if let Some((nxx, nyy, nxy)) = exact_scaled_centred_sums(x, y) {
        let n = x.len() as f64;
        return (nxx as f64 / n, nyy as f64 / n, nxy as f64 / n);
    }
    let n = x.len() as f64;
    let mx = x.iter().map(|&v| v as f64).sum::<f64>() / n;
    let my = y.iter().map(|&v| v as f64).sum::<f64>() / n;
    x.iter()
        .zip(y)
        .fold((0.0, 0.0, 0.0), |(sxx, syy, sxy), (&a, &b)| {
            let (dx, dy) = (a as f64 - mx, b as f64 - my);
            (sxx + dx * dx, syy + dy * dy, sxy + dx * dy)
        })
}

/// `n` times the centred sums, exactly, or `None` on overflow.
fn exact_scaled_centred_sums(x: &[u64], y: &[u64]) -> Option<(i128, i128, i128)> {
    let (mut sx, mut sy, mut sxx, mut syy, mut sxy) = (0i128, 0i128, 0i128, 0i128, 0i128);
    for (&a, &b) in x.iter().zip(y) {
        let (a, b) = (i128::from(a), i128::from(b));
        sx = sx.checked_add(a)?;
        sy = sy.checked_add(b)?;
        sxx = sxx.checked_add(a.checked_mul(a)?)?;
        syy = syy.checked_add(b.checked_mul(b)?)?;
        sxy = sxy.checked_add(a.checked_mul(b)?)?;
    }
    let n = x.len() as i128;
    let scaled =
        |sab: i128, sa: i128, sb: i128| n.checked_mul(sab)?.checked_sub(sa.checked_mul(sb)?);
    Some((
        scaled(sxx, sx, sx)?,
        scaled(syy, sy, sy)?,
        scaled(sxy, sx, sy)?,
    ))
}

/// The slope of [`linear_fit`] from its sums (same formula, same rounding).
fn slope_from_sums(n: i128, sx: i128, sy: i128, sxx: i128, sxy: i128) -> f64 {
    let den = n * sxx - sx * sx;
    if den == 0 {
        exact_ratio(sy, sx)
    } else {
        exact_ratio(n * sxy - sx * sy, den)
    }
}

/// Mean and sample variance (divisor `n - 1`; 0 for one sample). Values
/// that are all equal give that value and exactly 0.
fn mean_var(values: &[f64]) -> (f64, f64) {
    let n = values.len();
    if values.iter().all(|&v| v == values[0]) {
        return (values[0], 0.0);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ss: f64 = values.iter().map(|&v| (v - mean) * (v - mean)).sum();
    (mean, ss / (n - 1) as f64)
}

/// The per-iteration statistics that get bootstrap intervals.
struct SampleStats {
    mean: f64,
    median: f64,
    std_dev: f64,
    mad: f64,
}

impl SampleStats {
    /// Statistics of sorted, non-empty values, in O(n).
    fn of_sorted(sorted: &[f64]) -> SampleStats {
        let n = sorted.len();
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let std_dev = if n < 2 {
            0.0
        } else {
            let ss: f64 = sorted.iter().map(|&v| (v - mean) * (v - mean)).sum();
            (ss / (n - 1) as f64).sqrt()
        };
        let median = median_of_sorted(sorted);
        SampleStats {
            mean,
            median,
            std_dev,
            mad: MAD_SCALE * median_deviation_of_sorted(sorted, median),
        }
    }

    fn values(&self) -> [f64; 4] {
        [self.mean, self.median, self.std_dev, self.mad]
    }
}

/// The median of `|v - median|` over sorted values, in O(log n).
fn median_deviation_of_sorted(sorted: &[f64], median: f64) -> f64 {
    let n = sorted.len();
    let lo = smallest_deviation(sorted, median, (n - 1) / 2);
    if n % 2 == 1 {
        lo
    } else {
        (lo + smallest_deviation(sorted, median, n / 2)) / 2.0
    }
}

/// The `k`-th smallest (from 0) of `|v - m|` over sorted values. The `k + 1`
/// values closest to `m` form a window of the sorted values; a binary search
/// finds its start (where moving right no longer brings a value closer),
/// and the answer is the farther of its two ends.
fn smallest_deviation(sorted: &[f64], m: f64, k: usize) -> f64 {
    let (mut start, mut end) = (0, sorted.len() - 1 - k);
    while start < end {
        let mid = (start + end) / 2;
        if m - sorted[mid] > sorted[mid + k + 1] - m {
            start = mid + 1;
        } else {
            end = mid;
        }
    }
    (m - sorted[start]).max(sorted[start + k] - m)
}

/// Bootstrap intervals of mean, median, std dev and MAD of sorted values.
///
/// Each resample draws `n` indices into the sorted values and counts them;
/// expanding the counts in index order gives the resample already sorted,
/// so every statistic is O(n) and the buffers are reused.
fn bootstrap_sample_stats(
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

/// Bootstrap interval of the relative change of the slopes.
fn bootstrap_change(
    base_iterations: &[u64],
    base_totals: &[u64],
    iterations: &[u64],
    totals: &[u64],
    bootstrap: &Bootstrap,
) -> Interval {
    let base = PairSums::new(base_iterations, base_totals);
    let new = PairSums::new(iterations, totals);
    let mut rng = SplitMix64::new(bootstrap.seed);
    let mut dist = Vec::with_capacity(bootstrap.resamples);
    for _ in 0..bootstrap.resamples {
        let b = base.resample_slope(&mut rng);
        let s = new.resample_slope(&mut rng);
        dist.push(relative_change(b, s).unwrap_or(if s > 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        }));
    }
    percentile_interval(&mut dist, 1.0 - bootstrap.confidence)
}

/// Per-sample terms `[x, y, x², xy]` of the least-squares sums.
struct PairSums(Vec<[i128; 4]>);

impl PairSums {
    fn new(x: &[u64], y: &[u64]) -> PairSums {
        PairSums(
            x.iter()
                .zip(y)
                .map(|(&a, &b)| {
                    let (a, b) = (i128::from(a), i128::from(b));
                    [a, b, a * a, a * b]
                })
                .collect(),
        )
    }

    /// The [`linear_fit`] slope of `n` pairs drawn with replacement.
    fn resample_slope(&self, rng: &mut SplitMix64) -> f64 {
        let n = self.0.len();
        let mut s = [0i128; 4];
        for _ in 0..n {
            let t = &self.0[rng.below(n)];
            for (acc, v) in s.iter_mut().zip(t) {
                *acc += v;
            }
        }
        slope_from_sums(n as i128, s[0], s[1], s[2], s[3])
    }
}

/// Two-sided Welch's t-test of equal means.
fn welch_p_value(a: &[f64], b: &[f64]) -> f64 {
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (ea, eb) = (va / na, vb / nb);
    let se2 = ea + eb;
    if se2 == 0.0 {
        return if ma == mb { 1.0 } else { 0.0 };
    }
    let t = (ma - mb) / se2.sqrt();
    // Welch–Satterthwaite, with the weights scaled to avoid underflow. A run
    // of one sample has no variance, so contributes no term.
    let term = |e: f64, n: f64| {
        if n > 1.0 {
            (e / se2) * (e / se2) / (n - 1.0)
        } else {
            0.0
        }
    };
    let dof = 1.0 / (term(ea, na) + term(eb, nb));
    (2.0 * student_t(dof).sf(t.abs())).clamp(0.0, 1.0)
}

/// Tukey outlier counts of sorted values.
fn tukey(sorted: &[f64]) -> Outliers {
    let q1 = quantile_of_sorted(sorted, 0.25);
    let q3 = quantile_of_sorted(sorted, 0.75);
    let iqr = q3 - q1;
    let (low_severe, low_mild) = (q1 - 3.0 * iqr, q1 - 1.5 * iqr);
    let (high_mild, high_severe) = (q3 + 1.5 * iqr, q3 + 3.0 * iqr);
    let mut o = Outliers::default();
    for &v in sorted {
        if v < low_severe {
            o.low_severe += 1;
        } else if v < low_mild {
            o.low_mild += 1;
        } else if v > high_severe {
            o.high_severe += 1;
        } else if v > high_mild {
            o.high_mild += 1;
        }
    }
    o
}

/// Quantile `q` of sorted values: linear interpolation at rank `q (n - 1)`.
fn quantile_of_sorted(sorted: &[f64], q: f64) -> f64 {
    let rank = q * (sorted.len() - 1) as f64;
    let k = rank.floor() as usize;
    match sorted.get(k + 1) {
        Some(&next) => interpolate(sorted[k], next, rank - k as f64),
        None => sorted[sorted.len() - 1],
    }
}

/// Like [`quantile_of_sorted`] on unsorted values, which it reorders: two
/// selections instead of a sort.
fn quantile_of_unsorted(values: &mut [f64], q: f64) -> f64 {
    let rank = q * (values.len() - 1) as f64;
    let k = rank.floor() as usize;
    let frac = rank - k as f64;
    let (_, &mut at_k, above) = values.select_nth_unstable_by(k, f64::total_cmp);
    match above.iter().copied().min_by(f64::total_cmp) {
        Some(next) if frac > 0.0 => interpolate(at_k, next, frac),
        _ => at_k,
    }
}

/// `a + (b - a) frac` for `a <= b`, exact when `a == b`, and without NaN
/// for infinite bounds.
fn interpolate(a: f64, b: f64, frac: f64) -> f64 {
    if a == b || frac == 0.0 {
        a
    } else if a.is_finite() && b.is_finite() {
        (a + (b - a) * frac).min(b)
    } else if frac < 0.5 {
        a
    } else {
        b
    }
}

/// The percentile interval `[q(α/2), q(1 - α/2)]` of a bootstrap
/// distribution, which it reorders.
fn percentile_interval(dist: &mut [f64], alpha: f64) -> Interval {
    Interval {
        low: quantile_of_unsorted(dist, alpha / 2.0),
        high: quantile_of_unsorted(dist, 1.0 - alpha / 2.0),
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast generator whose
/// output passes BigCrush; plenty for resampling.
struct SplitMix64(u64);

impl SplitMix64 {
    fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` by multiply-shift (Lemire): the bias is below
    /// `n / 2^64`, far below anything a bootstrap can see.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_linear_counts_give_exact_figures() {
        let x: Vec<u64> = (1..=100).map(|i| i * 37).collect();
        let y: Vec<u64> = x.iter().map(|&i| 17 * i + 5).collect();
        let s = analyze_metric(&x, &y, &Bootstrap::default());
        assert_eq!(s.slope.point, 17.0);
        assert_eq!(s.intercept, 5.0);
        let z: Vec<u64> = x.iter().map(|&i| 16 * i).collect();
        let s = analyze_metric(&x, &z, &Bootstrap::default());
        assert_eq!((s.slope.point, s.intercept), (16.0, 0.0));
        assert_eq!(
            (s.mean.point, s.median.point, s.min, s.max),
            (16.0, 16.0, 16.0, 16.0)
        );
    }

    #[test]
    fn fit_matches_a_hand_computed_example() {
        // x = 1,2,3,4; y = 3,5,4,8: slope = 1.4, intercept = 1.5
        let (b, a) = linear_fit(&[1, 2, 3, 4], &[3, 5, 4, 8]);
        assert!(
            (b - 1.4).abs() < 1e-12 && (a - 1.5).abs() < 1e-12,
            "{b} {a}"
        );
    }

    #[test]
    fn negative_slopes_and_single_samples_work() {
        let (b, a) = linear_fit(&[1, 2, 3], &[30, 20, 10]);
        assert_eq!((b, a), (-10.0, 40.0));
        let s = analyze_metric(&[10], &[25], &Bootstrap::default());
        assert_eq!(
            (s.slope.point, s.mean.point, s.median.point),
            (2.5, 2.5, 2.5)
        );
    }

    #[test]
    fn order_statistics_of_per_iteration_values() {
        let s = analyze_metric(&[1, 2, 4, 1], &[10, 10, 12, 2], &Bootstrap::default());
        // per iteration: 10, 5, 3, 2
        assert_eq!(
            (s.min, s.max, s.median.point, s.mean.point),
            (2.0, 10.0, 4.0, 5.0)
        );
    }

    /// All bounds and points of `s`, to check for NaN and zero widths.
    fn estimates(s: &Statistics) -> [Estimate; 5] {
        [s.slope, s.mean, s.median, s.std_dev, s.mad]
    }

    fn no_nan(s: &Statistics) -> bool {
        estimates(s)
            .iter()
            .flat_map(|e| [e.point, e.ci.low, e.ci.high])
            .chain([s.intercept, s.r_squared, s.min, s.max])
            .all(|v| !v.is_nan())
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Totals `c x + noise`, noise uniform in `[-spread, spread]`, from `seed`.
    fn noisy_line(x: &[u64], c: u64, spread: u64, seed: u64) -> Vec<u64> {
        let mut rng = SplitMix64::new(seed);
        x.iter()
            .map(|&i| c * i + rng.below(2 * spread as usize + 1) as u64 - spread)
            .collect()
    }

    #[test]
    fn splitmix64_matches_its_reference_output() {
        // Reference values for seed 1234567 (Rosetta Code, "Pseudo-random
        // numbers/Splitmix64").
        let mut rng = SplitMix64::new(1234567);
        let got: Vec<u64> = (0..5).map(|_| rng.next_u64()).collect();
        assert_eq!(
            got,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423,
                4593380528125082431,
                16408922859458223821
            ]
        );
        let mut rng = SplitMix64::new(7);
        assert!((0..10_000).all(|_| rng.below(3) < 3));
    }

    #[test]
    fn sample_statistics_match_hand_computed_values() {
        // Per iteration: 2/2, 2/1, 12/4, 4/1, 30/3 = 1, 2, 3, 4, 10.
        // Mean 4; squared deviations 9 + 4 + 1 + 0 + 36 = 50, variance 50/4;
        // median 3, absolute deviations 2, 1, 0, 1, 7 -> median 1.
        let b = Bootstrap::default();
        let s = analyze_metric(&[2, 1, 4, 1, 3], &[2, 2, 12, 4, 30], &b);
        assert_eq!(s.mean.point, 4.0);
        assert_eq!(s.median.point, 3.0);
        assert!(close(s.std_dev.point, 12.5f64.sqrt(), 1e-12), "{s:?}");
        assert!(close(s.mad.point, 1.4826, 1e-12), "{s:?}");
        assert_eq!((s.min, s.max), (1.0, 10.0));
        // Even count: 2, 4, 4, 4, 5, 5, 7, 9. Mean 5, squared deviations sum
        // to 32, variance 32/7; median 4.5; absolute deviations 2.5, 0.5 x5,
        // 2.5, 4.5 -> median 0.5.
        let s = analyze_metric(&[1; 8], &[9, 4, 5, 2, 4, 7, 4, 5], &b);
        assert_eq!((s.mean.point, s.median.point), (5.0, 4.5));
        assert!(close(s.std_dev.point, (32.0f64 / 7.0).sqrt(), 1e-12));
        assert!(close(s.mad.point, 0.5 * 1.4826, 1e-12));
        for e in [s.mean, s.median, s.std_dev, s.mad] {
            assert!(e.ci.low <= e.ci.high && e.ci.low < e.ci.high, "{e:?}");
        }
    }

    #[test]
    fn median_deviation_agrees_with_a_direct_computation() {
        let mut rng = SplitMix64::new(3);
        for (n, range) in (1..60).flat_map(|n| [(n, 5), (n, 20), (n, 1 << 40)]) {
            let mut v: Vec<f64> = (0..n).map(|_| rng.below(range) as f64 / 3.0).collect();
            v.sort_by(f64::total_cmp);
            let m = median_of_sorted(&v);
            let mut d: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
            d.sort_by(f64::total_cmp);
            assert_eq!(
                median_deviation_of_sorted(&v, m),
                median_of_sorted(&d),
                "{v:?}"
            );
        }
    }

    #[test]
    fn quantiles_by_selection_agree_with_sorting() {
        let mut rng = SplitMix64::new(4);
        for n in 1..50 {
            let v: Vec<f64> = (0..n).map(|_| rng.below(1000) as f64 / 7.0).collect();
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            for q in [0.0, 0.025, 0.25, 0.5, 0.975, 1.0] {
                let mut w = v.clone();
                assert_eq!(
                    quantile_of_unsorted(&mut w, q),
                    quantile_of_sorted(&sorted, q)
                );
            }
        }
        // Rank 0.25 * 4 = 1 and 0.75 * 4 = 3; rank 0.1 * 4 = 0.4.
        let s = [1.0, 2.0, 4.0, 8.0, 16.0];
        assert_eq!(quantile_of_sorted(&s, 0.25), 2.0);
        assert_eq!(quantile_of_sorted(&s, 0.75), 8.0);
        assert!(close(quantile_of_sorted(&s, 0.1), 1.4, 1e-15));
    }

    #[test]
    fn student_t_quantiles_match_the_table() {
        // Two-sided 95 % critical values from a t table.
        for (dof, t) in [
            (1.0, 12.7062),
            (2.0, 4.3027),
            (3.0, 3.1824),
            (10.0, 2.2281),
            (30.0, 2.0423),
        ] {
            let got = student_t(dof).inverse_cdf(0.975);
            assert!(close(got, t, 1e-4), "dof {dof}: {got}");
        }
    }

    #[test]
    fn regression_matches_a_textbook_example() {
        // x = 1..5, y = 2, 4, 5, 4, 5: x̄ = 3, ȳ = 4, Sxx = 10, Sxy = 6,
        // Syy = 6, so b = 0.6, a = 2.2, residuals -0.8, 0.6, 1, -0.6, -0.2,
        // SSE = 2.4, R² = 1 - 2.4/6 = 0.6, se(b) = sqrt(2.4 / 3 / 10) and a
        // 95 % interval of b ± t(0.975, 3) se(b), t(0.975, 3) = 3.1824463.
        let s = analyze_metric(&[1, 2, 3, 4, 5], &[2, 4, 5, 4, 5], &Bootstrap::default());
        assert!(close(s.slope.point, 0.6, 1e-12) && close(s.intercept, 2.2, 1e-12));
        assert!(close(s.r_squared, 0.6, 1e-12), "{}", s.r_squared);
        let half = 3.1824463 * 0.08f64.sqrt();
        assert!(close(s.slope.ci.high - 0.6, half, 1e-6), "{s:?}");
        assert!(close(0.6 - s.slope.ci.low, half, 1e-6), "{s:?}");
        let narrow = analyze_metric(
            &[1, 2, 3, 4, 5],
            &[2, 4, 5, 4, 5],
            &Bootstrap {
                confidence: 0.5,
                ..Bootstrap::default()
            },
        );
        assert!(narrow.slope.ci.high - narrow.slope.ci.low < 2.0 * half / 3.0);
    }

    #[test]
    fn resampled_slopes_use_the_same_formula_as_linear_fit() {
        let x: Vec<u64> = (1..=30).map(|i| i * 3).collect();
        for y in [
            noisy_line(&x, 1000, 400, 1),
            x.iter().map(|&i| 17 * i + 5).collect(),
            vec![7; 30],
        ] {
            let p = PairSums::new(&x, &y);
            let sums = p.0.iter().fold([0i128; 4], |mut acc, t| {
                acc.iter_mut().zip(t).for_each(|(a, v)| *a += v);
                acc
            });
            let slope = slope_from_sums(30, sums[0], sums[1], sums[2], sums[3]);
            assert_eq!(slope, linear_fit(&x, &y).0);
        }
    }

    #[test]
    fn equal_iterations_give_a_t_interval_of_the_mean() {
        // Per iteration 1, 2, 3, 4: mean 2.5, s² = 5/3, se = sqrt(5/3 / 4).
        let s = analyze_metric(&[2; 4], &[2, 4, 6, 8], &Bootstrap::default());
        assert_eq!((s.slope.point, s.intercept, s.r_squared), (2.5, 0.0, 0.0));
        let half = 3.1824463 * (5.0f64 / 12.0).sqrt();
        assert!(close(s.slope.ci.high - 2.5, half, 1e-6), "{s:?}");
        assert!(no_nan(&s));
    }

    #[test]
    fn tukey_fences_count_mild_and_severe_outliers() {
        // 21 values: Q1 = sorted[5] = 110, Q3 = sorted[15] = 120, IQR 10, so
        // fences at 80, 95 and 135, 150. Boundary values: 80 is mild (not
        // below 80), 95 and 135 are not outliers, 150 is mild.
        let values = [
            79, 80, 94, 95, 110, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 135, 136,
            150, 151, 1100,
        ];
        let mut rng = SplitMix64::new(9);
        let mut shuffled = values;
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i + 1));
        }
        let x = vec![2; values.len()];
        let y: Vec<u64> = shuffled.iter().map(|v| 2 * v).collect();
        let s = analyze_metric(&x, &y, &Bootstrap::default());
        let expected = Outliers {
            low_severe: 1,
            low_mild: 2,
            high_mild: 2,
            high_severe: 2,
        };
        assert_eq!(s.outliers, expected);
    }

    #[test]
    fn zero_variance_gives_exact_figures_without_resampling() {
        // usize::MAX resamples would not fit in memory: this returns only if
        // resampling is skipped.
        let huge = Bootstrap {
            resamples: usize::MAX,
            ..Bootstrap::default()
        };
        let x: Vec<u64> = (1..=100).map(|i| i * 37).collect();
        let y: Vec<u64> = x.iter().map(|&i| 16 * i).collect();
        let s = analyze_metric(&x, &y, &huge);
        assert!(no_nan(&s));
        assert_eq!((s.slope.point, s.intercept, s.r_squared), (16.0, 0.0, 1.0));
        assert_eq!(
            (s.min, s.max, s.outliers),
            (16.0, 16.0, Outliers::default())
        );
        for (e, v) in estimates(&s).iter().zip([16.0, 16.0, 16.0, 0.0, 0.0]) {
            assert_eq!(*e, Estimate::exact(v));
        }
        // A non-integer rate: 16/3 per iteration, still exact everywhere.
        let x: Vec<u64> = (1..=100).map(|i| 3 * i).collect();
        let y: Vec<u64> = (1..=100).map(|i| 16 * i).collect();
        let s = analyze_metric(&x, &y, &huge);
        assert_eq!(s.mean, Estimate::exact(16.0 / 3.0));
        assert_eq!(s.median, Estimate::exact(16.0 / 3.0));
        assert_eq!(s.slope.ci.low, s.slope.ci.high);
        // Zero counts and a constant total.
        let s = analyze_metric(&x, &[0; 100], &huge);
        assert!(no_nan(&s) && s.r_squared == 1.0);
        assert_eq!(s.slope, Estimate::exact(0.0));
        let s = analyze_metric(&[5; 100], &[80; 100], &huge);
        assert_eq!(
            (s.slope, s.mean, s.r_squared),
            (Estimate::exact(16.0), Estimate::exact(16.0), 1.0)
        );
    }

    #[test]
    fn an_exact_line_with_an_intercept_has_an_exact_slope() {
        let x: Vec<u64> = (1..=50).map(|i| i * 10).collect();
        let y: Vec<u64> = x.iter().map(|&i| 17 * i + 500).collect();
        let s = analyze_metric(&x, &y, &Bootstrap::default());
        assert_eq!(
            (s.slope, s.intercept, s.r_squared),
            (Estimate::exact(17.0), 500.0, 1.0)
        );
        // Per iteration 17 + 500/x varies: the other intervals have width.
        assert!(s.mean.ci.low < s.mean.ci.high && no_nan(&s));
    }

    #[test]
    fn one_or_two_samples_give_point_intervals() {
        let b = Bootstrap::default();
        let s = analyze_metric(&[10], &[25], &b);
        assert!(no_nan(&s));
        for (e, v) in estimates(&s).iter().zip([2.5, 2.5, 2.5, 0.0, 0.0]) {
            assert_eq!(*e, Estimate::exact(v));
        }
        // 3 and 3.5 per iteration; the line through (1, 3) and (2, 7).
        let s = analyze_metric(&[1, 2], &[3, 7], &b);
        assert!(no_nan(&s));
        assert_eq!(
            (s.slope, s.intercept, s.r_squared),
            (Estimate::exact(4.0), -1.0, 1.0)
        );
        assert_eq!(
            (s.mean, s.median),
            (Estimate::exact(3.25), Estimate::exact(3.25))
        );
        // Deviations ±0.25 from 3.25: s² = 0.125 / 1.
        assert!(close(s.std_dev.point, 0.125f64.sqrt(), 1e-12));
        assert!(estimates(&s)
            .iter()
            .all(|e| e.ci.low == e.point && e.ci.high == e.point));
        let s = analyze_metric(&[3, 3], &[3, 9], &b);
        assert!(no_nan(&s) && s.slope == Estimate::exact(2.0));
        let c = compare(&[1], &[5], &[1, 2], &[6, 12], &b);
        assert_eq!(c.relative, Some(0.2));
        assert_eq!(c.ci, Some(Interval::point(0.2)));
        assert_eq!(c.p_value, 0.0);
    }

    #[test]
    fn same_seed_same_figures_other_seed_same_points() {
        let x: Vec<u64> = (1..=100).map(|i| i * 5).collect();
        let y = noisy_line(&x, 300, 200, 11);
        let b = Bootstrap::default();
        let s = analyze_metric(&x, &y, &b);
        assert_eq!(s, analyze_metric(&x, &y, &b));
        let other = analyze_metric(&x, &y, &Bootstrap { seed: 12345, ..b });
        let points = |s: &Statistics| estimates(s).map(|e| e.point);
        assert_eq!(points(&s), points(&other));
        assert_eq!(s.slope, other.slope);
        assert_ne!(
            [s.mean.ci, s.median.ci, s.std_dev.ci, s.mad.ci],
            [
                other.mean.ci,
                other.median.ci,
                other.std_dev.ci,
                other.mad.ci
            ]
        );
        let c = compare(&x, &y, &x, &noisy_line(&x, 310, 200, 12), &b);
        assert_eq!(c, compare(&x, &y, &x, &noisy_line(&x, 310, 200, 12), &b));
    }

    #[test]
    fn intervals_cover_the_true_values_of_noisy_lines() {
        // 40 series of 1000 x + uniform noise: per-iteration values average
        // 1000 and the slope is 1000. Nominal 95 % intervals should cover
        // the truth about 38 times; 32 allows for chance.
        let x: Vec<u64> = (1..=100).map(|i| i * 4).collect();
        let b = Bootstrap::default();
        let (mut mean_hits, mut slope_hits) = (0, 0);
        for seed in 0..40 {
            let s = analyze_metric(&x, &noisy_line(&x, 1000, 300, seed), &b);
            assert!(no_nan(&s) && s.r_squared > 0.99 && s.r_squared < 1.0);
            mean_hits += usize::from(s.mean.ci.low <= 1000.0 && 1000.0 <= s.mean.ci.high);
            slope_hits += usize::from(s.slope.ci.low <= 1000.0 && 1000.0 <= s.slope.ci.high);
            assert!(s.mean.ci.low < s.mean.point && s.mean.point < s.mean.ci.high);
        }
        assert!(mean_hits >= 32, "mean covered {mean_hits}/40");
        assert!(slope_hits >= 32, "slope covered {slope_hits}/40");
    }

    #[test]
    fn welch_matches_a_hand_computed_example() {
        // a = 1..5: mean 3, s² = 2.5; b = 3, 5, .., 13: mean 8, s² = 14.
        // se² = 2.5/5 + 14/6 = 17/6, t = -5 / sqrt(17/6), so t² = 150/17;
        // dof = (17/6)² / ((1/2)²/4 + (7/3)²/5) = 5780/829.
        let a: Vec<u64> = vec![1, 4, 3, 8, 5]; // over 1, 2, 1, 2, 1 iterations
        let b: Vec<u64> = vec![3, 5, 7, 9, 11, 13];
        let c = compare(&[1, 2, 1, 2, 1], &a, &[1; 6], &b, &Bootstrap::default());
        let expected = 2.0 * student_t(5780.0 / 829.0).sf((150.0f64 / 17.0).sqrt());
        assert!(
            close(c.p_value, expected, 1e-12),
            "{} {expected}",
            c.p_value
        );
        // The same p from numerical integration of the t density.
        assert!(close(c.p_value, 0.020891, 1e-5), "{}", c.p_value);
        // Huge t: a p-value of 0, not NaN.
        let c = compare(
            &[1; 3],
            &[1000, 1001, 1000],
            &[1; 3],
            &[9000, 9001, 9000],
            &Bootstrap::default(),
        );
        assert!(c.p_value >= 0.0 && c.p_value < 1e-6, "{}", c.p_value);
    }

    #[test]
    fn exact_counts_compare_exactly() {
        let x: Vec<u64> = (1..=100).map(|i| i * 7).collect();
        let y16: Vec<u64> = x.iter().map(|&i| 16 * i).collect();
        let y17: Vec<u64> = x.iter().map(|&i| 17 * i).collect();
        let b = Bootstrap::default();
        let c = compare(&x, &y16, &x, &y17, &b);
        assert_eq!(c.relative, Some(0.0625));
        assert_eq!(c.ci, Some(Interval::point(0.0625)));
        assert_eq!(c.p_value, 0.0);
        let c = compare(&x, &y16, &x, &y16, &b);
        assert_eq!(
            (c.relative, c.ci, c.p_value),
            (Some(0.0), Some(Interval::point(0.0)), 1.0)
        );
        // From and to zero counts.
        let zero = vec![0; 100];
        let c = compare(&x, &zero, &x, &y16, &b);
        assert_eq!((c.relative, c.ci, c.p_value), (None, None, 0.0));
        let c = compare(&x, &zero, &x, &zero, &b);
        assert_eq!(
            (c.relative, c.ci, c.p_value),
            (Some(0.0), Some(Interval::point(0.0)), 1.0)
        );
    }

    #[test]
    fn noisy_runs_compare_with_intervals() {
        let x: Vec<u64> = (1..=100).map(|i| i * 3).collect();
        let base = noisy_line(&x, 1000, 300, 21);
        let b = Bootstrap::default();
        let same = compare(&x, &base, &x, &base, &b);
        assert_eq!((same.relative, same.p_value), (Some(0.0), 1.0));
        let ci = same.ci.unwrap();
        assert!(ci.low < 0.0 && 0.0 < ci.high, "{ci:?}");
        let slower = compare(&x, &base, &x, &noisy_line(&x, 1100, 300, 22), &b);
        let (r, ci) = (slower.relative.unwrap(), slower.ci.unwrap());
        assert!(close(r, 0.1, 0.01), "{r}");
        assert!(
            ci.low < r && r < ci.high && ci.low > 0.05 && ci.high < 0.15,
            "{ci:?}"
        );
        assert!(slower.p_value < 1e-6, "{}", slower.p_value);
    }

    #[test]
    fn a_zero_baseline_slope_in_resamples_gives_infinite_bounds_not_nan() {
        // Baseline: mostly 0, twice 1 per sample; resamples without those
        // have slope 0, so the change from them is infinite.
        let x = vec![1u64; 10];
        let mut base = vec![0u64; 10];
        base[3] = 1;
        base[7] = 1;
        let c = compare(&x, &base, &x, &[2; 10], &Bootstrap::default());
        // Slopes 2/10 and 2: a change of 9.
        assert!(close(c.relative.unwrap(), 9.0, 1e-12));
        let ci = c.ci.unwrap();
        assert!(!ci.low.is_nan() && ci.high == f64::INFINITY, "{ci:?}");
    }
}
