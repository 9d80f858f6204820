//! The sampling plan: how many samples of how many iterations a benchmark
//! takes, decided once, before its first sample, from what the warm-up
//! found an iteration to cost, so that the run fits its time budget.
//!
//! Linear sampling (sample `i` runs `i · d` iterations) is the default: its
//! slope puts the fixed cost of a sample in the intercept. Where even
//! `d = 1` does not fit, every sample runs the same `d` iterations (flat
//! sampling, as Criterion's `SamplingMode::Flat`): the figure is then the
//! mean per iteration. Where not even one iteration per sample fits, fewer
//! samples (and rounds) are taken, down to [`FEWEST_SAMPLES`], and the run
//! says so before measuring.

use std::time::Duration;

use super::Config;

/// Most samples a benchmark takes, all rounds together, whatever
/// `sample_count` asks: each is stored, analysed and bootstrapped, so this
/// bounds memory and the analysis (as [`super::MAX_STORED_ITERATIONS`]
/// bounds per-iteration mode).
pub const MAX_SAMPLES: u64 = 100_000;

/// Fewest samples a plan takes where the budget fits fewer: the fewest
/// whose spread gives an interval with more than one degree of freedom.
pub const FEWEST_SAMPLES: u64 = 3;

/// How the samples' iteration counts grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Shape {
    /// Sample `i` (from 1) runs `i · step` iterations.
    Linear,
    /// Every sample runs `step` iterations.
    Flat,
}

/// What the warm-up found one sample to cost, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// Per iteration, inside the counted window.
    pub inside: f64,
    /// Per iteration, outside it: the inputs `iter_batched` makes for every
    /// iteration of the largest sample; next to nothing for `iter`.
    pub outside: f64,
    /// Per sample, whatever its iterations: toggling and reading the
    /// counters.
    pub per_sample: f64,
}

/// The samples of one benchmark, all rounds together. A paired run sends
/// it to the baseline build, which samples as this build does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SamplingPlan {
    /// How the iteration counts grow.
    pub shape: Shape,
    /// The iterations of the first sample, `d`.
    pub step: u64,
    /// Samples in all rounds together.
    pub samples: u64,
    /// Rounds the samples are shared among ([`Config::rounds`] of them).
    pub rounds: u64,
}

impl SamplingPlan {
    /// The plan that fits `config`'s budget at `costs`: linear sampling
    /// with the step that fills the measurement time where one iteration
    /// per step fits warm-up plus measurement time; else flat sampling,
    /// as many iterations per sample as fill it; else fewer samples of one
    /// iteration, as many as fit, but at least [`FEWEST_SAMPLES`] (or
    /// `sample_count` where that is fewer). Never more than
    /// [`MAX_SAMPLES`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use perfbench::measure::{Config, Costs, SamplingPlan, Shape};
    ///
    /// let config = Config::default(); // 0.15 s + 0.7 s, 50 samples in 10 rounds
    /// let slow = Costs { inside: 300e6, outside: 0.0, per_sample: 0.0 };
    /// let plan = SamplingPlan::choose(&config, &slow);
    /// assert_eq!((plan.shape, plan.step, plan.samples, plan.rounds), (Shape::Flat, 1, 3, 1));
    /// ```
    pub fn choose(config: &Config, costs: &Costs) -> SamplingPlan {
        let asked = config.sample_count.clamp(1, MAX_SAMPLES);
        let linear = SamplingPlan::of(Shape::Linear, asked, config);
        let budget = (config.warm_up + config.measurement).as_nanos() as f64;
        if linear.cost(1, costs) <= budget {
            let step = linear.step_filling(config.measurement, costs);
            return SamplingPlan { step, ..linear };
        }
        let flat = SamplingPlan::of(Shape::Flat, asked, config);
        if flat.cost(1, costs) <= budget {
            let step = flat.step_filling(config.measurement, costs);
            return SamplingPlan { step, ..flat };
        }
        let one = (costs.inside + costs.outside + costs.per_sample).max(1.0);
        let fit = (budget / one) as u64;
        let samples = fit.clamp(FEWEST_SAMPLES.min(asked), asked);
        SamplingPlan::of(Shape::Flat, samples, config)
    }

