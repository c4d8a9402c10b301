//! Several instances: the bus between them (presence, direct messages, what travels,
//! where it is and how an instance proves itself to it) and the desk of races kept on
//! another instance.

pub mod auth;
pub mod bus;
mod direct;
mod presence;
pub mod race_desk;
mod shared;
pub mod url;
pub mod wire;
