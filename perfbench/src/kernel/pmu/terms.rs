//! Terms: where a PMU's format term puts its value in the config words
//! (`format/<term>`), and the `name=value` lists aliases and specs are
//! written in.

use std::fmt;

use super::cpu_list::write_ranges;

/// Which `perf_event_attr` word a format term writes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConfigWord {
    /// `config`
    Config,
    /// `config1`
    Config1,
    /// `config2`
    Config2,
}

impl ConfigWord {
    /// Where the word stands in [`ConfigWords`].
    pub(super) fn index(self) -> usize {
        match self {
            ConfigWord::Config => 0,
            ConfigWord::Config1 => 1,
            ConfigWord::Config2 => 2,
        }
    }

    /// The word as sysfs spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigWord::Config => "config",
            ConfigWord::Config1 => "config1",
            ConfigWord::Config2 => "config2",
        }
    }

    /// The word a term name stands for when it names a whole word
    /// (`config=0x1234`, perf's convention).
    pub fn from_name(name: &str) -> Option<ConfigWord> {
        match name {
            "config" => Some(ConfigWord::Config),
            "config1" => Some(ConfigWord::Config1),
            "config2" => Some(ConfigWord::Config2),
            _ => None,
        }
    }
}

/// The three config words of `perf_event_attr`: `config`, `config1`,
/// `config2`, in that order.
pub type ConfigWords = [u64; 3];

/// What is wrong with a format file, a term list or a term's value, one
/// line quoting the culprit (the caller says which file or spec it is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TermError {
    /// A format file without `config[12]:`.
    NotFormat {
        /// The file's text.
        text: String,
    },
    /// A format file's word that is not `config`, `config1` or `config2`.
    NotConfigWord {
        /// The word written.
        word: String,
    },
    /// A bit of a format file's range that is not 0 to 63.
    NotBit {
        /// The bit as written.
        bit: String,
        /// The file's text.
        text: String,
    },
    /// A format file's range whose high bit is below its low.
    Backwards {
        /// The range.
        range: String,
        /// The file's text.
        text: String,
    },
    /// A term's value that does not fit its format field.
    TooWideForField {
        /// The term's name.
        term: String,
        /// The value.
        value: u64,
        /// The field.
        field: FormatField,
    },
    /// An empty term in a list.
    EmptyTerm,
    /// A term that is neither `name` nor `name=value`.
    NotTerm {
        /// The term as written.
        part: String,
    },
    /// A term's value beyond 64 bits.
    ValueTooWide {
        /// The term as written.
        part: String,
        /// Its value.
        value: String,
    },
    /// A term's value that is not a number.
    NotNumber {
        /// The term as written.
        part: String,
        /// Its value.
        value: String,
    },
    /// A term the PMU has no format for.
    NoSuchTerm {
        /// The PMU's name.
        pmu: String,
        /// The term.
        term: String,
        /// The PMU's format terms.
        known: Vec<String>,
    },
}

impl fmt::Display for TermError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TermError::NotFormat { text } => write!(f, "`{text}` is not `config[12]:BITS`"),
            TermError::NotConfigWord { word } => {
                write!(f, "`{word}` is not config, config1 or config2")
            }
            TermError::NotBit { bit, text } => {
                write!(f, "`{bit}` is not a bit number 0-63 in `{text}`")
            }
            TermError::Backwards { range, text } => {
                write!(f, "range `{range}` runs backwards in `{text}`")
            }
            TermError::TooWideForField { term, value, field } => write!(
                f,
                "value {value:#x} of `{term}` is wider than its {}-bit field ({field})",
                field.width()
            ),
            TermError::EmptyTerm => f.write_str("empty term (a stray comma?)"),
            TermError::NotTerm { part } => {
                write!(f, "`{part}` is not a term (`name` or `name=value`)")
            }
            TermError::ValueTooWide { part, value } => {
                write!(f, "`{part}`: value `{value}` is wider than 64 bits")
            }
            TermError::NotNumber { part, value } => write!(
                f,
                "`{part}`: value `{value}` is not a number (decimal or 0x hex)"
            ),
            TermError::NoSuchTerm { pmu, term, known } => {
                let known = if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                };
                write!(f, "PMU `{pmu}` has no term `{term}` (its terms: {known})")
            }
        }
    }
}

impl std::error::Error for TermError {}

/// Where a format term's value goes: a word and the bit ranges in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatField {
    /// The word written.
    pub word: ConfigWord,
    /// Inclusive `(low, high)` bit ranges, in the order the value fills
    /// them (low value bits first).
    pub ranges: Vec<(u32, u32)>,
}

