//! The change-point detector's false alarms and detections, measured on
//! seeded synthetic histories of 1,000 runs (`stats::change_points` at the
//! report's settings for a time, and for a count). A/A histories: normal
//! noise of 1 %, heavy-tailed noise (Student's t with 3 degrees of
//! freedom, scale 1 %), and slow drifts of +2 % and +5 % over the 1,000
//! runs in normal noise of 1 %; for each, the fraction of histories with
//! at least one change point. Then steps of +2, +5 and +10 % at run 600 in
//! normal noise of 1 %: the fraction found within 10 runs of 600, and the
//! mean distance of those found. Prints figures; asserts nothing.
//!
//! `cargo bench -p perfbench --bench change_points` (`-- N` for N
//! histories of each kind, 1,000 by default).

use std::time::Instant;

use perfbench::stats::{change_points, ChangeSettings, SplitMix64};

/// Runs in a history.
const RUNS: usize = 1000;

/// Where the steps are.
const STEP_AT: usize = 600;

/// How a history's values vary around their level.
#[derive(Clone, Copy)]
enum Noise {
    /// Normal, of this relative standard deviation.
    Normal(f64),
    /// Student's t with 3 degrees of freedom, of this relative scale.
    Heavy(f64),
}

impl Noise {
    /// One draw, relative.
    fn draw(self, rng: &mut SplitMix64) -> f64 {
        match self {
            Noise::Normal(s) => s * rng.normal(),
            Noise::Heavy(s) => {
                let chi2: f64 = (0..3).map(|_| rng.normal().powi(2)).sum();
                s * rng.normal() / (chi2 / 3.0).sqrt()
            }
        }
    }
}

/// A history: level 1000 with `noise`, drifting by `drift` (relative,
/// over the whole history) and stepping by `step` at [`STEP_AT`].
fn history(noise: Noise, drift: f64, step: f64, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..RUNS)
        .map(|i| {
            let level =
                1.0 + drift * i as f64 / RUNS as f64 + if i >= STEP_AT { step } else { 0.0 };
            1000.0 * level * (1.0 + noise.draw(&mut rng))
        })
        .collect()
}

fn main() {
    let n: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
    let time = ChangeSettings::default();
    let count = ChangeSettings {
        min_relative: 0.01,
        ..time
    };
    println!(
        "{n} histories of {RUNS} runs each; max p {}, at least {} runs a side",
        time.max_p, time.min_segment
    );
    println!("A/A: histories with >= 1 change point (false alarms)");
    let cases = [
        ("normal noise 1 %", Noise::Normal(0.01), 0.0),
        ("Student t(3) noise, scale 1 %", Noise::Heavy(0.01), 0.0),
        ("drift +2 % over 1000, noise 1 %", Noise::Normal(0.01), 0.02),
        ("drift +5 % over 1000, noise 1 %", Noise::Normal(0.01), 0.05),
    ];
    for (name, noise, drift) in cases {
        for (label, settings) in [("time, >= 3 %", &time), ("count, >= 1 %", &count)] {
            let start = Instant::now();
            let alarms = (0..n)
                .filter(|&seed| {
                    !change_points(&history(noise, drift, 0.0, seed), settings).is_empty()
                })
                .count();
            println!(
                "  {name:<34} {label:<14} {:>6.2} %  ({alarms}/{n}, {:.1} ms a history)",
                100.0 * alarms as f64 / n as f64,
                start.elapsed().as_secs_f64() * 1e3 / n as f64
            );
        }
    }
    println!("Steps at run {STEP_AT}, normal noise 1 %: found within 10 runs, mean distance, extra points");
    for step in [0.02, 0.05, 0.10] {
        for (label, settings) in [("time, >= 3 %", &time), ("count, >= 1 %", &count)] {
            let (mut found, mut distance, mut extra) = (0, 0usize, 0);
            for seed in 0..n {
                let points =
                    change_points(&history(Noise::Normal(0.01), 0.0, step, seed), settings);
                let near = points.iter().find(|c| c.index.abs_diff(STEP_AT) <= 10);
                if let Some(c) = near {
                    found += 1;
                    distance += c.index.abs_diff(STEP_AT);
                }
                extra += points.len() - usize::from(near.is_some());
            }
            println!(
                "  +{:>2.0} % {label:<14} {:>6.2} % found, mean distance {:.2} runs, {extra} other points",
                step * 100.0,
                100.0 * found as f64 / n as f64,
                distance as f64 / found.max(1) as f64
            );
        }
    }
}
