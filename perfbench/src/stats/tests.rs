//! The statistics' tests: exact sums and slopes, order statistics and
//! outliers, Student's t, the seeded bootstrap, intervals over rounds and
//! earlier runs, and the Welch comparison.

use super::*;
use statrs::distribution::ContinuousCDF;

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
        let got = student_t(dof).unwrap().inverse_cdf(0.975);
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
        79, 80, 94, 95, 110, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 135, 136, 150,
        151, 1100,
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
fn one_sample_or_a_line_through_two_give_point_intervals() {
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
    // Two samples of as many iterations: per iteration 1 and 3, mean 2,
    // s² = 2, se = 1, and Student's t of one degree of freedom: wide,
    // never the zero width of an exact count.
    let s = analyze_metric(&[3, 3], &[3, 9], &b);
    assert!(no_nan(&s) && s.slope.point == 2.0);
    assert!(close(s.slope.ci.high - 2.0, 12.7062047, 1e-6), "{s:?}");
    assert!(close(2.0 - s.slope.ci.low, 12.7062047, 1e-6), "{s:?}");
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

/// Round estimates of a slope `point` whose rounds are `rounds`.
fn rounds(point: f64, rounds: &[f64]) -> RoundEstimates {
    RoundEstimates {
        point,
        rounds: rounds.to_vec(),
    }
}

#[test]
fn round_intervals_are_student_t_on_the_rounds() {
    // Rounds 9, 10, 11: s² = 1, se = 1/√3, t(2, 0.975) = 4.302653.
    let e = rounds(10.0, &[9.0, 10.0, 11.0])
        .estimate(&[], 0.95)
        .unwrap();
    let half = 4.302_652_729_911_275 / 3f64.sqrt();
    assert!(close(e.ci.high - 10.0, half, 1e-9), "{e:?}");
    assert!(close(10.0 - e.ci.low, half, 1e-9), "{e:?}");
    // Rounds that agree: exact. One round: no interval to give.
    assert_eq!(
        rounds(16.0, &[16.0; 5]).estimate(&[], 0.95),
        Some(Estimate::exact(16.0))
    );
    assert_eq!(rounds(16.0, &[16.0]).estimate(&[], 0.95), None);
}

#[test]
fn earlier_runs_widen_a_run_interval_by_their_spread_beyond_the_rounds() {
    // Rounds 9, 10, 11 (variance of the point 1/3) and earlier runs 6
    // and 14: runs vary by 16, 47/3 more than the rounds show. The
    // variance 1/3 + 47/3 = 16 has dof 16² / ((1/3)²/2 + (47/3)²/2).
    let r = rounds(10.0, &[9.0, 10.0, 11.0]);
    let e = r.estimate(&[6.0, 14.0], 0.95).unwrap();
    let dof = 256.0 / ((1.0 / 9.0 + 47.0 * 47.0 / 9.0) / 2.0);
    let half = student_t(dof).unwrap().inverse_cdf(0.975) * 4.0;
    assert!(close(e.ci.high - 10.0, half, 1e-9), "{e:?} against ±{half}");
    assert!(close(10.0 - e.ci.low, half, 1e-9), "{e:?}");
    // Runs as close as the rounds: the rounds' interval.
    assert_eq!(r.estimate(&[10.0], 0.95), r.estimate(&[], 0.95));
    // Exact rounds and runs: still exact.
    assert_eq!(
        rounds(16.0, &[16.0; 5]).estimate(&[16.0, 16.0], 0.95),
        Some(Estimate::exact(16.0))
    );
}

#[test]
fn rounds_split_the_samples_by_round() {
    let x = [1, 2, 3, 1, 2, 3];
    let y = [10, 20, 30, 11, 22, 33];
    let r = RoundEstimates::of(&x, &y, &[0, 0, 0, 1, 1, 1], |x, y| linear_fit(x, y).0);
    assert_eq!(r.rounds, [10.0, 11.0]);
    assert_eq!(
        r.point, 10.5,
        "same iterations in every round: the mean slope"
    );
}

#[test]
fn exact_counts_compare_exactly() {
    let c = compare(
        &rounds(16.0, &[16.0; 5]),
        &rounds(17.0, &[17.0; 5]),
        BetweenRuns::NONE,
        0.95,
    );
    assert_eq!(c.relative, Some(0.0625));
    assert_eq!(c.ci, Some(Interval::point(0.0625)));
    assert_eq!(c.p_value, 0.0);
    let c = compare(
        &rounds(16.0, &[16.0; 5]),
        &rounds(16.0, &[16.0; 5]),
        BetweenRuns::NONE,
        0.95,
    );
    assert_eq!(
        (c.relative, c.ci, c.p_value),
        (Some(0.0), Some(Interval::point(0.0)), 1.0)
    );
    // From and to zero counts.
    let zero = rounds(0.0, &[0.0; 5]);
    let c = compare(&zero, &rounds(16.0, &[16.0; 5]), BetweenRuns::NONE, 0.95);
    assert_eq!((c.relative, c.ci, c.p_value), (None, None, 0.0));
    let c = compare(&zero, &zero, BetweenRuns::NONE, 0.95);
    assert_eq!(
        (c.relative, c.ci, c.p_value),
        (Some(0.0), Some(Interval::point(0.0)), 1.0)
    );
}

#[test]
fn a_change_matches_a_hand_computed_welch_interval() {
    // Base rounds 9, 10, 11 (variance of the mean 1/3); new rounds 18,
    // 20, 22 (4/3). Difference 10 with variance 5/3, over the base 10:
    // var = (5/3)/100; dof = (5/3)² / (((1/3)² + (4/3)²) / 2) = 50/17.
    let c = compare(
        &rounds(10.0, &[9.0, 10.0, 11.0]),
        &rounds(20.0, &[18.0, 20.0, 22.0]),
        BetweenRuns::NONE,
        0.95,
    );
    assert_eq!(c.relative, Some(1.0));
    let se = (5.0f64 / 300.0).sqrt();
    let half = student_t(50.0 / 17.0).unwrap().inverse_cdf(0.975) * se;
    let ci = c.ci.unwrap();
    assert!(
        close(ci.low, 1.0 - half, 1e-9) && close(ci.high, 1.0 + half, 1e-9),
        "{ci:?}"
    );
    assert!(
        close(
            c.p_value,
            2.0 * student_t(50.0 / 17.0).unwrap().sf(1.0 / se),
            1e-12
        ),
        "{}",
        c.p_value
    );
    // A count that vanished: the baseline's spread still counts.
    let c = compare(
        &rounds(0.5, &[0.0, 1.0, 0.5]),
        &rounds(0.0, &[0.0; 3]),
        BetweenRuns::NONE,
        0.95,
    );
    let ci = c.ci.unwrap();
    assert!(ci.low < -1.0 && ci.high > 0.0 && c.p_value > 0.05, "{c:?}");
}

#[test]
fn earlier_runs_add_their_spread_beyond_the_rounds_to_both_sides() {
    // Base rounds 9, 10, 11 (variance of the point 1/3) and earlier
    // runs 6 and 14: the three runs 6, 14, 10 vary by 16, of which the
    // rounds explain 1/3, so each run carries 47/3 more. New rounds 18,
    // 20, 22 (4/3). The difference 10 has variance 1/3 + 4/3 + 94/3 =
    // 33, with dof 33² / ((1/3)²/2 + (4/3)²/2 + (94/3)²/2) from the
    // rounds of each side and the 3 runs.
    let base = rounds(10.0, &[9.0, 10.0, 11.0]);
    let new = rounds(20.0, &[18.0, 20.0, 22.0]);
    let c = compare(&base, &new, between_runs(&base, &[6.0, 14.0]), 0.95);
    let third = 1.0 / 3.0;
    let dof =
        33.0 * 33.0 / ((third * third + 16.0 * third * third + 94.0 * 94.0 * third * third) / 2.0);
    let half = student_t(dof).unwrap().inverse_cdf(0.975) * 33.0f64.sqrt() / 10.0;
    let ci = c.ci.unwrap();
    assert!(
        close(ci.low, 1.0 - half, 1e-9) && close(ci.high, 1.0 + half, 1e-9),
        "{ci:?} against ±{half}"
    );
    assert_eq!(c.runs, 3);
    // Earlier runs that agree as closely as the rounds add nothing.
    let close_runs = compare(&base, &new, between_runs(&base, &[10.0, 10.0]), 0.95);
    let alone = compare(&base, &new, BetweenRuns::NONE, 0.95);
    assert_eq!(close_runs.ci, alone.ci);
    assert_eq!(alone.runs, 1);
    // Exact counts stay exact over exact earlier runs.
    let sixteen = rounds(16.0, &[16.0; 5]);
    let exact = compare(
        &sixteen,
        &rounds(17.0, &[17.0; 5]),
        between_runs(&sixteen, &[16.0, 16.0]),
        0.95,
    );
    assert_eq!(exact.ci, Some(Interval::point(0.0625)));
}

#[test]
fn the_interval_excludes_no_change_exactly_when_p_is_significant() {
    // Changes from -30 % to +30 % with rounds of every spread: the
    // interval and the p-value come from one statistic, so they agree.
    let base = rounds(100.0, &[96.0, 99.0, 100.0, 101.0, 104.0]);
    for step in -30..=30 {
        for spread in [0.1, 1.0, 3.0, 8.0, 20.0] {
            let point = 100.0 + step as f64;
            let new = rounds(
                point,
                &[
                    point - spread,
                    point,
                    point + spread / 2.0,
                    point + spread / 2.0,
                ],
            );
            let c = compare(&base, &new, BetweenRuns::NONE, 0.95);
            let ci = c.ci.unwrap();
            let excludes = ci.low > 0.0 || ci.high < 0.0;
            assert_eq!(excludes, c.p_value < 0.05, "{step} % ± {spread}: {c:?}");
            let r = c.relative.unwrap();
            assert!(ci.low <= r && r <= ci.high, "{c:?}");
        }
    }
}

/// `n` runs of `level` with normal noise of relative size `noise`, from
/// `seed`, stepping by `step` (relative) from run `at` on.
fn history(n: usize, level: f64, noise: f64, at: usize, step: f64, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            let mean = if i >= at { level * (1.0 + step) } else { level };
            mean * (1.0 + noise * rng.normal())
        })
        .collect()
}

