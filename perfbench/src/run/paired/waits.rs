//! How long the driving build of a paired run waits for a serving build:
//! for its greeting, for each round, and for it to end once its requests
//! have. A build that does not answer in time is given up, named, and
//! killed, so that a hung or silent paired build cannot hang the run.
//! `--paired-timeout S` sets every wait (at most [`END`] for the end);
//! unset, each allows far more than a working build takes.

use std::time::Duration;

use crate::measure::Config;

/// Unasked, the wait for a greeting: a build greets once it has opened its
/// events, well within a second; a loaded machine and a cold disk get the
/// rest.
pub const GREETING: Duration = Duration::from_secs(60);

/// Unasked, the least wait for a round, whatever its benchmark's times.
pub const ROUND_FLOOR: Duration = Duration::from_secs(60);

/// Unasked, the wait for a build to end after its requests did: it ends
/// at once, having nothing to measure.
pub const END: Duration = Duration::from_secs(10);

/// How many times a round's expected time a round may take, unasked: a
/// benchmark whose iterations outlast its budget runs at least a few of
/// them, and the paired build may be slower than this one.
const ROUND_MARGIN: u32 = 4;

/// The waits of one paired run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Waits {
    /// `--paired-timeout`, where given: every wait.
    pub given: Option<Duration>,
}

impl Waits {
    /// The wait for a build's greeting.
    pub fn greeting(&self) -> Duration {
        self.given.unwrap_or(GREETING)
    }

    /// The wait for one round of a benchmark measured with `config` (the
    /// whole benchmark's, all rounds) in `passes` passes, of which this
    /// build's rounds took `took` so far: [`ROUND_FLOOR`] plus
    /// [`ROUND_MARGIN`] times both the benchmark's warm-up and measurement
    /// time a pass (a round takes a share of them) and `took` (a round of
    /// the paired build takes about what one of this build does).
    pub fn round(&self, config: &Config, passes: usize, took: Duration) -> Duration {
        if let Some(given) = self.given {
            return given;
        }
        let passes = u32::try_from(passes.max(1)).unwrap_or(u32::MAX);
        let budget = (config.warm_up + config.measurement).saturating_mul(passes);
        let expected = budget.saturating_add(took);
        ROUND_FLOOR.saturating_add(expected.saturating_mul(ROUND_MARGIN))
    }

    /// The wait for a build to end once its requests have.
    pub fn end(&self) -> Duration {
        self.given.map_or(END, |given| given.min(END))
    }
}

/// `d` as messages say a wait: whole seconds where it is whole (`2 s`),
/// else to the millisecond (`0.25 s`).
pub fn seconds(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        return format!("{} s", d.as_secs());
    }
    let text = format!("{:.3}", d.as_secs_f64());
    format!("{} s", text.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_wait_is_every_wait_and_the_defaults_grow_with_the_budget() {
        let config = Config::default(); // 0.15 s + 0.7 s
        let given = Waits {
            given: Some(Duration::from_millis(1500)),
        };
        assert_eq!(given.greeting(), Duration::from_millis(1500));
        assert_eq!(
            given.round(&config, 3, Duration::from_secs(100)),
            Duration::from_millis(1500)
        );
        assert_eq!(given.end(), Duration::from_millis(1500));
        let long = Waits {
            given: Some(Duration::from_secs(3600)),
        };
        assert_eq!(long.end(), END);

        let unasked = Waits::default();
        assert_eq!(unasked.greeting(), GREETING);
        assert_eq!(unasked.end(), END);
        // 60 s + 4 × (2 passes × 0.85 s + 1 s).
        assert_eq!(
            unasked.round(&config, 2, Duration::from_secs(1)),
            Duration::from_millis(70_800)
        );
        assert_eq!(
            unasked.round(&config, 0, Duration::ZERO),
            Duration::from_millis(63_400)
        );
        let day = Config {
            warm_up: Duration::from_secs(86_400),
            measurement: Duration::from_secs(86_400),
            ..Config::default()
        };
        let longest = unasked.round(&day, usize::MAX, Duration::MAX);
        assert_eq!(longest, Duration::MAX);
    }

    #[test]
    fn waits_are_said_in_seconds() {
        assert_eq!(seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(seconds(Duration::from_millis(250)), "0.25 s");
        assert_eq!(seconds(Duration::from_millis(70_800)), "70.8 s");
    }
}
