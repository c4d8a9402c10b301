//! A player among others (SPEC section 7): the name, who is online, chat, watching and
//! settings, for one session.
//!
//! A [`Seat`] is a session's place at the table: its number in the registry, its
//! name, its settings, whom it watches and who watches it. The console hands it the
//! player commands (`who`, `say`, `tell`, `watch`, `name`, `register`, `set`,
//! `quiet`) and the messages that arrive for the player. Nothing here writes to a
//! socket: a message to another player goes to that player's inbox, and what needs the
//! store or a slow hash comes back as [`Work`] for the console to hand out as a job.

mod bot;
mod chat;
mod hints;
mod login;
mod moving;
mod racing;
mod services;
mod shown;
mod state;
mod watching;
mod work;

pub use chat::TOO_FAST;
pub use moving::SeatState;
pub use racing::{open_race_for_everyone, RaceReply};
pub use services::{taken_over, Services, MAX_REPLAYS, REPLAYS_PER_ADDRESS};
pub use state::{Seat, ONLY_ADMINS};
pub(crate) use work::unfinished_game;
pub use work::{store_failed, BotLogin, Found, RegisterFailed, Reply, Work};
