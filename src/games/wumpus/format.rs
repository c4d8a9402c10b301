//! The world file of SPEC section 6: read it into a [`Cave`], print a cave back.
//!
//! One keyword per line followed by integers, any white space between them, the lines
//! in the order `dim`, `player`, `wumpus`, `gold`, `pit`, `exit`, `blocked`:
//!
//! ```text
//! dim     4 4
//! player  0 0 1 0 1
//! wumpus  3 2
//! gold    3 3
//! pit     2 0
//! pit     1 2
//! exit    0 0
//! blocked 1 1
//! ```
//!
//! Where the spec is silent: blank lines are skipped, white space around a line is
//! ignored, keywords are read in any case, and integers may carry a sign (a negative
//! position is reported as outside the cave). Printing uses one space between fields
//! and the same order, leaving out a dead wumpus and grabbed gold; pits and blocked
//! rooms keep the order they were read in, so an untouched world prints as it was
//! written.
//!
//! Errors name the line and the column (counted in characters, a tab as one) and show
//! at most one offending character, never a word of the file: a world file can be a
//! symlink to a secret, and its problems go to the log and to `check-levels`.

use std::fmt;

use super::cave::{Cave, CaveBuilder, Dim, Orientation, PlaceError, Player, Pos, Thing, MAX_SIDE};
use crate::games::world::ShownChar;

/// A line's keyword. The declaration order is the order the lines must come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Keyword {
    /// `dim W H`: the cave's size.
    Dim,
    /// `player X Y O G A`: the explorer.
    Player,
    /// `wumpus X Y`: the living wumpus.
    Wumpus,
    /// `gold X Y`: the gold, not yet grabbed.
    Gold,
    /// `pit X Y`: one pit.
    Pit,
    /// `exit X Y`: the way out.
    Exit,
    /// `blocked X Y`: one room no one can enter.
    Blocked,
}

impl Keyword {
    const ALL: [Keyword; 7] = [
        Keyword::Dim,
        Keyword::Player,
        Keyword::Wumpus,
        Keyword::Gold,
        Keyword::Pit,
        Keyword::Exit,
        Keyword::Blocked,
    ];

    /// The word as written in a file.
    pub fn word(self) -> &'static str {
        match self {
            Keyword::Dim => "dim",
            Keyword::Player => "player",
            Keyword::Wumpus => "wumpus",
            Keyword::Gold => "gold",
            Keyword::Pit => "pit",
            Keyword::Exit => "exit",
            Keyword::Blocked => "blocked",
        }
    }

    fn from_word(word: &str) -> Option<Keyword> {
        Keyword::ALL
            .into_iter()
            .find(|keyword| keyword.word().eq_ignore_ascii_case(word))
    }

    /// The names of the integers the keyword takes, for messages; their count is the
    /// number it takes.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Keyword::Dim => &["W", "H"],
            Keyword::Player => &["x", "y", "o", "g", "a"],
            _ => &["x", "y"],
        }
    }

    /// Whether the keyword may appear on more than one line.
    fn repeats(self) -> bool {
        matches!(self, Keyword::Pit | Keyword::Blocked)
    }

    /// The keyword must be present.
    fn required(self) -> bool {
        matches!(self, Keyword::Dim | Keyword::Player | Keyword::Exit)
    }

    fn thing(self) -> Option<Thing> {
        match self {
            Keyword::Dim | Keyword::Player => None,
            Keyword::Wumpus => Some(Thing::Wumpus),
            Keyword::Gold => Some(Thing::Gold),
            Keyword::Pit => Some(Thing::Pit),
            Keyword::Exit => Some(Thing::Exit),
            Keyword::Blocked => Some(Thing::Blocked),
        }
    }
}

impl fmt::Display for Keyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The order the lines go in, for messages.
const ORDER: &str = "dim, player, wumpus, gold, pit, exit, blocked";

