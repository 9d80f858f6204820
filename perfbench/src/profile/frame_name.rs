//! A frame's name as a profile keeps it: demangled (Rust's names, without
//! their hash), and fit for the folded-stacks format, whose lines are
//! `frame;frame;frame count`.

use super::MAX_FRAME_CHARS;

/// The frame of an address in no module this process maps (nor an empty
/// name).
pub const UNKNOWN_FRAME: &str = "[unknown]";

/// What a `;` in a name becomes: `;` separates the folded format's frames,
/// and Rust's names hold it in array types, `[u8; 4]` read `[u8, 4]`
/// (a comma: a list of a type and a length, not a Rust type to be taken
/// for another).
pub const SEMICOLON_STANDIN: char = ',';

/// What a control character in a name becomes (a newline would end the
/// folded line): U+FFFD, the replacement character.
pub const CONTROL_STANDIN: char = '\u{fffd}';

/// What ends a name cut at [`MAX_FRAME_CHARS`]: an ellipsis, counted in.
pub const CUT_MARK: char = '…';

/// `raw` (a symbol's name) demangled where it is a Rust name, legacy or
/// v0, without the hash suffix (`::h0123456789abcdef`) or crate
/// disambiguators; any other name as it is (C and C++ names stay
/// mangled: libc's are plain).
pub fn demangled(raw: &str) -> String {
    match rustc_demangle::try_demangle(raw) {
        Ok(name) => format!("{name:#}"),
        Err(_) => raw.to_string(),
    }
}

/// `name` fit for a folded stack: each `;` as [`SEMICOLON_STANDIN`], each
/// control character as [`CONTROL_STANDIN`], at most [`MAX_FRAME_CHARS`]
/// characters (a longer one cut to one less and [`CUT_MARK`]), and
/// [`UNKNOWN_FRAME`] for an empty one.
pub fn folded_frame(name: &str) -> String {
    if name.is_empty() {
        return UNKNOWN_FRAME.to_string();
    }
    let clean = |c: char| match c {
        ';' => SEMICOLON_STANDIN,
        c if c.is_control() => CONTROL_STANDIN,
        c => c,
    };
    let mut chars = name.chars().map(clean);
    let mut out: String = chars.by_ref().take(MAX_FRAME_CHARS).collect();
    if chars.next().is_some() {
        out.pop();
        out.push(CUT_MARK);
    }
    out
}

/// A symbol's `raw` name as a frame: [`demangled`], then
/// [`folded_frame`].
pub fn frame_of_symbol(raw: &str) -> String {
    folded_frame(&demangled(raw))
}
