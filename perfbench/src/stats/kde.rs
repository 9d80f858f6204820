//! Kernel density estimation with a Gaussian kernel: the curves of the
//! report's distribution plots.

/// Silverman's rule-of-thumb bandwidth of a Gaussian kernel over `sorted`
/// (ascending) values; 0 when there are fewer than two or they do not vary.
pub fn bandwidth(sorted: &[f64]) -> f64 {
    let n = sorted.len() as f64;
    if sorted.len() < 2 {
        return 0.0;
    }
    let mean = sorted.iter().sum::<f64>() / n;
    let sd = (sorted.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let quantile = |q: f64| {
        let pos = q * (n - 1.0);
        let (i, frac) = (pos.floor() as usize, pos.fract());
        let next = sorted[(i + 1).min(sorted.len() - 1)];
        sorted[i] + (next - sorted[i]) * frac
    };
    let iqr = quantile(0.75) - quantile(0.25);
    let spread = if iqr > 0.0 { sd.min(iqr / 1.34) } else { sd };
    0.9 * spread * n.powf(-0.2)
}

/// The estimated density of the finite `values` with bandwidth `h`, at
/// `points` evenly spaced x from `lo` to `hi`.
pub fn density(values: &[f64], h: f64, lo: f64, hi: f64, points: usize) -> Vec<(f64, f64)> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let norm = 1.0 / (finite.len() as f64 * h * (2.0 * std::f64::consts::PI).sqrt());
    let last = points.saturating_sub(1).max(1) as f64;
    (0..points)
        .map(|i| {
            let x = lo + (hi - lo) * i as f64 / last;
            let sum: f64 = finite
                .iter()
                .map(|v| {
                    let u = (x - v) / h;
                    (-0.5 * u * u).exp()
                })
                .sum();
            (x, sum * norm)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silverman_takes_the_smaller_of_sd_and_iqr_over_1_34() {
        // sd = sqrt(2.5) = 1.5811; IQR = 4 - 2 = 2, / 1.34 = 1.4925 (smaller).
        let h = bandwidth(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        let expected = 0.9 * (2.0 / 1.34) * 5f64.powf(-0.2);
        assert!((h - expected).abs() < 1e-12, "{h} vs {expected}");
        assert_eq!(bandwidth(&[7.0]), 0.0);
        assert_eq!(bandwidth(&[3.0, 3.0, 3.0]), 0.0);
    }

    #[test]
    fn the_density_integrates_to_one_and_peaks_at_a_lone_value() {
        let curve = density(&[10.0], 1.0, 0.0, 20.0, 201);
        let dx = 0.1;
        let area: f64 = curve.iter().map(|p| p.1 * dx).sum();
        assert!((area - 1.0).abs() < 1e-3, "{area}");
        let peak = curve
            .iter()
            .copied()
            .fold((0.0, 0.0), |a, p| if p.1 > a.1 { p } else { a });
        assert!((peak.0 - 10.0).abs() < 1e-9, "{peak:?}");
        assert!((peak.1 - 1.0 / (2.0 * std::f64::consts::PI).sqrt()).abs() < 1e-12);
    }
}
