//! One load-test client connection: connect from a chosen loopback source address, send
//! lines, and read until a prompt.
//!
//! A single source address can reach one server port from at most the ephemeral port
//! range (about 28,000 ports on Linux), and TIME_WAIT from earlier runs eats into that.
//! Spreading connections over 127.0.0.1, 127.0.0.2, ... multiplies the room. With
//! `IP_BIND_ADDRESS_NO_PORT` the kernel picks the port at `connect` time knowing the
//! whole four-tuple, instead of reserving one at `bind` time for every destination.
//!
//! With `--ssh` the same socket carries an SSH connection (russh's client): one
//! session channel with a shell and no pty, read and written as a byte stream, so
//! that everything above this file is the same for both.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use socket2::{Domain, Protocol, Socket, Type};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;
use tokio_util::either::Either;

use super::failure::{Failure, Waiting};
use arcade::{console::lobby, games, net::listener};

/// The lobby prompt that ends the banner and every lobby reply.
pub(crate) const LOBBY_PROMPT: &[u8] = lobby::PROMPT.as_bytes();
/// The prompt that ends every reply of a game waiting for input.
pub(crate) const GAME_PROMPT: &[u8] = games::PROMPT.as_bytes();
/// A reply longer than this is not one of ours: give up on the session.
const MAX_REPLY: usize = 64 * 1024;
/// The initial size of the reply buffer; a Sokoban board and prompt fit.
const READ_CAPACITY: usize = 512;

/// The source addresses to spread connections over: 127.0.0.1 to 127.0.0.N when the
/// target is an IPv4 loopback address, else none (the kernel chooses).
pub(crate) fn sources(target: SocketAddr, count: u8) -> Vec<Ipv4Addr> {
    match target {
        SocketAddr::V4(v4) if v4.ip().is_loopback() => (1..=count.max(1))
            .map(|n| Ipv4Addr::new(127, 0, 0, n))
            .collect(),
        _ => Vec::new(),
    }
}

/// An SSH session channel as a byte stream.
type SshChannel = russh::ChannelStream<russh::client::Msg>;

/// A connected client with the bytes received since the last prompt.
pub(crate) struct Connection {
    stream: Either<TcpStream, SshChannel>,
    /// With SSH: the connection's handle, which must live as long as its channel.
    _ssh: Option<russh::client::Handle<AnyHostKey>>,
    received: Vec<u8>,
    /// `The server was upgraded.` notices received (SPEC section 11), taken out of
    /// the replies they came between.
    pub(crate) upgrade_notices: u64,
}

/// What a session is told once an upgrade has moved it, before its prompt again.
const UPGRADED: &[u8] = b"\r\nThe server was upgraded.\r\n";

impl Connection {
    /// Connect to `target`, from `source` when given; by SSH when `ssh`.
    pub(crate) async fn open(
        target: SocketAddr,
        source: Option<Ipv4Addr>,
        ssh: bool,
    ) -> io::Result<Self> {
        let socket = new_socket(target, source)?;
        let stream = socket.connect(target).await?;
        let (stream, handle) = if ssh {
            let (channel, handle) = ssh_channel(stream).await?;
            (Either::Right(channel), Some(handle))
        } else {
            (Either::Left(stream), None)
        };
        Ok(Connection {
            stream,
            _ssh: handle,
            received: Vec::with_capacity(READ_CAPACITY),
            upgrade_notices: 0,
        })
    }

    /// Send `line` with a CR LF ending, in one write.
    pub(crate) async fn send_line(&mut self, line: &str) -> Result<(), Failure> {
        let mut bytes = Vec::with_capacity(line.len() + 2);
        bytes.extend_from_slice(line.as_bytes());
        bytes.extend_from_slice(b"\r\n");
        self.stream.write_all(&bytes).await.map_err(Failure::Write)
    }

    /// Read until what was received ends with `prompt`, then forget it. Fails when the
    /// other prompt comes instead (the game ended, or never started), when the server
    /// closes, or at `deadline`.
    pub(crate) async fn expect(
        &mut self,
        prompt: &[u8],
        waiting: Waiting,
        deadline: Instant,
    ) -> Result<(), Failure> {
        self.read_to_prompt(prompt, waiting, deadline).await?;
        self.received.clear();
        Ok(())
    }

