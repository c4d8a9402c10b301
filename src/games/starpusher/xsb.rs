//! Reading level collections in the standard Sokoban text format ("XSB").
//!
//! Real files were written by many programs over thirty years, so the reader is
//! forgiving about everything that does not change a board and strict about everything
//! that does:
//!
//! - `;` starts a comment that runs to the end of the line; a line holding only a
//!   comment ends a board, like a blank line.
//! - A *board row* is a line that, once trailing white space (and a CR) is gone, holds
//!   only board characters (`# @ + $ * .`, space, `-` or `_` for floor, digits and `|`
//!   for run-length encoding) and at least one `#`. Consecutive rows form a level.
//! - A line that starts and ends with `#` but holds other characters is a broken board
//!   row: its level is reported with the unknown character and skipped.
//! - Every other non-blank line is *metadata*: `Title: ...`, `Author: ...`, other
//!   `Key: value` pairs (ignored), `Comment:` ... `Comment-End:` blocks (ignored), or a
//!   plain line such as `'Duh!'`, which is taken as a title.
//! - Metadata right under a board (no blank line between) belongs to that board, as in
//!   the sokobano.de format; metadata after a blank or comment line belongs to the next
//!   board, as in Microban. Of several metadata groups before a board, the last wins.
//! - Short rows are padded with floor; leading spaces are floor outside the walls and
//!   keep their columns.
//!
//! A level that fails its checks is returned as a [`BadLevel`] with its number in the
//! file and the line it starts on, and the rest of the collection still loads.

use std::sync::Arc;

use crate::games::world::{Cell, Level, LevelError, ShownChar, WinRule, MAX_SIDE};

/// One level of a collection, ready to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectionLevel {
    /// The level's title from its metadata, shown when the level starts.
    pub title: Option<String>,
    /// The level's author from an `Author:` line, shown with the title.
    pub author: Option<String>,
    /// The board, shared by everyone who plays it.
    pub level: Arc<Level>,
    /// The 1-based line of the file where the board starts, for messages.
    pub line: usize,
}

/// The playable levels of one collection file, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collection {
    /// Every level that passed its checks.
    pub levels: Vec<CollectionLevel>,
}

/// Why one level of a collection cannot be played. Messages name the line and column
/// and show at most the one offending character ([`ShownChar`]), never the file's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum XsbError {
    /// A board row holds a character that is not part of the format.
    #[error(
        "unknown character {} on line {line}, column {column}: \
         use # @ + $ * . and space, - or _ for floor",
        ShownChar(*found)
    )]
    UnknownCharacter {
        /// 1-based line in the file.
        line: usize,
        /// 1-based column in the line.
        column: usize,
        /// The offending character.
        found: char,
    },
    /// A run-length count with nothing after it to repeat.
    #[error(
        "the count on line {line}, column {column} repeats nothing: \
         put a board character after it"
    )]
    DanglingCount {
        /// 1-based line in the file.
        line: usize,
        /// 1-based column of the count's first digit.
        column: usize,
    },
    /// A row of a `|`-joined line holds no wall. Every board row needs one (a plain line
    /// without `#` is not a board row), so a board is read the same however its rows
    /// are written, and drawn back as rows the reader takes.
    #[error("row {row} of line {line} has no wall: every board row needs a #")]
    RowWithoutWall {
        /// 1-based line in the file.
        line: usize,
        /// 1-based row within the line.
        row: usize,
    },
    /// The board is larger than [`MAX_SIDE`] in some direction.
    #[error("the board is larger than {MAX_SIDE} rows or columns (line {line}): split it")]
    TooBig {
        /// 1-based line in the file where the limit was passed.
        line: usize,
    },
    /// The grid reads but is not a playable level.
    #[error(transparent)]
    Level(#[from] LevelError),
}

/// A level that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLevel {
    /// The 1-based number of the level among all levels of the file, bad ones included.
    pub number: usize,
    /// The 1-based line its board starts on.
    pub line: usize,
    /// What is wrong with it.
    pub error: XsbError,
}