    /// `samples` samples of shape `shape`, in the rounds `config` gives
    /// them, one iteration per step.
    fn of(shape: Shape, samples: u64, config: &Config) -> SamplingPlan {
        let rounds = Config {
            sample_count: samples,
            ..config.clone()
        }
        .rounds();
        SamplingPlan {
            shape,
            step: 1,
            samples,
            rounds,
        }
    }

    /// The step that makes the samples fill `time` at `costs`, at least 1.
    fn step_filling(&self, time: Duration, costs: &Costs) -> u64 {
        let fixed = self.samples as f64 * costs.per_sample;
        let per_step = self.cost(1, costs) - fixed;
        let left = time.as_nanos() as f64 - fixed;
        ((left / per_step.max(1e-3)).ceil() as u64).max(1)
    }

    /// The time in nanoseconds the samples of every round take at `step`
    /// and `costs`: inside the windows, the iterations of each sample;
    /// outside them, the inputs of each round's largest sample, made for
    /// every sample.
    fn cost(&self, step: u64, costs: &Costs) -> f64 {
        (0..self.rounds)
            .map(|r| {
                let n = self.round_samples(r) as f64;
                let (inside, largest) = match self.shape {
                    Shape::Linear => (n * (n + 1.0) / 2.0, n),
                    Shape::Flat => (n, 1.0),
                };
                step as f64 * (inside * costs.inside + n * largest * costs.outside)
                    + n * costs.per_sample
            })
            .sum()
    }

    /// About how long sampling all rounds takes at `costs`.
    pub fn duration(&self, costs: &Costs) -> Duration {
        Duration::from_secs_f64(self.cost(self.step, costs) / 1e9)
    }

    /// The samples of round `index` (from 0): an even share, the first
    /// rounds taking one more where they do not divide evenly.
    pub fn round_samples(&self, index: u64) -> u64 {
        self.samples / self.rounds + u64::from(index < self.samples % self.rounds)
    }

    /// The iterations of sample `i` (from 1) of a round.
    pub fn iterations(&self, i: u64) -> u64 {
        match self.shape {
            Shape::Linear => i * self.step,
            Shape::Flat => self.step,
        }
    }

    /// The share of `config` (the whole benchmark's) that round `index`
    /// measures: its warm-up and measurement time and its samples.
    pub fn round(&self, config: &Config, index: u64) -> Config {
        Config {
            sample_count: self.samples,
            rounds: self.rounds,
            ..config.clone()
        }
        .round(index)
    }

