//! Who is online: ids and places, names and accounts, inboxes, the registry (with the
//! players of other instances), and the local desk of this instance's races.

pub mod accounts;
pub mod activity;
pub mod alarms;
pub mod bans;
pub mod bot_tokens;
pub mod chat_limits;
pub mod ghosts;
pub mod hashing;
pub mod ids;
pub mod inbox;
pub mod listing;
pub mod moves;
pub mod place;
pub mod presence;
pub mod race_desk;
pub mod registry;
pub mod ssh_keys;
pub mod throttle;
mod watched;