#[test]
fn a_step_of_five_percent_in_noise_of_one_is_found_where_it_is() {
    for seed in 0..20 {
        let runs = history(1000, 2500.0, 0.01, 600, 0.05, seed);
        let found = change_points(&runs, &ChangeSettings::default());
        assert_eq!(found.len(), 1, "seed {seed}: {found:?}");
        let c = found[0];
        assert!(c.index.abs_diff(600) <= 2, "seed {seed}: {c:?}");
        let r = c.relative().unwrap();
        assert!((0.04..0.06).contains(&r), "seed {seed}: {r}");
        assert!(c.p_value < 1e-10, "{c:?}");
    }
}

#[test]
fn an_exact_series_steps_exactly_where_it_does() {
    // 1 % on 100: below a time's 3 %, but neither side varies.
    let mut runs = vec![100.0; 700];
    runs.extend([101.0; 300]);
    let found = change_points(&runs, &ChangeSettings::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].index, found[0].before, found[0].after),
        (700, 100.0, 101.0)
    );
    assert_eq!(found[0].p_value, 0.0);
    // Two steps of large counts, and one back.
    let mut runs = vec![1e9; 10];
    runs.extend([1e9 + 1.0; 10]);
    runs.extend([1e9; 10]);
    let at: Vec<usize> = change_points(&runs, &ChangeSettings::default())
        .iter()
        .map(|c| c.index)
        .collect();
    assert_eq!(at, [10, 20]);
    assert!(change_points(&[7.0; 1000], &ChangeSettings::default()).is_empty());
}

