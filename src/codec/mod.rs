//! Pure byte codecs: telnet, terminal keys and painting, the PROXY header.

pub mod proxy;
pub mod telnet;
pub mod terminal;
