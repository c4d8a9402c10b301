//! The old process's side of an upgrade (SPEC section 11): start the binary now on
//! disk as a new server process, hand it the listening sockets, the control socket and
//! the data directory's lock (descriptors over a Unix socket, `fds.rs`), and let go
//! only once it says it serves. Whatever goes wrong before that (it cannot start, exits,
//! reads another hand-over format, does not answer in time, fails to serve) leaves this
//! process serving, and the reason goes to whoever asked and to the log.
//!
//! After the hand-over this process stays as the new one's parent, holding nothing
//! but its child: Docker and systemd see the service's first process still running,
//! a SIGTERM to it reaches the new server, and it exits with the new server's status
//! ([`Successor::wait`], once this process's runtime is gone). SIGTERM and SIGINT are
//! passed on from the moment the new server serves, by a thread of their own, so that
//! none is lost while this process winds down.

use std::ffi::OsString;
use std::os::fd::{AsFd as _, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use std::process::{Child, Command};

use super::fds;
use super::wire::{self, Hello, Offer, Socket, Verdict};

/// The environment variable that tells a new server where to take over from.
pub const TAKE_OVER_ENV: &str = "ARCADE_TAKE_OVER";

/// The hand-over socket's name in the data directory (there only during an upgrade).
pub const HAND_OVER_SOCKET: &str = "arcade-handover.sock";

/// How long the new process may take to say hello, and then to serve.
pub const START_WAIT: Duration = Duration::from_secs(60);

/// The sockets a server hands over: copies of its own descriptors, made when it
/// started (the originals are inside its accept loops and web server).
#[derive(Debug)]
pub struct Held {
    sockets: Vec<(Socket, OwnedFd)>,
}

impl Held {
    /// No sockets yet.
    pub fn new() -> Held {
        Held {
            sockets: Vec::new(),
        }
    }

    /// Keep a copy of `fd` as `socket`.
    ///
    /// # Errors
    /// When the descriptor cannot be duplicated (out of descriptors).
    pub fn keep(&mut self, socket: Socket, fd: BorrowedFd<'_>) -> std::io::Result<()> {
        self.sockets.push((socket, fd.try_clone_to_owned()?));
        Ok(())
    }
}

impl Default for Held {
    fn default() -> Self {
        Held::new()
    }
}

/// How many sessions' sockets are copied ahead of the one being sent: each copy is a
/// file descriptor, and a server near its open-file limit has none to spare for every
/// session at once.
const COPIES_AHEAD: usize = 64;

/// Where a copy of a session's socket comes, once asked for.
pub type SocketComing = tokio::sync::oneshot::Receiver<std::io::Result<OwnedFd>>;

/// One session to hand over: its state (in the session's own format), and how to ask
/// it for a copy of its socket when its turn comes.
pub struct Moving {
    /// The session's state.
    pub state: Vec<u8>,
    /// Asks the session for a copy of its socket.
    pub socket: Box<dyn FnOnce() -> SocketComing + Send>,
}

impl std::fmt::Debug for Moving {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Moving")
            .field("state", &self.state.len())
            .finish_non_exhaustive()
    }
}

/// The new server that took over: its process id and version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewServer {
    /// Its process id.
    pub pid: u32,
    /// Its version, as it said it.
    pub version: String,
}

/// What starts a new server, and the one it started.
#[derive(Debug)]
pub struct Upgrader {
    /// The binary this process was started from: the path, so that a new file there
    /// is what starts.
    exe: PathBuf,
    /// This process's arguments, given to the new one.
    args: Vec<OsString>,
    /// Where the hand-over socket is made.
    data_dir: PathBuf,
    /// The new server, once it has taken over.
    successor: Mutex<Option<Successor>>,
}

impl Upgrader {
    /// An upgrader for this process, started as `exe` with `args` (without the
    /// program's name), serving `data_dir`.
    pub fn new(exe: PathBuf, args: Vec<OsString>, data_dir: PathBuf) -> Upgrader {
        Upgrader {
            exe,
            args,
            data_dir,
            successor: Mutex::new(None),
        }
    }

