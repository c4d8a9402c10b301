//! `2048`: the sliding-tile game of SPEC section 5, after the console program of
//! `seeds/002_*.txt` (vim keys, multi-level undo, its messages) with the rules of the
//! original game.
//!
//! The rules live in [`board`], the drawing in [`render`]; this file holds the lobby's
//! arguments, the command keys and the game loop around them: score, best, step
//! count, undo history, win and game over.
//!
//! Choices where the spec is silent:
//! - The game opens with a welcome line naming the win value and a line of keys.
//! - `Illegal operation!`, `This move has no effect.`, `Nothing to undo.` and the
//!   hint after game over are sent alone before the prompt, without redrawing the
//!   board (it has not changed and is still on screen), as the seed program does.
//!   Every command that changes the board redraws it, then the status line, then
//!   `You win!` / `Game over!` when they apply, then the prompt.
//! - Step counts the moves of the current game: a move adds one, `b` takes one
//!   back, `r` starts again from 0. Best never goes down (not even on undo): it is
//!   the best score reached in the session.
//! - `You win!` is shown once per game, the first time a tile reaches the win value
//!   (this can be the opening board when `win=4`); undoing past it does not show it
//!   again. `r` starts a new game, which can be won again.
//! - `r` and undo do not rewind the random generator: with `seed=N` the whole session
//!   (restarts included) replays the same way, but a move redone after `b` may spawn a
//!   different tile.
//! - Undo keeps the last 10 000 moves ([`MAX_UNDO`]; about 1 MB, 96 bytes a move),
//!   more than a whole 4x4 game to 8192 takes, so that a scripted client cannot grow
//!   a session's memory without bound. Step keeps counting past it.
//! - `q` answers `Bye!` and goes back to the lobby.
//! - Without `seed`, the generator is seeded from the operating system when the game
//!   is built (in [`from_args`]); the game itself stays pure.
//! - `seed=N` is any `u64`; it seeds ChaCha8 through `SeedableRng::seed_from_u64`
//!   (documented by rand_core as value-stable) and tiles are drawn by
//!   [`board::below`], our own code, so the same seed replays the same game in later
//!   versions. A test in `board.rs` pins the first spawns of one seed.
//! - `win=N` must be a power of two from 4 up to the largest tile the board can make
//!   (`2^(cells+1)`: 1024 on 3x3, 131072 on 4x4); `size=` may come before or after it.
//!   Arguments are `key=value` words in any order, keys and style names in any case;
//!   a repeated or unknown key is refused with a one-line message.

pub mod board;
mod bot;
pub mod describe;
pub mod render;

use std::collections::VecDeque;
use std::fmt::Write as _;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use self::board::{Board, Direction, SizeError, Tile, MAX_SIZE, MIN_SIZE};
use self::render::Style;
use super::{Finish, Game, Memory, Outcome, Progress, Reply, Tiles, BYE, PROMPT};

const ILLEGAL: &str = "Illegal operation!\n";
const NOTHING_TO_UNDO: &str = "Nothing to undo.\n";
const YOU_WIN: &str = "You win!\n";
const GAME_OVER: &str = "Game over!\n";
const STUCK: &str = "No move is possible: b goes back, r restarts, q quits.\n";
const KEYS: &str = "Keys: w/k up, a/h left, s/j down, d/l right, b back, r restart, q quit.\n";

/// How many moves `b` can take back at most.
pub const MAX_UNDO: usize = 10_000;

/// What a game is played with: the lobby's `size=`, `win=` and `style=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Cells per side, 3 to 8.
    pub size: usize,
    /// The tile that wins.
    pub win: Tile,
    /// How the board is drawn.
    pub style: Style,
}

impl Default for Settings {
    /// A 4x4 board, 2048 wins, box drawing: the spec's defaults.
    fn default() -> Settings {
        Settings {
            size: 4,
            win: Tile::from_exponent(11).unwrap_or(Tile::FOUR),
            style: Style::Box,
        }
    }
}

