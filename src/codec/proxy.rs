//! The PROXY protocol v2 header that HAProxy (`send-proxy-v2`) puts before a
//! connection's first byte, so that behind the proxy the server still sees each
//! client's own address (`--proxy-protocol`, SPEC section 11).
//!
//! Bytes in, a verdict out; no I/O. Reading them from the socket, with a deadline, is
//! `net::proxy`'s: it reads the 16 bytes that announce the header
//! ([`check_start`] on each piece, [`parse_fixed`] on the whole), then exactly the
//! length they give ([`parse`]), so that a command the client sent right behind the
//! header stays in the stream for the session. Version 1 (the text header of
//! `send-proxy`) is refused: telling where it ends means reading up to its CR LF, byte
//! by byte, and HAProxy sends version 2 whenever asked to.

use std::net::SocketAddr;

use ppp::v2::{Addresses, Command, Header, ParseError, Protocol, PROTOCOL_PREFIX};
use ppp::PartialResult as _;

/// The fixed part of a v2 header: the signature, version and command, family and
/// protocol, and the big-endian length of what follows.
pub const FIXED: usize = 16;

/// How a version 1 header starts.
const V1_PREFIX: &[u8] = b"PROXY ";

/// What a valid header says about the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proxied {
    /// Relayed for a client at this address (TCP over IPv4 or IPv6).
    Client(SocketAddr),
    /// Opened by the proxy itself (HAProxy's health checks): nobody to serve.
    Local,
}

/// Why a header's bytes were refused.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    /// The first bytes are not a PROXY header at all: a client that did not come
    /// through the proxy, typing a command.
    #[error("no PROXY header (not connected through the proxy?)")]
    Missing,
    /// A text header, as HAProxy's `send-proxy` sends.
    #[error("a PROXY protocol v1 (text) header: only v2 is read (HAProxy: send-proxy-v2)")]
    Version1,
    /// The signature is there, the rest is not a valid v2 header.
    #[error("invalid PROXY v2 header: {0}")]
    Invalid(#[from] ParseError),
    /// A valid header for a connection other than TCP over IPv4 or IPv6 (UDP, a UNIX
    /// socket, or no address): no client address to count and log.
    #[error("PROXY v2 header for {0}: only TCP over IPv4 or IPv6 is served")]
    Unsupported(&'static str),
}

/// What the fixed part of a header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fixed {
    /// The header is whole already (no addresses follow): what it says.
    Whole(Proxied),
    /// This many bytes follow the fixed part; [`parse`] takes all of them.
    Needs(usize),
}

/// Check the first bytes of a connection, fewer than [`FIXED`] of them so far:
/// refused as soon as they cannot be a signature, so that a client typing `who`
/// straight at the server is closed at once, not after the timeout.
///
/// # Errors
/// [`HeaderError::Missing`] or [`HeaderError::Version1`].
pub fn check_start(seen: &[u8]) -> Result<(), HeaderError> {
    let signature = &seen[..seen.len().min(PROTOCOL_PREFIX.len())];
    if !PROTOCOL_PREFIX.starts_with(signature) {
        let start = &seen[..seen.len().min(V1_PREFIX.len())];
        if !V1_PREFIX.starts_with(start) {
            return Err(HeaderError::Missing);
        }
        if start == V1_PREFIX {
            return Err(HeaderError::Version1);
        }
    }
    Ok(())
}

/// The fixed part alone finds a bad version, command, family or protocol before
/// anything more is read; else it gives the length of the rest.
///
/// # Errors
/// [`HeaderError`]: the connection is to be closed without a word.
pub fn parse_fixed(fixed: &[u8; FIXED]) -> Result<Fixed, HeaderError> {
    match Header::try_from(&fixed[..]) {
        Ok(header) => return proxied(&header).map(Fixed::Whole),
        Err(error) if !error.is_incomplete() => return Err(error.into()),
        Err(_) => {}
    }
    Ok(Fixed::Needs(usize::from(u16::from_be_bytes([
        fixed[FIXED - 2],
        fixed[FIXED - 1],
    ]))))
}

/// A whole header: the fixed part and the length it gives.
///
/// # Errors
/// [`HeaderError`]: the connection is to be closed without a word.
pub fn parse(whole: &[u8]) -> Result<Proxied, HeaderError> {
    proxied(&Header::try_from(whole)?)
}

/// The client's address in a parsed header, or why there is none to serve.
fn proxied(header: &Header<'_>) -> Result<Proxied, HeaderError> {
    if header.command == Command::Local {
        return Ok(Proxied::Local);
    }
    if header.protocol != Protocol::Stream {
        return Err(HeaderError::Unsupported(match header.protocol {
            Protocol::Datagram => "UDP",
            _ => "an unspecified protocol",
        }));
    }
    match header.addresses {
        Addresses::IPv4(ip) => Ok(Proxied::Client(SocketAddr::from((
            ip.source_address,
            ip.source_port,
        )))),
        // An IPv4 client seen by a proxy listening on `::` comes as ::ffff:a.b.c.d;
        // counted as a.b.c.d, it shares `--max-per-address` with its other connections.
        Addresses::IPv6(ip) => Ok(Proxied::Client(SocketAddr::new(
            ip.source_address.to_canonical(),
            ip.source_port,
        ))),
        Addresses::Unix(_) => Err(HeaderError::Unsupported("a UNIX socket")),
        Addresses::Unspecified => Err(HeaderError::Unsupported("an unspecified address")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What HAProxy 2.6 sent on a health check of a `send-proxy-v2` server (captured):
    /// LOCAL, no address, length 0.
    const HAPROXY_CHECK: &[u8] = b"\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00";

    #[test]
    fn a_start_is_refused_as_soon_as_it_cannot_be_a_signature() {
        assert!(check_start(b"").is_ok());
        assert!(check_start(&HAPROXY_CHECK[..5]).is_ok());
        assert!(check_start(b"PROX").is_ok(), "perhaps v1: read on");
        assert!(matches!(check_start(b"w"), Err(HeaderError::Missing)));
        assert!(matches!(
            check_start(b"PROXY TCP4"),
            Err(HeaderError::Version1)
        ));
    }

    #[test]
    fn a_health_check_is_whole_in_its_fixed_part() {
        let fixed: [u8; FIXED] = HAPROXY_CHECK.try_into().unwrap();
        assert_eq!(parse_fixed(&fixed).unwrap(), Fixed::Whole(Proxied::Local));
        assert_eq!(parse(HAPROXY_CHECK).unwrap(), Proxied::Local);
    }
}
