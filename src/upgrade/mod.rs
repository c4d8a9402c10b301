//! Upgrades without dropping anyone (SPEC section 11): `arcade upgrade` (through the
//! control socket), SIGUSR2 or the admin's `upgrade` start the binary now on disk as a
//! new server process, which takes over this one's sockets; this one lets go only once
//! the new one serves, and otherwise goes on serving and says why.
//!
//! `wire.rs` is what the two processes say, `fds.rs` how descriptors travel with it,
//! `control.rs` the control socket and the requests, `hand_over.rs` the old process's
//! side and `take_over.rs` the new one's. The layers below (the server's listeners,
//! the data directory's lock) are handed as descriptors; nothing here knows a
//! session.

pub mod control;
pub mod fds;
pub mod hand_over;
pub mod take_over;
pub mod wire;