impl Settings {
    /// The leaderboard these settings play for: `size=4`, and the win value after it
    /// when it is not the default (`size=4 win=64`), so that a game won at 64 never
    /// ranks with the games played to 2048. The style draws, it does not play: it is
    /// not part of it.
    pub fn level(&self) -> String {
        if self.win == Settings::default().win {
            format!("size={}", self.size)
        } else {
            format!("size={} win={}", self.size, self.win.value())
        }
    }
}

/// The largest tile a board of `size` by `size` can make: `2^(cells + 1)`.
pub fn largest_tile(size: usize) -> u128 {
    let exponent = (size * size + 1).min(usize::from(board::MAX_EXPONENT));
    1u128 << exponent
}

/// Why the lobby's arguments for `2048` cannot start a game. Each message is one line
/// that says what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// A word that is not `size=`, `win=`, `seed=` or `style=`.
    #[error("Unknown argument: {0}. Use size=N, win=N, seed=N, style=box|ascii.")]
    Unknown(String),
    /// The same setting twice.
    #[error("{0} is given twice: give it once.")]
    Twice(&'static str),
    /// `size=` outside 3 to 8.
    #[error("size must be {MIN_SIZE} to {MAX_SIZE}.")]
    Size,
    /// `win=` is not a power of two the board can reach.
    #[error("win must be a power of two from 4 to {largest} on a {size}x{size} board.")]
    Win {
        /// The board side.
        size: usize,
        /// The largest tile that board can make.
        largest: u128,
    },
    /// `seed=` is not a `u64`.
    #[error("seed must be a whole number from 0 to {}.", u64::MAX)]
    Seed,
    /// `style=` is not `box` or `ascii`.
    #[error("style must be box or ascii.")]
    Style,
    /// No `seed=` and the operating system gave no randomness.
    #[error("Could not seed the random generator ({0}): give seed=N.")]
    Entropy(String),
}

/// Build a game from the lobby's arguments `[size=N] [win=N] [seed=N]
/// [style=box|ascii]`, in any order, keys and style names in any case. Without
/// `seed=` the generator is seeded from the operating system.
///
/// # Errors
/// [`ArgsError`] for an unknown or repeated argument or a value out of range.
pub fn from_args(args: &[&str]) -> Result<Twenty48, ArgsError> {
    let (settings, seed) = parse_args(args)?;
    let rng = match seed {
        Some(seed) => ChaCha8Rng::seed_from_u64(seed),
        None => ChaCha8Rng::try_from_os_rng().map_err(|e| ArgsError::Entropy(e.to_string()))?,
    };
    Twenty48::new(settings, rng).map_err(|_| ArgsError::Size)
}

/// The settings and the seed, if any, named by the lobby's arguments.
///
/// # Errors
/// As [`from_args`].
pub fn parse_args(args: &[&str]) -> Result<(Settings, Option<u64>), ArgsError> {
    let mut size = None;
    let mut win = None;
    let mut seed = None;
    let mut style = None;
    for &arg in args {
        let Some((key, value)) = arg.split_once('=') else {
            return Err(ArgsError::Unknown(arg.to_string()));
        };
        let key = key.to_ascii_lowercase();
        let (name, parsed) = match key.as_str() {
            "size" => ("size", size.replace(value)),
            "win" => ("win", win.replace(value)),
            "seed" => ("seed", seed.replace(value)),
            "style" => ("style", style.replace(value)),
            _ => return Err(ArgsError::Unknown(arg.to_string())),
        };
        if parsed.is_some() {
            return Err(ArgsError::Twice(name));
        }
    }
    let mut settings = Settings::default();
    if let Some(size) = size {
        settings.size = size
            .parse()
            .ok()
            .filter(|size| (MIN_SIZE..=MAX_SIZE).contains(size))
            .ok_or(ArgsError::Size)?;
    }
    if let Some(win) = win {
        let largest = largest_tile(settings.size);
        settings.win = win
            .parse::<u128>()
            .ok()
            .filter(|&win| (4..=largest).contains(&win))
            .and_then(Tile::from_value)
            .ok_or(ArgsError::Win {
                size: settings.size,
                largest,
            })?;
    }
    if let Some(style) = style {
        settings.style = style.parse().map_err(|_| ArgsError::Style)?;
    }
    let seed = match seed {
        Some(seed) => Some(seed.parse::<u64>().map_err(|_| ArgsError::Seed)?),
        None => None,
    };
    Ok((settings, seed))
}

