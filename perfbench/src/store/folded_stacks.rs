//! A profile's stacks as a folded-stacks file: a line per distinct stack,
//! `frame;frame;frame count`, outermost frame first, as flamegraph.pl,
//! inferno and speedscope read it. Lines are written in the profile's
//! order (by stack, frame by frame), so one profile always makes the same
//! bytes.
//!
//! A stored file may be hostile (a restored CI cache): [`decode_folded`]
//! reads any text into a [`Profile`](crate::profile::Profile)'s stacks or a one-line
//! [`FoldedError`], within the limits below, in one pass over the text.

use std::collections::BTreeMap;
use std::fmt;

use super::json::MAX_COUNT;
use crate::profile::{MAX_DEPTH as MAX_FRAMES, MAX_FRAME_CHARS, MAX_STACKS};

/// What is wrong with a folded file's line (its number, from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FoldedError {
    /// More than [`MAX_STACKS`] lines.
    TooManyStacks,
    /// A line without a space before its count.
    NoCount(usize),
    /// A count that is not a whole number from 0 to [`MAX_COUNT`].
    BadCount(usize),
    /// A line of no frames, or a frame of no characters.
    EmptyFrame(usize),
    /// A stack of more than [`MAX_FRAMES`] frames.
    TooDeep(usize),
    /// A frame of more than [`MAX_FRAME_CHARS`] characters.
    LongFrame(usize),
    /// A control character (a tab, a carriage return, ...).
    Control(usize),
    /// A stack already on an earlier line.
    Twice(usize),
}

impl fmt::Display for FoldedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let remedy = "; remove it";
        match self {
            FoldedError::TooManyStacks => {
                write!(f, "more than {MAX_STACKS} stacks{remedy}")
            }
            FoldedError::NoCount(n) => write!(f, "line {n}: no count after a space{remedy}"),
            FoldedError::BadCount(n) => write!(
                f,
                "line {n}: a count that is not a whole number from 0 to 10^15{remedy}"
            ),
            FoldedError::EmptyFrame(n) => write!(f, "line {n}: an empty frame{remedy}"),
            FoldedError::TooDeep(n) => {
                write!(f, "line {n}: more than {MAX_FRAMES} frames{remedy}")
            }
            FoldedError::LongFrame(n) => write!(
                f,
                "line {n}: a frame of more than {MAX_FRAME_CHARS} characters{remedy}"
            ),
            FoldedError::Control(n) => write!(f, "line {n}: a control character{remedy}"),
            FoldedError::Twice(n) => write!(f, "line {n}: a stack already counted{remedy}"),
        }
    }
}

impl std::error::Error for FoldedError {}

/// The folded file of `stacks`: a line each, ending in a newline.
pub fn encode_folded(stacks: &BTreeMap<Vec<String>, u64>) -> String {
    let mut text = String::new();
    for (stack, count) in stacks {
        text.push_str(&stack.join(";"));
        text.push(' ');
        text.push_str(&count.to_string());
        text.push('\n');
    }
    text
}

/// The stacks a folded file holds, or the first line that is wrong. Lines
/// may come in any order (other tools' files), but no stack twice.
pub fn decode_folded(text: &str) -> Result<BTreeMap<Vec<String>, u64>, FoldedError> {
    let mut stacks = BTreeMap::new();
    for (at, line) in text.split_terminator('\n').enumerate() {
        if at == MAX_STACKS {
            return Err(FoldedError::TooManyStacks);
        }
        let (stack, count) = line_of(line, at + 1)?;
        if stacks.insert(stack, count).is_some() {
            return Err(FoldedError::Twice(at + 1));
        }
    }
    Ok(stacks)
}

