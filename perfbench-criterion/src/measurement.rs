//! Criterion's `measurement` module: the [`Measurement`] trait a suite may
//! implement, and [`WallTime`], the one perfbench measures with.
//!
//! perfbench measures wall time and its counters itself. A suite that
//! gives Criterion another `Measurement` (`with_measurement`) still
//! compiles; its benchmarks are measured by perfbench, and one line says
//! that the measurement was not used. `iter_custom`, whose routine returns
//! the measurement's values, works with [`WallTime`] only.

use std::time::{Duration, Instant};

use crate::Throughput;

/// Formats a measurement's values for people.
pub trait ValueFormatter {
    /// `value` with its unit.
    fn format_value(&self, value: f64) -> String {
        let mut values = [value];
        let unit = self.scale_values(value, &mut values);
        format!("{:>6.2} {unit}", values[0])
    }

    /// The rate of `throughput` at `value` an iteration, with its unit.
    fn format_throughput(&self, throughput: &Throughput, value: f64) -> String {
        let mut values = [value];
        let unit = self.scale_throughputs(value, throughput, &mut values);
        format!("{:>6.2} {unit}", values[0])
    }

    /// Scales `values` to a unit suited to `typical_value`, and names it.
    fn scale_values(&self, typical_value: f64, values: &mut [f64]) -> &'static str;

    /// Scales `values` to a rate of `throughput`, and names its unit.
    fn scale_throughputs(
        &self,
        typical_value: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str;

    /// Scales `values` to the unit machines read, and names it.
    fn scale_for_machines(&self, values: &mut [f64]) -> &'static str;
}

/// What a benchmark is measured in (Criterion's trait).
pub trait Measurement {
    /// What [`start`](Self::start) returns.
    type Intermediate;
    /// A measured value.
    type Value;
    /// Starts measuring.
    fn start(&self) -> Self::Intermediate;
    /// Ends measuring.
    fn end(&self, i: Self::Intermediate) -> Self::Value;
    /// The sum of two values.
    fn add(&self, v1: &Self::Value, v2: &Self::Value) -> Self::Value;
    /// The value of nothing.
    fn zero(&self) -> Self::Value;
    /// A value as a number.
    fn to_f64(&self, value: &Self::Value) -> f64;
    /// Its formatter.
    fn formatter(&self) -> &dyn ValueFormatter;

    /// A value as a duration, where the measurement is wall time: what
    /// perfbench's `iter_custom` takes. Not Criterion's; a suite's own
    /// measurement leaves it as it is.
    #[doc(hidden)]
    fn __perfbench_duration(_value: &Self::Value) -> Option<Duration>
    where
        Self: Sized,
    {
        None
    }
}

/// Wall time, as perfbench measures it.
#[derive(Clone, Copy, Debug, Default)]
pub struct WallTime;

/// Formats nanoseconds.
struct Nanoseconds;

impl ValueFormatter for Nanoseconds {
    fn scale_values(&self, typical_value: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = match typical_value {
            t if t < 1e3 => (1.0, "ns"),
            t if t < 1e6 => (1e-3, "µs"),
            t if t < 1e9 => (1e-6, "ms"),
            _ => (1e-9, "s"),
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        typical_value: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (amount, unit) = match throughput.reported().0 {
            perfbench::Throughput::Bytes(n) => (n as f64, "B/s"),
            perfbench::Throughput::Elements(n) => (n as f64, "elem/s"),
        };
        let _ = typical_value;
        values.iter_mut().for_each(|v| *v = amount * 1e9 / *v);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

impl Measurement for WallTime {
    type Intermediate = Instant;
    type Value = Duration;

    fn start(&self) -> Instant {
        Instant::now()
    }

    fn end(&self, i: Instant) -> Duration {
        i.elapsed()
    }

    fn add(&self, v1: &Duration, v2: &Duration) -> Duration {
        *v1 + *v2
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanoseconds
    }

    fn __perfbench_duration(value: &Duration) -> Option<Duration> {
        Some(*value)
    }
}