    /// As [`Connection::expect`], and hand over what was received, prompt included.
    pub(crate) async fn expect_reply(
        &mut self,
        prompt: &[u8],
        waiting: Waiting,
        deadline: Instant,
    ) -> Result<Vec<u8>, Failure> {
        self.read_to_prompt(prompt, waiting, deadline).await?;
        Ok(std::mem::replace(
            &mut self.received,
            Vec::with_capacity(READ_CAPACITY),
        ))
    }

    /// Read until what was received ends with `prompt`, keeping it.
    async fn read_to_prompt(
        &mut self,
        prompt: &[u8],
        waiting: Waiting,
        deadline: Instant,
    ) -> Result<(), Failure> {
        loop {
            let read = tokio::time::timeout_at(deadline, self.stream.read_buf(&mut self.received))
                .await
                .map_err(|_| Failure::Timeout(waiting))?
                .map_err(Failure::Read)?;
            if read == 0 {
                return Err(self.closed(waiting));
            }
            self.take_upgrade_notice(prompt);
            if self.received.ends_with(prompt) {
                return Ok(());
            }
            let other = if prompt == GAME_PROMPT {
                LOBBY_PROMPT
            } else {
                GAME_PROMPT
            };
            if self.received.ends_with(other) {
                return Err(Failure::WrongPrompt {
                    waiting,
                    got: String::from_utf8_lossy(other).trim().to_string(),
                });
            }
            if self.received.len() > MAX_REPLY {
                return Err(Failure::TooLong(waiting));
            }
        }
    }

    /// Take a whole upgrade notice (with the prompt after it) out of what was
    /// received: it comes between two replies, not as one.
    fn take_upgrade_notice(&mut self, prompt: &[u8]) {
        let notice = [UPGRADED, prompt].concat();
        if let Some(at) = self
            .received
            .windows(notice.len())
            .position(|window| window == notice.as_slice())
        {
            self.received.drain(at..at + notice.len());
            self.upgrade_notices += 1;
        }
    }

    /// Read what has arrived (waiting for at least one byte) onto the end of
    /// [`Connection::buffer`], for a session that reads all the time rather than one
    /// reply after each line. Cancel-safe: nothing is lost when another branch of a
    /// `select!` wins.
    pub(crate) async fn read_some(&mut self, waiting: Waiting) -> Result<(), Failure> {
        let read = self
            .stream
            .read_buf(&mut self.received)
            .await
            .map_err(Failure::Read)?;
        if read == 0 {
            return Err(self.closed(waiting));
        }
        Ok(())
    }

    /// What was received and not yet consumed.
    pub(crate) fn buffer(&self) -> &[u8] {
        &self.received
    }

    /// Forget the first `count` bytes of [`Connection::buffer`], which were read; fail
    /// when what is left, a line or frame still arriving, is already longer than any
    /// of ours.
    pub(crate) fn consume(&mut self, count: usize, waiting: Waiting) -> Result<(), Failure> {
        self.received.drain(..count.min(self.received.len()));
        if self.received.len() > MAX_REPLY {
            return Err(Failure::TooLong(waiting));
        }
        Ok(())
    }

    /// The failure for a connection the server closed while we waited.
    fn closed(&self, waiting: Waiting) -> Failure {
        // A turned-away client gets that one line and nothing else.
        if self.received.starts_with(listener::SERVER_FULL.as_bytes()) {
            return Failure::ServerFull;
        }
        let text = String::from_utf8_lossy(&self.received);
        let last = text
            .lines()
            .rev()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or("")
            .chars()
            .take(60)
            .collect();
        Failure::Closed { waiting, last }
    }
}

/// The load tester trusts whatever host key its own server shows: it measures, it
/// does not guard anything.
pub(crate) struct AnyHostKey;

impl russh::client::Handler for AnyHostKey {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        _key: &russh::keys::PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        Ok(true)
    }
}

/// Over `stream`: SSH's handshake, the login as `guest` with no password (an
/// unregistered name, SPEC section 11), and a session channel with a shell and no pty.
async fn ssh_channel(
    stream: TcpStream,
) -> io::Result<(SshChannel, russh::client::Handle<AnyHostKey>)> {
    let config = Arc::new(russh::client::Config {
        nodelay: true,
        ..russh::client::Config::default()
    });
    let mut handle = russh::client::connect_stream(config, stream, AnyHostKey)
        .await
        .map_err(io::Error::other)?;
    let auth = handle
        .authenticate_none("guest")
        .await
        .map_err(io::Error::other)?;
    if !auth.success() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the server refused `guest` with no password",
        ));
    }
    let channel = handle
        .channel_open_session()
        .await
        .map_err(io::Error::other)?;
    channel
        .request_shell(false)
        .await
        .map_err(io::Error::other)?;
    Ok((channel.into_stream(), handle))
}

