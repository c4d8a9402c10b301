//! SSH (SPEC section 11, `--ssh-port`): the same lobby over an encrypted connection.
//!
//! SSH is a transport beside telnet, not a second server: its port has the telnet
//! port's accept loop and gate ([`crate::net::listener`]: `--max-sessions`,
//! `--max-per-address`, kicked addresses, the PROXY header behind HAProxy), and each
//! session channel runs the very [`Session`] a telnet connection runs, on the channel
//! as its stream. This file is the port's [`Door`] and a connection's task; the
//! folder's other files each own one thing: `host_key.rs` the server's key,
//! `auth.rs` who a client is, `handler.rs` what russh asks of a connection,
//! `stream.rs` the channel as a session's stream.
//!
//! A connection has the login timeout to authenticate and ask for a shell or a
//! command: one that stalls is closed, as a telnet client that never types is. Its
//! session then has the idle timeout, as any other.

pub mod auth;
pub mod handler;
pub mod host_key;
pub mod stream;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use russh::server::Config;
use russh::{MethodKind, MethodSet, SshId};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tracing::{debug, info};

use crate::net::listener::{Admission, Door, Gate, Listener};
use crate::net::shutdown::ShutdownSignal;

use handler::Connection;
use stream::SshStream;

/// How long a rejected password or key takes to be answered (the throttle, shared
/// with telnet, limits how many are tried).
const REJECTION_TIME: Duration = Duration::from_secs(1);

/// How long a client has to close the connection once its session ended.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// Authentication attempts in one connection (OpenSSH's `MaxAuthTries`).
const MAX_AUTH_ATTEMPTS: usize = 6;

/// What the client is told when the server closes a connection that has not started
/// its session in time.
pub const HANDSHAKE_TIMED_OUT: &str = "Closed: no session came within the login timeout";

/// The SSH port's door: a connection that passed the gate is served by russh with
/// [`Connection`] as its handler.
#[derive(Clone)]
pub(crate) struct SshDoor {
    config: Arc<Config>,
}

impl SshDoor {
    /// The door of a server whose host key is `key`.
    pub(crate) fn new(key: russh::keys::PrivateKey) -> SshDoor {
        let mut methods = MethodSet::empty();
        methods.push(MethodKind::None);
        methods.push(MethodKind::PublicKey);
        methods.push(MethodKind::Password);
        SshDoor {
            config: Arc::new(Config {
                server_id: SshId::Standard(std::borrow::Cow::Borrowed("SSH-2.0-arcade")),
                methods,
                auth_rejection_time: REJECTION_TIME,
                // OpenSSH asks with `none` first: its answer lists the other methods.
                auth_rejection_time_initial: Some(Duration::ZERO),
                keys: vec![key],
                max_auth_attempts: MAX_AUTH_ATTEMPTS,
                // The session's own idle timer and the login timeout here do it.
                inactivity_timeout: None,
                nodelay: true,
                ..Config::default()
            }),
        }
    }
}

impl Door for SshDoor {
    fn open(&self, gate: &Gate, stream: TcpStream, peer: SocketAddr, admission: Admission) {
        tokio::spawn(connection(
            Arc::clone(&self.config),
            gate.clone(),
            stream,
            peer,
            admission,
        ));
    }
}

/// Why the SSH port cannot start.
#[derive(Debug, thiserror::Error)]
pub enum SshError {
    /// Its socket cannot listen.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// Where.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The host key cannot be read or made.
    #[error("{0}")]
    HostKey(#[from] host_key::HostKeyError),
}

/// The SSH port's accept loop, when `--ssh-port` is on.
pub(crate) struct SshPort(Option<Listener<SshDoor>>);

impl SshPort {
    /// The port on `listener` (none: off), through `gate` as the telnet port, with
    /// the host key read or made in `key_file` and its fingerprint in the
    /// log, once, for the teacher to hand out.
    ///
    /// # Errors
    /// [`SshError::HostKey`], saying what to do.
    pub(crate) fn start(
        listener: Option<tokio::net::TcpListener>,
        key_file: &std::path::Path,
        gate: &Gate,
        proxy: Option<crate::net::proxy::Proxies>,
    ) -> Result<SshPort, SshError> {
        let Some(listener) = listener else {
            return Ok(SshPort(None));
        };
        let key = host_key::load_or_create(key_file)?;
        let fingerprint = host_key::fingerprint(&key);
        info!(
            file = %key_file.display(),
            "SSH host key fingerprint {fingerprint} (ED25519): players' ssh shows it on their first connection"
        );
        if let Ok(address) = listener.local_addr() {
            info!(%address, "listening for SSH");
        }
        Ok(SshPort(Some(Listener {
            listener,
            door: SshDoor::new(key),
            gate: gate.clone(),
            proxy,
            notify_shutdown: ShutdownSignal::new(),
        })))
    }

