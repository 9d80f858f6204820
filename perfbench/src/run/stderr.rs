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

/// `text` as a GitHub Actions workflow command's message: `%`, CR and LF
/// escaped, which would otherwise end or garble the command.
pub fn workflow_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// `text` as a workflow command's property (`title=…`): as
/// [`workflow_data`], and `:` and `,` too, which end a property.
pub fn workflow_property(text: &str) -> String {
    workflow_data(text).replace(':', "%3A").replace(',', "%2C")
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

    #[test]
    fn workflow_commands_escape_what_would_end_them() {
        assert_eq!(workflow_data("+5% [a:b, c]\r\nx"), "+5%25 [a:b, c]%0D%0Ax");
        assert_eq!(
            workflow_property("perfbench: a,b 100%\n"),
            "perfbench%3A a%2Cb 100%25%0A"
        );
    }
}
