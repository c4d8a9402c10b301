//! Connections: the accept loop, a session's transport, its idle timer and terminal
//! state, shutdown, the PROXY header read off the socket, and local play on stdin.

pub mod idle;
pub mod listener;
pub mod play;
pub mod proxy;
pub mod session;
pub mod shutdown;
pub mod ssh;
pub mod tty;