/// A non-blocking TCP socket, Nagle off, bound to `source` (port chosen at connect).
fn new_socket(target: SocketAddr, source: Option<Ipv4Addr>) -> io::Result<TcpSocket> {
    let socket = Socket::new(
        Domain::for_address(target),
        Type::STREAM,
        Some(Protocol::TCP),
    )?;
    socket.set_nonblocking(true)?;
    socket.set_tcp_nodelay(true)?;
    if let Some(source) = source {
        bind_address_no_port(&socket)?;
        socket.bind(&SocketAddr::from((source, 0)).into())?;
    }
    Ok(TcpSocket::from_std_stream(std::net::TcpStream::from(
        socket,
    )))
}

/// Ask the kernel to choose the source port at `connect` rather than at `bind`
/// (Linux 4.2+; elsewhere binding still works, with fewer ports).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // socket2 has no call for this option; see SAFETY below
fn bind_address_no_port(socket: &Socket) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let on: libc::c_int = 1;
    // SAFETY: the descriptor is open for the duration of the call, and the option value
    // is a c_int whose size we pass.
    let result = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_BIND_ADDRESS_NO_PORT,
            std::ptr::from_ref(&on).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn bind_address_no_port(_socket: &Socket) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_only_for_loopback_targets() {
        let local: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        assert_eq!(
            sources(local, 3),
            vec![
                Ipv4Addr::new(127, 0, 0, 1),
                Ipv4Addr::new(127, 0, 0, 2),
                Ipv4Addr::new(127, 0, 0, 3)
            ]
        );
        assert_eq!(sources(local, 0), vec![Ipv4Addr::LOCALHOST]);
        assert!(sources("10.0.0.1:4000".parse().unwrap(), 3).is_empty());
        assert!(sources("[::1]:4000".parse().unwrap(), 3).is_empty());
    }

    #[tokio::test]
    async fn connects_from_the_chosen_source_and_reads_to_the_prompt() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let target = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut stream, peer) = listener.accept().await.unwrap();
            stream.write_all(b"Welcome\r\n> ").await.unwrap();
            let mut line = [0u8; 4];
            stream.read_exact(&mut line).await.unwrap();
            assert_eq!(&line, b"d0\r\n");
            // The reply comes in two pieces, the second ending with the prompt.
            stream.write_all(b"#P#\r\n").await.unwrap();
            stream.write_all(b"Enter command: ").await.unwrap();
            peer
        });
        let source = Ipv4Addr::new(127, 0, 0, 2);
        let mut connection = Connection::open(target, Some(source), false).await.unwrap();
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        connection
            .expect(LOBBY_PROMPT, Waiting::Banner, deadline)
            .await
            .unwrap();
        connection.send_line("d0").await.unwrap();
        connection
            .expect(GAME_PROMPT, Waiting::Reply, deadline)
            .await
            .unwrap();
        let peer = server.await.unwrap();
        assert_eq!(peer.ip(), source);
    }

    #[tokio::test]
    async fn server_full_and_wrong_prompt_are_named() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let target = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut full, _) = listener.accept().await.unwrap();
            full.write_all(b"Server full, try again later.\r\n")
                .await
                .unwrap();
            drop(full);
            let (mut lobby, _) = listener.accept().await.unwrap();
            lobby.write_all(b"Bye!\r\n> ").await.unwrap();
            // Keep the connection open until the client has read.
            let mut rest = Vec::new();
            let _ = lobby.read_to_end(&mut rest).await;
        });
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        let mut full = Connection::open(target, None, false).await.unwrap();
        let failure = full.expect(LOBBY_PROMPT, Waiting::Banner, deadline).await;
        assert!(matches!(failure, Err(Failure::ServerFull)), "{failure:?}");
        let mut ended = Connection::open(target, None, false).await.unwrap();
        let failure = ended.expect(GAME_PROMPT, Waiting::Reply, deadline).await;
        let Err(failure) = failure else {
            panic!("the lobby prompt must not pass for a game prompt");
        };
        assert_eq!(
            failure.to_string(),
            "got the > prompt while waiting for a reply"
        );
    }
}
