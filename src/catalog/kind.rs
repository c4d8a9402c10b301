//! What one row of the table of games holds: how a game starts, its levels, its
//! leaderboards, its load-test script, its keys and its palette. The rows themselves
//! are one file per game beside this one.
//!
//! A row's functions may read the disk (a saved wumpus world, the list of saves): the
//! caller runs them off the event loop.

use std::borrow::Cow;
use std::path::Path;

use crate::catalog::context::Context;
use crate::codec::terminal::{Arrow, Palette};
use crate::games::{Finish, Game, Memory, Outcome};
use crate::text::count;

/// A game just built, not yet started.
pub type NewGame = Box<dyn Game>;

/// What of a session's [`Memory`] a game shows, written as text for a recording and
/// read back for its replay (2048's best score), so that a replay is byte for byte
/// what the player saw.
#[derive(Debug, Clone, Copy)]
pub struct MemoryCodec {
    /// The part this game reads, as text (empty: nothing).
    pub remember: fn(&Memory) -> String,
    /// Put the part back into a fresh memory.
    pub recall: fn(&str, &mut Memory),
}

/// For games that remember nothing between games.
pub(super) const NO_MEMORY: MemoryCodec = MemoryCodec {
    remember: |_| String::new(),
    recall: |_, _| {},
};

/// `arcade play NAME FILE [ARGS]`: a game on a level file named on the command line,
/// with the arguments after it.
pub type FromFile = fn(&Path, &[&str], &Context) -> Result<NewGame, String>;

/// Build a game from the state it wrote ([`Game::state`]).
pub type FromState = fn(&str, &Context) -> Result<NewGame, String>;

/// How to start a game, for `help`: the words to type and what the game is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// `play` arguments, starting with the game's name.
    pub args: &'static str,
    /// One line about the game and its defaults.
    pub about: &'static str,
}

/// How one of a game's leaderboards ranks results (SPEC section 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    /// Solved, fewest moves, then fewest pushes.
    Moves,
    /// Solved, fewest pushes, then fewest moves.
    Pushes,
    /// Highest score.
    Score,
    /// Most wins with the gold, then fewest actions.
    Gold,
}

impl Board {
    /// Where `finish` stands on this board against another of the same level: the
    /// smaller, the better (a player's best result, for `stats`).
    pub fn rank(self, finish: &Finish) -> (bool, u64, u64) {
        let unsolved = finish.outcome != Outcome::Solved;
        match self {
            Board::Moves => (unsolved, finish.moves, finish.pushes),
            Board::Pushes => (unsolved, finish.pushes, finish.moves),
            Board::Score => (false, u64::MAX - finish.score, 0),
            Board::Gold => (!finish.gold, finish.moves, 0),
        }
    }

    /// A result as this board counts it, in words.
    pub fn describe(self, finish: &Finish) -> String {
        match self {
            Board::Moves | Board::Pushes => {
                format!(
                    "{}, {}",
                    count(finish.moves, "move", "moves"),
                    count(finish.pushes, "push", "pushes")
                )
            }
            Board::Score => format!("score {}, tile {}", finish.score, finish.largest_tile),
            Board::Gold if finish.gold => {
                format!("out with the gold in {} actions", finish.moves)
            }
            Board::Gold => format!("{} after {} actions", finish.outcome.as_str(), finish.moves),
        }
    }
}

/// What a load-test session types in this game: the lobby line that starts it, then
/// a cycle of real moves that never ends it (each row's tests prove it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadScript {
    /// The lobby line that starts the game.
    pub lobby_line: &'static str,
    /// The commands sent in turn, from the first again after the last.
    pub commands: &'static [&'static str],
}

/// One game of the arcade: one row of the table of games.
pub struct GameKind {
    /// The name a player types (any case), and the folder of its levels and saves.
    pub name: &'static str,
    /// For `help`.
    pub usage: Usage,
    /// Build the game from the words after `play NAME`.
    ///
    /// Errors are one line (no line ending) naming the choices.
    pub start: fn(&[&str], &Context) -> Result<NewGame, String>,
    /// What `levels NAME` lists; empty for a game that loads nothing.
    pub level_names: fn(&Context) -> Vec<String>,
    /// `arcade play NAME FILE [ARGS]`: the game on a level file given on the command
    /// line, for games that load files.
    pub from_file: Option<FromFile>,
    /// What `arcade loadtest --game NAME` plays, for games that have a script.
    pub load_script: Option<LoadScript>,
    /// The arguments to record, from those typed: a game that draws randomness adds
    /// the seed it drew, so that its recording replays (an unseeded 2048).
    pub recorded_args: fn(Vec<String>) -> Vec<String>,
    /// The leaderboard's level of a game started with these arguments (`classic`,
    /// the 2048 size); a game that moves between levels names them in its finishes.
    pub level_key: fn(&[String]) -> String,
    /// What the game shows of the session's memory.
    pub memory: MemoryCodec,
    /// Build the game from a state it wrote ([`Game::state`]), for a recording whose
    /// start keeps one (a wumpus world, saved or built in).
    pub from_state: Option<FromState>,
    /// Its leaderboards, per level (`top GAME LEVEL`), the first the main one.
    pub boards: &'static [Board],
    /// The arguments of a race from those typed after `race GAME`: every racer plays
    /// the same (2048 draws one seed for all; Star Pusher plays the one level only).
    pub race_args: fn(Vec<String>) -> Vec<String>,
    /// What single keys and arrow keys do in the game (`set keys on`).
    pub keys: Keys,
    /// How its boards are coloured (`set color on`); `None`: it draws no board.
    pub palette: Option<Palette>,
}

/// How a game reads single keys (SPEC section 10).
#[derive(Debug, Clone, Copy)]
pub struct Keys {
    /// The line a key stands for when pressed on an empty line with keys on, if it
    /// acts at once; every other key starts a typed line.
    pub instant: fn(char) -> Option<&'static str>,
    /// The line each arrow key stands for, in both modes: up, down, right, left (empty:
    /// the arrow does nothing here).
    pub arrows: [&'static str; 4],
    /// With keys on, the line of the game's help that is wrong then (a key that acts
    /// at once cannot be followed by a count: `d3` is `d`, then `3`), and the lines
    /// that say what to type instead. `None`: the game's help holds in both modes.
    pub help: Option<KeysHelp>,
}

/// A line of a game's help and what replaces it with keys on.
#[derive(Debug, Clone, Copy)]
pub struct KeysHelp {
    /// The line as the game's help has it, line ending included.
    pub typed: &'static str,
    /// The lines instead, with keys on.
    pub keys: &'static str,
}

impl Keys {
    /// The line `arrow` stands for, if any.
    pub fn arrow(&self, arrow: Arrow) -> Option<&'static str> {
        let line = match arrow {
            Arrow::Up => self.arrows[0],
            Arrow::Down => self.arrows[1],
            Arrow::Right => self.arrows[2],
            Arrow::Left => self.arrows[3],
        };
        (!line.is_empty()).then_some(line)
    }

    /// The game's help `game_help` as it holds with keys on (`keys_on`) or off.
    pub fn game_help(&self, game_help: &'static str, keys_on: bool) -> Cow<'static, str> {
        match self.help {
            Some(help) if keys_on => Cow::Owned(game_help.replace(help.typed, help.keys)),
            _ => Cow::Borrowed(game_help),
        }
    }
}

impl std::fmt::Debug for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for GameKind {
    fn eq(&self, other: &GameKind) -> bool {
        self.name == other.name
    }
}

impl Eq for GameKind {}
