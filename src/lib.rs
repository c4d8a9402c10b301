//! arcade: a game server for `telnet` and `nc`.
//!
//! Players connect over plain TCP, land in a lobby, pick a game and play it as text
//! boards. The crate is laid out like tokio's mini-redis (a thin binary, a library of
//! folders that each own one thing) and lldap (one file per aggregate in the store;
//! layers that never point back up). From the bottom up, each folder uses only those
//! above it in this list (`tests/layering.rs` checks it):
//!
//! - [`games`]: one pure state machine per game; uses nothing else of the crate;
//! - [`solver`]: the Sokoban solver and deadlock checks (pure; uses `games` only);
//! - [`agents`]: the built-in agents that play the games as bots (pure; uses `games`
//!   and `solver` only);
//! - [`text`]: durations, dates, and what other players' text may show;
//! - [`codec`]: pure byte codecs: telnet, terminal keys and painting, the PROXY header;
//! - [`catalog`]: the table of games, one file per game's row; levels and saves;
//! - [`store`]: the database (SQLite or PostgreSQL), one file per thing kept;
//! - [`metrics`]: what `/metrics` counts;
//! - [`records`]: recordings of games, their writer, the check by replay, the scores;
//! - [`coach`]: help for stuck Sokoban players: warnings, hints and `/solve` on the
//!   solver, its threads and caches;
//! - [`races`]: the rules of races and the desk a racer reaches a race through;
//! - [`ladders`]: the words that open a ladder, the game a seed is, the table (pure;
//!   uses `text` only);
//! - [`players`]: who is online: ids, places, accounts, inboxes, the registry, and
//!   this instance's race desk;
//! - [`cluster`]: the bus between instances and the desk of races kept elsewhere;
//! - [`seat`]: a player among the others: names and logins, chat, watching, racing;
//! - [`console`]: what a line does (no I/O): one file per lobby command, the game's
//!   lines, jobs, replay and resume;
//! - [`net`]: connections: the accept loop and its limits, a session's transport,
//!   the idle timer, shutdown, and one game on stdin;
//! - [`web`]: the teacher's web page;
//! - `fuzzing` (hidden, not an API) holds the properties the fuzz targets under `fuzz/`
//!   check, so that `cargo test` replays the inputs kept under `fuzz/regressions/`.

// No `unsafe` of our own (descriptors pass through rustix's safe calls): what could
// break memory is in dependencies, which is why the fuzz targets run without
// AddressSanitizer (docs/developing.md, "Fuzzing").
#![forbid(unsafe_code)]

pub mod admin;
pub mod agents;
pub mod catalog;
pub mod cluster;
pub mod coach;
pub mod codec;
pub mod console;
pub mod data_dir;
#[doc(hidden)]
pub mod fuzzing;
pub mod games;
pub mod ladders;
pub mod metrics;
pub mod net;
pub mod players;
pub mod races;
pub mod records;
pub mod seat;
pub mod server;
pub mod solver;
pub mod store;
pub mod text;
pub mod upgrade;
pub mod web;
