//! Games: plain state machines driven by lines of text.
//!
//! A game knows nothing of sockets, tokio or clocks. It is built from its arguments,
//! answers each input line with the text to send and whether it is still running, and
//! that is all. The session owns the connection and the game owns the rules, which is
//! what lets every game be tested without a network, played from stdin
//! (`arcade play`), and later spectated.
//!
//! Text returned by a game uses `\n` line endings; the telnet codec turns them into
//! `\r\n` on the wire and `arcade play` prints them as they are.
//!
//! This module is the leaf of the crate: it imports nothing from the rest of it. The
//! level store ([`crate::catalog::levels`]), saved games ([`crate::catalog::saves`]) and the table of
//! games ([`crate::catalog::table`]) sit above it.

use std::any::Any;

pub mod bot;
pub mod boxes;
mod glyphs;
mod progress;
pub mod reader;
#[cfg(test)]
mod reader_tests;
mod save_name;
pub mod sokoban;
pub mod starpusher;
pub mod twenty48;
mod words;
pub mod world;
pub mod wumpus;

pub use save_name::{BadSaveName, SaveName, MAX_SAVE_NAME};

/// The prompt every game ends its reply with while it waits for input (SPEC section 1).
pub const PROMPT: &str = "Enter command: ";

/// What a game says when the player leaves it (the seed's `Bye!`).
pub const BYE: &str = "Bye!\n";

/// What the session should do once it has sent a reply's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The game waits for the next line.
    Playing,
    /// The game is over; the session goes back to the lobby.
    Ended,
    /// The player asked to save the game's state under `name`. The session writes
    /// `state` to its data directory, reports the outcome and prints [`PROMPT`]: a game
    /// does no I/O, so saving is the session's job.
    Save {
        /// The name to save under, checked when the player typed it.
        name: SaveName,
        /// The whole file to write.
        state: String,
    },
}

/// A game's answer to one event: the text to send, then what happens next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// Text to send, `\n`-terminated lines, possibly ending with [`PROMPT`].
    pub text: String,
    /// Whether the game goes on.
    pub status: Status,
}

impl Reply {
    /// A reply after which the game waits for more input.
    pub fn playing(text: String) -> Self {
        Reply {
            text,
            status: Status::Playing,
        }
    }

    /// A reply that ends the game.
    pub fn ended(text: String) -> Self {
        Reply {
            text,
            status: Status::Ended,
        }
    }
}

/// How a game, or one level of it, came to an end by its rules: what a result and a
/// leaderboard keep (SPEC section 8). A game hands each one out once
/// ([`Game::take_finish`]), right after the reply that reached it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finish {
    /// The level it happened on when the game moved on from the level it started on
    /// (a Star Pusher collection's `NAME N`); `None`: the level the game started with.
    pub level: Option<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// Moves (Sokoban, Star Pusher: steps; 2048: slides; wumpus: actions).
    pub moves: u64,
    /// Moves that pushed a box (Sokoban, Star Pusher).
    pub pushes: u64,
    /// The score (2048).
    pub score: u64,
    /// The largest tile (2048).
    pub largest_tile: u64,
    /// Whether the gold came out (wumpus).
    pub gold: bool,
}

impl Finish {
    /// A finish with every count at zero.
    pub fn new(outcome: Outcome) -> Finish {
        Finish {
            level: None,
            outcome,
            moves: 0,
            pushes: 0,
            score: 0,
            largest_tile: 0,
            gold: false,
        }
    }
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
// On the bus as its word (`solved`), as instances before the derive sent it.
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A Sokoban or Star Pusher level solved.
    Solved,
    /// 2048: the win value reached; wumpus: out with the gold.
    Won,
    /// 2048: stopped (quit or restarted) without reaching the win value; wumpus: out
    /// without the gold.
    Stopped,
    /// Wumpus: eaten or fallen into a pit.
    Died,
}

