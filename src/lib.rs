//! arcade: a game server for `telnet` and `nc`.
//!
//! Players connect over plain TCP, land in a lobby, pick a game and play it as text
//! boards. The crate is laid out like tokio's mini-redis: a thin binary, and a library
//! of a few modules that each own one thing.
//!
//! - [`server`] accepts and limits connections and shuts down cleanly;
//! - [`proxy`] reads the PROXY protocol header HAProxy puts before a connection;
//! - [`shutdown`] is the signal every session listens for;
//! - [`telnet`] is the line codec (telnet commands out, `\r\n` in);
//! - [`terminal`] reads single keys, edits lines and colours boards (`set keys`,
//!   `set color`);
//! - [`session`] carries one connection's bytes and messages: lines in, replies and
//!   messages out;
//! - [`registry`] knows every session, its name and place, and reaches each one's
//!   [`inbox`];
//! - [`race`] holds the rules of races: racers, progress, standings, places;
//! - [`social`] is a player among the others: names, chat, watching, settings;
//! - [`accounts`] checks names and hashes passwords; [`store`] keeps accounts;
//! - [`console`] decides what a line does: the lobby's commands or the game's;
//! - [`lobby`] parses lobby commands and writes their texts;
//! - [`table`] is the table of games: how each one starts, its levels, its scripts;
//! - [`games`] holds one pure state machine per game and depends on nothing else here;
//! - [`levels`] loads the built-in and user-supplied level files;
//! - [`saves`] writes saved games atomically;
//! - [`play`] runs one game on stdin/stdout;
//! - `fuzzing` (hidden, not an API) holds the properties the fuzz targets under `fuzz/`
//!   check, so that `cargo test` replays the inputs kept under `fuzz/regressions/`.

pub mod catalog;
pub mod cluster;
pub mod codec;
pub mod console;
#[doc(hidden)]
pub mod fuzzing;
pub mod games;
pub mod metrics;
pub mod net;
pub mod players;
pub mod races;
pub mod records;
pub mod seat;
pub mod store;
pub mod text;
pub mod web;
