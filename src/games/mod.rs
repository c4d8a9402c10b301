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

pub mod sokoban;
pub mod starpusher;
pub mod twenty48;
pub mod world;
pub mod wumpus;

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
        /// A file name already checked by the game against its own alphabet.
        name: String,
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

/// What a session remembers between games, such as 2048's best score. Games read and
/// update it; the session keeps it for as long as the connection lasts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    /// The highest 2048 score reached in this session. `u128` because a score on an
    /// 8x8 board could in theory pass `u64::MAX` (see `twenty48::board`).
    pub best_2048: u128,
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
}
