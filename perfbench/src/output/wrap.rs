//! Text wrapped to the terminal's width: at spaces, or between the parts
//! of a comma list, continuation lines indented, colour escapes taking no
//! width. The table, its default block and its header lines share it.

/// `text` wrapped at spaces to `width` columns, continuation lines
/// indented by four.
pub(super) fn wrap_words(text: &str, width: usize) -> String {
    let body = text.trim_start_matches(' ');
    let mut words = body.split(' ');
    let first = format!(
        "{}{}",
        &text[..text.len() - body.len()],
        words.next().unwrap_or("")
    );
    fill(std::iter::once(first.as_str()).chain(words), width, 4)
}

/// `text`'s comma-separated parts after `prefix`, wrapped to `width`
/// columns with continuation lines indented.
pub(super) fn wrap(prefix: &str, text: &str, width: usize) -> String {
    let parts: Vec<&str> = text.split(", ").collect();
    comma_list(prefix, &parts, width, 2)
}

/// `prefix`, then `parts` separated by commas, wrapped to `width` columns
/// between parts, continuation lines indented by `indent`.
pub(super) fn comma_list<S: AsRef<str>>(
    prefix: &str,
    parts: &[S],
    width: usize,
    indent: usize,
) -> String {
    let parts = comma_pieces(parts);
    let pieces = std::iter::once(prefix.trim_end()).chain(parts.iter().map(String::as_str));
    fill(pieces, width, indent)
}

/// A list's pieces to [`fill`]: each part but the last ending with a comma.
pub(super) fn comma_pieces<S: AsRef<str>>(parts: &[S]) -> Vec<String> {
    let last = parts.len().saturating_sub(1);
    let piece = |(i, p): (usize, &S)| match i < last {
        true => format!("{},", p.as_ref()),
        false => p.as_ref().to_string(),
    };
    parts.iter().enumerate().map(piece).collect()
}

/// `pieces` joined by spaces and wrapped to `width` columns: a piece that
/// would cross the width starts a line indented by `indent`, unless the
/// line holds nothing but that indent yet. The first piece may carry its
/// own indentation; colour escapes take no width.
pub(super) fn fill<'a>(
    pieces: impl IntoIterator<Item = &'a str>,
    width: usize,
    indent: usize,
) -> String {
    let mut out = String::new();
    let mut line = 0;
    for (i, piece) in pieces.into_iter().enumerate() {
        let len = visible_width(piece);
        if i > 0 && line > indent && line + 1 + len > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            line = indent;
        } else if i > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(piece);
        line += len;
    }
    out
}

/// The columns `s` takes on a terminal: its characters less colour escapes.
fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut escape = false;
    for c in s.chars() {
        match c {
            '\x1b' => escape = true,
            'm' if escape => escape = false,
            _ if escape => {}
            _ => n += 1,
        }
    }
    n
}