impl FormatField {
    /// Parses a format file's content: `config:0-7`, `config1:8`,
    /// `config:0-7,32-35`.
    pub fn parse(text: &str) -> Result<FormatField, TermError> {
        let text = text.trim();
        let (word, bits) = text
            .split_once(':')
            .ok_or_else(|| TermError::NotFormat { text: text.into() })?;
        let word = ConfigWord::from_name(word)
            .ok_or_else(|| TermError::NotConfigWord { word: word.into() })?;
        let mut ranges = Vec::new();
        for part in bits.split(',') {
            let bit = |s: &str| -> Result<u32, TermError> {
                match s.trim().parse::<u32>() {
                    Ok(b) if b < 64 => Ok(b),
                    _ => Err(TermError::NotBit {
                        bit: s.into(),
                        text: text.into(),
                    }),
                }
            };
            let (lo, hi) = match part.split_once('-') {
                Some((lo, hi)) => (bit(lo)?, bit(hi)?),
                None => (bit(part)?, bit(part)?),
            };
            if lo > hi {
                return Err(TermError::Backwards {
                    range: part.into(),
                    text: text.into(),
                });
            }
            ranges.push((lo, hi));
        }
        Ok(FormatField { word, ranges })
    }

    /// How many bits of value the field holds.
    pub fn width(&self) -> u32 {
        self.ranges.iter().map(|(lo, hi)| hi - lo + 1).sum()
    }

    /// The bits of the word the field covers.
    pub fn mask(&self) -> u64 {
        self.ranges
            .iter()
            .fold(0, |m, &(lo, hi)| m | (ones(hi - lo + 1) << lo))
    }

    /// Writes `value` into `words`, replacing what the field held; the
    /// value's low bits fill the first range. `term` names the field in the
    /// error when the value does not fit.
    pub fn encode(&self, term: &str, value: u64, words: &mut ConfigWords) -> Result<(), TermError> {
        let width = self.width();
        if width < 64 && value >> width != 0 {
            return Err(TermError::TooWideForField {
                term: term.into(),
                value,
                field: self.clone(),
            });
        }
        let word = &mut words[self.word.index()];
        *word &= !self.mask();
        let mut rest = value;
        for &(lo, hi) in &self.ranges {
            let n = hi - lo + 1;
            *word |= (rest & ones(n)) << lo;
            rest = if n >= 64 { 0 } else { rest >> n };
        }
        Ok(())
    }
}

impl fmt::Display for FormatField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.word.as_str())?;
        write_ranges(f, &self.ranges)
    }
}

fn ones(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// One term of an alias or a spec: `name=value`, or a bare `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// The term's name.
    pub name: String,
    /// Its value; a bare name is read as 1 for a format term (perf's
    /// convention).
    pub value: TermValue,
}

/// The value of a [`Term`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermValue {
    /// No `=`: a bare name.
    Bare,
    /// `=N`, decimal or `0x` hex.
    Number(u64),
    /// `=?` in an alias: the user has to supply the value.
    Required,
}

/// Parses a number as perf writes term values: decimal or `0x` hex.
pub fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(hex, 16).ok()
    } else if !text.is_empty() && text.chars().all(|c| c.is_ascii_digit()) {
        text.parse().ok()
    } else {
        None
    }
}

/// Parses a comma-separated term list (`event=0xc0,umask=0x01,edge`).
/// An empty list is fine; an empty term, an empty name or a value that is
/// not a number is an error naming it.
pub fn parse_terms(text: &str) -> Result<Vec<Term>, TermError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|part| {
            let part = part.trim();
            if part.is_empty() {
                return Err(TermError::EmptyTerm);
            }
            let (name, value) = match part.split_once('=') {
                Some((name, value)) => {
                    let value = value.trim();
                    let value = if value == "?" {
                        TermValue::Required
                    } else {
                        TermValue::Number(
                            parse_number(value).ok_or_else(|| bad_value(part, value))?,
                        )
                    };
                    (name.trim(), value)
                }
                None => (part, TermValue::Bare),
            };
            if name.is_empty() || !name.chars().all(is_name_char) {
                return Err(TermError::NotTerm { part: part.into() });
            }
            Ok(Term {
                name: name.to_string(),
                value,
            })
        })
        .collect()
}

/// Why `value` of the term `part` is no number: too wide, or not digits.
fn bad_value(part: &str, value: &str) -> TermError {
    let digits = match value.strip_prefix("0x") {
        Some(hex) => !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()),
        None => !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()),
    };
    let (part, value) = (part.into(), value.into());
    if digits {
        TermError::ValueTooWide { part, value }
    } else {
        TermError::NotNumber { part, value }
    }
}

/// Characters of PMU, alias and term names.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}
