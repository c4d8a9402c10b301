//! One connection, from banner to goodbye: the lobby, then a game, then the lobby again.
//!
//! The session owns the socket and the game owns the rules: a line from the codec goes
//! to the lobby parser or to the running game, and whatever text comes back is written
//! with one flush. The session also keeps the idle timer and listens for shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::broadcast;
use tokio_util::codec::Framed;
use tracing::{debug, info};

use crate::games::{self, Game, Memory, Status};
use crate::lobby::{self, Command, Context, GameKind};
use crate::saves;
use crate::telnet::{Input, Output, TelnetCodec, LINE_TOO_LONG};

/// Sent to every session when the server stops.
pub const SHUTTING_DOWN: &str = "\nServer shutting down.\n";

/// Sent when an idle session is closed.
pub const IDLE_CLOSED: &str = "\nClosed after too long without input. Goodbye.\n";

/// The initial size of each connection's read and write buffers. Lines are at most
/// 1 KiB and boards a few hundred bytes; tokio-util's default of 8 KiB each would be
/// most of a session's memory with thousands of players connected.
const BUFFER_CAPACITY: usize = 256;

/// How long one reply may take to leave. A client that stops reading fills its socket
/// buffers; after this long its session is closed rather than held open forever.
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest the idle warning comes before the close.
const MAX_IDLE_WARNING: Duration = Duration::from_secs(60);

/// The server's side of shutdown: one signal that every session listens for.
///
/// Besides the broadcast channel that wakes the sessions, it keeps a flag raised just
/// before they are woken. A session checks that flag (one shared, read-only cache
/// line) when something wakes it, and polls the channel only once the flag is up:
/// polling a broadcast receiver takes two locks that every session shares, which would
/// otherwise be paid on every command.
#[derive(Debug)]
pub struct ShutdownSignal {
    sender: broadcast::Sender<()>,
    started: Arc<AtomicBool>,
}

impl Default for ShutdownSignal {
    fn default() -> Self {
        ShutdownSignal::new()
    }
}

impl ShutdownSignal {
    /// A signal no session listens to yet.
    pub fn new() -> ShutdownSignal {
        let (sender, _) = broadcast::channel(1);
        ShutdownSignal {
            sender,
            started: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A listener for one session.
    pub fn subscribe(&self) -> Shutdown {
        Shutdown {
            notify: self.sender.subscribe(),
            started: Arc::clone(&self.started),
        }
    }

    /// Tell every session to shut down.
    pub fn fire(self) {
        drop(self);
    }
}

impl Drop for ShutdownSignal {
    /// Dropping the signal, however it happens (a cancelled or aborted server task
    /// included), raises the flag before the channel closes, so sessions always see it.
    fn drop(&mut self) {
        self.started.store(true, Ordering::Release);
    }
}

/// Listens for the server's shutdown signal (mini-redis' shape).
///
/// [`Shutdown::recv`] takes the listener by value: a session creates that future once
/// and polls the same one for its whole life.
#[derive(Debug)]
pub struct Shutdown {
    notify: broadcast::Receiver<()>,
    started: Arc<AtomicBool>,
}

impl Shutdown {
    /// Wait until shutdown is signalled.
    pub async fn recv(mut self) {
        let started = self.started;
        let recv = self.notify.recv();
        tokio::pin!(recv);
        let mut registered: Option<Waker> = None;
        std::future::poll_fn(|cx| {
            // The channel holds the waker of the first poll; the session's task polls
            // with that same waker every time. Until shutdown starts, a wake-up is
            // input or a timer, never the channel, so there is nothing to ask it.
            let same_task = registered.as_ref().is_some_and(|w| w.will_wake(cx.waker()));
            if same_task && !started.load(Ordering::Acquire) {
                return Poll::Pending;
            }
            registered = Some(cx.waker().clone());
            recv.as_mut().poll(cx).map(|_| ())
        })
        .await;
    }
}

/// Why a session ended, for the log line.
#[derive(Debug)]
enum CloseReason {
    Quit,
    ClientClosed,
    Idle,
    Shutdown,
    Error(std::io::Error),
}

impl std::fmt::Display for CloseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CloseReason::Quit => f.write_str("quit"),
            CloseReason::ClientClosed => f.write_str("client closed"),
            CloseReason::Idle => f.write_str("idle timeout"),
            CloseReason::Shutdown => f.write_str("server shutdown"),
            CloseReason::Error(error) => write!(f, "error: {error}"),
        }
    }
}

/// One connected player.
pub struct Session {
    connection: Framed<TcpStream, TelnetCodec>,
    peer: SocketAddr,
    context: Arc<Context>,
    idle_timeout: Duration,
    memory: Memory,
    game: Option<(GameKind, Box<dyn Game>)>,
}

