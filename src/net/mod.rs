//! Connections: the accept loop, a session's transport, shutdown, and local play on stdin.

pub mod play;
pub mod server;
pub mod session;
pub mod shutdown;
