//! The accept loop and the gate every connection passes: its place under
//! `--max-sessions` (a semaphore; a client beyond the cap is told `Server full, try
//! again later.` and closed at once, never left waiting) and under
//! `--max-per-address` (and an address an admin kicked for a while is told so and
//! closed), then a task of its own running its [`Session`]. Behind HAProxy
//! (`--proxy-protocol`) each connection first gives its client's address in a PROXY
//! header ([`crate::net::proxy`]), read in the connection's own task.
//!
//! The same loop and gate serve the SSH port (`--ssh-port`): what a let-in connection
//! becomes is its listener's [`Door`], a telnet [`Session`] here, an SSH connection in
//! [`crate::net::ssh`].

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};
use tracing::{debug, error, info, warn};

use crate::catalog::table::Context;
use crate::codec::proxy::Proxied;
use crate::net::idle::Timeouts;
use crate::net::proxy;
use crate::net::session::{Lease, Session, Transport};
use crate::net::shutdown::{Shutdown, ShutdownSignal};
use crate::players::inbox::Inbox;
use crate::players::registry::{Registration, Registry};
use crate::seat::Services;

/// Sent to a client that connects while the server is full.
pub const SERVER_FULL: &str = "Server full, try again later.\r\n";

/// Sent, with the limit, to a client whose address already has `--max-per-address`
/// sessions.
pub const TOO_MANY_FROM_ADDRESS: &str = "Too many connections from your address";

/// Sent, with the time left, to a client whose address an admin kicked for a while
/// (`kick NAME for TIME`).
pub const KICKED_ADDRESS: &str =
    "A player at your address was kicked by an admin:\r\nconnections from it are refused for another";

/// What the sessions of one server share: levels, the data directory, limits, the
/// registry.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) context: Arc<Context>,
    pub(crate) timeouts: Timeouts,
    pub(crate) max_per_address: usize,
    pub(crate) registry: Registry,
    pub(crate) services: Services,
}

/// What a connection that passed the gate becomes.
pub(crate) trait Door: Clone + Send + Sync + 'static {
    /// Serve `stream` from `peer`, let in as `admission`, in a task of its own.
    fn open(&self, gate: &Gate, stream: TcpStream, peer: SocketAddr, admission: Admission);
}

/// The telnet port's door: a [`Session`] on the socket.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Telnet;

impl Door for Telnet {
    fn open(&self, gate: &Gate, stream: TcpStream, peer: SocketAddr, admission: Admission) {
        if let Some(session) = gate.session(stream, peer, admission) {
            tokio::spawn(session.run());
        }
    }
}

/// What a connection that passed the gate holds: its place in the registry, its
/// inbox, and its lease.
pub(crate) struct Admission {
    pub(crate) registration: Registration,
    pub(crate) inbox: Inbox,
    pub(crate) lease: Lease,
}

/// The accept loop and what it hands to each session.
pub(crate) struct Listener<D: Door = Telnet> {
    pub(crate) listener: TcpListener,
    /// What a let-in connection becomes.
    pub(crate) door: D,
    pub(crate) gate: Gate,
    /// `--proxy-protocol`: each connection comes from a proxy and starts with a PROXY
    /// header.
    pub(crate) proxy: Option<proxy::Proxies>,
    pub(crate) notify_shutdown: ShutdownSignal,
}

/// What lets an accepted connection in as a session: its place under `--max-sessions`
/// and under `--max-per-address`, and what every session is lent. A clone goes to the
/// task that reads a connection's PROXY header, which admits it once it knows the
/// client's address.
#[derive(Clone)]
pub(crate) struct Gate {
    pub(crate) limit: Arc<Semaphore>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) done_tx: mpsc::Sender<()>,
}

impl<D: Door> Listener<D> {
    /// Accept connections until the future is dropped (at shutdown); one that fails
    /// is logged and the loop backs off a little.
    pub(crate) async fn accept_loop(&mut self) {
        let mut backoff = Duration::from_millis(10);
        loop {
            let (stream, peer) = match self.listener.accept().await {
                Ok(accepted) => {
                    backoff = Duration::from_millis(10);
                    accepted
                }
                Err(error) => {
                    // Out of file descriptors, or a connection reset before we took it:
                    // wait a little instead of spinning, then go on.
                    error!(%error, ?backoff, "accept failed");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                    continue;
                }
            };
            if let Some(proxies) = &self.proxy {
                if !proxies.trusts(peer.ip()) {
                    // A client that could claim any address: closed without a word.
                    info!(%peer, "a connection from outside --proxy-from: closed");
                    continue;
                }
                let Some(place) = proxies.wait_for_header() else {
                    warn!(%peer, limit = proxy::MAX_WAITING_FOR_HEADER, "too many connections waiting for their PROXY header: closed");
                    continue;
                };
                // Subscribed now, so that a shutdown during the header is seen.
                let shutdown = self.notify_shutdown.subscribe();
                tokio::spawn(behind_proxy(
                    self.gate.clone(),
                    self.door.clone(),
                    stream,
                    peer,
                    shutdown,
                    place,
                ));
                continue;
            }
            if let Some((stream, admission)) = self.gate.admit(stream, peer) {
                self.door.open(&self.gate, stream, peer, admission);
            }
        }
    }
}