    /// Accept connections until dropped; never, when off.
    pub(crate) async fn accept_loop(&mut self) {
        match &mut self.0 {
            Some(listener) => listener.accept_loop().await,
            None => std::future::pending().await,
        }
    }

    /// Stop accepting, and end the waits for PROXY headers.
    pub(crate) fn stop(self) {
        if let Some(listener) = self.0 {
            drop(listener.listener);
            listener.notify_shutdown.fire();
        }
    }
}

/// How a connection's handshake ended.
enum Handshake {
    /// The session's stream is ready.
    Started(Box<SshStream>),
    /// The client went away, or the connection failed.
    Gone,
    /// The login timeout passed first.
    TimedOut,
    /// The server is shutting down.
    Shutdown,
}

/// One SSH connection: the handshake within the login timeout, then the player's
/// session on its channel. The connection's place (its lease, its registration) is
/// held here until the session takes it, so that a handshake counts under the limits
/// and hears the server's shutdown.
async fn connection(
    config: Arc<Config>,
    gate: Gate,
    stream: TcpStream,
    peer: SocketAddr,
    admission: Admission,
) {
    let deadline = tokio::time::Instant::now() + gate.shared.timeouts.login;
    let (start, started) = oneshot::channel();
    let handler = Connection::new(gate.shared.services.clone(), peer, start);
    debug!(%peer, "SSH connection opened");
    let running = tokio::select! {
        running = russh::server::run_stream(config, stream, handler) => match running {
            Ok(running) => running,
            Err(error) => {
                debug!(%peer, %error, "SSH connection failed before its key exchange");
                return;
            }
        },
        () = tokio::time::sleep_until(deadline) => {
            info!(%peer, "SSH client sent nothing within the login timeout: closed");
            return;
        }
        () = admission.inbox.shutdown() => return,
    };
    let handle = running.handle();
    let handshake = tokio::select! {
        started = started => match started {
            Ok(stream) => Handshake::Started(Box::new(stream)),
            Err(_) => Handshake::Gone,
        },
        () = tokio::time::sleep_until(deadline) => Handshake::TimedOut,
        () = admission.inbox.shutdown() => Handshake::Shutdown,
    };
    let stream = match handshake {
        Handshake::Started(stream) => *stream,
        Handshake::Gone => return,
        Handshake::TimedOut | Handshake::Shutdown => {
            let why = if matches!(handshake, Handshake::TimedOut) {
                info!(%peer, "SSH session not started within the login timeout: closed");
                HANDSHAKE_TIMED_OUT
            } else {
                "Server shutting down."
            };
            let _ = handle
                .disconnect(
                    russh::Disconnect::ByApplication,
                    why.to_owned(),
                    String::from("en"),
                )
                .await;
            return;
        }
    };
    if let Some(session) = gate.session(stream, peer, admission) {
        session.run().await;
    }
    // The channel is closing (exit status first, see `stream.rs`): OpenSSH's client
    // then closes the connection; one that does not is closed after a moment.
    let mut running = running;
    if tokio::time::timeout(CLOSE_WAIT, &mut running)
        .await
        .is_err()
    {
        let _ = handle
            .disconnect(
                russh::Disconnect::ByApplication,
                String::from("Goodbye."),
                String::from("en"),
            )
            .await;
        let _ = tokio::time::timeout(CLOSE_WAIT, running).await;
    }
}