/// Why a world file cannot be loaded; the file is then not loaded at all. No reason
/// holds a word of the file: only positions, parsed numbers and at most one character.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Reason {
    /// A line starts with a word that is not a keyword.
    #[error("unknown keyword at column {column}: use one of {ORDER}")]
    UnknownKeyword {
        /// 1-based column where the word starts.
        column: usize,
    },
    /// A field holds something other than an optional sign and digits.
    #[error(
        "field {field} of `{keyword}` is not an integer: {} at column {column} is not a \
         digit; write whole numbers such as 0 or 12",
        ShownChar(*found)
    )]
    NotAnInteger {
        /// The line's keyword.
        keyword: Keyword,
        /// The field's name as the `takes N integers` message lists it (`W`, `x`, `o`).
        field: &'static str,
        /// 1-based column of the offending character.
        column: usize,
        /// The first character that cannot be part of the number.
        found: char,
    },
    /// A field of digits too large for any field (beyond `i64`).
    #[error(
        "field {field} of `{keyword}` at column {column} is too large: write whole \
         numbers such as 0 or 12"
    )]
    TooLarge {
        /// The line's keyword.
        keyword: Keyword,
        /// The field's name as the `takes N integers` message lists it (`W`, `x`, `o`).
        field: &'static str,
        /// 1-based column where the field starts.
        column: usize,
    },
    /// A keyword with too few or too many integers.
    #[error("`{keyword}` takes {} integers ({}), found {found}", keyword.fields().len(), keyword.fields().join(" "))]
    WrongCount {
        /// The line's keyword.
        keyword: Keyword,
        /// How many integers the line has.
        found: usize,
    },
    /// A keyword after one that must follow it.
    #[error("`{keyword}` cannot come after `{after}`: put the lines in the order {ORDER}")]
    OutOfOrder {
        /// The line's keyword.
        keyword: Keyword,
        /// The keyword of an earlier line that must come later.
        after: Keyword,
    },
    /// A second line of a keyword that may appear once.
    #[error("a second `{0}` line: a world has only one; remove one of them")]
    Duplicate(Keyword),
    /// A required keyword that never came.
    #[error("missing `{missing}` line: {}", missing_hint(*.missing))]
    Missing {
        /// The keyword that should have come by now.
        missing: Keyword,
    },
    /// A size that is zero or above 100.
    #[error("`dim {width} {height}` is not allowed: width and height must each be 1..={MAX_SIDE}")]
    BadDim {
        /// The width read.
        width: i64,
        /// The height read.
        height: i64,
    },
    /// A position that is not a room of the cave.
    #[error("position ({x}, {y}) is outside the {width} x {height} cave: x must be 0..={} and y 0..={}", width - 1, height - 1)]
    Outside {
        /// The x read.
        x: i64,
        /// The y read.
        y: i64,
        /// The cave's width.
        width: usize,
        /// The cave's height.
        height: usize,
    },
    /// Two things in one room, or a blocked room where the player stands.
    #[error("{0}")]
    SharedRoom(PlaceError),
    /// An orientation other than 0..=3.
    #[error("orientation {0} is not 0 (east), 1 (south), 2 (west) or 3 (north)")]
    Orientation(i64),
    /// A has-gold or has-arrow flag other than 0 or 1.
    #[error("the {flag} flag is {found}: write 0 (no) or 1 (yes)")]
    Flag {
        /// `gold` or `arrow`.
        flag: &'static str,
        /// The number read.
        found: i64,
    },
}

fn missing_hint(keyword: Keyword) -> &'static str {
    match keyword {
        Keyword::Dim => "a world file starts with `dim W H`",
        Keyword::Player => "`player X Y O G A` comes right after `dim`",
        _ => "every world has one `exit X Y`, after the pits",
    }
}

/// A bad world file: the 1-based line and what is wrong with it. Displays as
/// `line N: reason`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct FormatError {
    /// The line the problem is on (for a missing line, the one after the last).
    pub line: usize,
    /// What is wrong, and what to do.
    pub reason: Reason,
}

/// A world file parses into its cave (`text.parse::<Cave>()`), as a cave prints as its
/// world file.
impl std::str::FromStr for Cave {
    type Err = FormatError;

    fn from_str(text: &str) -> Result<Cave, FormatError> {
        parse_cave(text)
    }
}

/// Parse a world file.
///
/// # Errors
/// The first problem met, with its line; nothing is loaded then.
pub fn parse_cave(text: &str) -> Result<Cave, FormatError> {
    let mut parser = Parser::default();
    let mut line_count = 0;
    for (index, line) in text.lines().enumerate() {
        line_count = index + 1;
        parser.line(line).map_err(|reason| FormatError {
            line: index + 1,
            reason,
        })?;
    }
    parser.finish().map_err(|reason| FormatError {
        line: line_count + 1,
        reason,
    })
}

/// The state of a parse between lines.
#[derive(Default)]
struct Parser {
    /// The keyword of the last line read.
    last: Option<Keyword>,
    dim: Option<Dim>,
    builder: Option<CaveBuilder>,
}