impl Gate {
    /// The session of an admitted connection on `stream` (telnet's socket or an SSH
    /// channel), with the server's context, services and timeouts; `None` when its
    /// seat cannot be made (said in the log).
    pub(crate) fn session<S: Transport>(
        &self,
        stream: S,
        peer: SocketAddr,
        admission: Admission,
    ) -> Option<Session<S>> {
        Session::new(
            stream,
            peer,
            Arc::clone(&self.shared.context),
            self.shared.services.clone(),
            self.shared.timeouts,
            (admission.registration, admission.inbox),
            admission.lease,
        )
    }

    /// A place for `stream` from the client at `peer`, or `None` when the server is
    /// full or `peer` has `--max-per-address` sessions already: the client is then told
    /// so and closed. The session hears the server's shutdown through its inbox
    /// ([`crate::players::registry::Registry::shut_down`]).
    fn admit(&self, stream: TcpStream, peer: SocketAddr) -> Option<(TcpStream, Admission)> {
        // The client's own address (behind a proxy, the one its PROXY header gave).
        if let Some(left) = self.shared.registry.bans().address_left(peer.ip()) {
            tracing::debug!(%peer, ?left, "an address an admin kicked: turned away");
            let line = format!(
                "{KICKED_ADDRESS} {}.\r\n",
                crate::players::bans::clock(&left)
            );
            turn_away(stream, peer, &line);
            return None;
        }
        let Ok(permit) = Arc::clone(&self.limit).try_acquire_owned() else {
            info!(%peer, "server full: turned away");
            turn_away(stream, peer, SERVER_FULL);
            return None;
        };
        // Registered here, before the session's task runs, so that the registry never
        // misses a session the server has let in.
        let (registration, inbox) = match self
            .shared
            .registry
            .register(peer, self.shared.max_per_address)
        {
            Ok(registered) => registered,
            Err(too_many) => {
                info!(%peer, limit = too_many.limit, "too many sessions from one address: turned away");
                let line = format!(
                    "{TOO_MANY_FROM_ADDRESS} (at most {} at once), try again later.\r\n",
                    too_many.limit
                );
                turn_away(stream, peer, &line);
                return None;
            }
        };
        if let Err(error) = stream.set_nodelay(true) {
            warn!(%peer, %error, "could not set TCP_NODELAY");
        }
        let lease = Lease {
            permit,
            done: self.done_tx.clone(),
        };
        Some((
            stream,
            Admission {
                registration,
                inbox,
                lease,
            },
        ))
    }
}

/// A connection from the proxy (`--proxy-protocol`), in a task of its own so that one
/// that sends nothing never holds up the accept loop: its PROXY header is read, then it
/// is let in as the client the header names, so that the log, `--max-per-address` and
/// the login throttle count that client. A connection without a valid header is closed
/// without a word (nothing it could take for the game); the proxy's own health checks
/// (LOCAL) are closed quietly; shutdown ends the wait.
async fn behind_proxy<D: Door>(
    gate: Gate,
    door: D,
    mut stream: TcpStream,
    proxy_address: SocketAddr,
    mut shutdown: Shutdown,
    waiting: tokio::sync::OwnedSemaphorePermit,
) {
    let header = tokio::select! {
        header = proxy::read_header(&mut stream, proxy::HEADER_TIMEOUT) => header,
        () = &mut shutdown => return,
    };
    drop(waiting);
    let client = match header {
        Ok(Proxied::Client(client)) => client,
        Ok(Proxied::Local) => {
            debug!(proxy = %proxy_address, "PROXY header LOCAL (the proxy's health check): closed");
            return;
        }
        Err(error) => {
            info!(proxy = %proxy_address, %error, "PROXY header refused: closed");
            return;
        }
    };
    debug!(proxy = %proxy_address, %client, "PROXY header read");
    // A task of its own, as without a proxy, so that the session's future is no larger
    // for having waited for a header.
    if let Some((stream, admission)) = gate.admit(stream, client) {
        door.open(&gate, stream, client, admission);
    }
}

/// Tell a client why it cannot stay and close, without a task and without waiting: a
/// fresh socket's send buffer always has room for one line.
fn turn_away(stream: TcpStream, peer: SocketAddr, line: &str) {
    match stream.into_std() {
        Ok(stream) => {
            let _ = (&stream).write(line.as_bytes());
        }
        Err(error) => warn!(%peer, %error, "could not tell a client it was turned away"),
    }
}
