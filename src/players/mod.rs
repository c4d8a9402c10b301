//! Who is online: ids, names and accounts, inboxes, the registry.

pub mod accounts;
pub mod inbox;
pub mod race_desk;
pub mod registry;
