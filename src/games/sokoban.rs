//! `sokoban`: the classic console game of SPEC section 3, byte for byte with the
//! seed's transcript.
//!
//! Parsing (the `# . P + - O` file format), the command grammar and rendering are
//! here; moving and pushing are the shared rules of [`super::world`].
//!
//! A level needs exactly one player and, like the seed's program, takes any number of
//! boxes and targets; it is won when every box stands on a target
//! ([`WinRule::EveryBox`]; SPEC section 3). So a level with more targets than boxes is
//! won once the boxes are placed, one with more boxes than targets is never won, and
//! one without boxes is won before the first command: the seed checks for the win
//! right after drawing each board, the first included, so it prints the welcome, the
//! board and `Win!` and ends, and so does this game.

use std::collections::VecDeque;
use std::sync::Arc;

use super::bot;
use super::boxes::{Boxes, Undo, MAX_HISTORY};
use super::reader::boxes;
use super::world::{
    parse_count, Cell, Direction, Glyphs, Level, LevelError, ShownChar, Step, WinRule, World,
    MAX_SIDE,
};
use super::{Finish, Game, Memory, Outcome, Progress, Reply, BYE, PROMPT};

/// The level `play sokoban` loads when none is named.
pub const DEFAULT_LEVEL: &str = "classic";

/// The classic glyphs: a player on a target is drawn as `P`.
pub const GLYPHS: Glyphs = Glyphs {
    wall: b'#',
    floor: b'.',
    goal: b'-',
    box_on_floor: b'+',
    box_on_goal: b'O',
    player: b'P',
    player_on_goal: b'P',
};
const _: () = assert!(GLYPHS.is_ascii(), "board glyphs must be ASCII");

const WELCOME: &str = "Welcome to Sokoban!\n";
const INVALID: &str = "Invalid command\n";
const WIN: &str = "Win!\n";

/// Why a classic level file cannot be loaded. Messages name the line and column and
/// show at most the one offending character ([`ShownChar`]), never the file's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A character that is not one of the six glyphs.
    #[error("unknown character {} at column {column}: use # . P + - O", ShownChar(*found))]
    UnknownCharacter {
        /// 1-based line in the file.
        line: usize,
        /// 1-based column in the line.
        column: usize,
        /// The offending character.
        found: char,
    },
    /// A row longer than [`MAX_SIDE`] glyphs.
    #[error(
        "the row is longer than {MAX_SIDE} glyphs (column {column}): a level is at most \
         {MAX_SIDE} x {MAX_SIDE}"
    )]
    TooWide {
        /// 1-based line in the file.
        line: usize,
        /// 1-based column of the first glyph past the limit.
        column: usize,
    },
    /// More than [`MAX_SIDE`] rows.
    #[error("more than {MAX_SIDE} rows: a level is at most {MAX_SIDE} x {MAX_SIDE}")]
    TooTall {
        /// 1-based line in the file of the first row past the limit.
        line: usize,
    },
    /// The grid is not a playable level.
    #[error("{source}")]
    Level {
        /// The line the board starts on (1 when the file has no board).
        line: usize,
        /// What is wrong with it.
        source: LevelError,
    },
}

impl ParseError {
    /// The 1-based line the error is about.
    pub fn line(&self) -> usize {
        match self {
            ParseError::UnknownCharacter { line, .. }
            | ParseError::TooWide { line, .. }
            | ParseError::TooTall { line }
            | ParseError::Level { line, .. } => *line,
        }
    }
}

