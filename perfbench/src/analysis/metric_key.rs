//! Metric keys, typed: the one place that spells the names perfbench gives
//! its own metrics (`wall-time`, `IPC`, `cycles/byte`), and the one
//! headline rule every output follows. The events it picks a headline
//! from are named by the event catalogue (`counter::event`).
//! A key prints as, and parses from, exactly the name stored and shown, so
//! JSON, tables and files read the same as with plain strings.

use std::fmt;
use std::str::FromStr;

use crate::counter::event::{CYCLES, INSTRUCTIONS, TASK_CLOCK};

/// The name of the wall-time metric, which every run has.
pub const WALL_TIME: &str = "wall-time";
const IPC: &str = "IPC";

/// The nouns of declared work a metric can be taken per
/// (`measure::Throughput::noun`).
const PER_UNIT_NOUNS: [&str; 2] = ["byte", "element"];

/// What a metric is, by its name: one perfbench singles out, or any other
/// event or ratio as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MetricKey {
    /// The time of the timed routine: `wall-time`.
    WallTime,
    /// The `cycles` event.
    Cycles,
    /// The `instructions` event.
    Instructions,
    /// The `task-clock` event: time on a CPU.
    TaskClock,
    /// Instructions per cycle, derived from the two: `IPC`.
    Ipc,
    /// A metric per byte or element of declared work: `cycles/byte`.
    PerUnit {
        /// The metric divided.
        of: Box<MetricKey>,
        /// `byte` or `element`.
        noun: &'static str,
    },
    /// Any other metric, named as the user wrote its event or as a
    /// derived ratio is named (`branch-miss rate`). Never one of the names
    /// above: [`FromStr`] gives those their own variant.
    Other(String),
}

/// The order a benchmark's block, the table and a paired run's verdict
/// pick their headline in: cycles where counted (what the code costs the
/// CPU, steadier than time), else wall time.
const HEADLINE: [MetricKey; 2] = [MetricKey::Cycles, MetricKey::WallTime];

/// The order a stored history picks the metric it follows in:
/// instructions where counted, else wall time. A history spans days,
/// reboots and frequency changes; an exact count of instructions moves
/// only when the code does, where cycles drift with the machine's caches
/// and clocks, so its change points mark changes of the code.
const HISTORY_HEADLINE: [MetricKey; 2] = [MetricKey::Instructions, MetricKey::WallTime];

impl MetricKey {
    /// The key of metric `of` per unit of the work named `noun`.
    pub fn per_unit(of: MetricKey, noun: &'static str) -> MetricKey {
        MetricKey::PerUnit {
            of: Box::new(of),
            noun,
        }
    }

    /// The name of a key that has one fixed name; `None` for
    /// [`MetricKey::PerUnit`] and [`MetricKey::Other`].
    fn fixed_name(&self) -> Option<&'static str> {
        Some(match self {
            MetricKey::WallTime => WALL_TIME,
            MetricKey::Cycles => CYCLES,
            MetricKey::Instructions => INSTRUCTIONS,
            MetricKey::TaskClock => TASK_CLOCK,
            MetricKey::Ipc => IPC,
            MetricKey::PerUnit { .. } | MetricKey::Other(_) => return None,
        })
    }

    /// Whether `name` is this key's name, without allocating.
    pub fn is(&self, name: &str) -> bool {
        match self {
            MetricKey::Other(own) => own == name,
            MetricKey::PerUnit { of, noun } => name
                .strip_suffix(noun)
                .and_then(|rest| rest.strip_suffix('/'))
                .is_some_and(|of_name| of.is(of_name)),
            fixed => fixed.fixed_name() == Some(name),
        }
    }

    /// The first item of `items` whose name (`name_of`) is `self`'s.
    pub fn find_in<'a, T>(
        &self,
        items: impl IntoIterator<Item = &'a T>,
        name_of: impl Fn(&T) -> &str,
    ) -> Option<&'a T> {
        items.into_iter().find(|item| self.is(name_of(item)))
    }

    /// The headline among `items`, the one rule of every output: cycles
    /// where counted, else wall time, else the first item.
    pub fn headline<T>(items: &[T], name_of: impl Fn(&T) -> &str) -> Option<&T> {
        first_of(&HEADLINE, items, &name_of).or(items.first())
    }

    /// The metric a stored history follows: the headline rule with
    /// instructions in place of cycles ([`HISTORY_HEADLINE`] says why);
    /// `None` without instructions or wall time.
    pub fn history_headline<T>(items: &[T], name_of: impl Fn(&T) -> &str) -> Option<&T> {
        first_of(&HISTORY_HEADLINE, items, &name_of)
    }
}

/// The first of `items` named by a key of `order`, trying the keys in turn.
fn first_of<'a, T>(
    order: &[MetricKey],
    items: &'a [T],
    name_of: &impl Fn(&T) -> &str,
) -> Option<&'a T> {
    order.iter().find_map(|key| key.find_in(items, name_of))
}