/// One key typed during a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `w`/`k` up, `a`/`h` left, `s`/`j` down, `d`/`l` right.
    Move(Direction),
    /// `b`: take the last move back.
    Back,
    /// `r`: a new game.
    Restart,
    /// `q`: back to the lobby.
    Quit,
}

impl Command {
    /// The command of a line holding exactly one key, in either case; `None` for
    /// anything else (an empty line, a word, an unknown letter).
    pub fn parse(line: &str) -> Option<Command> {
        let mut chars = line.chars();
        let key = chars.next()?;
        if chars.next().is_some() {
            return None;
        }
        Some(match key.to_ascii_lowercase() {
            'w' | 'k' => Command::Move(Direction::Up),
            'a' | 'h' => Command::Move(Direction::Left),
            's' | 'j' => Command::Move(Direction::Down),
            'd' | 'l' => Command::Move(Direction::Right),
            'b' => Command::Back,
            'r' => Command::Restart,
            'q' => Command::Quit,
            _ => return None,
        })
    }
}

/// The board and score before a move, for undo.
#[derive(Debug, Clone, Copy)]
struct Snapshot {
    board: Board,
    score: u128,
}

/// One game of 2048.
#[derive(Debug, Clone)]
pub struct Twenty48 {
    settings: Settings,
    rng: ChaCha8Rng,
    board: Board,
    /// See [`board`]'s module documentation for why `u128` cannot overflow.
    score: u128,
    step: u64,
    /// Oldest first; at most [`MAX_UNDO`].
    history: VecDeque<Snapshot>,
    /// A tile has reached the win value in this game.
    won: bool,
    /// The deal just ended (quit, or restarted after a move), until taken as a result.
    finish: Option<Finish>,
    /// Reader mode: the rows in words instead of the grid ([`Game::set_reader`]).
    reader: bool,
}

impl Twenty48 {
    /// A new game with its two opening tiles already drawn from `rng`.
    ///
    /// # Errors
    /// [`SizeError`] when `settings.size` is not 3 to 8.
    pub fn new(settings: Settings, rng: ChaCha8Rng) -> Result<Twenty48, SizeError> {
        let board = Board::empty(settings.size)?;
        let mut game = Twenty48 {
            settings,
            rng,
            board,
            score: 0,
            step: 0,
            history: VecDeque::new(),
            won: false,
            finish: None,
            reader: false,
        };
        game.deal();
        Ok(game)
    }

    /// A new game whose tiles come from `seed`: the same seed, the same game.
    ///
    /// # Errors
    /// As [`Twenty48::new`].
    pub fn with_seed(settings: Settings, seed: u64) -> Result<Twenty48, SizeError> {
        Twenty48::new(settings, ChaCha8Rng::seed_from_u64(seed))
    }

    /// What the game is played with.
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The board as it stands.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The score of this game.
    pub fn score(&self) -> u128 {
        self.score
    }

    /// Moves made in this game (less those taken back).
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Whether a tile has reached the win value in this game.
    pub fn has_won(&self) -> bool {
        self.won
    }

    /// The deal as a result: won once a tile reached the win value, else stopped.
    fn result(&self) -> Finish {
        let outcome = if self.won {
            Outcome::Won
        } else {
            Outcome::Stopped
        };
        let largest = self.board.max_tile().map_or(0, Tile::value);
        Finish {
            moves: self.step,
            score: u64::try_from(self.score).unwrap_or(u64::MAX),
            largest_tile: u64::try_from(largest).unwrap_or(u64::MAX),
            ..Finish::new(outcome)
        }
    }