    /// Whether the plan takes fewer samples than `config` asks.
    pub fn fewer_than(&self, config: &Config) -> bool {
        self.samples < config.sample_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(warm_up_ms: u64, measurement_ms: u64, sample_count: u64) -> Config {
        Config {
            warm_up: Duration::from_millis(warm_up_ms),
            measurement: Duration::from_millis(measurement_ms),
            sample_count,
            rounds: 10,
        }
    }

    fn costs(inside: f64, per_sample: f64) -> Costs {
        Costs {
            inside,
            outside: 0.0,
            per_sample,
        }
    }

    fn plan(shape: Shape, step: u64, samples: u64, rounds: u64) -> SamplingPlan {
        SamplingPlan {
            shape,
            step,
            samples,
            rounds,
        }
    }

    #[test]
    fn a_fast_routine_samples_linearly_filling_the_measurement_time() {
        // 50 samples in 10 rounds of 5: 15 steps a round, 150 in all; 700 ms
        // at 100 ns an iteration buy 46,666.7 iterations a step, rounded up.
        let p = SamplingPlan::choose(&config(150, 700, 50), &costs(100.0, 0.0));
        assert_eq!(p, plan(Shape::Linear, 46_667, 50, 10));
        assert_eq!((1..=5).map(|i| p.iterations(i)).sum::<u64>(), 15 * 46_667);
        // The fixed cost of 50 samples (50 µs) comes off the time first:
        // 699.95 ms buy 46,663.3.
        let p = SamplingPlan::choose(&config(150, 700, 50), &costs(100.0, 1000.0));
        assert_eq!(p.step, 46_664);
    }

    #[test]
    fn linear_sampling_is_kept_while_one_iteration_per_step_fits_the_budget() {
        // 150 steps of 5 ms: 750 ms, within 850 ms.
        let p = SamplingPlan::choose(&config(150, 700, 50), &costs(5e6, 0.0));
        assert_eq!(p, plan(Shape::Linear, 1, 50, 10));
        // Of 6 ms, 900 ms: flat, 50 samples of 3 (700 / 50 / 6, up).
        let p = SamplingPlan::choose(&config(150, 700, 50), &costs(6e6, 0.0));
        assert_eq!(p, plan(Shape::Flat, 3, 50, 10));
        assert_eq!(p.iterations(1), 3);
        assert_eq!(p.iterations(7), 3);
    }

    #[test]
    fn where_one_iteration_per_sample_does_not_fit_fewer_samples_are_taken() {
        // 20 ms: 42 samples of one iteration fit 850 ms, in 8 rounds.
        let p = SamplingPlan::choose(&config(150, 700, 50), &costs(20e6, 0.0));
        assert_eq!(p, plan(Shape::Flat, 1, 42, 8));
        assert!(p.fewer_than(&config(150, 700, 50)));
        assert_eq!(
            (0..8).map(|r| p.round_samples(r)).collect::<Vec<_>>(),
            [6, 6, 5, 5, 5, 5, 5, 5]
        );
        // 3 s, or 300 ms against 250 ms: none fits, the fewest are taken.
        for (inside, c) in [(3e9, config(150, 700, 50)), (300e6, config(50, 200, 50))] {
            let p = SamplingPlan::choose(&c, &costs(inside, 0.0));
            assert_eq!(p, plan(Shape::Flat, 1, FEWEST_SAMPLES, 1));
            assert_eq!(
                p.duration(&costs(inside, 0.0)).as_secs_f64(),
                3.0 * inside / 1e9
            );
        }
        // Never more than asked.
        let p = SamplingPlan::choose(&config(50, 200, 2), &costs(300e6, 0.0));
        assert_eq!(p, plan(Shape::Flat, 1, 2, 1));
    }

    #[test]
    fn a_huge_sample_count_fits_the_budget_and_the_memory() {
        // A million samples of 10 ns at 2 µs each would take 2 s: capped at
        // 100,000 samples, 200 ms, flat (linear would take 5 s); 700 ms less
        // their 200 ms buy 500 iterations of 10 ns a sample.
        let c = config(150, 700, 1_000_000);
        let p = SamplingPlan::choose(&c, &costs(10.0, 2000.0));
        assert_eq!(p, plan(Shape::Flat, 500, MAX_SAMPLES, 10));
        assert_eq!(p.round_samples(0), 10_000);
        // At 20 µs a sample (20,010 ns with the iteration) only 42,478.8
        // fit 850 ms.
        let p = SamplingPlan::choose(&c, &costs(10.0, 20_000.0));
        assert_eq!(p, plan(Shape::Flat, 1, 42_478, 10));
    }

    #[test]
    fn rounds_take_their_share_of_the_plan() {
        let c = config(100, 700, 50);
        let p = plan(Shape::Flat, 1, 42, 8);
        let first = p.round(&c, 0);
        assert_eq!((first.sample_count, first.rounds), (6, 8));
        assert_eq!(first.warm_up, Duration::from_millis(50));
        assert_eq!(p.round(&c, 7).sample_count, 5);
    }
}