impl Outcome {
    /// The word kept in the store and shown in lists.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Solved => "solved",
            Outcome::Won => "won",
            Outcome::Stopped => "stopped",
            Outcome::Died => "died",
        }
    }

    /// The outcome named by [`Outcome::as_str`].
    pub fn from_word(word: &str) -> Option<Outcome> {
        [
            Outcome::Solved,
            Outcome::Won,
            Outcome::Stopped,
            Outcome::Died,
        ]
        .into_iter()
        .find(|outcome| outcome.as_str() == word)
    }
}

/// How far a game has got, as a race shows and ranks it (SPEC section 9): each game
/// fills what it has and leaves the rest `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// Moves (Sokoban, Star Pusher: steps; 2048: slides; wumpus: actions).
    pub moves: u64,
    /// Boxes on goals, and how many the level needs there (Sokoban, Star Pusher).
    pub placed: Option<(usize, usize)>,
    /// The score, the largest tile and the tile that wins (2048).
    pub tiles: Option<Tiles>,
    /// Whether the player carries the gold or came out with it (wumpus).
    pub gold: Option<bool>,
    /// How the game came to its end by its rules, if it has: solved, won (2048's win
    /// tile, even while play goes on; out with the gold), stopped (2048 with no move
    /// left; out without the gold), died.
    pub ended: Option<Outcome>,
}

/// 2048's part of [`Progress`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
// On the bus as `[score, largest, win]`, as instances before the derive sent it.
#[serde(from = "(u64, u64, u64)", into = "(u64, u64, u64)")]
pub struct Tiles {
    /// The score.
    pub score: u64,
    /// The largest tile on the board.
    pub largest: u64,
    /// The tile that wins.
    pub win: u64,
}

impl From<(u64, u64, u64)> for Tiles {
    fn from((score, largest, win): (u64, u64, u64)) -> Tiles {
        Tiles {
            score,
            largest,
            win,
        }
    }
}

impl From<Tiles> for (u64, u64, u64) {
    fn from(tiles: Tiles) -> (u64, u64, u64) {
        (tiles.score, tiles.largest, tiles.win)
    }
}

/// What a session remembers between games, such as 2048's best score. Each game keeps
/// its own part, a type of its own ([`Memory::part`]), so that nothing shared names a
/// game; the session keeps the whole for as long as the connection lasts.
#[derive(Debug, Default)]
pub struct Memory {
    /// One value per type; a session plays a handful of games, so a short list beats
    /// a map.
    parts: Vec<Box<dyn Any + Send>>,
}

impl Memory {
    /// This session's part of type `T`, made with `T::default()` on first use.
    pub fn part<T: Any + Send + Default>(&mut self) -> &mut T {
        let index = match self.parts.iter().position(|part| part.is::<T>()) {
            Some(index) => index,
            None => {
                self.parts.push(Box::new(T::default()));
                self.parts.len() - 1
            }
        };
        match self.parts[index].downcast_mut::<T>() {
            Some(part) => part,
            // `index` was found or made for a `T` just above.
            None => unreachable!("a memory part changed its type"),
        }
    }

    /// This session's part of type `T`, if a game has made one.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.parts.iter().find_map(|part| part.downcast_ref::<T>())
    }
}

/// One running game.
pub trait Game: Send {
    /// The text sent when the game starts (welcome, first board, prompt).
    fn start(&mut self, memory: &mut Memory) -> Reply;

    /// Handle one input line. The line has already had surrounding white space removed
    /// by the session; case is left as typed so that a game may care about it.
    fn handle(&mut self, line: &str, memory: &mut Memory) -> Reply;

    /// The client closed its sending side in the middle of the game: the text to send
    /// before the connection is closed (empty for most games).
    fn end_of_input(&mut self) -> String {
        String::new()
    }

    /// The game's whole state as a file that can load it again (the wumpus world
    /// format), for `arcade play ... --save OUT`; `None` for games without one.
    fn state(&self) -> Option<String> {
        None
    }

    /// The game as it stands, without an input: what a watcher sees on arriving (the
    /// board and status line as the player last saw them), ending with [`PROMPT`].
    fn view(&self, memory: &Memory) -> String;