    /// Whether no move is possible.
    pub fn is_over(&self) -> bool {
        !self.board.can_move()
    }

    /// Start from an empty board with two spawned tiles, score and step 0.
    fn deal(&mut self) {
        self.board = self.board.cleared();
        self.board.spawn(&mut self.rng);
        self.board.spawn(&mut self.rng);
        self.score = 0;
        self.step = 0;
        self.history.clear();
        self.won = false;
    }

    /// Whether the board has just reached the win value for the first time.
    fn first_win(&mut self) -> bool {
        let reached = self
            .board
            .max_tile()
            .is_some_and(|tile| tile >= self.settings.win);
        let first = reached && !self.won;
        self.won |= reached;
        first
    }

    /// The board, the status line, `You win!` if `won_now`, `Game over!` if stuck,
    /// and the prompt; the board in words in reader mode.
    fn show(&self, text: String, won_now: bool, memory: &Memory) -> Reply {
        self.show_as(text, won_now, memory, self.reader)
    }

    /// [`Twenty48::show`], the board drawn or in `words`.
    fn show_as(&self, mut text: String, won_now: bool, memory: &Memory, words: bool) -> Reply {
        let best = memory.get::<Best>().map_or(0, |best| best.0);
        if words {
            describe::push_rows(&self.board, &mut text);
        } else {
            render::render_into(&self.board, self.settings.style, &mut text);
        }
        let _ = writeln!(
            text,
            "Score: {}  Best: {}  Step: {}",
            self.score, best, self.step
        );
        if won_now {
            text.push_str(YOU_WIN);
        }
        if self.is_over() {
            text.push_str(GAME_OVER);
        }
        text.push_str(PROMPT);
        Reply::playing(text)
    }

    /// A one-line message and the prompt, without the board.
    fn say(message: &str) -> Reply {
        Reply::playing(format!("{message}{PROMPT}"))
    }

    fn slide(&mut self, direction: Direction, memory: &mut Memory) -> Reply {
        if self.is_over() {
            return Twenty48::say(STUCK);
        }
        let slid = match self.board.slide(direction) {
            Ok(slid) => slid,
            // SPEC's `This move has no effect.` is the error's own text.
            Err(no_effect) => return Twenty48::say(&format!("{no_effect}\n")),
        };
        let mut text = String::new();
        if self.reader {
            describe::push_merged(&describe::merges(&self.board, direction), &mut text);
        }
        if self.history.len() == MAX_UNDO {
            self.history.pop_front();
        }
        self.history.push_back(Snapshot {
            board: self.board,
            score: self.score,
        });
        self.board = slid.board;
        let spawned = self.board.spawn(&mut self.rng);
        if let (true, Some(spawned)) = (self.reader, spawned) {
            describe::push_spawned(spawned, &mut text);
        }
        self.score = self.score.saturating_add(slid.gained);
        self.step = self.step.saturating_add(1);
        let best = memory.part::<Best>();
        best.0 = best.0.max(self.score);
        let won_now = self.first_win();
        self.show(text, won_now, memory)
    }

    fn back(&mut self, memory: &Memory) -> Reply {
        let Some(snapshot) = self.history.pop_back() else {
            return Twenty48::say(NOTHING_TO_UNDO);
        };
        self.board = snapshot.board;
        self.score = snapshot.score;
        self.step = self.step.saturating_sub(1);
        let text = if self.reader {
            String::from("You take back a move.\n")
        } else {
            String::new()
        };
        self.show(text, false, memory)
    }
}

/// 2048's part of a session's [`Memory`]: the highest score reached in the session.
/// `u128` because a score on an 8x8 board could in theory pass `u64::MAX` (see
/// [`board`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Best(pub u128);

impl Game for Twenty48 {
    fn start(&mut self, memory: &mut Memory) -> Reply {
        let won_now = self.first_win();
        let welcome = format!(
            "Welcome to 2048! Join equal tiles to make {}.\n{KEYS}",
            self.settings.win.value()
        );
        self.show(welcome, won_now, memory)
    }