/// What reading a collection gave: the good levels and the skipped ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    /// The playable levels.
    pub collection: Collection,
    /// The levels that failed their checks, in file order.
    pub skipped: Vec<BadLevel>,
}

/// Read a collection, keeping every good level and reporting every bad one.
pub fn parse_collection(text: &str) -> Reading {
    let mut reader = Reader::default();
    for (index, raw) in text.split('\n').enumerate() {
        reader.line(index + 1, raw);
    }
    reader.finish()
}

/// What one line of a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind<'a> {
    /// Empty or white space only.
    Blank,
    /// Only a comment, or inside a `Comment:` block.
    Comment,
    /// A board row (possibly several, joined by `|`), comment and trailing space gone.
    Row(&'a str),
    /// Metadata, trimmed.
    Meta(&'a str),
}

/// The metadata that belongs to one level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Meta {
    title: Option<String>,
    author: Option<String>,
}

/// The most characters of a title or an author shown to players.
pub const MAX_META: usize = 80;

impl Meta {
    fn absorb(&mut self, line: &str) {
        match key_value(line) {
            Some((key, value)) if key.eq_ignore_ascii_case("title") => {
                if self.title.is_none() {
                    self.title = shown(value);
                }
            }
            Some((key, value)) if key.eq_ignore_ascii_case("author") => {
                if self.author.is_none() {
                    self.author = shown(value);
                }
            }
            Some(_) => {}
            None => {
                if self.title.is_none() {
                    self.title = shown(unquote(line));
                }
            }
        }
    }
}

/// A title or author as players see it: a file's text goes to every player of the
/// level, so control characters (escape sequences that could rewrite a terminal) are
/// dropped and the length is capped at [`MAX_META`] characters. `None` when nothing
/// is left.
fn shown(value: &str) -> Option<String> {
    let text: String = value
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_META)
        .collect();
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Where the next metadata line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MetaTarget {
    /// The level whose board just ended (index into the block list).
    Previous,
    /// The level whose board comes next.
    Next,
}

/// A board block as read: its rows with their line numbers, and its metadata.
#[derive(Debug, Default)]
struct Block {
    line: usize,
    rows: Vec<(usize, String)>,
    meta: Meta,
}

/// The state of a pass over the lines of a file.
#[derive(Debug, Default)]
struct Reader {
    blocks: Vec<Block>,
    current: Option<Block>,
    pending: Meta,
    /// Where metadata goes; `None` means the next metadata line starts a new group.
    target: Option<MetaTarget>,
    in_comment_block: bool,
}

impl Reader {
    fn line(&mut self, number: usize, raw: &str) {
        match self.classify(raw) {
            Kind::Row(row) => {
                let block = self.current.get_or_insert_with(|| Block {
                    line: number,
                    meta: std::mem::take(&mut self.pending),
                    ..Block::default()
                });
                // Every line holds at least one row, so the lines past the first
                // MAX_SIDE + 1 cannot change the outcome (the board is too big by then);
                // not keeping them keeps a huge block from being copied whole.
                if block.rows.len() <= MAX_SIDE {
                    block.rows.push((number, row.to_string()));
                }
                self.target = None;
            }
            Kind::Blank | Kind::Comment => {
                self.end_block();
                self.target = None;
            }
            Kind::Meta(text) => {
                let ended_block = self.end_block();
                if ended_block {
                    self.target = Some(MetaTarget::Previous);
                }
                let target = *self.target.get_or_insert_with(|| {
                    self.pending = Meta::default();
                    MetaTarget::Next
                });
                match (target, self.blocks.last_mut()) {
                    (MetaTarget::Previous, Some(block)) => block.meta.absorb(text),
                    _ => self.pending.absorb(text),
                }
            }
        }
    }

    /// Close the board being read, if any; returns whether there was one.
    fn end_block(&mut self) -> bool {
        match self.current.take() {
            Some(block) => {
                self.blocks.push(block);
                true
            }
            None => false,
        }
    }

