//! [`Throughput`]: what one iteration processes, in Criterion's variants,
//! and the one perfbench reports for it.

/// What one iteration of a benchmark processes: its rate is reported
/// beside the time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Throughput {
    /// Bits: reported by perfbench in bytes, an eighth as many.
    Bits(u64),
    /// Bytes.
    Bytes(u64),
    /// Bytes, which Criterion prints in powers of 1000; perfbench prints
    /// every rate the same way.
    BytesDecimal(u64),
    /// Elements.
    Elements(u64),
    /// Both: perfbench reports the elements, the primary one, as Criterion
    /// puts them in the id.
    ElementsAndBytes {
        /// Elements an iteration.
        elements: u64,
        /// Bytes an iteration.
        bytes: u64,
    },
}

impl Throughput {
    /// The throughput perfbench reports, and what it cannot say of this
    /// one, in a line said once a run.
    pub(crate) fn reported(&self) -> (perfbench::Throughput, Option<&'static str>) {
        match *self {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => {
                (perfbench::Throughput::Bytes(n), None)
            }
            Throughput::Elements(n) => (perfbench::Throughput::Elements(n), None),
            Throughput::Bits(n) => (
                perfbench::Throughput::Bytes(n / 8),
                Some("Throughput::Bits is reported in bytes (bits / 8, rounded down)"),
            ),
            Throughput::ElementsAndBytes { elements, .. } => (
                perfbench::Throughput::Elements(elements),
                Some("Throughput::ElementsAndBytes is reported in elements only"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_is_reported_as_perfbench_counts_it() {
        use perfbench::Throughput as P;
        assert_eq!(Throughput::Bytes(64).reported(), (P::Bytes(64), None));
        assert_eq!(Throughput::BytesDecimal(9).reported(), (P::Bytes(9), None));
        assert_eq!(Throughput::Elements(3).reported(), (P::Elements(3), None));
        assert_eq!(Throughput::Bits(20).reported().0, P::Bytes(2));
        let both = Throughput::ElementsAndBytes {
            elements: 5,
            bytes: 80,
        };
        assert_eq!(both.reported().0, P::Elements(5));
        assert!(both.reported().1.is_some());
    }
}