impl Session {
    /// A session on an accepted stream.
    pub fn new(
        stream: TcpStream,
        peer: SocketAddr,
        context: Arc<Context>,
        idle_timeout: Duration,
    ) -> Session {
        Session {
            connection: Framed::with_capacity(stream, TelnetCodec::new(), BUFFER_CAPACITY),
            peer,
            context,
            idle_timeout,
            memory: Memory::default(),
            game: None,
        }
    }

    /// Serve the connection until it ends or `shutdown` fires, and log how it ended.
    /// Errors end only this session.
    ///
    /// Not an `async fn`: one of those keeps both its by-value argument and the
    /// local copy it makes in its future, which would store the session twice in
    /// every connection's task. The block below uses the captured session in place.
    #[allow(clippy::manual_async_fn)] // on purpose: see above
    pub fn run(mut self, shutdown: Shutdown) -> impl Future<Output = ()> + Send {
        async move {
            let opened = Instant::now();
            info!(peer = %self.peer, "connection opened");
            let reason = self
                .serve(shutdown)
                .await
                .unwrap_or_else(CloseReason::Error);
            info!(peer = %self.peer, duration = ?opened.elapsed(), %reason, "connection closed");
        }
    }

    /// The read loop. The shutdown future and the idle timer live as long as the loop,
    /// and the timer is only moved when it fires: a command costs no timer or channel
    /// registration, which matters with thousands of sessions.
    async fn serve(&mut self, shutdown: Shutdown) -> std::io::Result<CloseReason> {
        self.send(&lobby::banner()).await?;
        let warning = (self.idle_timeout / 2).min(MAX_IDLE_WARNING);
        let quiet = self.idle_timeout - warning;
        let mut warned = false;
        let mut last_input = tokio::time::Instant::now();
        let shutdown = shutdown.recv();
        let idle = tokio::time::sleep_until(last_input + quiet);
        tokio::pin!(shutdown, idle);
        loop {
            // Input first: a line that is ready is served without polling the rest.
            // A client that floods lines still yields to shutdown, because tokio's
            // cooperative budget makes its reads return Pending now and then.
            let event = tokio::select! {
                biased;
                event = self.connection.next() => event,
                () = &mut shutdown => {
                    // The client may be gone already; shutting down goes on regardless.
                    let _ = self.send(SHUTTING_DOWN).await;
                    return Ok(CloseReason::Shutdown);
                }
                () = &mut idle => {
                    let deadline = last_input + if warned { self.idle_timeout } else { quiet };
                    if tokio::time::Instant::now() < deadline {
                        // Input came since the timer was set: wait for the rest.
                        idle.as_mut().reset(deadline);
                        continue;
                    }
                    if warned {
                        let _ = self.send(IDLE_CLOSED).await;
                        return Ok(CloseReason::Idle);
                    }
                    warned = true;
                    idle.as_mut().reset(last_input + self.idle_timeout);
                    let text = format!(
                        "\nNo input for a while: this session closes in {} seconds unless you type something.\n{}",
                        warning.as_secs().max(1),
                        self.prompt()
                    );
                    self.send(&text).await?;
                    continue;
                }
            };
            let input = match event {
                None => {
                    if let Some((_, game)) = &mut self.game {
                        let text = game.end_of_input();
                        self.send(&text).await?;
                    }
                    return Ok(CloseReason::ClientClosed);
                }
                Some(input) => input?,
            };
            match input {
                Input::Negotiation(bytes) => {
                    self.write(Output::Raw(&bytes)).await?;
                }
                Input::LineTooLong => {
                    warned = false;
                    last_input = tokio::time::Instant::now();
                    let text = format!("{LINE_TOO_LONG}\n{}", self.prompt());
                    self.send(&text).await?;
                }
                Input::Line(line) => {
                    warned = false;
                    last_input = tokio::time::Instant::now();
                    let outcome = self.handle_line(line.trim());
                    if let Some(reason) = self.act(outcome).await? {
                        return Ok(reason);
                    }
                }
            }
        }
    }