    fn classify<'a>(&mut self, raw: &'a str) -> Kind<'a> {
        let line = raw.trim_end();
        if self.in_comment_block {
            let key = line.trim().trim_end_matches(':');
            if key.eq_ignore_ascii_case("comment-end") || key.eq_ignore_ascii_case("comment_end") {
                self.in_comment_block = false;
            }
            return Kind::Comment;
        }
        let (content, had_comment) = match line.find(';') {
            Some(at) => (line[..at].trim_end(), true),
            None => (line, false),
        };
        if content.trim().is_empty() {
            return if had_comment {
                Kind::Comment
            } else {
                Kind::Blank
            };
        }
        if is_board_row(content) || looks_like_broken_row(content) {
            return Kind::Row(content);
        }
        let text = content.trim();
        if let Some((key, value)) = key_value(text) {
            if key.eq_ignore_ascii_case("comment") && value.is_empty() {
                self.in_comment_block = true;
                return Kind::Comment;
            }
        }
        Kind::Meta(text)
    }

    fn finish(mut self) -> Reading {
        self.end_block();
        let mut reading = Reading::default();
        for (index, block) in self.blocks.into_iter().enumerate() {
            let number = index + 1;
            match build(&block) {
                Ok(level) => reading.collection.levels.push(CollectionLevel {
                    title: block.meta.title,
                    author: block.meta.author,
                    level: Arc::new(level),
                    line: block.line,
                }),
                Err(error) => reading.skipped.push(BadLevel {
                    number,
                    line: block.line,
                    error,
                }),
            }
        }
        reading
    }
}

/// Whether a character may appear in a board row (run-length digits and `|` included).
fn is_board_char(c: char) -> bool {
    matches!(c, '#' | '@' | '+' | '$' | '*' | '.' | ' ' | '-' | '_' | '|') || c.is_ascii_digit()
}

fn is_board_row(line: &str) -> bool {
    line.contains('#') && line.chars().all(is_board_char)
}

/// A line that is walled on both ends but holds something else is a board row with a
/// mistake in it, not a title.
fn looks_like_broken_row(line: &str) -> bool {
    let line = line.trim();
    line.len() >= 2 && line.starts_with('#') && line.ends_with('#')
}

/// `Key: value`, where the key is a short word (letters, `-`, `_`, spaces).
fn key_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim();
    let is_key = !key.is_empty()
        && key.len() <= 24
        && key.starts_with(|c: char| c.is_ascii_alphabetic())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ' '));
    is_key.then(|| (key, value.trim()))
}

/// `'Duh!'` is shown as `Duh!`.
fn unquote(line: &str) -> &str {
    for quote in ['\'', '"'] {
        if let Some(inner) = line
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            if !inner.trim().is_empty() {
                return inner.trim();
            }
        }
    }
    line
}

fn cell_of(c: char) -> Option<Cell> {
    Some(match c {
        '#' => Cell::Wall,
        '@' => Cell::Player,
        '+' => Cell::PlayerOnGoal,
        '$' => Cell::Box,
        '*' => Cell::BoxOnGoal,
        '.' => Cell::Goal,
        ' ' | '-' | '_' => Cell::Floor,
        _ => return None,
    })
}

/// Turn a block's text rows into a checked level.
fn build(block: &Block) -> Result<Level, XsbError> {
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    for (line, text) in &block.rows {
        expand(*line, text, &mut rows)?;
    }
    // SPEC section 4: at least one goal, at least as many boxes as goals, and a level
    // is solved when every goal holds a box.
    Ok(Level::from_rows(&rows, WinRule::EveryGoal)?)
}