    /// The game's own commands, one per line, for `/help`.
    fn help(&self) -> &'static str;

    /// The line that leaves the game the game's own way, for `/leave`.
    fn exit_command(&self) -> &'static str;

    /// A level solved or the game ended by its rules since the last call: the result
    /// to keep. Asked after every reply; the game forgets it once handed out.
    fn take_finish(&mut self) -> Option<Finish> {
        None
    }

    /// How far the game has got, for a race. Asked after every reply of a racer's
    /// game, so it must be cheap.
    fn progress(&self) -> Progress;

    /// The position and its history, for a game of boxes (the help of SPEC section
    /// 13); `None` for the other games.
    fn boxes(&self) -> Option<boxes::Boxes<'_>> {
        None
    }

    /// Reader mode (SPEC section 10): from now on every reply describes the game in
    /// words instead of drawing it, until turned off. A replay never turns it on, so
    /// recordings and results do not depend on it: it changes words only, never play.
    fn set_reader(&mut self, _on: bool) {}

    /// The whole description in words, as `/look` says it, whether reader mode is on
    /// or not: what a screen reader can read instead of [`Game::view`]'s drawing. Ends
    /// with [`PROMPT`], like `view`. Nothing in it is drawn ([`reader::problem`]).
    fn describe(&self, memory: &Memory) -> String;

    /// The player's position only, as `/where` says it: one line, no prompt. `None`
    /// where a game has no position (2048).
    fn where_is(&self) -> Option<String> {
        None
    }

    /// What a program playing the game is told after each move (SPEC section 12):
    /// the observation, the legal actions and the score, as docs/bots.md specifies
    /// them for each game.
    fn observe(&self, memory: &Memory) -> bot::Observation;

    /// The line a bot's action is played as, when `action` is one of this game's
    /// (whether it is legal now is [`Game::observe`]'s to say).
    fn action_line(&self, action: &str) -> Option<&'static str>;
}

/// A boxed game is a game: what the table of games hands out.
impl<G: Game + ?Sized> Game for Box<G> {
    fn start(&mut self, memory: &mut Memory) -> Reply {
        (**self).start(memory)
    }

    fn handle(&mut self, line: &str, memory: &mut Memory) -> Reply {
        (**self).handle(line, memory)
    }

    fn end_of_input(&mut self) -> String {
        (**self).end_of_input()
    }

    fn state(&self) -> Option<String> {
        (**self).state()
    }

    fn view(&self, memory: &Memory) -> String {
        (**self).view(memory)
    }

    fn help(&self) -> &'static str {
        (**self).help()
    }

    fn exit_command(&self) -> &'static str {
        (**self).exit_command()
    }

    fn take_finish(&mut self) -> Option<Finish> {
        (**self).take_finish()
    }

    fn progress(&self) -> Progress {
        (**self).progress()
    }

    fn boxes(&self) -> Option<boxes::Boxes<'_>> {
        (**self).boxes()
    }

    fn set_reader(&mut self, on: bool) {
        (**self).set_reader(on);
    }

    fn describe(&self, memory: &Memory) -> String {
        (**self).describe(memory)
    }

    fn where_is(&self) -> Option<String> {
        (**self).where_is()
    }

    fn observe(&self, memory: &Memory) -> bot::Observation {
        (**self).observe(memory)
    }

    fn action_line(&self, action: &str) -> Option<&'static str> {
        (**self).action_line(action)
    }
}

/// Helpers for the tests of the games and of the modules above them.
#[cfg(test)]
pub(crate) mod testing {
    /// The text of `../shared/data/levels/NAME` (the public collections beside the
    /// repository). Without it a test says `skipped: ...` and passes, except under
    /// `CI=true`, where it fails: CI always has `../shared`.
    pub(crate) fn shared_levels(name: &str) -> Option<String> {
        let path = format!(
            "{}/../shared/data/levels/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(error) if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
                panic!("{path}: {error} (CI=true: ../shared must be there)")
            }
            Err(error) => {
                eprintln!("skipped: {path}: {error}");
                None
            }
        }
    }
}
