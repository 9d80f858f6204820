//! Why a stored file does not decode, in one line: the file's path, or the
//! benchmark's id, is added where it is printed. A field's check runs
//! inside serde, which carries its error as text; [`DecodeError::of_serde`]
//! reads it back.

use std::fmt;

/// Why a stored file (a result, a summary, sampled values, a history line)
/// does not decode.
#[derive(Clone, Debug, PartialEq)]
pub enum DecodeError {
    /// Not JSON at all: serde_json's reason.
    NotJson(String),
    /// JSON, but not an object.
    NotObject,
    /// A result file of another schema: the schema, cut short and escaped.
    OtherSchema(String),
    /// Not of the schema (`.1`) a file of `.0` (a summary, values) has.
    NotOf(&'static str, &'static str),
    /// The field `.0` (with the fields it is in: `series.totals`) left out
    /// or malformed, and how where its name does not say (`.1`).
    Malformed(String, Option<String>),
    /// What serde found of a shape no check names.
    Shape(String),
}

/// The remedy for a spoiled stored file.
const REMEDY: &str = "; remove or restore it";

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let other = "this perfbench reads";
        match self {
            DecodeError::NotJson(e) => write!(f, "not valid JSON ({e}){REMEDY}"),
            DecodeError::NotObject => write!(f, "not a JSON object{REMEDY}"),
            DecodeError::OtherSchema(s) => write!(
                f,
                "has schema `{s}`, {other} `{}`; remove it or use a matching perfbench",
                super::RESULT_SCHEMA
            ),
            DecodeError::NotOf(what, schema) => write!(f, "not {what} of schema `{schema}`"),
            DecodeError::Malformed(field, None) => write!(f, "malformed `{field}`{REMEDY}"),
            DecodeError::Malformed(field, Some(why)) => {
                write!(f, "malformed `{field}` ({why}){REMEDY}")
            }
            DecodeError::Shape(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for DecodeError {}

impl DecodeError {
    /// The error of serde reading a record whose fields are named after
    /// `prefix`: a field left out, one a check refused (its text read
    /// back), or serde's own.
    pub(crate) fn of_serde(e: &serde_json::Error, prefix: &str) -> DecodeError {
        let text = e.to_string();
        if let Some(name) = text.strip_prefix("missing field `") {
            return bad(&format!("{prefix}{}", name.trim_end_matches('`')));
        }
        let malformed = || {
            let rest = text.strip_prefix("malformed `")?.strip_suffix(REMEDY)?;
            let (field, why) = rest.split_once('`')?;
            let why = match why {
                "" => None,
                why => Some(why.strip_prefix(" (")?.strip_suffix(')')?.to_string()),
            };
            Some(DecodeError::Malformed(field.to_string(), why))
        };
        malformed().unwrap_or(DecodeError::Shape(text))
    }
}

/// The error for a stored file's malformed field `what`.
pub(crate) fn bad(what: &str) -> DecodeError {
    DecodeError::Malformed(what.to_string(), None)
}

/// The error for a stored file's field `what`, malformed as `why` says
/// (where it says something).
pub(crate) fn bad_because(what: &str, why: &str) -> DecodeError {
    let why = (!why.is_empty()).then(|| why.to_string());
    DecodeError::Malformed(what.to_string(), why)
}
