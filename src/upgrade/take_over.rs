//! The new process's side of an upgrade: started with [`TAKE_OVER_ENV`] naming the
//! old one's hand-over socket, it says hello with the format it reads, takes the
//! sockets and the data directory's lock the old one offers, starts serving on them,
//! and says so ([`Arrival::ready`]) or says why it cannot ([`Arrival::failed`]), after
//! which the old process lets go or goes on.

use std::fs::File;
use std::net::TcpListener;
use std::os::fd::OwnedFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;

use super::fds;
use super::hand_over::TAKE_OVER_ENV;
use super::wire::{self, Hello, Offer, Socket, Verdict};

/// What the old process handed over.
#[derive(Debug)]
pub struct Taken {
    /// The telnet port.
    pub telnet: TcpListener,
    /// The web page's port, if the old one served it.
    pub web: Option<TcpListener>,
    /// The SSH port, if the old one served it.
    pub ssh: Option<TcpListener>,
    /// The control socket.
    pub control: Option<UnixListener>,
    /// The data directory's lock file, locked by the old process: the lock is the
    /// open file's, so it is this process's too, and stays when the old one exits.
    pub lock: File,
    /// The sessions: each one's state (in the session's own format) and socket.
    pub sessions: Vec<(Vec<u8>, OwnedFd)>,
    /// What the sessions share (the races), in the server's own format.
    pub shared: serde_json::Value,
    /// Where to say how it went.
    pub arrival: Arrival,
}

/// The line back to the old process.
#[derive(Debug)]
pub struct Arrival(UnixStream);

impl Arrival {
    /// Tell the old process this one is ready to serve, and wait (blocking) for it to
    /// let go: whether it did. If it did not (it gave up meanwhile and keeps the
    /// sessions), this process must exit without touching them.
    pub fn ready(mut self) -> bool {
        let said = serde_json::to_vec(&Verdict::Ready {
            pid: std::process::id(),
            version: wire::version(),
        })
        .map_err(std::io::Error::other)
        .and_then(|json| fds::send(&mut self.0, &json, &[]));
        if let Err(error) = said {
            tracing::error!(%error, "cannot answer the old server");
            return false;
        }
        let heard = self
            .0
            .set_read_timeout(Some(super::hand_over::START_WAIT))
            .and_then(|()| fds::receive(&mut self.0));
        match heard.map(|(bytes, _)| serde_json::from_slice::<wire::LetGo>(&bytes)) {
            Ok(Ok(_)) => true,
            Ok(Err(error)) => {
                tracing::error!(%error, "the old server's go-ahead is unreadable");
                false
            }
            Err(error) => {
                tracing::error!(%error, "the old server did not let go");
                false
            }
        }
    }

    /// Tell the old process this one cannot serve, and why: it goes on.
    pub fn failed(self, reason: &str) {
        self.say(&Verdict::Failed {
            reason: reason.to_string(),
        });
    }

    fn say(mut self, verdict: &Verdict) {
        let sent = serde_json::to_vec(verdict)
            .map_err(std::io::Error::other)
            .and_then(|json| fds::send(&mut self.0, &json, &[]));
        if let Err(error) = sent {
            tracing::error!(%error, "cannot answer the old server");
        }
    }
}

/// Why this process could not take over.
#[derive(Debug, thiserror::Error)]
pub enum TakeOverError {
    /// The old process cannot be reached or stopped answering.
    #[error("cannot take over from the old server through {path}: {source}")]
    Io {
        /// The hand-over socket.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// It offered something this version does not read.
    #[error("cannot take over from the old server: {0}")]
    Offer(String),
}

/// The hand-over socket this process was started to take over from, if any.
pub fn asked() -> Option<std::path::PathBuf> {
    std::env::var_os(TAKE_OVER_ENV).map(std::path::PathBuf::from)
}

/// Take over from the old process through `path`.
///
/// # Errors
/// [`TakeOverError`]; the old process goes on serving.
pub fn take_over(path: &Path) -> Result<Taken, TakeOverError> {
    let io = |source| TakeOverError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut stream = UnixStream::connect(path).map_err(io)?;
    let hello =
        serde_json::to_vec(&Hello::ours()).map_err(|error| io(std::io::Error::other(error)))?;
    fds::send(&mut stream, &hello, &[]).map_err(io)?;
    let (bytes, handed) = fds::receive(&mut stream).map_err(io)?;
    let refused = |why: String, stream: UnixStream| {
        Arrival(stream).failed(&why);
        TakeOverError::Offer(why)
    };
    let offer: Offer = match serde_json::from_slice(&bytes) {
        Ok(offer) => offer,
        Err(error) => return Err(refused(format!("an offer it cannot read: {error}"), stream)),
    };
    if offer.format != wire::FORMAT || offer.sockets.len() != handed.len() {
        return Err(refused(
            format!(
                "the old server ({}) offered hand-over format {} with {} sockets for {} descriptors; this one reads format {}",
                crate::text::one_line(&offer.version),
                offer.format,
                offer.sockets.len(),
                handed.len(),
                wire::FORMAT
            ),
            stream,
        ));
    }
    let mut sessions = Vec::with_capacity(offer.sessions.min(1 << 20));
    for _ in 0..offer.sessions {
        let (state, mut socket) = fds::receive(&mut stream).map_err(io)?;
        match (socket.pop(), socket.is_empty()) {
            (Some(fd), true) => sessions.push((state, fd)),
            _ => {
                return Err(refused(
                    String::from("a session came without its socket"),
                    stream,
                ))
            }
        }
    }
    let mut sockets: Vec<(Socket, OwnedFd)> = offer.sockets.into_iter().zip(handed).collect();
    let mut take = |kind: Socket| {
        let at = sockets.iter().position(|(socket, _)| *socket == kind)?;
        Some(sockets.swap_remove(at).1)
    };
    let (Some(telnet), Some(lock)) = (take(Socket::Telnet), take(Socket::Lock)) else {
        return Err(refused(
            String::from("the offer has no telnet port or no lock"),
            stream,
        ));
    };
    Ok(Taken {
        telnet: TcpListener::from(telnet),
        web: take(Socket::Web).map(TcpListener::from),
        ssh: take(Socket::Ssh).map(TcpListener::from),
        control: take(Socket::Control).map(UnixListener::from),
        lock: File::from(lock),
        sessions,
        shared: offer.shared,
        arrival: Arrival(stream),
    })
}
