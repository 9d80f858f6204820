//! How the run writes its messages on stderr: `perfbench: error: …`,
//! `warning:`, `note:`, each one line. A message may quote what came from
//! below the run layer whole and raw (a store error quoting a stored
//! schema, an environment differing in a stored CPU model, an event
//! spec), so the whole line goes through [`one_line`] here, where it is
//! printed, rather than trusting each layer that wrote a part of it.

use crate::output::format::one_line;

/// `perfbench: {message}` as printed: escaped and cut ([`one_line`]).
pub fn line(message: &str) -> String {
    format!("perfbench: {}", one_line(message))
}

/// Prints `perfbench: {message}` ([`line`]) on stderr.
pub fn say(message: &str) {
    eprintln!("{}", line(message));
}

/// Prints `perfbench: error: {message}` on stderr.
pub fn error(message: &str) {
    say(&format!("error: {message}"));
}

/// Prints `perfbench: warning: {message}` on stderr.
pub fn warning(message: &str) {
    say(&format!("warning: {message}"));
}

/// Prints `perfbench: note: {message}` on stderr.
pub fn note(message: &str) {
    say(&format!("note: {message}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_one_escaped_line_whatever_it_quotes() {
        let stored = "has schema `\x1b]52;c;ZXZpbA==\x07\nx\u{202e}`, this perfbench reads `v1`";
        assert_eq!(
            line(&format!("error: {stored}")),
            "perfbench: error: has schema `\\u{1b}]52;c;ZXZpbA==\\u{7}\\nx\\u{202e}`, this \
             perfbench reads `v1`"
        );
        let long = line(&format!("error: {}", "x".repeat(5_000)));
        assert!(long.ends_with("… (4,007 more characters)"), "{long}");
        assert_eq!(long.chars().count(), "perfbench: ".len() + 1_000 + 25);
    }
}
