//! The table of games and what it reads: levels, saves.
//!
//! - [`table`]: every game in order ([`table::GAMES`]) and finding one by name;
//! - [`kind`]: what a row of the table holds ([`kind::GameKind`]);
//! - one file per game's row: how it starts, its levels, its scripts, its keys
//!   (`sokoban.rs`, `starpusher.rs`, `twenty48.rs`, `wumpus.rs`), and what they share
//!   (`start.rs`);
//! - [`context`]: the levels and saves new games start with, and `reload`;
//! - [`levels`] loads the built-in and user-supplied level files; [`saves`] writes
//!   saved games atomically.

pub mod context;
pub mod kind;
pub mod levels;
pub mod saves;
mod sokoban;
mod starpusher;
mod start;
pub mod table;
mod twenty48;
mod wumpus;
