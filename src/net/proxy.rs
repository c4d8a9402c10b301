//! Reading a connection's PROXY v2 header off the socket (`--proxy-protocol`, SPEC
//! section 11): only the header's own bytes, within [`HEADER_TIMEOUT`], parsed by
//! [`crate::codec::proxy`], so that a command the client sent right behind the header
//! stays in the stream for the session.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;
use std::time::Duration;

use ipnet::{IpNet, Ipv4Net};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::codec::proxy::{self, Fixed, HeaderError, Proxied, FIXED};

/// How long a connection has to send its whole header: HAProxy sends it at once with
/// the connection, so anything slower is not HAProxy; short, since until then the
/// connection holds a file descriptor outside `--max-sessions`.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections waiting for their header at once; beyond it a new connection is closed
/// at once (HAProxy sends the header with the connection: a crowd of connections that
/// sends none is no proxy, and each would hold a file descriptor).
pub const MAX_WAITING_FOR_HEADER: usize = 256;

/// Who may send a PROXY header (`--proxy-from`), and the places of the connections
/// waiting to send theirs.
#[derive(Debug)]
pub struct Proxies {
    from: Vec<IpNet>,
    waiting: Arc<Semaphore>,
}

impl Proxies {
    /// The proxies on the networks `from`; none given means this machine only
    /// (127.0.0.0/8 and ::1).
    pub fn new(from: Vec<IpNet>) -> Proxies {
        let from = if from.is_empty() {
            vec![
                IpNet::V4(Ipv4Net::new_assert(Ipv4Addr::new(127, 0, 0, 0), 8)),
                IpNet::from(IpAddr::from(Ipv6Addr::LOCALHOST)),
            ]
        } else {
            from
        };
        Proxies {
            from,
            waiting: Arc::new(Semaphore::new(MAX_WAITING_FOR_HEADER)),
        }
    }

    /// Whether `address` is one of the proxies'. An IPv4 address mapped into IPv6 (a
    /// dual-stack socket) counts as the IPv4 address.
    pub fn trusts(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.from.iter().any(|net| net.contains(&address))
    }

    /// A place for a connection waiting for its header, if one is free.
    pub fn wait_for_header(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.waiting).try_acquire_owned().ok()
    }

    /// The networks, for the log.
    pub fn describe(&self) -> String {
        let nets: Vec<String> = self.from.iter().map(ToString::to_string).collect();
        nets.join(", ")
    }
}

/// Why a connection's header was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Nothing, or not all of it, came in time.
    #[error("no complete PROXY header within {0:?}")]
    Timeout(Duration),
    /// The connection closed first.
    #[error("closed after {0} bytes, before a complete PROXY header")]
    Closed(usize),
    /// Reading failed.
    #[error("reading the PROXY header: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes are no valid header, or one for nobody to serve.
    #[error(transparent)]
    Header(#[from] HeaderError),
}

/// Read one PROXY v2 header from the start of `stream`, within `timeout`, and no byte
/// beyond it.
///
/// # Errors
/// [`ReadError`]: the connection is to be closed without a word.
pub async fn read_header<S>(stream: &mut S, timeout: Duration) -> Result<Proxied, ReadError>
where
    S: AsyncRead + Unpin,
{
    tokio::time::timeout(timeout, read(stream))
        .await
        .map_err(|_| ReadError::Timeout(timeout))?
}