/// Parse a classic level: one board row per line in the glyphs `# . P + - O`. As in the
/// seed's program, white space around a row is ignored and blank lines are skipped.
/// A level is at most [`MAX_SIDE`] rows of [`MAX_SIDE`] glyphs, checked as the lines
/// are read, so a huge file is refused at the line that passes the limit.
///
/// # Errors
/// The first unknown character or row past the limit, or the first [`LevelError`] of
/// the finished grid.
pub fn parse_level(text: &str) -> Result<Level, ParseError> {
    let mut rows = Vec::new();
    let mut first_line = None;
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let row = line.trim();
        if row.is_empty() {
            continue;
        }
        if rows.len() == MAX_SIDE {
            return Err(ParseError::TooTall { line: line_number });
        }
        first_line.get_or_insert(line_number);
        // Columns count characters: leading white space may be more than one byte.
        let leading = line[..line.len() - line.trim_start().len()].chars().count();
        let mut cells = Vec::new();
        for (offset, glyph) in row.chars().enumerate() {
            let column = leading + offset + 1;
            if offset == MAX_SIDE {
                return Err(ParseError::TooWide {
                    line: line_number,
                    column,
                });
            }
            cells.push(cell_of(glyph).ok_or(ParseError::UnknownCharacter {
                line: line_number,
                column,
                found: glyph,
            })?);
        }
        rows.push(cells);
    }
    Level::from_rows(&rows, WinRule::EveryBox).map_err(|source| ParseError::Level {
        line: first_line.unwrap_or(1),
        source,
    })
}

fn cell_of(glyph: char) -> Option<Cell> {
    Some(match glyph {
        '#' => Cell::Wall,
        '.' => Cell::Floor,
        '-' => Cell::Goal,
        '+' => Cell::Box,
        'O' => Cell::BoxOnGoal,
        'P' => Cell::Player,
        _ => return None,
    })
}

/// A parsed command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Walk up to `count` steps.
    Walk {
        /// Where to.
        direction: Direction,
        /// How far at most; counts beyond `u64::MAX` saturate, which on a finite board
        /// means the same thing: walk until blocked.
        count: u64,
    },
    /// Leave the game.
    Exit,
}

impl Command {
    /// Parse a command as the seed's program does: a first character `e` exits; a
    /// direction letter followed by one or more ASCII digits walks; anything else is
    /// invalid. Case does not matter.
    pub fn parse(line: &str) -> Option<Command> {
        let mut chars = line.chars();
        let first = chars.next()?;
        if first.eq_ignore_ascii_case(&'e') {
            return Some(Command::Exit);
        }
        let direction = Direction::from_wasd(first)?;
        let count = parse_count(chars.as_str())?;
        Some(Command::Walk { direction, count })
    }
}

/// One game of classic Sokoban.
#[derive(Debug, Clone)]
pub struct Sokoban {
    world: World,
    /// Steps taken and steps that pushed a box, for the result.
    moves: u64,
    pushes: u64,
    finish: Option<Finish>,
    /// The latest moves, oldest first, at most [`MAX_HISTORY`]: the game has no undo,
    /// but the help for stuck players (SPEC section 13) counts back over them.
    history: VecDeque<Step>,
    /// Reader mode: words instead of the board ([`Game::set_reader`]).
    reader: bool,
}

impl Sokoban {
    /// A game at the start of `level`.
    pub fn new(level: Arc<Level>) -> Sokoban {
        Sokoban {
            world: World::new(level),
            moves: 0,
            pushes: 0,
            finish: None,
            history: VecDeque::new(),
            reader: false,
        }
    }

    /// The current state of play.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The board, then `Win!` and the end when every box is on a target, else the
    /// prompt. The start goes through here too, as in the seed's loop, so a level that
    /// starts won (no boxes, or all on targets) ends at once. In reader mode the board
    /// is not drawn: the caller has said in `text` what changed.
    fn board_then(&mut self, mut text: String) -> Reply {
        if !self.reader {
            self.world.render_into(&GLYPHS, &mut text);
        }
        if self.world.is_solved() {
            text.push_str(WIN);
            self.finish = Some(Finish {
                moves: self.moves,
                pushes: self.pushes,
                ..Finish::new(Outcome::Solved)
            });
            Reply::ended(text)
        } else {
            text.push_str(PROMPT);
            Reply::playing(text)
        }
    }
}

/// The commands, for `/help` (the seed's game has no help of its own: any other line is
/// `Invalid command`).
const HELP: &str = concat!(
    "  wN aN sN dN   walk N steps up, left, down or right, pushing boxes (d3, w10)\n",
    "  e             leave the game\n",
);

impl Game for Sokoban {
    fn start(&mut self, _memory: &mut Memory) -> Reply {
        let mut text = String::from(WELCOME);
        if self.reader {
            boxes::push_description(&self.world, &mut text);
        }
        self.board_then(text)
    }