#[test]
fn flat_noisy_series_have_no_change_points() {
    for seed in 0..50 {
        let runs = history(1000, 1e6, 0.01, 1000, 0.0, seed);
        let found = change_points(&runs, &ChangeSettings::default());
        assert!(found.is_empty(), "seed {seed}: {found:?}");
    }
}

#[test]
fn a_step_below_the_smallest_size_is_no_change_point() {
    // 1 % in noise of 0.1 %: significant, but within a time's noise.
    let runs = history(1000, 1e6, 0.001, 500, 0.01, 3);
    assert!(change_points(&runs, &ChangeSettings::default()).is_empty());
    let counts = ChangeSettings {
        min_relative: 0.005,
        ..ChangeSettings::default()
    };
    let found = change_points(&runs, &counts);
    assert_eq!(found.iter().map(|c| c.index).collect::<Vec<_>>(), [500]);
}

#[test]
fn short_odd_or_outlying_series_make_no_change_point() {
    let settings = ChangeSettings::default();
    assert!(change_points(&[], &settings).is_empty());
    assert!(change_points(&[1.0], &settings).is_empty());
    assert!(change_points(&[1.0, 2.0, 3.0], &settings).is_empty());
    assert!(change_points(&[f64::NAN; 20], &settings).is_empty());
    let mut inf = vec![1.0; 20];
    inf[3] = f64::INFINITY;
    assert!(change_points(&inf, &settings).is_empty());
    // The largest statistics a stored file may hold (`MAX_STATISTIC`).
    let huge: Vec<f64> = (0..20)
        .map(|i| if i < 10 { -1e100 } else { 1e100 })
        .collect();
    assert_eq!(change_points(&huge, &settings).len(), 1);
    // Three runs at +50 % at the end: fewer than a segment holds.
    let mut runs = history(100, 50.0, 0.01, 100, 0.0, 9);
    runs.extend([75.0; 3]);
    assert!(change_points(&runs, &settings).is_empty());
}

#[test]
fn a_last_run_far_off_its_level_hides_no_step_below_it_and_makes_none() {
    // The report's end-to-end history: steps at 600 and 992, then a real
    // run anywhere from a fifth to five times the first level's scale,
    // far below the last level.
    let level = |i: usize| match i {
        0..600 => 1.0,
        600..992 => 2.0,
        _ => 2000.0,
    };
    for last in [4.0, 20.0, 100.0] {
        let mut runs: Vec<f64> = (0..999)
            .map(|i| level(i) * (1.0 + [0.0, 0.01, -0.007, 0.004][i % 4]))
            .collect();
        runs.push(last);
        let at: Vec<usize> = change_points(&runs, &ChangeSettings::default())
            .iter()
            .map(|c| c.index)
            .collect();
        assert_eq!(at, [600, 992], "last run {last}");
    }
    // A flat history with one last run five or fifty times slower.
    for last in [5.0, 50.0] {
        let mut runs: Vec<f64> = (0..999)
            .map(|i| 1.0 + [0.0, 0.01, -0.007, 0.004][i % 4])
            .collect();
        runs.push(last);
        assert!(
            change_points(&runs, &ChangeSettings::default()).is_empty(),
            "{last}"
        );
    }
}