    /// An upgrader for this very process: its binary as it was found at start.
    ///
    /// # Errors
    /// When the running binary's path cannot be read.
    pub fn for_this_process(data_dir: PathBuf) -> std::io::Result<Upgrader> {
        let exe = std::env::current_exe()?;
        Ok(Upgrader::new(
            exe,
            std::env::args_os().skip(1).collect(),
            data_dir,
        ))
    }

    /// Start the new server and hand it `held`, `sessions` (each session's state, in
    /// the session's own format, and its socket) and what they share (`shared`, the
    /// races): the new server's process id once it serves, or why not (this process
    /// then goes on, and so do the sessions).
    ///
    /// # Errors
    /// Why the hand-over did not happen, in words for the admin.
    pub async fn hand_over(
        &self,
        held: &Held,
        sessions: Vec<Moving>,
        shared: serde_json::Value,
    ) -> Result<NewServer, String> {
        let path = self.data_dir.join(HAND_OVER_SOCKET);
        let _ = std::fs::remove_file(&path);
        let listener = std::os::unix::net::UnixListener::bind(&path)
            .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
            .and_then(tokio::net::UnixListener::from_std)
            .map_err(|error| format!("cannot make {}: {error}", path.display()))?;
        let result = self
            .start_and_offer(&path, listener, held, (sessions, shared))
            .await;
        let _ = std::fs::remove_file(&path);
        result
    }

    async fn start_and_offer(
        &self,
        path: &Path,
        listener: tokio::net::UnixListener,
        held: &Held,
        (sessions, shared): (Vec<Moving>, serde_json::Value),
    ) -> Result<NewServer, String> {
        let mut child = Command::new(&self.exe)
            .args(&self.args)
            .env(TAKE_OVER_ENV, path)
            .stdin(std::process::Stdio::null())
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", self.exe.display()))?;
        let exited = async {
            loop {
                match child.try_wait() {
                    Ok(None) => tokio::time::sleep(Duration::from_millis(20)).await,
                    Ok(Some(status)) => return Ok(status),
                    Err(error) => return Err(error),
                }
            }
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted.map_err(|error| format!("the hand-over socket failed: {error}")),
            status = exited => Err(match status {
                Ok(status) => format!("the new server ({}) exited ({status}) before it took over", self.exe.display()),
                Err(error) => format!("cannot watch the new server: {error}"),
            }),
            () = tokio::time::sleep(START_WAIT) => Err(format!(
                "the new server did not take over within {}",
                humantime::format_duration(START_WAIT)
            )),
        };
        let offered = match accepted {
            Ok((stream, _)) => match stream.into_std() {
                Ok(stream) => {
                    let sockets: Vec<(Socket, OwnedFd)> = held
                        .sockets
                        .iter()
                        .map(|(kind, fd)| fd.try_clone().map(|fd| (*kind, fd)))
                        .collect::<std::io::Result<_>>()
                        .map_err(|error| format!("cannot copy a socket: {error}"))?;
                    tokio::task::spawn_blocking(move || offer(stream, &sockets, sessions, shared))
                        .await
                        .unwrap_or_else(|_| Err(String::from("the hand-over stopped (a bug)")))
                }
                Err(error) => Err(format!("the hand-over socket failed: {error}")),
            },
            Err(why) => Err(why),
        };
        match offered {
            Ok(new) => {
                *self
                    .successor
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) =
                    Some(Successor::new(child));
                Ok(new)
            }
            Err(why) => {
                // Whatever it did, it serves nothing: it must not linger.
                let _ = child.kill();
                let _ = tokio::task::spawn_blocking(move || child.wait()).await;
                Err(why)
            }
        }
    }

    /// The new server this process handed over to, if it did.
    pub fn successor(&self) -> Option<Successor> {
        self.successor
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

/// Say hello's answer, offer the sockets, and read the verdict, on a blocking socket.
fn offer(
    mut stream: std::os::unix::net::UnixStream,
    sockets: &[(Socket, OwnedFd)],
    sessions: Vec<Moving>,
    shared: serde_json::Value,
) -> Result<NewServer, String> {
    let broken = |error: std::io::Error| format!("the new server stopped answering: {error}");
    stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_read_timeout(Some(START_WAIT)))
        .and_then(|()| stream.set_write_timeout(Some(START_WAIT)))
        .map_err(broken)?;
    let (bytes, _) = fds::receive(&mut stream).map_err(broken)?;
    let hello: Hello = serde_json::from_slice(&bytes)
        .map_err(|error| format!("the new server said something unreadable: {error}"))?;
    if let Some(why) = wire::refuse(&hello) {
        return Err(why);
    }
    let offer = Offer {
        format: wire::FORMAT,
        version: wire::version(),
        sockets: sockets.iter().map(|(kind, _)| *kind).collect(),
        sessions: sessions.len(),
        shared,
    };
    let json =
        serde_json::to_vec(&offer).map_err(|error| format!("cannot write the offer: {error}"))?;
    let fds: Vec<BorrowedFd<'_>> = sockets.iter().map(|(_, fd)| fd.as_fd()).collect();
    fds::send(&mut stream, &json, &fds).map_err(broken)?;
    // Each session's socket is asked for a few sessions ahead of its turn, and its copy
    // closed once sent.
    let mut coming = std::collections::VecDeque::with_capacity(COPIES_AHEAD);
    let mut sessions = sessions.into_iter();
    loop {
        while coming.len() < COPIES_AHEAD {
            let Some(Moving { state, socket }) = sessions.next() else {
                break;
            };
            coming.push_back((state, socket()));
        }
        let Some((state, socket)) = coming.pop_front() else {
            break;
        };
        let socket = socket
            .blocking_recv()
            .map_err(|_| String::from("a session ended before its socket was handed over"))?
            .map_err(|error| format!("cannot copy a session's socket: {error}"))?;
        fds::send(&mut stream, &state, &[socket.as_fd()]).map_err(broken)?;
    }
    let (bytes, _) = fds::receive(&mut stream).map_err(broken)?;
    match serde_json::from_slice(&bytes) {
        Ok(Verdict::Ready { pid, version }) => {
            // The new process starts its sessions only once told: until then the old
            // one may still keep them all.
            let go = serde_json::to_vec(&wire::LetGo {
                format: wire::FORMAT,
            })
            .map_err(|error| format!("cannot write the go-ahead: {error}"))?;
            fds::send(&mut stream, &go, &[]).map_err(broken)?;
            Ok(NewServer {
                pid,
                version: crate::text::one_line(&version),
            })
        }
        Ok(Verdict::Failed { reason }) => Err(format!(
            "the new server could not serve: {}",
            crate::text::one_line(&reason)
        )),
        Err(error) => Err(format!("the new server said something unreadable: {error}")),
    }
}