/// [`read_header`] without the deadline.
async fn read<S>(stream: &mut S) -> Result<Proxied, ReadError>
where
    S: AsyncRead + Unpin,
{
    let mut fixed = [0u8; FIXED];
    let mut filled = 0;
    while filled < FIXED {
        let read = stream.read(&mut fixed[filled..]).await?;
        if read == 0 {
            return Err(ReadError::Closed(filled));
        }
        filled += read;
        proxy::check_start(&fixed[..filled])?;
    }
    let length = match proxy::parse_fixed(&fixed)? {
        Fixed::Whole(proxied) => return Ok(proxied),
        Fixed::Needs(length) => length,
    };
    let mut whole = vec![0u8; FIXED + length];
    whole[..FIXED].copy_from_slice(&fixed);
    if let Err(error) = stream.read_exact(&mut whole[FIXED..]).await {
        return Err(match error.kind() {
            std::io::ErrorKind::UnexpectedEof => ReadError::Closed(FIXED),
            _ => ReadError::Io(error),
        });
    }
    Ok(proxy::parse(&whole)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_listed_networks_are_proxies() {
        let local = Proxies::new(Vec::new());
        assert!(local.trusts(IpAddr::from([127, 0, 0, 1])));
        assert!(local.trusts(IpAddr::from([127, 9, 9, 9])));
        assert!(local.trusts("::1".parse().unwrap()));
        assert!(local.trusts("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!local.trusts(IpAddr::from([10, 0, 0, 5])));
        let docker = Proxies::new(vec!["172.18.0.0/16".parse().unwrap()]);
        assert!(docker.trusts(IpAddr::from([172, 18, 0, 3])));
        assert!(!docker.trusts(IpAddr::from([127, 0, 0, 1])));
        assert_eq!(docker.describe(), "172.18.0.0/16");
    }

    #[test]
    fn waiting_places_run_out() {
        let proxies = Proxies::new(Vec::new());
        let held: Vec<_> = (0..MAX_WAITING_FOR_HEADER)
            .map(|_| proxies.wait_for_header().unwrap())
            .collect();
        assert!(proxies.wait_for_header().is_none());
        drop(held);
        assert!(proxies.wait_for_header().is_some());
    }
    use ppp::v2::{
        Addresses, Builder, Command, IPv4, IPv6, ParseError, Protocol, Version, PROTOCOL_PREFIX,
    };
    use std::net::SocketAddr;
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
    async fn read_from(input: &[u8]) -> (Result<Proxied, ReadError>, Vec<u8>) {
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
        assert!(
            matches!(header, Err(ReadError::Header(HeaderError::Missing))),
            "{header:?}"
        );
        // Refused on its first byte, not after the timeout: the writer stays open.
        let (mut client, mut server) = tokio::io::duplex(64);
        client.write_all(b"w").await.unwrap();
        let header = read_header(&mut server, Duration::from_secs(3600)).await;
        assert!(
            matches!(header, Err(ReadError::Header(HeaderError::Missing))),
            "{header:?}"
        );
    }

    #[tokio::test]
    async fn version_1_is_refused() {
        let (header, _) = read_from(b"PROXY TCP4 192.0.2.1 10.0.0.1 1000 4000\r\nwho\r\n").await;
        assert!(
            matches!(header, Err(ReadError::Header(HeaderError::Version1))),
            "{header:?}"
        );
    }

    #[tokio::test]
    async fn garbage_after_the_signature_is_invalid() {
        // Version 3.
        let mut input = PROTOCOL_PREFIX.to_vec();
        input.extend_from_slice(&[0x31, 0x11, 0, 12]);
        let (header, _) = read_from(&input).await;
        assert!(
            matches!(
                header,
                Err(ReadError::Header(HeaderError::Invalid(
                    ParseError::Version(_)
                )))
            ),
            "{header:?}"
        );
        // An IPv4 header too short for two addresses and ports.
        let mut input = PROTOCOL_PREFIX.to_vec();
        input.extend_from_slice(&[0x21, 0x11, 0, 4, 1, 2, 3, 4]);
        let (header, _) = read_from(&input).await;
        assert!(
            matches!(
                header,
                Err(ReadError::Header(HeaderError::Invalid(
                    ParseError::InvalidAddresses(4, 12)
                )))
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
            matches!(
                header,
                Err(ReadError::Header(HeaderError::Unsupported("UDP")))
            ),
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
            matches!(header, Err(ReadError::Header(HeaderError::Unsupported(_)))),
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
                matches!(read, Err(ReadError::Timeout(HEADER_TIMEOUT))),
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
            assert!(matches!(header, Err(ReadError::Closed(_))), "{header:?}");
        }
    }
}