/// Expand one line (run lengths, `|` row breaks) onto the end of `rows`.
fn expand(line: usize, text: &str, rows: &mut Vec<Vec<Cell>>) -> Result<(), XsbError> {
    let too_big = XsbError::TooBig { line };
    let mut row = Vec::new();
    let mut row_in_line = 1;
    let walled = |row: &[Cell], row_in_line: usize| {
        if row.contains(&Cell::Wall) {
            Ok(())
        } else {
            Err(XsbError::RowWithoutWall {
                line,
                row: row_in_line,
            })
        }
    };
    let mut count: Option<(usize, usize)> = None; // (value, column of first digit)
    for (offset, c) in text.chars().enumerate() {
        let column = offset + 1;
        if let Some(digit) = c.to_digit(10) {
            let (value, first) = count.unwrap_or((0, column));
            let value = value
                .saturating_mul(10)
                .saturating_add(digit as usize)
                .min(MAX_SIDE + 1);
            count = Some((value, first));
            continue;
        }
        if c == '|' {
            if let Some((_, column)) = count {
                return Err(XsbError::DanglingCount { line, column });
            }
            walled(&row, row_in_line)?;
            rows.push(std::mem::take(&mut row));
            row_in_line += 1;
            continue;
        }
        let cell = cell_of(c).ok_or(XsbError::UnknownCharacter {
            line,
            column,
            found: c,
        })?;
        let times = count.take().map_or(1, |(value, _)| value);
        if row.len() + times > MAX_SIDE {
            return Err(too_big);
        }
        row.extend(std::iter::repeat_n(cell, times));
    }
    if let Some((_, column)) = count {
        return Err(XsbError::DanglingCount { line, column });
    }
    walled(&row, row_in_line)?;
    rows.push(row);
    if rows.len() > MAX_SIDE {
        return Err(too_big);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::starpusher::GLYPHS as XSB;
    use crate::games::world::World;

    fn board(level: &CollectionLevel) -> String {
        let mut out = String::new();
        World::new(Arc::clone(&level.level)).render_into(&XSB, &mut out);
        out
    }

    fn good(text: &str) -> Collection {
        let reading = parse_collection(text);
        assert_eq!(reading.skipped, Vec::new(), "{text:?}");
        reading.collection
    }

    fn titles(collection: &Collection) -> Vec<Option<&str>> {
        collection
            .levels
            .iter()
            .map(|l| l.title.as_deref())
            .collect()
    }

    #[test]
    fn comments_blank_lines_and_line_numbers() {
        let text = "; a collection\n; 1\n\n#####\n#@$.#\n#####\n\n; 2\n\n#####\n#.$@#\n#####\n";
        let collection = good(text);
        assert_eq!(collection.levels.len(), 2);
        assert_eq!(collection.levels[0].line, 4);
        assert_eq!(collection.levels[1].line, 10);
        assert_eq!(board(&collection.levels[1]), "#####\n#.$@#\n#####\n");
        assert_eq!(titles(&collection), [None, None]);
    }

    #[test]
    fn a_comment_line_ends_a_board() {
        let collection = good("#####\n#@$.#\n#####\n;\n#####\n#.$@#\n#####\n");
        assert_eq!(collection.levels.len(), 2);
    }

    #[test]
    fn text_after_a_semicolon_is_a_comment() {
        let collection = good("#####   ; top\n#@$.#;x\n#####\n");
        assert_eq!(board(&collection.levels[0]), "#####\n#@$.#\n#####\n");
    }

    #[test]
    fn plain_title_line_before_a_board_is_a_title_not_a_row() {
        // Microban level 44.
        let text = "; 43\n\n#####\n#@$.#\n#####\n\n; 44\n'Duh!'\n\n#####\n#@$.#\n#####\n";
        let collection = good(text);
        assert_eq!(titles(&collection), [None, Some("Duh!")]);
        assert_eq!(board(&collection.levels[1]), "#####\n#@$.#\n#####\n");
    }

    #[test]
    fn titles_reach_players_without_control_characters_and_capped() {
        let long = "x".repeat(200);
        let text = format!("Title: \u{1b}[2JEvil\u{7}\nAuthor: {long}\n#####\n#@$.#\n#####\n\n\u{1b}\n#####\n#@$.#\n#####\n");
        let collection = good(&text);
        assert_eq!(titles(&collection), [Some("[2JEvil"), None]);
        assert_eq!(
            collection.levels[0].author.as_deref(),
            Some("x".repeat(MAX_META).as_str())
        );
    }

    #[test]
    fn title_and_author_keys_after_the_board() {
        let text = "#####\n#@$.#\n#####\nTitle: First\nAuthor: Ann\n\n#####\n#.$@#\n#####\nTitle: Second\n";
        let collection = good(text);
        assert_eq!(titles(&collection), [Some("First"), Some("Second")]);
        assert_eq!(collection.levels[0].author.as_deref(), Some("Ann"));
        assert_eq!(collection.levels[1].author, None);
    }

    #[test]
    fn metadata_between_boards_without_blank_lines_separates_them() {
        let collection = good("#####\n#@$.#\n#####\nTitle: A\n#####\n#.$@#\n#####\n");
        assert_eq!(collection.levels.len(), 2);
        assert_eq!(titles(&collection), [Some("A"), None]);
    }

    #[test]
    fn title_before_the_board_and_the_last_group_wins() {
        let text = "Title: The whole set\nAuthor: Someone\n\nTitle: One\n\n#####\n#@$.#\n#####\n";
        let collection = good(text);
        assert_eq!(titles(&collection), [Some("One")]);
        assert_eq!(collection.levels[0].author, None);
    }

    #[test]
    fn other_keys_and_comment_blocks_are_ignored() {
        let text = "Comment:\n#### not a board ####\n#@$.#\nComment-End:\nDate: 2001\n\n#####\n#@$.#\n#####\n";
        let collection = good(text);
        assert_eq!(collection.levels.len(), 1);
        assert_eq!(collection.levels[0].line, 7);
        assert_eq!(titles(&collection), [None]);
    }

    #[test]
    fn dash_and_underscore_are_floor() {
        let collection = good("#######\n#@-$_.#\n#######\n");
        assert_eq!(board(&collection.levels[0]), "#######\n#@ $ .#\n#######\n");
    }

    #[test]
    fn run_length_rows_are_expanded() {
        let collection = good("7#|#@-$2-.#|7#\n");
        assert_eq!(
            board(&collection.levels[0]),
            "####### \n#@ $  .#\n####### \n"
        );
        let collection = good("5#\n#@$.#\n5#\n");
        assert_eq!(board(&collection.levels[0]), "#####\n#@$.#\n#####\n");
    }

    #[test]
    fn crlf_and_trailing_spaces_are_ignored() {
        let collection = good("#####  \r\n#@$.#\t\r\n#####\r\n\r\n#####\r\n#.$@#\r\n#####\r\n");
        assert_eq!(collection.levels.len(), 2);
        assert_eq!(board(&collection.levels[0]), "#####\n#@$.#\n#####\n");
    }

    #[test]
    fn ragged_rows_are_padded_and_leading_spaces_keep_columns() {
        let collection = good("  ###\n###@###\n#.$  #\n#####\n");
        assert_eq!(
            board(&collection.levels[0]),
            "  ###  \n###@###\n#.$  # \n#####  \n"
        );
    }

    #[test]
    fn a_row_of_floor_or_digits_is_not_a_board_row() {
        let reading = parse_collection("1\n---\n#####\n#@$.#\n#####\n");
        assert_eq!(reading.collection.levels.len(), 1);
        assert_eq!(reading.collection.levels[0].line, 3);
        assert_eq!(reading.collection.levels[0].title.as_deref(), Some("1"));
    }

    fn errors(text: &str) -> Vec<(usize, usize, XsbError)> {
        parse_collection(text)
            .skipped
            .into_iter()
            .map(|bad| (bad.number, bad.line, bad.error))
            .collect()
    }

    #[test]
    fn each_check_skips_its_level_and_keeps_the_rest() {
        let text = "\
; ok
#####
#@$.#
#####

; no player
#####
# $.#
#####

; two players
#####
#@$.#
#@  #
#####

; no goal
#####
#@$ #
#####

; fewer boxes
######
#@$..#
######

; unknown character
#####
#@x.#
#####

; ok again
#####
#.$@#
#####
";
        let reading = parse_collection(text);
        assert_eq!(reading.collection.levels.len(), 2);
        assert_eq!(reading.collection.levels[1].line, 33);
        assert_eq!(
            errors(text),
            [
                (2, 7, XsbError::Level(LevelError::NoPlayer)),
                (
                    3,
                    12,
                    XsbError::Level(LevelError::TwoPlayers {
                        first_row: 2,
                        second_row: 3
                    })
                ),
                (4, 18, XsbError::Level(LevelError::NoGoal)),
                (
                    5,
                    23,
                    XsbError::Level(LevelError::FewerBoxes { boxes: 1, goals: 2 })
                ),
                (
                    6,
                    28,
                    XsbError::UnknownCharacter {
                        line: 29,
                        column: 3,
                        found: 'x'
                    }
                ),
            ]
        );
    }

    #[test]
    fn run_length_errors() {
        assert_eq!(
            errors("#@$.3\n"),
            [(1, 1, XsbError::DanglingCount { line: 1, column: 5 })]
        );
        assert_eq!(
            errors("99999999999999999999#|#@$.#\n"),
            [(1, 1, XsbError::TooBig { line: 1 })]
        );
    }

    #[test]
    fn every_row_of_a_joined_line_needs_a_wall() {
        // Found by the fuzzer: such rows were read, but drawn back as lines the
        // reader does not take for board rows.
        assert_eq!(
            errors("$|@#.\n"),
            [(1, 1, XsbError::RowWithoutWall { line: 1, row: 1 })]
        );
        assert_eq!(
            errors("#@$.#|-|#\n"),
            [(1, 1, XsbError::RowWithoutWall { line: 1, row: 2 })]
        );
        assert_eq!(good("#@$.#|#\n").levels.len(), 1);
    }

    #[test]
    fn the_largest_board_loads_and_one_row_or_column_more_is_refused() {
        let side = |rows: usize, columns: usize| {
            let mut text = format!("{}|#@$.{}", "#".repeat(columns), "#".repeat(columns - 4));
            text.push_str(&format!("\n{}", "#".repeat(columns)).repeat(rows - 2));
            text.push('\n');
            text
        };
        let reading = parse_collection(&side(MAX_SIDE, MAX_SIDE));
        assert_eq!(reading.skipped, Vec::new());
        let level = &reading.collection.levels[0].level;
        assert_eq!((level.width(), level.height()), (MAX_SIDE, MAX_SIDE));
        assert_eq!(
            errors(&side(MAX_SIDE + 1, MAX_SIDE)),
            [(1, 1, XsbError::TooBig { line: MAX_SIDE })]
        );
        assert_eq!(
            errors(&side(MAX_SIDE, MAX_SIDE + 1)),
            [(1, 1, XsbError::TooBig { line: 1 })]
        );
        // A block of 100,000 lines is refused at the line that passes the limit.
        let tall = format!("#@$.#\n{}", "#\n".repeat(100_000));
        assert_eq!(
            errors(&tall),
            [(1, 1, XsbError::TooBig { line: MAX_SIDE + 1 })]
        );
    }

    #[test]
    fn microban_titles_are_titles() {
        let Some(text) = crate::games::testing::shared_levels("microban_155.xsb") else {
            return;
        };
        let collection = good(&text);
        assert_eq!(collection.levels[43].title.as_deref(), Some("Duh!"));
        assert_eq!(board(&collection.levels[43]), "#####\n#@$.#\n#####\n");
        assert_eq!(collection.levels[100].title.as_deref(), Some("Lockdown"));
        assert_eq!(collection.levels[154].title.as_deref(), Some("The Dungeon"));
        assert_eq!(
            collection
                .levels
                .iter()
                .filter(|l| l.title.is_some())
                .count(),
            11
        );
        assert_eq!(collection.levels[0].line, 11);
    }
}
