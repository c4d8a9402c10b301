//! arcade: a game server for `telnet` and `nc`.
//!
//! Players connect over plain TCP, land in a lobby, pick a game and play it as text
//! boards. The crate is laid out like tokio's mini-redis: a thin binary, and a library
//! of a few modules that each own one thing.
//!
//! - [`server`] accepts and limits connections and shuts down cleanly;
//! - [`telnet`] is the line codec (telnet commands out, `\r\n` in);
//! - [`session`] runs one connection: the lobby, then a game;
//! - [`lobby`] parses lobby commands and starts games by name;
//! - [`games`] holds one pure state machine per game;
//! - [`levels`] loads the built-in and user-supplied level files;
//! - [`saves`] writes saved games atomically;
//! - [`play`] runs one game on stdin/stdout;
//! - [`loadtest`] drives thousands of sessions against a server and measures them.

pub mod games;
pub mod levels;
pub mod loadtest;
pub mod lobby;
pub mod play;
pub mod saves;
pub mod server;
pub mod session;
pub mod telnet;
