//! A stored profile's facts (schema [`PROFILE_SCHEMA`]), in the JSON file
//! beside its folded stacks: the sampling event, the routine's iterations
//! while sampling, the samples taken and lost, and a hash of the folded file they
//! describe (the two files are written one after the other, so a reader
//! checks they belong together). Derived on [`ProfileFacts`], each field
//! checked as serde reads it (`stored_value.rs`).
//!
//! ```text
//! {"event":"cpu-clock","folded":"9a3c51e0b2d4f687","iterations":120000,"lost":0,
//!  "samples":1940,"schema":"perfbench/profile/v1"}
//! ```

use serde::{Deserialize, Serialize};

use super::stored_value::{checks, is_label, record_in, text_that, whole, Checked, MAX_COUNT};
use super::summary_file::{document, with_schema};

/// The schema tag of a profile's facts.
pub const PROFILE_SCHEMA: &str = "perfbench/profile/v1";

/// What a stored profile's folded stacks do not say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileFacts {
    /// The sampling event as the user wrote it.
    #[serde(deserialize_with = "event")]
    pub event: String,
    /// The hash of the folded file they describe (`store::folded_hash`).
    #[serde(deserialize_with = "folded")]
    pub folded: String,
    /// Iterations of the routine run while sampling.
    #[serde(deserialize_with = "iterations")]
    pub iterations: u64,
    /// Samples the kernel dropped.
    #[serde(deserialize_with = "lost")]
    pub lost: u64,
    /// Samples taken (their stacks weigh the events they stand for).
    #[serde(deserialize_with = "samples")]
    pub samples: u64,
}

/// Why a count is refused.
const COUNT: &str = "not a whole number from 0 to 10^15";

checks! {
    event -> String = |v| text_that(&v, is_label, "event", "not a short line of text");
    folded -> String = |v| text_that(
        &v,
        |t| t.len() == 16 && t.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
        "folded",
        "not 16 hex digits",
    );
    iterations -> u64 = |v| whole(&v, (0, MAX_COUNT), "iterations", COUNT);
    lost -> u64 = |v| whole(&v, (0, MAX_COUNT), "lost", COUNT);
    samples -> u64 = |v| whole(&v, (0, MAX_COUNT), "samples", COUNT);
}

/// The facts' text: keys in the order of their names, with the schema.
pub fn encode_profile_facts(facts: &ProfileFacts) -> String {
    with_schema(facts, PROFILE_SCHEMA)
}

/// The facts [`encode_profile_facts`] wrote, or what is wrong with them.
pub fn decode_profile_facts(text: &str) -> Checked<ProfileFacts> {
    record_in(document(text, "a profile's facts", PROFILE_SCHEMA)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::folded_hash;

    fn facts() -> ProfileFacts {
        ProfileFacts {
            event: "cache-misses:u".into(),
            folded: folded_hash("a;b 1\n"),
            iterations: 120_000,
            lost: 3,
            samples: 1_940,
        }
    }

    #[test]
    fn facts_round_trip_exactly() {
        let text = encode_profile_facts(&facts());
        assert_eq!(
            text,
            format!(
                r#"{{"event":"cache-misses:u","folded":"{}","iterations":120000,"lost":3,"samples":1940,"schema":"perfbench/profile/v1"}}"#,
                folded_hash("a;b 1\n")
            )
        );
        assert_eq!(decode_profile_facts(&text).unwrap(), facts());
    }

    #[test]
    fn each_field_is_checked() {
        let good = encode_profile_facts(&facts());
        let hash = folded_hash("a;b 1\n");
        for (text, said) in [
            ("{".to_string(), "not valid JSON"),
            (
                "[]".to_string(),
                "not a profile's facts of schema `perfbench/profile/v1`",
            ),
            (
                good.replace("profile/v1", "profile/v2"),
                "not a profile's facts of schema `perfbench/profile/v1`",
            ),
            (
                good.replace("\"lost\":3", "\"lost\":-3"),
                "malformed `lost` (not a whole number from 0 to 10^15)",
            ),
            (
                good.replace("120000", "1000000000000001"),
                "malformed `iterations` (not a whole number from 0 to 10^15)",
            ),
            (
                good.replace("cache-misses:u", "a\\nb"),
                "malformed `event` (not a short line of text)",
            ),
            (
                good.replace("cache-misses:u", ""),
                "malformed `event` (not a short line of text)",
            ),
            (
                good.replace(
                    &hash,
                    &hash
                        .to_uppercase()
                        .replace(|c: char| c.is_ascii_digit(), "A"),
                ),
                "malformed `folded` (not 16 hex digits)",
            ),
            (
                good.replace("\"lost\":3,", ""),
                "malformed `lost`; remove or restore it",
            ),
        ] {
            let e = decode_profile_facts(&text).unwrap_err().to_string();
            assert!(e.starts_with(said), "{text}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