    fn handle(&mut self, line: &str, memory: &mut Memory) -> Reply {
        match Command::parse(line) {
            None => Twenty48::say(ILLEGAL),
            Some(Command::Quit) => {
                self.finish = Some(self.result());
                Reply::ended(String::from(BYE))
            }
            Some(Command::Restart) => {
                if self.step > 0 {
                    self.finish = Some(self.result());
                }
                self.deal();
                let won_now = self.first_win();
                self.show(String::new(), won_now, memory)
            }
            Some(Command::Back) => self.back(memory),
            Some(Command::Move(direction)) => self.slide(direction, memory),
        }
    }

    fn view(&self, memory: &Memory) -> String {
        // Drawn whatever the player's mode: a watcher may not use a reader.
        self.show_as(String::new(), false, memory, false).text
    }

    fn help(&self) -> &'static str {
        KEYS
    }

    fn set_reader(&mut self, on: bool) {
        self.reader = on;
    }

    fn describe(&self, memory: &Memory) -> String {
        self.show_as(String::new(), false, memory, true).text
    }

    fn exit_command(&self) -> &'static str {
        "q"
    }

    fn observe(&self, _memory: &Memory) -> crate::games::bot::Observation {
        self.observation()
    }

    fn action_line(&self, action: &str) -> Option<&'static str> {
        bot::action_line(action)
    }

    fn take_finish(&mut self) -> Option<Finish> {
        self.finish.take()
    }

    fn progress(&self) -> Progress {
        let ended = if self.won {
            Some(Outcome::Won)
        } else if self.is_over() {
            Some(Outcome::Stopped)
        } else {
            None
        };
        let largest = self.board.max_tile().map_or(0, Tile::value);
        Progress {
            moves: self.step,
            tiles: Some(Tiles {
                score: u64::try_from(self.score).unwrap_or(u64::MAX),
                largest: u64::try_from(largest).unwrap_or(u64::MAX),
                win: u64::try_from(self.settings.win.value()).unwrap_or(u64::MAX),
            }),
            ended,
            ..Progress::default()
        }
    }
}

/// How far a 2048 game has got, in its own words: `score 1024, tile 128, 40 moves`,
/// after `reached 2048, ` or `no move left, ` once it has ended.
pub(super) fn how_far(progress: &Progress, tiles: Tiles) -> String {
    let reached = match progress.ended {
        Some(Outcome::Won) => format!("reached {}, ", tiles.win),
        Some(_) => String::from("no move left, "),
        None => String::new(),
    };
    format!(
        "{reached}score {}, tile {}, {}",
        tiles.score,
        tiles.largest,
        super::words::moves(progress.moves)
    )
}

/// What the other racers hear of a 2048 game going from `before` to `after`: the win
/// tile reached (in `time`) or no move left, or a new largest tile from the
/// [`milestone`] on.
pub(super) fn news(
    before: &Progress,
    after: &Progress,
    tiles: Tiles,
    time: impl FnOnce() -> String,
) -> Option<String> {
    if before.ended.is_none() {
        match after.ended {
            Some(Outcome::Won) => {
                return Some(format!(
                    "reached {} in {}: score {}, {}.",
                    tiles.win,
                    time(),
                    tiles.score,
                    super::words::moves(after.moves)
                ))
            }
            Some(_) => {
                return Some(format!(
                    "has no move left: score {}, tile {}.",
                    tiles.score, tiles.largest
                ))
            }
            None => {}
        }
    }
    match before.tiles {
        Some(was) if tiles.largest > was.largest && tiles.largest >= milestone(tiles.win) => {
            Some(format!("reached {}.", tiles.largest))
        }
        _ => None,
    }
}

/// The smallest tile worth telling the other racers about: the last doublings before
/// the win (64 to 1024 when 2048 wins), and never the opening tiles.
pub fn milestone(win: u64) -> u64 {
    (win / 32).max(8)
}

#[cfg(test)]
mod tests;
