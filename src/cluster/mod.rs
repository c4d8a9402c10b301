//! Several instances: the bus between them.

pub mod bus;