/// The new server, whose parent this process stays.
#[derive(Debug)]
pub struct Successor {
    child: Child,
    /// Stops the thread that passes signals on.
    forwarding: Option<signal_hook::iterator::Handle>,
}

impl Successor {
    /// Pass SIGTERM and SIGINT on to `child` from now on.
    fn new(child: Child) -> Successor {
        let pid = i32::try_from(child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw);
        let signals = signal_hook::iterator::Signals::new([
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGINT,
        ]);
        let forwarding = match (signals, pid) {
            (Ok(mut signals), Some(pid)) => {
                let handle = signals.handle();
                std::thread::spawn(move || {
                    for signal in signals.forever() {
                        let passed = if signal == signal_hook::consts::SIGINT {
                            rustix::process::Signal::INT
                        } else {
                            rustix::process::Signal::TERM
                        };
                        let _ = rustix::process::kill_process(pid, passed);
                    }
                });
                Some(handle)
            }
            (Err(error), _) => {
                tracing::warn!(%error, "cannot pass signals on to the new server: stop it by its own process id");
                None
            }
            (_, None) => None,
        };
        Successor { child, forwarding }
    }

    /// Wait (blocking) for the new server to exit; its exit code.
    pub fn wait(mut self) -> i32 {
        let status = self.child.wait();
        if let Some(forwarding) = self.forwarding.take() {
            forwarding.close();
        }
        status.ok().and_then(|status| status.code()).unwrap_or(1)
    }
}
