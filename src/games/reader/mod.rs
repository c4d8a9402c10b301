//! Reader mode's shared words (SPEC section 10): what every game's description for a
//! screen reader or a braille display has in common.
//!
//! A screen reader reads words well and symbols badly: a board of `#` and `+`, a grid
//! of box-drawing characters or a colour escape is spelled out one character at a
//! time. So a game in reader mode replaces its drawing by sentences, written by the
//! game itself next to its rendering ([`boxes`] for Sokoban and Star Pusher,
//! `twenty48::describe`, `wumpus::describe`), and keeps every message and fixed
//! string of its section. This file holds what they share: lists wrapped within
//! [`WIDTH`] columns, and [`problem`], the check that a text is fit for a reader,
//! which the tests of every game (and of the screens above them) run on what they say.

pub mod boxes;

/// The widest line a description writes: a braille display or a narrow terminal
/// window shows a line of 80 columns whole.
pub const WIDTH: usize = 80;

/// How a continued line of a list starts, so that a listener hears it belongs to the
/// line before.
const CONTINUED: &str = "  ";

/// Append `head` (such as `row 3: `) and `items` separated by `, `, then `\n`, broken
/// between items into lines of at most [`WIDTH`] columns; continued lines start with
/// two spaces. An item longer than a line gets a line of its own.
pub fn push_list<I>(out: &mut String, head: &str, items: I)
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    // Columns of the line being written; the text is ASCII or counted per character.
    let mut column = head.chars().count();
    out.push_str(head);
    let mut first = true;
    for item in items {
        let item = item.as_ref();
        let width = item.chars().count();
        if first {
            first = false;
        } else if column + 2 + width + 1 > WIDTH {
            // The comma stays at the end of the line, so the line reads as unfinished.
            out.push_str(",\n");
            out.push_str(CONTINUED);
            column = CONTINUED.len();
        } else {
            out.push_str(", ");
            column += 2;
        }
        out.push_str(item);
        column += width;
    }
    out.push('\n');
}

/// Append `sentence` and `\n`, broken between words into lines of at most [`WIDTH`]
/// columns: prose, so continued lines start at the margin. A word longer than a line
/// gets a line of its own.
pub fn push_line(out: &mut String, sentence: &str) {
    let mut column = 0;
    for word in sentence.split(' ') {
        let width = word.chars().count();
        if column > 0 && column + 1 + width > WIDTH {
            out.push('\n');
            column = 0;
        } else if column > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += width;
    }
    out.push('\n');
}

/// `row R, column C` for a 0-based (row, column), 1-based as people count: plain
/// numbers, which every screen reader speaks the same way.
pub fn at(row: usize, column: usize) -> String {
    format!("row {}, column {}", row + 1, column + 1)
}

/// What makes a text unfit for a screen reader (SPEC section 10), found by [`problem`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// A box-drawing character (U+2500 to U+257F), spelled out one by one.
    #[error("line {line}: box-drawing character U+{code:04X}")]
    BoxDrawing {
        /// 1-based line of the text.
        line: usize,
        /// The character's code point.
        code: u32,
    },
    /// ESC or another C0 control than `\n`: colour, cursor movement, clear screen.
    #[error("line {line}: control character U+{code:04X}")]
    Control {
        /// 1-based line of the text.
        line: usize,
        /// The character's code point.
        code: u32,
    },
    /// A line of symbols only (`#####`, `+---+`, `|  |`): read a symbol at a time.
    #[error("line {line}: only symbols: {text:?}")]
    Symbols {
        /// 1-based line of the text.
        line: usize,
        /// The line.
        text: String,
    },
}

/// The first thing in `text` a screen reader would spell out symbol by symbol, or
/// `None` when it reads as words: no box drawing, no ESC or C0 control but `\n`, no
/// line of only symbols (a line with no letter or digit that is not blank). Line
/// widths are not checked here: a message echoing a long word the player typed may
/// pass [`WIDTH`]; descriptions keep within it ([`push_list`]).
pub fn problem(text: &str) -> Option<Problem> {
    for (index, line) in text.split('\n').enumerate() {
        let number = index + 1;
        for character in line.chars() {
            let code = u32::from(character);
            if (0x2500..=0x257F).contains(&code) {
                return Some(Problem::BoxDrawing { line: number, code });
            }
            if code < 0x20 || code == 0x7F {
                return Some(Problem::Control { line: number, code });
            }
        }
        let blank = line.trim().is_empty();
        if !blank && !line.chars().any(char::is_alphanumeric) {
            return Some(Problem::Symbols {
                line: number,
                text: line.to_string(),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_break_between_items_within_the_width() {
        let mut out = String::new();
        push_list(&mut out, "row 1: ", ["wall", "2 floor", "box"]);
        assert_eq!(out, "row 1: wall, 2 floor, box\n");
        let mut out = String::new();
        let items: Vec<String> = (0..30).map(|i| format!("item {i}")).collect();
        push_list(&mut out, "row 12: ", &items);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() > 1, "{out}");
        assert!(
            lines.iter().all(|line| line.chars().count() <= WIDTH),
            "{out}"
        );
        assert!(lines[0].starts_with("row 12: item 0, item 1, "), "{out}");
        assert!(lines[0].ends_with(','), "{out}");
        assert!(lines[1].starts_with("  item "), "{out}");
        // Nothing lost or doubled: the items read back in order.
        let joined = out.replace(",\n  ", ", ");
        assert_eq!(joined, format!("row 12: {}\n", items.join(", ")));
    }

    #[test]
    fn sentences_break_between_words_within_the_width() {
        let mut out = String::new();
        push_line(&mut out, "You walk 2 steps right.");
        assert_eq!(out, "You walk 2 steps right.\n");
        let sentence = "You take back a push right: the box is back at row 256, column 256, \
                        on a goal, you at row 256, column 255.";
        let mut out = String::new();
        push_line(&mut out, sentence);
        assert_eq!(
            out,
            "You take back a push right: the box is back at row 256, column 256, on a goal,\n\
             you at row 256, column 255.\n"
        );
        assert!(out.lines().all(|line| line.chars().count() <= WIDTH));
        assert_eq!(out.replace('\n', " ").trim_end(), sentence);
    }

    #[test]
    fn problems_are_found_and_words_pass() {
        assert_eq!(problem("row 1: wall, box\nScore: 4\nEnter command: "), None);
        assert_eq!(problem("\n\n"), None);
        assert_eq!(
            problem("ok\n│   2 │"),
            Some(Problem::BoxDrawing {
                line: 2,
                code: 0x2502
            })
        );
        assert_eq!(
            problem("\u{1b}[2J"),
            Some(Problem::Control {
                line: 1,
                code: 0x1b
            })
        );
        assert!(matches!(
            problem("a\r\n"),
            Some(Problem::Control { code: 0x0d, .. })
        ));
        for drawn in ["#######", "+-----+", "|     |", "#..$ .#", " -- "] {
            assert!(
                matches!(problem(drawn), Some(Problem::Symbols { .. })),
                "{drawn}"
            );
        }
    }
}
