//! The lines a Star Pusher player types, parsed into [`Command`]s: the grammar alone,
//! apart from the rules that carry the commands out (`super`).

use super::lurd::{Lurd, LurdError};
use crate::games::world::{parse_count, Direction};

/// One parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// An empty line: draw the board again.
    Look,
    /// Walk up to `count` steps, pushing as in `sokoban`.
    Walk {
        /// Where to.
        direction: Direction,
        /// How far at most; huge counts saturate, which means "until blocked".
        count: u64,
    },
    /// Take back one move.
    Undo,
    /// Play the last move taken back again.
    Redo,
    /// Back to the start of the level.
    Reset,
    /// The next level.
    Next,
    /// The previous level.
    Prev,
    /// Level number N (1-based, saturating).
    Level(u64),
    /// Play a LURD string.
    Lurd(Lurd),
    /// List the commands.
    Help,
    /// Back to the lobby.
    Exit,
}

/// Why a line is not a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Not a command at all; holds the first word as typed.
    #[error("Unknown command: {0}. Type help.")]
    Unknown(String),
    /// `level` without a number after it.
    #[error("Which level? Type level N, for example level 2.")]
    LevelNumber,
    /// `lurd` with a string that does not parse.
    #[error("Cannot play those moves: {0}.")]
    Lurd(#[from] LurdError),
}

impl Command {
    /// Parse a line. Words are case-insensitive; the moves after `lurd` keep their case,
    /// since upper case marks a push.
    ///
    /// # Errors
    /// [`CommandError`] saying what is wrong and what to type instead.
    pub fn parse(line: &str) -> Result<Command, CommandError> {
        let line = line.trim();
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, rest.trim()),
            None => (line, ""),
        };
        let lower = word.to_ascii_lowercase();
        let unknown = || CommandError::Unknown(word.to_string());
        let no_argument = |command: Command| {
            if rest.is_empty() {
                Ok(command)
            } else {
                Err(unknown())
            }
        };
        match lower.as_str() {
            "" => Ok(Command::Look),
            "u" | "undo" => no_argument(Command::Undo),
            "redo" => no_argument(Command::Redo),
            "r" | "reset" => no_argument(Command::Reset),
            "n" | "next" => no_argument(Command::Next),
            "p" | "prev" | "previous" => no_argument(Command::Prev),
            "e" | "exit" | "quit" => no_argument(Command::Exit),
            "help" | "h" | "?" => no_argument(Command::Help),
            "level" => match parse_count(rest) {
                Some(number) => Ok(Command::Level(number)),
                None => Err(CommandError::LevelNumber),
            },
            "lurd" => Ok(Command::Lurd(rest.parse()?)),
            _ => {
                if !rest.is_empty() {
                    return Err(unknown());
                }
                let mut chars = word.chars();
                let direction = chars
                    .next()
                    .and_then(Direction::from_wasd)
                    .ok_or_else(unknown)?;
                let digits = chars.as_str();
                let count = if digits.is_empty() {
                    1
                } else {
                    parse_count(digits).ok_or_else(unknown)?
                };
                Ok(Command::Walk { direction, count })
            }
        }
    }
}
