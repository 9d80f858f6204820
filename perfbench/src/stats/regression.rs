//! Least-squares fits of sample totals against iterations, in exact
//! integer arithmetic where it fits, and their t-intervals.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::{interval_around, mean_var, per_iteration, Estimate};

/// Least-squares `(slope, intercept)` of `y` on `x`. With fewer than two
/// distinct `x` the line goes through the origin.
pub fn linear_fit(x: &[u64], y: &[u64]) -> (f64, f64) {
    exact_line(x, y).unwrap_or_else(|| float_line(x, y))
}

/// [`linear_fit`] in exact integer arithmetic, or `None` where a sum
/// overflows an `i128` (a million samples near 2^53 each do).
fn exact_line(x: &[u64], y: &[u64]) -> Option<(f64, f64)> {
    let n = i128::try_from(x.len()).ok()?;
    let (mut sx, mut sy, mut sxx, mut sxy) = (0i128, 0i128, 0i128, 0i128);
    for (&a, &b) in x.iter().zip(y) {
        let (a, b) = (i128::from(a), i128::from(b));
        sx = sx.checked_add(a)?;
        sy = sy.checked_add(b)?;
        sxx = sxx.checked_add(a.checked_mul(a)?)?;
        sxy = sxy.checked_add(a.checked_mul(b)?)?;
    }
    let den = n.checked_mul(sxx)?.checked_sub(sx.checked_mul(sx)?)?;
    if den == 0 {
        // No iterations at all (no samples) leave no ratio to take.
        return Some(if sx == 0 {
            (0.0, 0.0)
        } else {
            (exact_ratio(sy, sx), 0.0)
        });
    }
    let slope = n.checked_mul(sxy)?.checked_sub(sx.checked_mul(sy)?)?;
    let intercept = sy.checked_mul(sxx)?.checked_sub(sx.checked_mul(sxy)?)?;
    Some((exact_ratio(slope, den), exact_ratio(intercept, den)))
}

/// [`linear_fit`] in floating point, from centred sums: for samples whose
/// exact sums do not fit.
fn float_line(x: &[u64], y: &[u64]) -> (f64, f64) {
    let mean = |v: &[u64]| v.iter().map(|&a| a as f64).sum::<f64>() / v.len() as f64;
    let (mx, my) = (mean(x), mean(y));
    let (sxx, _, sxy) = centred_sums(x, y);
    if sxx > 0.0 {
        let slope = sxy / sxx;
        (slope, my - slope * mx)
    } else {
        (my / mx, 0.0)
    }
}

/// `num / den` rounded once: exact whenever the quotient is an integer.
pub(super) fn exact_ratio(num: i128, den: i128) -> f64 {
    let (q, r) = (num.div_euclid(den), num.rem_euclid(den));
    q as f64 + r as f64 / den as f64
}

/// The slope's interval and R² (see [`Statistics::slope`](super::Statistics::slope) and
/// [`Statistics::r_squared`](super::Statistics::r_squared)).
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
    student_t(dof).map_or(f64::INFINITY, |t| t.inverse_cdf((1.0 + confidence) / 2.0)) * se
}

/// The survival function `P(T > t)` of Student's t with `dof` degrees of
/// freedom; 1 where `t` is NaN (nothing is known of the statistic).
pub(super) fn t_sf(dof: f64, t: f64) -> f64 {
    match student_t(dof) {
        Some(d) if !t.is_nan() => d.sf(t),
        _ => 1.0,
    }
}

/// Most degrees of freedom Student's t is evaluated at: statrs's inverse
/// takes minutes (or never returns) from about 10^8, and is already off
/// from 10^7; at 10^5 it is the normal distribution to 5 digits.
pub(super) const MAX_DOF: f64 = 1e5;

/// Student's t distribution with `dof` degrees of freedom, made sane: a
/// Welch–Satterthwaite count is at least 1 in exact arithmetic, so below
/// it (or NaN, from a variance that overflowed) it is taken as 1, the
/// widest; above [`MAX_DOF`] (or infinite) as [`MAX_DOF`].
pub(super) fn student_t(dof: f64) -> Option<StudentsT> {
    let dof = if dof.is_nan() {
        1.0
    } else {
        dof.clamp(1.0, MAX_DOF)
    };
    StudentsT::new(0.0, 1.0, dof).ok()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{compare, BetweenRuns, RoundEstimates};

    #[test]
    fn any_degrees_of_freedom_give_an_interval_and_no_panic() {
        // One degree of freedom: 12.706 at 95 %; 10^5 or more: the normal
        // 1.95998 (statrs never returns at 10^8 or infinity).
        let one = t_half_width(1.0, 0.95, 1.0);
        let wide = t_half_width(MAX_DOF, 0.95, 1.0);
        assert!((one - 12.706_204_736).abs() < 1e-6, "{one}");
        assert!((wide - 1.959_98).abs() < 1e-5, "{wide}");
        for dof in [f64::NAN, -1.0, 0.0, 1e-300] {
            assert_eq!(t_half_width(dof, 0.95, 1.0), one, "dof {dof}");
        }
        for dof in [1e8, 1e300, f64::INFINITY] {
            assert_eq!(t_half_width(dof, 0.95, 1.0), wide, "dof {dof}");
        }
        assert_eq!(t_sf(f64::NAN, 2.0), t_sf(1.0, 2.0));
        assert_eq!(t_sf(3.0, f64::NAN), 1.0);
        assert_eq!(t_sf(3.0, f64::INFINITY), 0.0);
    }

    #[test]
    fn an_earlier_run_of_1e308_compares_without_panic() {
        // The variance of 1e308 and 10 overflows: the p-value is that of
        // nothing known, not a panic in statrs.
        let base = RoundEstimates {
            point: 10.0,
            rounds: vec![9.0, 10.0, 11.0],
        };
        let runs = crate::stats::between_runs(&base, &[1e308]);
        let c = compare(&base, &base, runs, 0.95);
        assert_eq!(c.relative, Some(0.0));
        assert_eq!(c.p_value, 1.0);
        let c = compare(&base, &base, BetweenRuns::NONE, 0.95);
        assert_eq!(c.p_value, 1.0);
    }

    #[test]
    fn sums_beyond_an_i128_fit_in_floating_point() {
        // n Σxy = 3 · 42 · 2^120 overflows; the centred sums do not.
        let x = [1u64 << 60, 2 << 60, 3 << 60];
        let y = x.map(|v| 3 * v);
        assert_eq!(exact_line(&x, &y), None);
        assert_eq!(linear_fit(&x, &y), (3.0, 0.0));
        assert_eq!(linear_fit(&[u64::MAX; 4], &[u64::MAX; 4]), (1.0, 0.0));
        assert_eq!(linear_fit(&[], &[]), (0.0, 0.0));
    }
}