/// The stack and count of line `n`.
fn line_of(line: &str, n: usize) -> Result<(Vec<String>, u64), FoldedError> {
    if line.chars().any(char::is_control) {
        return Err(FoldedError::Control(n));
    }
    let (frames, count) = line.rsplit_once(' ').ok_or(FoldedError::NoCount(n))?;
    // Digits only: `parse` would also take a leading `+`.
    let digits =
        !count.is_empty() && count.len() <= 16 && count.bytes().all(|b| b.is_ascii_digit());
    let count = count
        .parse::<u64>()
        .ok()
        .filter(|&c| digits && c <= MAX_COUNT);
    let count = count.ok_or(FoldedError::BadCount(n))?;
    let mut stack = Vec::new();
    for frame in frames.split(';') {
        if stack.len() == MAX_FRAMES {
            return Err(FoldedError::TooDeep(n));
        }
        if frame.is_empty() {
            return Err(FoldedError::EmptyFrame(n));
        }
        if frame.chars().nth(MAX_FRAME_CHARS).is_some() {
            return Err(FoldedError::LongFrame(n));
        }
        stack.push(frame.to_string());
    }
    Ok((stack, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stacks(lines: &[(&[&str], u64)]) -> BTreeMap<Vec<String>, u64> {
        let stack = |frames: &[&str]| frames.iter().map(|f| f.to_string()).collect();
        lines.iter().map(|(f, n)| (stack(f), *n)).collect()
    }

    #[test]
    fn stacks_round_trip_exactly_in_the_profiles_order() {
        let s = stacks(&[
            (&["bench", "parse::light", "<T as Foo<&'a str>>::bar"], 7),
            (&["bench"], 0),
            (&["bench", "a b  c "], MAX_COUNT),
            (&["bench", "parse::light"], 3),
        ]);
        let text = encode_folded(&s);
        assert_eq!(
            text,
            "bench 0\nbench;a b  c  1000000000000000\nbench;parse::light 3\n\
             bench;parse::light;<T as Foo<&'a str>>::bar 7\n"
        );
        assert_eq!(decode_folded(&text).unwrap(), s);
        assert_eq!(decode_folded("").unwrap(), BTreeMap::new());
        // Other tools' files: any order, a last line without its newline.
        let other = "b;c 2\na 1";
        assert_eq!(
            decode_folded(other).unwrap(),
            stacks(&[(&["a"], 1), (&["b", "c"], 2)])
        );
    }

    #[test]
    fn each_limit_is_refused_with_its_line() {
        let deep = vec!["f"; MAX_FRAMES + 1].join(";");
        let ok_deep = vec!["f"; MAX_FRAMES].join(";");
        let long = "x".repeat(MAX_FRAME_CHARS + 1);
        let ok_long = "é".repeat(MAX_FRAME_CHARS);
        assert!(decode_folded(&format!("{ok_deep} 1\n")).is_ok());
        assert!(decode_folded(&format!("{ok_long} 1\n")).is_ok());
        for (text, said) in [
            ("a 1\nb\n", "line 2: no count after a space; remove it"),
            ("a 1\n\n", "line 2: no count after a space; remove it"),
            (
                "a 1000000000000001\n",
                "line 1: a count that is not a whole number from 0 to 10^15; remove it",
            ),
            (
                "a +1\n",
                "line 1: a count that is not a whole number from 0 to 10^15; remove it",
            ),
            (
                "a -1\n",
                "line 1: a count that is not a whole number from 0 to 10^15; remove it",
            ),
            (
                "a 1 \n",
                "line 1: a count that is not a whole number from 0 to 10^15; remove it",
            ),
            (
                "a 99999999999999999999\n",
                "line 1: a count that is not a whole number from 0 to 10^15; remove it",
            ),
            (" 1\n", "line 1: an empty frame; remove it"),
            ("a;;b 1\n", "line 1: an empty frame; remove it"),
            ("a; 1\n", "line 1: an empty frame; remove it"),
            (
                &format!("{deep} 1\n"),
                "line 1: more than 1024 frames; remove it",
            ),
            (
                &format!("a;{long} 1\n"),
                "line 1: a frame of more than 1000 characters; remove it",
            ),
            ("a 1\r\n", "line 1: a control character; remove it"),
            ("a\tb 1\n", "line 1: a control character; remove it"),
            ("a\u{85}b 1\n", "line 1: a control character; remove it"),
            (
                "a;b 1\nc 2\na;b 3\n",
                "line 3: a stack already counted; remove it",
            ),
        ] {
            let e = decode_folded(text).unwrap_err();
            assert_eq!(e.to_string(), said, "{text:?}");
        }
        let most = "a 1\n".to_string()
            + &(1..MAX_STACKS)
                .map(|i| format!("s{i} 1\n"))
                .collect::<String>();
        assert_eq!(decode_folded(&most).unwrap().len(), MAX_STACKS);
        let e = decode_folded(&format!("{most}z 1\n")).unwrap_err();
        assert_eq!(e.to_string(), "more than 100000 stacks; remove it");
    }
}