    fn handle(&mut self, line: &str, _memory: &mut Memory) -> Reply {
        match Command::parse(line) {
            Some(Command::Exit) => Reply::ended(String::from(BYE)),
            Some(Command::Walk { direction, count }) => {
                let walk = self.world.walk(direction, count);
                self.moves += walk.steps.len() as u64;
                self.pushes += walk.steps.iter().filter(|step| step.push).count() as u64;
                let mut text = String::with_capacity(64);
                if self.reader {
                    boxes::push_walk(&self.world, direction, &walk, false, &mut text);
                }
                for step in walk.steps {
                    if self.history.len() >= MAX_HISTORY {
                        self.history.pop_front();
                    }
                    self.history.push_back(step);
                }
                self.board_then(text)
            }
            None => self.board_then(String::from(INVALID)),
        }
    }

    fn view(&self, _memory: &Memory) -> String {
        let mut text = String::with_capacity(64);
        self.world.render_into(&GLYPHS, &mut text);
        text.push_str(PROMPT);
        text
    }

    fn help(&self) -> &'static str {
        HELP
    }

    fn exit_command(&self) -> &'static str {
        "e"
    }

    fn set_reader(&mut self, on: bool) {
        self.reader = on;
    }

    fn describe(&self, _memory: &Memory) -> String {
        let mut text = String::with_capacity(256);
        boxes::push_description(&self.world, &mut text);
        text.push_str(PROMPT);
        text
    }

    fn where_is(&self) -> Option<String> {
        Some(boxes::where_is(&self.world))
    }

    fn observe(&self, _memory: &Memory) -> bot::Observation {
        let (observation, legal) = bot::boxes(&self.world, self.moves, self.pushes);
        let (on_goals, _) = self.world.placed();
        bot::Observation {
            observation,
            legal,
            score: i64::try_from(on_goals).unwrap_or(i64::MAX),
        }
    }

    fn action_line(&self, action: &str) -> Option<&'static str> {
        // One step each: the seed's game walks `wN`, and `w1` is one step up.
        Some(match bot::direction(action)? {
            Direction::Up => "w1",
            Direction::Down => "s1",
            Direction::Left => "a1",
            Direction::Right => "d1",
        })
    }

    fn take_finish(&mut self) -> Option<Finish> {
        self.finish.take()
    }

    fn progress(&self) -> Progress {
        Progress {
            moves: self.moves,
            placed: Some(self.world.placed()),
            ended: self.world.is_solved().then_some(Outcome::Solved),
            ..Progress::default()
        }
    }

    fn boxes(&self) -> Option<Boxes<'_>> {
        Some(Boxes {
            world: &self.world,
            history: &self.history,
            moves: self.moves,
            pushes: self.pushes,
            undo: Undo::Restart,
        })
    }
}

/// How far a game of boxes has got (Sokoban's and Star Pusher's alike), in its own
/// words: `2/4 boxes, 12 moves`, `solved, 12 moves`.
pub(super) fn how_far(progress: &Progress, (placed, needed): (usize, usize)) -> String {
    let moves = super::words::moves(progress.moves);
    match progress.ended {
        Some(Outcome::Solved) => format!("solved, {moves}"),
        _ => format!("{placed}/{needed} boxes, {moves}"),
    }
}

