//! Error messages as exactly one line, for the CLI's and the editor's single `error: ...` line.

/// An error message as exactly one line: control characters (a newline in a node or clip name
/// from the file, say) are escaped.
#[must_use]
pub fn one_line(message: &str) -> String {
    message.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}
