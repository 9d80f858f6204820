//! The one escaper: how a user's or a stored text is printed, so that it
//! can neither break a line, nor reach the terminal as a command, nor show
//! other text than it holds. It lives below the sinks so that the analysis
//! layer's own words (the label of a paired build's PATH) go through it
//! too; `output::format` re-exports it.

use std::borrow::Cow;

use super::notes::{plural, thousands};

/// How many characters of one quoted text ([`quoted`]) a message shows:
/// a name, an argument, a value read from the store. The longest sane one
/// (a CPU model, a schema tag, a baseline name of at most 64) is far
/// shorter, and a screenful of a hostile one says nothing more.
pub const QUOTED_CHARS: usize = 200;

/// How many characters of one message made below the run layer
/// ([`one_line`]) are shown: such a message may quote stored text whole
/// (a store error's reason, an environment that differs), which only the
/// whole line can cut; it fits several quoted texts of [`QUOTED_CHARS`].
pub const LINE_CHARS: usize = 1_000;

/// `s` as it may be printed: each control character (newline, ESC, NUL,
/// DEL, …) written as Rust writes it in a string (`\n`, `\u{1b}`, `\0`),
/// each character that turns the direction of text (U+202E and its kin) as
/// `\u{202e}`, and a backslash as `\\`, so that a user's or a stored text
/// can neither break a line, nor reach the terminal as a command, nor show
/// other text than it holds, and two texts never print alike (a real line
/// break is `\n`, a written one `\\n`). Every id, filter and name a user
/// gave is printed through this, whole (an id must stay one a filter can
/// match).
pub fn printable(s: &str) -> Cow<'_, str> {
    escaped(s, usize::MAX, Backslash::Escaped)
}

/// A user's or a stored text as a message quotes it: [`printable`], cut
/// after [`QUOTED_CHARS`] characters with how many more it has, so that a
/// 10,000-character name is no 10,000-character error.
pub fn quoted(s: &str) -> Cow<'_, str> {
    escaped(s, QUOTED_CHARS, Backslash::Escaped)
}

/// A whole message as the run prints it: [`printable`] but for
/// backslashes, which are kept (so that the texts it quotes through
/// [`quoted`] are not escaped twice), cut after [`LINE_CHARS`] characters;
/// one line, whatever a lower layer quoted.
pub fn one_line(s: &str) -> Cow<'_, str> {
    escaped(s, LINE_CHARS, Backslash::Kept)
}

/// Whether a backslash is escaped: in a text, yes; in a whole message,
/// whose quoted texts are escaped already, no.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Backslash {
    Escaped,
    Kept,
}

/// `s` escaped, cut after `max` printed characters (never inside an
/// escape) with `… (N more characters)`, N counting `s`'s own characters.
fn escaped(s: &str, max: usize, backslash: Backslash) -> Cow<'_, str> {
    let escape_backslash = backslash == Backslash::Escaped;
    let plain =
        |c: char| !(c.is_control() || turns_direction(c) || (c == '\\' && escape_backslash));
    if s.chars().all(plain) && s.chars().nth(max).is_none() {
        return s.into();
    }
    let mut out = String::with_capacity(s.len().min(max) + 8);
    let mut shown = 0;
    for (i, c) in s.chars().enumerate() {
        let start = out.len();
        if plain(c) {
            out.push(c);
        } else if c.is_control() || c == '\\' {
            out.extend(c.escape_debug());
        } else {
            out.extend(c.escape_unicode());
        }
        shown += out[start..].chars().count();
        if shown > max {
            out.truncate(start);
            let more = s.chars().count() - i;
            let more = format!("{} more character{}", thousands(more as f64), plural(more));
            out.push_str(&format!("… ({more})"));
            break;
        }
    }
    out.into()
}