impl Parser {
    fn line(&mut self, line: &str) -> Result<(), Reason> {
        let words = words(line);
        let Some(&(column, word)) = words.first() else {
            return Ok(());
        };
        let keyword = Keyword::from_word(word).ok_or(Reason::UnknownKeyword { column })?;
        self.check_order(keyword)?;
        let fields = &words[1..];
        if fields.len() != keyword.fields().len() {
            return Err(Reason::WrongCount {
                keyword,
                found: fields.len(),
            });
        }
        let numbers = fields
            .iter()
            .zip(keyword.fields())
            .map(|(&(column, text), &field)| integer(keyword, field, column, text))
            .collect::<Result<Vec<i64>, Reason>>()?;
        self.last = Some(keyword);
        match (keyword, numbers.as_slice()) {
            (Keyword::Dim, &[width, height]) => {
                let side = |n: i64| {
                    usize::try_from(n)
                        .ok()
                        .filter(|n| (1..=MAX_SIDE).contains(n))
                };
                match (side(width), side(height)) {
                    (Some(width), Some(height)) => {
                        self.dim = Some(Dim { width, height });
                        Ok(())
                    }
                    _ => Err(Reason::BadDim { width, height }),
                }
            }
            (Keyword::Player, &[x, y, o, g, a]) => {
                let dim = self.dim.ok_or(Reason::Missing {
                    missing: Keyword::Dim,
                })?;
                let pos = position(dim, x, y)?;
                let facing = u8::try_from(o)
                    .ok()
                    .and_then(Orientation::from_number)
                    .ok_or(Reason::Orientation(o))?;
                let player = Player {
                    pos,
                    facing,
                    has_gold: flag("gold", g)?,
                    has_arrow: flag("arrow", a)?,
                };
                let builder = CaveBuilder::new(dim, player).map_err(Reason::SharedRoom)?;
                self.builder = Some(builder);
                Ok(())
            }
            (keyword, &[x, y]) => {
                let (Some(dim), Some(builder), Some(thing)) =
                    (self.dim, self.builder.as_mut(), keyword.thing())
                else {
                    return Err(Reason::Missing {
                        missing: Keyword::Player,
                    });
                };
                let pos = position(dim, x, y)?;
                builder.place(thing, pos).map_err(Reason::SharedRoom)
            }
            _ => Err(Reason::WrongCount {
                keyword,
                found: numbers.len(),
            }),
        }
    }

    /// Refuse a keyword that comes too early, too late or twice.
    fn check_order(&self, keyword: Keyword) -> Result<(), Reason> {
        if let Some(last) = self.last {
            if keyword < last {
                return Err(Reason::OutOfOrder {
                    keyword,
                    after: last,
                });
            }
            if keyword == last && !keyword.repeats() {
                return Err(Reason::Duplicate(keyword));
            }
        }
        // A required keyword that should have come before this one.
        let skipped = Keyword::ALL.into_iter().find(|&required| {
            required.required()
                && required < keyword
                && self.last.is_none_or(|last| last < required)
        });
        match skipped {
            Some(missing) => Err(Reason::Missing { missing }),
            None => Ok(()),
        }
    }

    fn finish(self) -> Result<Cave, Reason> {
        let missing = |missing| Reason::Missing { missing };
        if self.dim.is_none() {
            return Err(missing(Keyword::Dim));
        }
        let builder = self.builder.ok_or(missing(Keyword::Player))?;
        builder.build().ok_or(missing(Keyword::Exit))
    }
}

/// The white-space separated words of a line, each with the 1-based column (in
/// characters) it starts at, for messages that point into the line without quoting it.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut words = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte offset, column)
    for (index, (offset, c)) in line.char_indices().enumerate() {
        match (c.is_whitespace(), start) {
            (true, Some((from, column))) => {
                words.push((column, &line[from..offset]));
                start = None;
            }
            (false, None) => start = Some((offset, index + 1)),
            _ => {}
        }
    }
    if let Some((from, column)) = start {
        words.push((column, &line[from..]));
    }
    words
}

/// Read the field `field` of a `keyword` line, which starts at `column`, as an
/// integer. When it is not one, the error points at the first character that cannot be
/// part of it, or says it is too large when it is all digits.
fn integer(
    keyword: Keyword,
    field: &'static str,
    column: usize,
    text: &str,
) -> Result<i64, Reason> {
    text.parse::<i64>().map_err(|_| {
        let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
        let sign = usize::from(digits.len() < text.len());
        let offending = match digits
            .chars()
            .enumerate()
            .find(|(_, c)| !c.is_ascii_digit())
        {
            Some((index, c)) => Some((column + sign + index, c)),
            // A sign with no digits after it: the sign is what does not belong.
            None if digits.is_empty() => text.chars().next().map(|c| (column, c)),
            // Digits only: the number does not fit.
            None => None,
        };
        match offending {
            Some((column, found)) => Reason::NotAnInteger {
                keyword,
                field,
                column,
                found,
            },
            None => Reason::TooLarge {
                keyword,
                field,
                column,
            },
        }
    })
}

