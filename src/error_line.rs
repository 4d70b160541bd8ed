//! Error messages as exactly one line, for the CLI's and the editor's single `error: ...` line.

/// The longest run of characters without a space that a message shows whole (a name, a path).
const LONGEST_WORD: usize = 160;
/// The longest message shown whole.
const LONGEST_LINE: usize = 2000;

/// An error message as exactly one line of readable length: control characters (a newline in a
/// node or clip name from the file, say) are escaped, a word (a name, a number) longer than
/// [`LONGEST_WORD`] characters keeps its start and end around a count of what was cut, and a
/// line still longer than [`LONGEST_LINE`] likewise.
#[must_use]
pub fn one_line(message: &str) -> String {
    let escaped: String =
        message.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect();
    let words: Vec<String> = escaped.split(' ').map(|w| shorten(w, LONGEST_WORD)).collect();
    shorten(&words.join(" "), LONGEST_LINE)
}

/// `text` if it has at most `most` characters, else its first and last characters around
/// "…(N characters)…".
fn shorten(text: &str, most: usize) -> String {
    let count = text.chars().count();
    if count <= most {
        return text.to_owned();
    }
    let (head, tail) = (most * 2 / 3, most / 6);
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(count - tail).collect();
    format!("{start}…({} characters)…{end}", count - head - tail)
}
