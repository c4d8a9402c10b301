//! Several instances: the bus between them (presence, direct messages, what travels)
//! and the desk of races kept on another instance.

pub mod bus;
mod direct;
mod presence;
pub mod race_desk;
mod shared;
pub mod wire;