impl fmt::Display for MetricKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetricKey::PerUnit { of, noun } => write!(f, "{of}/{noun}"),
            MetricKey::Other(name) => f.write_str(name),
            fixed => f.write_str(fixed.fixed_name().unwrap_or_default()),
        }
    }
}

impl FromStr for MetricKey {
    type Err = std::convert::Infallible;

    /// Any name is a key ([`MetricKey::named`]).
    fn from_str(name: &str) -> Result<MetricKey, Self::Err> {
        Ok(MetricKey::named(name))
    }
}

impl From<&str> for MetricKey {
    fn from(name: &str) -> MetricKey {
        MetricKey::named(name)
    }
}

impl MetricKey {
    /// The key named `name`: a fixed name gives its variant, `x/byte` or
    /// `x/element` a [`MetricKey::PerUnit`], everything else
    /// [`MetricKey::Other`]. An event in the PMU's syntax (`cpu/…/`) ends
    /// in `/`, never in a noun, so it stays whole.
    pub fn named(name: &str) -> MetricKey {
        let fixed = [
            MetricKey::WallTime,
            MetricKey::Cycles,
            MetricKey::Instructions,
            MetricKey::TaskClock,
            MetricKey::Ipc,
        ];
        if let Some(key) = fixed.into_iter().find(|k| k.is(name)) {
            return key;
        }
        let per_unit = name.rsplit_once('/').and_then(|(of, noun)| {
            let noun = PER_UNIT_NOUNS.into_iter().find(|&n| n == noun)?;
            (!of.is_empty()).then(|| MetricKey::per_unit(MetricKey::named(of), noun))
        });
        per_unit.unwrap_or_else(|| MetricKey::Other(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name<'b>(s: &'b &str) -> &'b str {
        s
    }

    fn key(name: &str) -> MetricKey {
        name.parse().unwrap()
    }

    #[test]
    fn names_round_trip_byte_for_byte() {
        for name in [
            "wall-time",
            "cycles",
            "instructions",
            "task-clock",
            "IPC",
            "cycles/byte",
            "wall-time/element",
            "allocs/byte",
            "branch-miss rate",
            "cpu/event=0x3c/",
            "cpu/event=0x3c//byte",
            "cycles:u",
            "/byte",
            "x/bytes",
        ] {
            assert_eq!(key(name).to_string(), name);
            assert!(key(name).is(name), "{name}");
        }
    }

    #[test]
    fn fixed_names_get_their_variant() {
        assert_eq!(key("wall-time"), MetricKey::WallTime);
        assert_eq!(key("cycles"), MetricKey::Cycles);
        assert_eq!(key("instructions"), MetricKey::Instructions);
        assert_eq!(key("task-clock"), MetricKey::TaskClock);
        assert_eq!(key("IPC"), MetricKey::Ipc);
        assert_eq!(key("cycles:u"), MetricKey::Other("cycles:u".into()));
        assert_eq!(key("ipc"), MetricKey::Other("ipc".into()));
    }

    #[test]
    fn per_unit_names_parse_to_their_metric() {
        assert_eq!(
            key("cycles/byte"),
            MetricKey::per_unit(MetricKey::Cycles, "byte")
        );
        assert_eq!(
            key("allocs/element"),
            MetricKey::per_unit(MetricKey::Other("allocs".into()), "element")
        );
        assert_eq!(key("/byte"), MetricKey::Other("/byte".into()));
        assert_eq!(
            key("cpu/event=0x3c/"),
            MetricKey::Other("cpu/event=0x3c/".into())
        );
        let per_byte = MetricKey::per_unit(MetricKey::WallTime, "byte");
        assert!(!per_byte.is("wall-time/element"));
        assert!(!per_byte.is("wall-timebyte"));
        assert!(!per_byte.is("cycles/byte"));
    }

    #[test]
    fn headline_is_cycles_else_wall_time_else_the_first() {
        let h = |items: &[&'static str]| MetricKey::headline(items, name).copied();
        assert_eq!(h(&["wall-time", "instructions", "cycles"]), Some("cycles"));
        assert_eq!(h(&["wall-time", "instructions"]), Some("wall-time"));
        assert_eq!(h(&["allocs", "page-faults"]), Some("allocs"));
        assert_eq!(h(&["cycles:u", "wall-time"]), Some("wall-time"));
        assert_eq!(h(&[]), None);
    }

    #[test]
    fn a_history_follows_instructions_else_wall_time() {
        let h = |items: &[&'static str]| MetricKey::history_headline(items, name).copied();
        assert_eq!(
            h(&["wall-time", "cycles", "instructions"]),
            Some("instructions")
        );
        assert_eq!(h(&["wall-time", "cycles"]), Some("wall-time"));
        assert_eq!(h(&["allocs"]), None);
    }
}
