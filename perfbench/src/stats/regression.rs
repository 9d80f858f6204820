//! Least-squares fits of sample totals against iterations, in exact
//! integer arithmetic where it fits, and their t-intervals.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::{interval_around, mean_var, per_iteration, Estimate};

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
pub(super) fn exact_ratio(num: i128, den: i128) -> f64 {
    let (q, r) = (num.div_euclid(den), num.rem_euclid(den));
    q as f64 + r as f64 / den as f64
}

/// The slope's interval and R² (see [`Statistics::slope`] and
/// [`Statistics::r_squared`]).
pub(super) fn regression(x: &[u64], y: &[u64], slope: f64, confidence: f64) -> (Estimate, f64) {
    let n = x.len();
    if x.iter().all(|&v| v == x[0]) {
        // No spread in x: the slope is sum(y) / sum(x), the mean of the
        // per-iteration values; Student's t on that mean.
        if y.iter().all(|&v| v == y[0]) {
            return (Estimate::exact(slope), 1.0);
        }
        // Two samples give Student's t one degree of freedom: a wide
        // interval, but an honest one; one gives none.
        if n < 2 {
            return (Estimate::exact(slope), 0.0);
        }
        let (_, var) = mean_var(&per_iteration(x, y));
        let half = t_half_width(n as f64 - 1.0, confidence, (var / n as f64).sqrt());
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
    let half = t_half_width((n - 2) as f64, confidence, se);
    (interval_around(slope, half), r_squared)
}

/// Half the width of Student's t interval at `confidence`, with `dof`
/// degrees of freedom, around an estimate of standard error `se`.
pub(super) fn t_half_width(dof: f64, confidence: f64, se: f64) -> f64 {
    student_t(dof).inverse_cdf((1.0 + confidence) / 2.0) * se
}

/// Student's t distribution with `dof > 0` degrees of freedom.
pub(super) fn student_t(dof: f64) -> StudentsT {
    StudentsT::new(0.0, 1.0, dof).expect("degrees of freedom are positive")
}

/// Whether all points `(x[i], y[i])` lie exactly on one line that is not
/// vertical (false when all `x` are equal).
pub(super) fn collinear(x: &[u64], y: &[u64]) -> bool {
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
pub(super) fn exact_fit(x: &[u64], y: &[u64]) -> bool {
    if x.iter().all(|&v| v == x[0]) {
        y.iter().all(|&v| v == y[0])
    } else {
        collinear(x, y)
    }
}

/// `(Σ(x - x̄)², Σ(y - ȳ)², Σ(x - x̄)(y - ȳ))`, from exact integer sums
/// where they fit in an `i128`, else in floating point.
pub(super) fn centred_sums(x: &[u64], y: &[u64]) -> (f64, f64, f64) {
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
pub(super) fn exact_scaled_centred_sums(x: &[u64], y: &[u64]) -> Option<(i128, i128, i128)> {
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