    /// The prompt of wherever the player is.
    fn prompt(&self) -> &'static str {
        if self.game.is_some() {
            games::PROMPT
        } else {
            lobby::PROMPT
        }
    }

    async fn send(&mut self, text: &str) -> std::io::Result<()> {
        self.write(Output::Text(text)).await
    }

    /// Write `output` and flush it, giving up after [`WRITE_TIMEOUT`]. Nearly every
    /// reply fits in the socket's buffer and is written by the first poll; the timer is
    /// only set up when it is not, so a command costs no timer.
    async fn write(&mut self, output: Output<'_>) -> std::io::Result<()> {
        let mut send = self.connection.send(output);
        if let Poll::Ready(result) = futures::poll!(&mut send) {
            return result;
        }
        // Boxed: the timer is big and this path rare, so it stays out of every
        // session's future.
        match Box::pin(tokio::time::timeout(WRITE_TIMEOUT, send)).await {
            Ok(result) => result,
            Err(_elapsed) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client stopped reading",
            )),
        }
    }

    /// Handle one trimmed line: the lobby's or the game's rules, no I/O. What to send
    /// comes back as an [`Outcome`]; keeping this synchronous keeps the per-command
    /// state of the session's future small.
    fn handle_line(&mut self, line: &str) -> Outcome {
        if let Some((kind, game)) = &mut self.game {
            let kind = *kind;
            let reply = game.handle(line, &mut self.memory);
            return self.after_reply(kind, reply);
        }
        let text = match Command::parse(line) {
            Command::Empty => String::from(lobby::PROMPT),
            Command::Play { kind, args } => match kind.start(&args, &self.context) {
                Ok(mut game) => {
                    debug!(peer = %self.peer, game = kind.name(), "game started");
                    let reply = game.start(&mut self.memory);
                    self.game = Some((kind, game));
                    return self.after_reply(kind, reply);
                }
                Err(message) => format!("{message}\n{}", lobby::PROMPT),
            },
            Command::UnknownGame(word) => {
                format!("{}\n{}", lobby::unknown_game(word), lobby::PROMPT)
            }
            Command::Levels(kind) => {
                format!("{}{}", lobby::levels(kind, &self.context), lobby::PROMPT)
            }
            Command::Help => format!("{}{}", lobby::help(), lobby::PROMPT),
            Command::Quit => return Outcome::Quit,
            Command::Unknown(word) => {
                format!("{}\n{}", lobby::unknown_command(word), lobby::PROMPT)
            }
        };
        Outcome::Send(text)
    }

    /// Act on a game's reply: what to send, and whether the game is over.
    fn after_reply(&mut self, kind: GameKind, reply: games::Reply) -> Outcome {
        let mut text = reply.text;
        match reply.status {
            Status::Playing => Outcome::Send(text),
            Status::Ended => {
                self.game = None;
                text.push_str(lobby::PROMPT);
                Outcome::Send(text)
            }
            Status::Save { name, state } => Outcome::Save {
                kind,
                name,
                state,
                text,
            },
        }
    }

    /// Carry out what a line led to; `Some` when the session should end.
    async fn act(&mut self, outcome: Outcome) -> std::io::Result<Option<CloseReason>> {
        match outcome {
            Outcome::Send(text) => self.send(&text).await?,
            Outcome::Save {
                kind,
                name,
                state,
                mut text,
            } => {
                // Rare, and the only step that waits for a thread: boxed, so that its
                // state does not widen every session's future.
                let message =
                    Box::pin(save(self.context.data_dir.clone(), kind, name, state)).await;
                text.push_str(&message);
                text.push_str(games::PROMPT);
                self.send(&text).await?;
            }
            Outcome::Quit => {
                self.send(lobby::GOODBYE).await?;
                return Ok(Some(CloseReason::Quit));
            }
        }
        Ok(None)
    }
}

/// What one input line leads to.
enum Outcome {
    /// Send this text; the session goes on.
    Send(String),
    /// Save a game's state, then send `text`, the outcome and the game prompt.
    Save {
        /// The game saved.
        kind: GameKind,
        /// The name, already checked by the game.
        name: String,
        /// The file's contents.
        state: String,
        /// The game's reply before the save's outcome.
        text: String,
    },
    /// Say goodbye and close.
    Quit,
}

/// Write a saved game on a blocking thread; the line that says how it went.
async fn save(data_dir: PathBuf, kind: GameKind, name: String, state: String) -> String {
    tokio::task::spawn_blocking(move || saves::save(&data_dir, kind, &name, &state))
        .await
        .unwrap_or_else(|error| format!("Could not save: {error}.\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn shutdown_is_seen_after_other_wakeups() {
        let signal = ShutdownSignal::new();
        let first = signal.subscribe().recv();
        let second = signal.subscribe().recv();
        tokio::pin!(first, second);
        // Polled again and again without a signal, as a busy session polls it.
        for _ in 0..3 {
            assert!(futures::poll!(&mut first).is_pending());
        }
        signal.fire();
        tokio::time::timeout(Duration::from_secs(5), async {
            first.await;
            second.await;
        })
        .await
        .expect("every listener sees the signal");
    }

    #[tokio::test]
    async fn a_dropped_signal_still_stops_sessions() {
        let signal = ShutdownSignal::new();
        let listener = signal.subscribe().recv();
        tokio::pin!(listener);
        assert!(futures::poll!(&mut listener).is_pending());
        assert!(futures::poll!(&mut listener).is_pending());
        // As when the server's task is cancelled: no fire(), just gone.
        drop(signal);
        tokio::time::timeout(Duration::from_secs(5), listener)
            .await
            .expect("a dropped signal is a shutdown");
    }
}