fn position(dim: Dim, x: i64, y: i64) -> Result<Pos, Reason> {
    let coordinate = |n: i64| usize::try_from(n).ok();
    match (coordinate(x), coordinate(y)) {
        (Some(px), Some(py)) if dim.contains(Pos::new(px, py)) => Ok(Pos::new(px, py)),
        _ => Err(Reason::Outside {
            x,
            y,
            width: dim.width,
            height: dim.height,
        }),
    }
}

fn flag(flag: &'static str, found: i64) -> Result<bool, Reason> {
    match found {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(Reason::Flag { flag, found }),
    }
}

/// The cave in the world format: one space between fields, one line per thing, in the
/// required order; a dead wumpus and grabbed gold are left out.
impl fmt::Display for Cave {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dim = self.dim();
        writeln!(f, "dim {} {}", dim.width, dim.height)?;
        let player = self.player();
        writeln!(
            f,
            "player {} {} {} {} {}",
            player.pos.x,
            player.pos.y,
            player.facing.number(),
            u8::from(player.has_gold),
            u8::from(player.has_arrow)
        )?;
        let line = |f: &mut fmt::Formatter<'_>, keyword: Keyword, pos: Pos| {
            writeln!(f, "{keyword} {} {}", pos.x, pos.y)
        };
        if let Some(pos) = self.wumpus() {
            line(f, Keyword::Wumpus, pos)?;
        }
        if let Some(pos) = self.gold() {
            line(f, Keyword::Gold, pos)?;
        }
        for &pos in self.pits() {
            line(f, Keyword::Pit, pos)?;
        }
        line(f, Keyword::Exit, self.exit())?;
        for &pos in self.blocked() {
            line(f, Keyword::Blocked, pos)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's example, spaced as in the seed.
    const SEED: &str = "dim             4 4\nplayer        0 0 1 0 1\nwumpus          3 2\ngold            3 3\npit             2 0\npit             1 2\nexit            0 0\n";

    const PRINTED: &str =
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";

    #[test]
    fn reads_the_seed_example_and_prints_it_back() {
        let cave = parse_cave(SEED).unwrap();
        assert_eq!(
            cave.dim(),
            Dim {
                width: 4,
                height: 4
            }
        );
        let player = cave.player();
        assert_eq!(player.pos, Pos::new(0, 0));
        assert_eq!(player.facing, Orientation::South);
        assert!(!player.has_gold && player.has_arrow);
        assert_eq!(cave.wumpus(), Some(Pos::new(3, 2)));
        assert_eq!(cave.gold(), Some(Pos::new(3, 3)));
        assert_eq!(cave.pits(), &[Pos::new(2, 0), Pos::new(1, 2)]);
        assert_eq!(cave.exit(), Pos::new(0, 0));
        assert!(cave.blocked().is_empty());
        assert_eq!(cave.to_string(), PRINTED);
        assert_eq!(parse_cave(PRINTED), Ok(cave));
    }

    #[test]
    fn blank_lines_case_and_tabs_are_accepted() {
        let text = "\n  DIM\t3 2\r\nPlayer 2 1 3 1 0\n\nexit 0 0\nblocked 1 0\nblocked 1 1\n\n";
        let cave = parse_cave(text).unwrap();
        assert_eq!(
            cave.to_string(),
            "dim 3 2\nplayer 2 1 3 1 0\nexit 0 0\nblocked 1 0\nblocked 1 1\n"
        );
    }

    #[test]
    fn the_largest_cave_loads() {
        let cave = parse_cave("dim 100 100\nplayer 99 99 0 0 1\nexit 0 99\n").unwrap();
        assert_eq!(
            cave.dim(),
            Dim {
                width: 100,
                height: 100
            }
        );
    }

    fn error(text: &str) -> String {
        parse_cave(text).unwrap_err().to_string()
    }

    const HEAD: &str = "dim 4 4\nplayer 0 0 1 0 1\n";

    #[test]
    fn every_file_error_names_its_line_and_reason() {
        let cases: &[(&str, &str)] = &[
            (
                "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ntreasure 1 1\nexit 0 0\n",
                "line 4: unknown keyword at column 1: use one of dim, player, wumpus, gold, pit, exit, blocked",
            ),
            ("dim 4\n", "line 1: `dim` takes 2 integers (W H), found 1"),
            (
                "dim 4 4\nplayer 0 0 1 0\n",
                "line 2: `player` takes 5 integers (x y o g a), found 4",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\npit 1 1 1\n",
                "line 3: `pit` takes 2 integers (x y), found 3",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\ngold x 1\n",
                "line 3: field x of `gold` is not an integer: 'x' at column 6 is not a digit; write whole numbers such as 0 or 12",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\ngold 1 1\nwumpus 2 2\n",
                "line 4: `wumpus` cannot come after `gold`: put the lines in the order dim, player, wumpus, gold, pit, exit, blocked",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\nexit 0 0\npit 1 1\n",
                "line 4: `pit` cannot come after `exit`: put the lines in the order dim, player, wumpus, gold, pit, exit, blocked",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\nexit 0 0\nexit 1 1\n",
                "line 4: a second `exit` line: a world has only one; remove one of them",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\nwumpus 1 1\nwumpus 2 2\nexit 0 0\n",
                "line 4: a second `wumpus` line: a world has only one; remove one of them",
            ),
            (
                "player 0 0 1 0 1\n",
                "line 1: missing `dim` line: a world file starts with `dim W H`",
            ),
            (
                "\ndim 4 4\n\nexit 0 0\n",
                "line 4: missing `player` line: `player X Y O G A` comes right after `dim`",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\npit 1 1\nblocked 2 2\n",
                "line 4: missing `exit` line: every world has one `exit X Y`, after the pits",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\npit 1 1\n",
                "line 4: missing `exit` line: every world has one `exit X Y`, after the pits",
            ),
            (
                "",
                "line 1: missing `dim` line: a world file starts with `dim W H`",
            ),
            (
                "dim 4 4\n",
                "line 2: missing `player` line: `player X Y O G A` comes right after `dim`",
            ),
            (
                "dim 0 4\n",
                "line 1: `dim 0 4` is not allowed: width and height must each be 1..=100",
            ),
            (
                "dim 4 101\n",
                "line 1: `dim 4 101` is not allowed: width and height must each be 1..=100",
            ),
            (
                "dim 4 4\nplayer 4 0 1 0 1\n",
                "line 2: position (4, 0) is outside the 4 x 4 cave: x must be 0..=3 and y 0..=3",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\npit 0 -1\n",
                "line 3: position (0, -1) is outside the 4 x 4 cave: x must be 0..=3 and y 0..=3",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\ngold 1 1\npit 1 1\n",
                "line 4: room (1, 1) already holds the gold: a room holds at most one of wumpus, gold, pit and exit, and a blocked room holds nothing",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\npit 1 1\npit 1 1\n",
                "line 4: room (1, 1) already holds the pit: a room holds at most one of wumpus, gold, pit and exit, and a blocked room holds nothing",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 1\nexit 2 2\nblocked 2 2\n",
                "line 4: room (2, 2) already holds the exit: a room holds at most one of wumpus, gold, pit and exit, and a blocked room holds nothing",
            ),
            (
                "dim 4 4\nplayer 1 1 1 0 1\nexit 2 2\nblocked 1 1\n",
                "line 4: room (1, 1) cannot be blocked: the player stands there",
            ),
            (
                "dim 4 4\nplayer 0 0 4 0 1\n",
                "line 2: orientation 4 is not 0 (east), 1 (south), 2 (west) or 3 (north)",
            ),
            (
                "dim 4 4\nplayer 0 0 -1 0 1\n",
                "line 2: orientation -1 is not 0 (east), 1 (south), 2 (west) or 3 (north)",
            ),
            (
                "dim 4 4\nplayer 0 0 1 2 1\n",
                "line 2: the gold flag is 2: write 0 (no) or 1 (yes)",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 7\n",
                "line 2: the arrow flag is 7: write 0 (no) or 1 (yes)",
            ),
            (
                "dim 4 4\nplayer 0 0 1 0 99999999999999999999\n",
                "line 2: field a of `player` at column 16 is too large: write whole numbers such as 0 or 12",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(&error(text), expected, "{text:?}");
        }
        assert!(parse_cave(&format!("{HEAD}exit 0 0\n")).is_ok());
    }

    #[test]
    fn errors_point_at_a_column_and_show_one_character_at_most() {
        let reason = |text: &str| parse_cave(text).unwrap_err().reason;
        assert_eq!(
            reason("dim 4 4\n\t player 0 0 1 0 1\n  \tx 1 1\n"),
            Reason::UnknownKeyword { column: 4 }
        );
        let not_an_integer = |field, column, found| Reason::NotAnInteger {
            keyword: Keyword::Gold,
            field,
            column,
            found,
        };
        let gold = |fields: &str| reason(&format!("{HEAD}gold {fields}\n"));
        assert_eq!(gold("1 -"), not_an_integer("y", 8, '-'));
        assert_eq!(gold("+ 1"), not_an_integer("x", 6, '+'));
        assert_eq!(gold("1 +-2"), not_an_integer("y", 9, '-'));
        assert_eq!(gold("12x 1"), not_an_integer("x", 8, 'x'));
        assert_eq!(gold("1\t\t\u{ff13}"), not_an_integer("y", 9, '\u{ff13}'));
        assert_eq!(
            gold("1 \u{1b}[2J").to_string(),
            "field y of `gold` is not an integer: U+001B at column 8 is not a digit; write whole numbers such as 0 or 12"
        );
        assert_eq!(
            gold("-99999999999999999999 0"),
            Reason::TooLarge {
                keyword: Keyword::Gold,
                field: "x",
                column: 6
            }
        );
        // Any white space separates fields, and columns count characters, not bytes.
        assert_eq!(
            reason("dim 4 4\nplayer 0 0 1 0 1\ngold\u{a0}é 1\n"),
            not_an_integer("x", 6, 'é')
        );
        assert_eq!(
            reason("dim 4 4\nplayer 0 0 1 0 1\ngold\u{a0}1 é\n"),
            not_an_integer("y", 8, 'é')
        );
    }

    use crate::games::wumpus::cave::Action;
    use proptest::prelude::*;

    const ACTIONS: [Action; 6] = [
        Action::MoveForward,
        Action::TurnLeft,
        Action::TurnRight,
        Action::Shoot,
        Action::Grab,
        Action::Climb,
    ];
    const THINGS: [Thing; 5] = [
        Thing::Wumpus,
        Thing::Gold,
        Thing::Pit,
        Thing::Exit,
        Thing::Blocked,
    ];

    proptest! {
        /// Any cave, printed, loads back as the same cave, at the start and after every
        /// action of a random game.
        #[test]
        fn printed_states_load_back_the_same(
            (width, height) in (1usize..=12, 1usize..=12),
            player in (0usize..12, 0usize..12, 0u8..4, any::<bool>(), any::<bool>()),
            exit in (0usize..12, 0usize..12),
            things in prop::collection::vec((0usize..5, 0usize..12, 0usize..12), 0..40),
            actions in prop::collection::vec(0usize..6, 0..80),
        ) {
            let dim = Dim { width, height };
            let (px, py, facing, has_gold, has_arrow) = player;
            let player = Player {
                pos: Pos::new(px % width, py % height),
                facing: Orientation::from_number(facing).unwrap(),
                has_gold,
                has_arrow,
            };
            let mut builder = CaveBuilder::new(dim, player).unwrap();
            builder
                .place(Thing::Exit, Pos::new(exit.0 % width, exit.1 % height))
                .unwrap();
            for (thing, x, y) in things {
                // Refusals are the builder's business; the rest makes a varied cave.
                let _ = builder.place(THINGS[thing], Pos::new(x % width, y % height));
            }
            let mut cave = builder.build().unwrap();
            prop_assert_eq!(parse_cave(&cave.to_string()), Ok(cave.clone()));
            for action in actions {
                let Ok(percepts) = cave.act(ACTIONS[action]) else {
                    continue;
                };
                prop_assert!(percepts.is_sorted());
                prop_assert_eq!(parse_cave(&cave.to_string()), Ok(cave.clone()));
                if percepts.iter().any(|p| p.ends_game()) {
                    break;
                }
            }
        }

        /// No text makes the parser panic.
        #[test]
        fn any_text_is_loaded_or_refused(text in "((dim|player|wumpus|gold|pit|exit|blocked|Pit|x|)( {1,3}[-+]?[0-9]{1,3}){0,6}\n){0,12}") {
            match parse_cave(&text) {
                Ok(cave) => prop_assert_eq!(cave.to_string().parse::<Cave>(), Ok(cave)),
                Err(error) => prop_assert!(error.line >= 1 && error.line <= text.lines().count() + 1),
            }
        }
    }
}
