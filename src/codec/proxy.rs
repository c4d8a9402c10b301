//! The PROXY protocol v2 header that HAProxy (`send-proxy-v2`) puts before a
//! connection's first byte, so that behind the proxy the server still sees each
//! client's own address (`--proxy-protocol`, SPEC section 11).
//!
//! Only the header's own bytes are read: the 16 bytes that announce it, then exactly
//! the length they give, so that a command the client sent right behind the header
//! stays in the stream for the session. Version 1 (the text header of `send-proxy`) is
//! refused: telling where it ends means reading up to its CR LF, byte by byte, and
//! HAProxy sends version 2 whenever asked to.

use std::net::SocketAddr;
use std::time::Duration;

use ppp::v2::{Addresses, Command, Header, ParseError, Protocol, PROTOCOL_PREFIX};
use ppp::PartialResult as _;
use tokio::io::{AsyncRead, AsyncReadExt};

/// How long a connection has to send its whole header: HAProxy sends it at once with
/// the connection, so anything slower is not HAProxy; short, since until then the
/// connection holds a file descriptor outside `--max-sessions`.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// The fixed part of a v2 header: the signature, version and command, family and
/// protocol, and the big-endian length of what follows.
const FIXED: usize = 16;

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

/// Why a connection's header was refused.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    /// Nothing, or not all of it, came in time.
    #[error("no complete PROXY header within {0:?}")]
    Timeout(Duration),
    /// The connection closed first.
    #[error("closed after {0} bytes, before a complete PROXY header")]
    Closed(usize),
    /// Reading failed.
    #[error("reading the PROXY header: {0}")]
    Io(#[from] std::io::Error),
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

/// Read one PROXY v2 header from the start of `stream`, within `timeout`, and no byte
/// beyond it.
///
/// # Errors
/// [`HeaderError`]: the connection is to be closed without a word.
pub async fn read_header<S>(stream: &mut S, timeout: Duration) -> Result<Proxied, HeaderError>
where
    S: AsyncRead + Unpin,
{
    tokio::time::timeout(timeout, read(stream))
        .await
        .map_err(|_| HeaderError::Timeout(timeout))?
}

/// [`read_header`] without the deadline.
async fn read<S>(stream: &mut S) -> Result<Proxied, HeaderError>
where
    S: AsyncRead + Unpin,
{
    let mut fixed = [0u8; FIXED];
    let mut filled = 0;
    while filled < FIXED {
        let read = stream.read(&mut fixed[filled..]).await?;
        if read == 0 {
            return Err(HeaderError::Closed(filled));
        }
        filled += read;
        // Refused as soon as the bytes cannot be a signature, so that a client typing
        // `who` straight at the server is closed at once, not after the timeout.
        let seen = &fixed[..filled.min(PROTOCOL_PREFIX.len())];
        if !PROTOCOL_PREFIX.starts_with(seen) {
            let start = &fixed[..filled.min(V1_PREFIX.len())];
            if !V1_PREFIX.starts_with(start) {
                return Err(HeaderError::Missing);
            }
            if start == V1_PREFIX {
                return Err(HeaderError::Version1);
            }
        }
    }
    // The fixed part alone finds a bad version, command, family or protocol before
    // anything more is read.
    match Header::try_from(&fixed[..]) {
        Ok(header) => return proxied(&header),
        Err(error) if !error.is_incomplete() => return Err(error.into()),
        Err(_) => {}
    }
    let length = usize::from(u16::from_be_bytes([fixed[FIXED - 2], fixed[FIXED - 1]]));
    let mut whole = vec![0u8; FIXED + length];
    whole[..FIXED].copy_from_slice(&fixed);
    if let Err(error) = stream.read_exact(&mut whole[FIXED..]).await {
        return Err(match error.kind() {
            std::io::ErrorKind::UnexpectedEof => HeaderError::Closed(FIXED),
            _ => HeaderError::Io(error),
        });
    }
    proxied(&Header::try_from(&whole[..])?)
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
    use ppp::v2::{Builder, IPv4, IPv6, Version};
    use tokio::io::AsyncWriteExt;

    /// A PROXY header for a TCP client at `source`, relayed to 10.0.0.1:4000.
    fn proxy_header(source: SocketAddr) -> Vec<u8> {
        let addresses: Addresses = match source {
            SocketAddr::V4(source) => {
                IPv4::new(*source.ip(), [10, 0, 0, 1].into(), source.port(), 4000).into()
            }
            SocketAddr::V6(source) => IPv6::new(
                *source.ip(),
                std::net::Ipv6Addr::LOCALHOST,
                source.port(),
                4000,
            )
            .into(),
        };
        Builder::with_addresses(Version::Two | Command::Proxy, Protocol::Stream, addresses)
            .build()
            .unwrap()
    }

    /// What HAProxy 2.6 sent on a health check of a `send-proxy-v2` server (captured):
    /// LOCAL, no address, length 0.
    const HAPROXY_CHECK: &[u8] = b"\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00";

    /// The header read from `input` (written at once, then the writing side closed),
    /// and the bytes left behind it.
    async fn read_from(input: &[u8]) -> (Result<Proxied, HeaderError>, Vec<u8>) {
        let (mut client, mut server) = tokio::io::duplex(256 * 1024);
        client.write_all(input).await.unwrap();
        drop(client);
        let header = read_header(&mut server, Duration::from_secs(1)).await;
        let mut rest = Vec::new();
        server.read_to_end(&mut rest).await.unwrap();
        (header, rest)
    }

    #[tokio::test]
    async fn an_ipv4_client_and_the_bytes_behind_it() {
        let source: SocketAddr = "192.0.2.7:51234".parse().unwrap();
        let mut input = proxy_header(source);
        input.extend_from_slice(b"who\r\n");
        let (header, rest) = read_from(&input).await;
        assert_eq!(header.unwrap(), Proxied::Client(source));
        assert_eq!(rest, b"who\r\n");
    }

    #[tokio::test]
    async fn an_ipv6_client_and_a_mapped_ipv4_one() {
        let source: SocketAddr = "[2001:db8::5]:4242".parse().unwrap();
        let (header, rest) = read_from(&proxy_header(source)).await;
        assert_eq!(header.unwrap(), Proxied::Client(source));
        assert!(rest.is_empty());
        let mapped: SocketAddr = "[::ffff:192.0.2.9]:80".parse().unwrap();
        let (header, _) = read_from(&proxy_header(mapped)).await;
        assert_eq!(
            header.unwrap(),
            Proxied::Client("192.0.2.9:80".parse().unwrap())
        );
    }

    #[tokio::test]
    async fn tlvs_are_read_past() {
        let addresses: Addresses = IPv4::new([192, 0, 2, 1], [10, 0, 0, 1], 1000, 4000).into();
        let mut input =
            Builder::with_addresses(Version::Two | Command::Proxy, Protocol::Stream, addresses)
                .write_tlv(ppp::v2::Type::UniqueId, b"abcdef")
                .unwrap()
                .build()
                .unwrap();
        input.extend_from_slice(b"name ann\r\n");
        let (header, rest) = read_from(&input).await;
        assert_eq!(
            header.unwrap(),
            Proxied::Client("192.0.2.1:1000".parse().unwrap())
        );
        assert_eq!(rest, b"name ann\r\n");
    }

    #[tokio::test]
    async fn a_health_check_is_local() {
        let mut input = HAPROXY_CHECK.to_vec();
        input.extend_from_slice(b"x");
        let (header, rest) = read_from(&input).await;
        assert_eq!(header.unwrap(), Proxied::Local);
        assert_eq!(rest, b"x");
        // LOCAL with addresses (other proxies send them): still LOCAL.
        let addresses: Addresses = IPv4::new([127, 0, 0, 1], [127, 0, 0, 1], 1, 2).into();
        let built =
            Builder::with_addresses(Version::Two | Command::Local, Protocol::Stream, addresses)
                .build()
                .unwrap();
        assert_eq!(read_from(&built).await.0.unwrap(), Proxied::Local);
    }

    #[tokio::test]
    async fn a_game_line_is_no_header() {
        let (header, _) = read_from(b"who\r\n").await;
        assert!(matches!(header, Err(HeaderError::Missing)), "{header:?}");
        // Refused on its first byte, not after the timeout: the writer stays open.
        let (mut client, mut server) = tokio::io::duplex(64);
        client.write_all(b"w").await.unwrap();
        let header = read_header(&mut server, Duration::from_secs(3600)).await;
        assert!(matches!(header, Err(HeaderError::Missing)), "{header:?}");
    }

    #[tokio::test]
    async fn version_1_is_refused() {
        let (header, _) = read_from(b"PROXY TCP4 192.0.2.1 10.0.0.1 1000 4000\r\nwho\r\n").await;
        assert!(matches!(header, Err(HeaderError::Version1)), "{header:?}");
    }

    #[tokio::test]
    async fn garbage_after_the_signature_is_invalid() {
        // Version 3.
        let mut input = PROTOCOL_PREFIX.to_vec();
        input.extend_from_slice(&[0x31, 0x11, 0, 12]);
        let (header, _) = read_from(&input).await;
        assert!(
            matches!(header, Err(HeaderError::Invalid(ParseError::Version(_)))),
            "{header:?}"
        );
        // An IPv4 header too short for two addresses and ports.
        let mut input = PROTOCOL_PREFIX.to_vec();
        input.extend_from_slice(&[0x21, 0x11, 0, 4, 1, 2, 3, 4]);
        let (header, _) = read_from(&input).await;
        assert!(
            matches!(
                header,
                Err(HeaderError::Invalid(ParseError::InvalidAddresses(4, 12)))
            ),
            "{header:?}"
        );
    }

    #[tokio::test]
    async fn udp_and_unix_are_not_served() {
        let addresses: Addresses = IPv4::new([192, 0, 2, 1], [10, 0, 0, 1], 1000, 4000).into();
        let udp =
            Builder::with_addresses(Version::Two | Command::Proxy, Protocol::Datagram, addresses)
                .build()
                .unwrap();
        let (header, _) = read_from(&udp).await;
        assert!(
            matches!(header, Err(HeaderError::Unsupported("UDP"))),
            "{header:?}"
        );
        let unix = Builder::with_addresses(
            Version::Two | Command::Proxy,
            Protocol::Stream,
            ppp::v2::Unix::new([0; 108], [0; 108]),
        )
        .build()
        .unwrap();
        let (header, _) = read_from(&unix).await;
        assert!(
            matches!(header, Err(HeaderError::Unsupported(_))),
            "{header:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_truncated_header_times_out() {
        let header = proxy_header("192.0.2.7:51234".parse().unwrap());
        for cut in [0, 5, FIXED, header.len() - 1] {
            let (mut client, mut server) = tokio::io::duplex(1024);
            client.write_all(&header[..cut]).await.unwrap();
            let read = read_header(&mut server, HEADER_TIMEOUT).await;
            assert!(
                matches!(read, Err(HeaderError::Timeout(HEADER_TIMEOUT))),
                "cut at {cut}: {read:?}"
            );
            drop(client);
        }
    }

    #[tokio::test]
    async fn a_truncated_header_then_closed() {
        let header = proxy_header("192.0.2.7:51234".parse().unwrap());
        for cut in [0, 5, FIXED, header.len() - 1] {
            let (header, _) = read_from(&header[..cut]).await;
            assert!(matches!(header, Err(HeaderError::Closed(_))), "{header:?}");
        }
    }
}