/// Whether `c` is a character of no width that changes the direction in
/// which the text around it is shown: the bidi embeddings, overrides and
/// isolates (U+202A–U+202E, U+2066–U+2069) and the marks (U+200E, U+200F,
/// U+061C). Printed raw, they make a line read otherwise than it is.
fn turns_direction(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_written_as_escapes() {
        assert_eq!(printable("sort/64"), "sort/64");
        assert_eq!(printable("emoji 🦀 \\ tab"), "emoji 🦀 \\\\ tab");
        assert_eq!(
            printable("a\nb\x1b[31mc\0d\x7fe\u{9b}f\r\t"),
            "a\\nb\\u{1b}[31mc\\0d\\u{7f}e\\u{9b}f\\r\\t"
        );
    }

    #[test]
    fn terminal_commands_and_line_breaks_are_written_as_escapes() {
        let cases = [
            ("a\x1b[2Kb", "a\\u{1b}[2Kb"),
            ("\x1b]0;x\x07", "\\u{1b}]0;x\\u{7}"),
            ("\x1b]52;c;ZXZpbA==\x07", "\\u{1b}]52;c;ZXZpbA==\\u{7}"),
            ("one\rtwo", "one\\rtwo"),
            ("one\ntwo", "one\\ntwo"),
        ];
        for (raw, shown) in cases {
            assert_eq!(printable(raw), shown);
            assert_eq!(quoted(raw), shown);
            assert_eq!(one_line(raw), shown);
        }
    }

    #[test]
    fn characters_that_turn_the_direction_of_text_are_written_as_escapes() {
        assert_eq!(printable("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(printable("x\u{2066}y\u{2069}"), "x\\u{2066}y\\u{2069}");
        let marks = "\u{200e}\u{200f}\u{61c}\u{202a}\u{2068}";
        assert_eq!(
            printable(marks),
            "\\u{200e}\\u{200f}\\u{61c}\\u{202a}\\u{2068}"
        );
        // Other non-ASCII text, and the joiner inside an emoji, stay.
        assert_eq!(
            printable("Grüße 👩\u{200d}🔬 العربية"),
            "Grüße 👩\u{200d}🔬 العربية"
        );
    }

    #[test]
    fn quoted_text_is_cut_saying_how_much_more_there_is() {
        let long = "n".repeat(10_000);
        let q = quoted(&long);
        assert_eq!(q, format!("{}… (9,800 more characters)", "n".repeat(200)));
        assert_eq!(quoted(&"n".repeat(200)), "n".repeat(200), "200 are whole");
        assert_eq!(
            quoted(&"n".repeat(201)),
            format!("{}… (1 more character)", "n".repeat(200))
        );
        // Cut before an escape that would not fit, never inside it; what is
        // left is counted in the text's own characters.
        let escapes = format!("{}\x1b\x1bz", "n".repeat(195));
        assert_eq!(
            quoted(&escapes),
            format!("{}… (3 more characters)", "n".repeat(195))
        );
        assert_eq!(printable(&long), long, "ids are never cut");
        let line = one_line(&long);
        assert!(line.starts_with(&"n".repeat(1_000)), "{line}");
        assert!(line.ends_with("… (9,000 more characters)"), "{line}");
    }

    #[test]
    fn a_message_escapes_what_it_quotes_no_further() {
        let once = printable("a\nb\u{202e}c\\");
        assert_eq!(once, "a\\nb\\u{202e}c\\\\");
        assert_eq!(one_line(&once), once);
    }

    #[test]
    fn a_backslash_is_escaped_so_a_real_line_break_and_a_written_one_differ() {
        assert_eq!(printable("a\nb"), "a\\nb");
        assert_eq!(printable("a\\nb"), "a\\\\nb");
        assert_eq!(quoted("a\\nb"), "a\\\\nb");
        assert_ne!(printable("a\nb"), printable("a\\nb"));
        assert_eq!(printable("C:\\x\\u{1b}"), "C:\\\\x\\\\u{1b}");
        // A whole message keeps the escapes of the texts it quotes.
        let message = format!("benchmark `{}` failed", quoted("a\\nb\n"));
        assert_eq!(one_line(&message), "benchmark `a\\\\nb\\n` failed");
    }
}