/// What the other racers hear of a game of boxes going from `before` to `after`: the
/// level solved (in `time`), or a box placed.
pub(super) fn news(
    before: &Progress,
    after: &Progress,
    (placed, needed): (usize, usize),
    time: impl FnOnce() -> String,
) -> Option<String> {
    if before.ended.is_none() && after.ended.is_some() {
        return Some(format!(
            "solved it in {}: {}.",
            time(),
            super::words::moves(after.moves)
        ));
    }
    match before.placed {
        Some((was, _)) if placed > was => Some(format!("placed a box ({placed}/{needed}).")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Status;

    const CLASSIC: &str = "#######\n#.....#\n#...+.#\n##..+.#\n#--.#P#\n#######\n";

    fn game() -> Sokoban {
        Sokoban::new(Arc::new(parse_level(CLASSIC).unwrap()))
    }

    #[test]
    fn start_shows_welcome_board_and_prompt() {
        let reply = game().start(&mut Memory::default());
        assert_eq!(
            reply.text,
            format!("Welcome to Sokoban!\n{CLASSIC}Enter command: ")
        );
        assert_eq!(reply.status, super::super::Status::Playing);
    }

    #[test]
    fn command_grammar() {
        let walk = |direction, count| Some(Command::Walk { direction, count });
        assert_eq!(Command::parse("d2"), walk(Direction::Right, 2));
        assert_eq!(Command::parse("W10"), walk(Direction::Up, 10));
        assert_eq!(Command::parse("s0"), walk(Direction::Down, 0));
        assert_eq!(
            Command::parse(&format!("a{}", "9".repeat(40))),
            walk(Direction::Left, u64::MAX)
        );
        assert_eq!(Command::parse("exit now"), Some(Command::Exit));
        assert_eq!(Command::parse("E"), Some(Command::Exit));
        for invalid in ["", "d", "x3", "d-1", "d2x", "d 2", "d٣", "+1"] {
            assert_eq!(Command::parse(invalid), None, "{invalid:?}");
        }
    }

    #[test]
    fn invalid_command_repeats_the_board() {
        let mut game = game();
        let reply = game.handle("x3", &mut Memory::default());
        assert_eq!(
            reply.text,
            format!("Invalid command\n{CLASSIC}Enter command: ")
        );
    }

    #[test]
    fn player_leaving_a_target_shows_it_again() {
        let level = parse_level("#######\n#P-++-#\n#######").unwrap();
        let mut game = Sokoban::new(Arc::new(level));
        let mut memory = Memory::default();
        let reply = game.handle("d1", &mut memory);
        assert!(
            reply.text.starts_with("#######\n#.P++-#\n"),
            "{}",
            reply.text
        );
        let reply = game.handle("a1", &mut memory);
        assert!(
            reply.text.starts_with("#######\n#P-++-#\n"),
            "{}",
            reply.text
        );
    }

    /// Play `commands` on `level` from its start; every reply, the start's first.
    fn play(level: &str, commands: &[&str]) -> Vec<Reply> {
        let mut game = Sokoban::new(Arc::new(parse_level(level).unwrap()));
        let mut memory = Memory::default();
        let mut replies = vec![game.start(&mut memory)];
        replies.extend(commands.iter().map(|line| game.handle(line, &mut memory)));
        replies
    }

    // The transcripts below are the seed's program's own output for the same level and
    // commands (run with Python), `Enter command: ` placed as this game sends it.

    #[test]
    fn more_targets_than_boxes_is_won_once_every_box_is_on_a_target() {
        let replies = play("#######\n#P+--.#\n#######\n", &["d1"]);
        assert_eq!(
            replies[0],
            Reply::playing(String::from(
                "Welcome to Sokoban!\n#######\n#P+--.#\n#######\nEnter command: "
            ))
        );
        assert_eq!(
            replies[1],
            Reply::ended(String::from("#######\n#.PO-.#\n#######\nWin!\n"))
        );
    }

    #[test]
    fn more_boxes_than_targets_loads_and_is_never_won() {
        let level = "#######\n#P+.-.#\n#..+..#\n#######\n";
        let commands = ["d2", "d9", "s1", "a9", "w1", "d1", "s1", "d9", "a9", "w9"];
        let replies = play(level, &commands);
        assert!(replies.iter().all(|reply| reply.status == Status::Playing));
        // The first box is on the target after `d2`, and that is not a win.
        assert!(
            replies[1].text.starts_with("#######\n#..PO.#\n"),
            "{:?}",
            replies[1]
        );
    }

    #[test]
    fn a_level_without_boxes_is_won_before_the_first_command() {
        for (level, board) in [
            ("#####\n#P..#\n#####\n", "#####\n#P..#\n#####\n"),
            ("#####\n#P.-#\n#####\n", "#####\n#P.-#\n#####\n"),
        ] {
            assert_eq!(
                play(level, &[]),
                [Reply::ended(format!("Welcome to Sokoban!\n{board}Win!\n"))]
            );
        }
    }

    /// A level of `rows` rows of `columns` glyphs: walls, with the player, a box and a
    /// target in the second row.
    fn sized(rows: usize, columns: usize) -> String {
        let wall = format!("{}\n", "#".repeat(columns));
        format!(
            "{wall}P+-{}\n{}",
            "#".repeat(columns - 3),
            wall.repeat(rows - 2)
        )
    }

    #[test]
    fn levels_are_at_most_max_side_square() {
        let level = parse_level(&sized(MAX_SIDE, MAX_SIDE)).unwrap();
        assert_eq!((level.width(), level.height()), (MAX_SIDE, MAX_SIDE));
        assert_eq!(
            parse_level(&sized(MAX_SIDE + 1, 3)).map(|_| ()),
            Err(ParseError::TooTall { line: MAX_SIDE + 1 })
        );
        assert_eq!(
            parse_level(&sized(3, MAX_SIDE + 1)).map(|_| ()),
            Err(ParseError::TooWide {
                line: 1,
                column: MAX_SIDE + 1
            })
        );
        // Blank lines are not rows but count as lines; columns count leading space.
        let text = format!("\n\n{}\n \u{a0}{}", sized(MAX_SIDE, 3), "#".repeat(300));
        assert_eq!(
            parse_level(&text).map(|_| ()),
            Err(ParseError::TooTall { line: MAX_SIDE + 4 })
        );
        let text = format!("#####\n\u{a0} {}\n", "#".repeat(300));
        let error = parse_level(&text).map(|_| ()).unwrap_err();
        assert_eq!(
            error,
            ParseError::TooWide {
                line: 2,
                column: MAX_SIDE + 3
            }
        );
        assert_eq!(
            error.to_string(),
            "the row is longer than 256 glyphs (column 259): a level is at most 256 x 256"
        );
        assert_eq!(
            parse_level(&sized(MAX_SIDE + 1, 3))
                .unwrap_err()
                .to_string(),
            "more than 256 rows: a level is at most 256 x 256"
        );
        // The case from the hardening issue: 100,000 rows are refused at row 257,
        // before any grid is built.
        let error = parse_level(&"#\n".repeat(100_000)).map(|_| ()).unwrap_err();
        assert_eq!(error, ParseError::TooTall { line: MAX_SIDE + 1 });
    }

    #[test]
    fn parse_errors_name_line_and_column() {
        assert_eq!(
            parse_level("###\n#Px-+#\n"),
            Err(ParseError::UnknownCharacter {
                line: 2,
                column: 3,
                found: 'x'
            })
        );
        assert_eq!(
            parse_level("\n\n#+-#\n").map(|_| ()),
            Err(ParseError::Level {
                line: 3,
                source: LevelError::NoPlayer
            })
        );
    }
}

#[cfg(test)]
mod reader_tests {
    use super::*;
    use crate::games::reader::problem;
    use crate::games::Status;

    const CLASSIC: &str = "#######\n#.....#\n#...+.#\n##..+.#\n#--.#P#\n#######\n";

    fn game(reader: bool) -> Sokoban {
        let mut game = Sokoban::new(Arc::new(parse_level(CLASSIC).unwrap()));
        game.set_reader(reader);
        game
    }

    #[test]
    fn the_classic_level_starts_in_words() {
        let reply = game(true).start(&mut Memory::default());
        assert_eq!(
            reply.text,
            "Welcome to Sokoban!\n\
             You are at row 5, column 6.\n\
             row 1: 7 walls\n\
             row 2: wall, 5 floor, wall\n\
             row 3: wall, 3 floor, box, floor, wall\n\
             row 4: 2 walls, 2 floor, box, floor, wall\n\
             row 5: wall, 2 goals, floor, wall, player, wall\n\
             row 6: 7 walls\n\
             0 of 2 boxes on goals.\n\
             Enter command: "
        );
        assert_eq!(reply.status, Status::Playing);
    }

    /// The seed's solution of the classic level, said move by move.
    #[test]
    fn the_seeds_solution_in_words() {
        let mut game = game(true);
        let mut memory = Memory::default();
        game.start(&mut memory);
        let said = |game: &mut Sokoban, memory: &mut Memory, line: &str| {
            let reply = game.handle(line, memory);
            assert_eq!(problem(&reply.text), None, "{}", reply.text);
            reply
        };
        let expected = [
            ("w2", "You walk 2 steps up, to row 3, column 6.\n"),
            (
                "a2",
                "You push the box 2 steps left, to row 3, column 3.\n0 of 2 boxes on goals.\n",
            ),
            ("w1", "You walk 1 step up, to row 2, column 4.\n"),
            ("a1", "You walk 1 step left, to row 2, column 3.\n"),
            (
                "s2",
                "You push the box 2 steps down, onto a goal.\n1 of 2 boxes on goals.\n",
            ),
            ("d1", "You walk 1 step right, to row 4, column 4.\n"),
            ("s1", "You walk 1 step down, to row 5, column 4.\n"),
            (
                "a1",
                "You push the box onto another goal.\n1 of 2 boxes on goals.\n",
            ),
            ("w2", "You walk 2 steps up, to row 3, column 3.\n"),
            ("d3", "You walk 3 steps right, to row 3, column 6.\n"),
            ("s1", "You walk 1 step down, to row 4, column 6.\n"),
            (
                "a2",
                "You push the box 2 steps left, to row 4, column 3.\n1 of 2 boxes on goals.\n",
            ),
            ("w1", "You walk 1 step up, to row 3, column 4.\n"),
            ("a1", "You walk 1 step left, to row 3, column 3.\n"),
        ];
        for (line, words) in expected {
            let reply = said(&mut game, &mut memory, line);
            assert_eq!(reply.text, format!("{words}Enter command: "), "{line}");
        }
        assert_eq!(
            game.where_is().as_deref(),
            Some("You are at row 3, column 3.")
        );
        let last = said(&mut game, &mut memory, "s1");
        assert_eq!(
            last,
            Reply::ended(String::from(
                "You push the box onto a goal.\n2 of 2 boxes on goals.\nWin!\n"
            ))
        );
        assert_eq!(
            game.take_finish()
                .map(|finish| (finish.moves, finish.pushes)),
            Some((22, 8))
        );
    }

    #[test]
    fn blocked_invalid_and_look() {
        let mut game = game(true);
        let mut memory = Memory::default();
        game.start(&mut memory);
        let texts: Vec<String> = ["d1", "w9", "x3", "s0"]
            .iter()
            .map(|line| game.handle(line, &mut memory).text)
            .collect();
        assert_eq!(
            texts,
            [
                "A wall is in the way.\nEnter command: ",
                "You walk 3 steps up, to row 2, column 6.\nA wall is in the way.\n\
                 Enter command: ",
                "Invalid command\nEnter command: ",
                "You stay at row 2, column 6.\nEnter command: ",
            ]
        );
        let look = game.describe(&memory);
        assert!(
            look.starts_with("You are at row 2, column 6.\nrow 1: 7 walls\n"),
            "{look}"
        );
        assert!(
            look.contains("\nrow 2: wall, 4 floor, player, wall\n"),
            "{look}"
        );
        assert!(look.ends_with("0 of 2 boxes on goals.\nEnter command: "));
        assert_eq!(
            game.where_is().as_deref(),
            Some("You are at row 2, column 6.")
        );
    }

    #[test]
    fn reader_mode_plays_the_same_game_and_turns_off() {
        let lines = ["w2", "a2", "x", "s9", "d1"];
        let mut words = game(true);
        let mut drawn = game(false);
        let mut memory = Memory::default();
        words.start(&mut memory);
        drawn.start(&mut memory);
        for line in lines {
            let (said, shown) = (
                words.handle(line, &mut memory),
                drawn.handle(line, &mut memory),
            );
            assert_eq!(said.status, shown.status);
            assert_eq!(words.progress(), drawn.progress());
        }
        words.set_reader(false);
        assert_eq!(
            words.handle("a1", &mut memory),
            drawn.handle("a1", &mut memory)
        );
        // The view stays drawn: a watcher may not use a reader.
        words.set_reader(true);
        assert_eq!(words.view(&memory), drawn.view(&memory));
    }
}
