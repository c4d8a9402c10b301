//! Connections: the accept loop, a session's transport, shutdown, the PROXY header read
//! off the socket, and local play on stdin.

pub mod play;
pub mod proxy;
pub mod server;
pub mod session;
pub mod shutdown;
