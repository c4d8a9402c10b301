//! Several instances: the bus between them and the desk of races kept elsewhere.

pub mod bus;
pub mod race_desk;
