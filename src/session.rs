//! One connection, from banner to goodbye: the lobby, then a game, then the lobby again.
//!
//! The session owns the socket and the game owns the rules: a line from the codec goes
//! to the lobby parser or to the running game, and whatever text comes back is written
//! with one `write_all`. The session also keeps the idle timer and listens for shutdown.
//!
//! It keeps no read or write buffer. With thousands of mostly idle players, anything a
//! session owns is cold in the cache (and often in the TLB) when its next command
//! comes, so each separately allocated piece costs misses on every command. A read goes
//! into a buffer on the stack, which is hot, and the codec keeps the only thing that
//! must outlive it (an unfinished line); a reply is encoded into a fresh `Vec`, which
//! malloc's thread cache hands out hot. This also saves two buffers per idle session.

use std::collections::VecDeque;
use std::future::Future;
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{self, ready, Poll, Waker};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::broadcast;
use tracing::{debug, info};

use crate::games::{self, Game, Memory, Status};
use crate::lobby::{self, Command, Context, GameKind, RunningGame};
use crate::saves;
use crate::telnet::{Input, Output, TelnetCodec, LINE_TOO_LONG};

/// Sent to every session when the server stops.
pub const SHUTTING_DOWN: &str = "\nServer shutting down.\n";

/// Sent when an idle session is closed.
pub const IDLE_CLOSED: &str = "\nClosed after too long without input. Goodbye.\n";

/// The most one read takes from the socket, into a buffer on the stack (left
/// uninitialised, so its size costs nothing per read). A command is a few bytes; pasted
/// input or a long line simply takes several reads, since the codec keeps what is
/// unfinished.
const READ_SIZE: usize = 1024;

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

/// What one read from the socket brought.
enum Received {
    /// The first item the read completed; any others wait in `Session::pending`.
    Input(Input),
    /// Nothing complete yet (part of a line, or telnet commands that need no answer):
    /// wait again.
    Nothing,
    /// The client closed its side and everything it sent has been handed over.
    End,
}

/// One connected player.
pub struct Session {
    stream: TcpStream,
    codec: TelnetCodec,
    /// Items after the first of one read (pipelined input, such as a pasted script),
    /// in order; they are served before the socket is read again. Nearly always empty
    /// and then without an allocation.
    pending: VecDeque<Input>,
    /// The client closed its side and the codec was finished: nothing more to read.
    input_ended: bool,
    peer: SocketAddr,
    context: Arc<Context>,
    idle_timeout: Duration,
    memory: Memory,
    game: Option<RunningGame>,
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
            stream,
            codec: TelnetCodec::new(),
            pending: VecDeque::new(),
            input_ended: false,
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
            // Input first: items left from the last read, then a line that is ready,
            // are served without polling the rest.
            // A client that floods lines still yields to shutdown, because tokio's
            // cooperative budget makes `poll_read` return Pending now and then.
            let received = if let Some(received) = self.queued() {
                received
            } else {
                tokio::select! {
                    biased;
                    received = std::future::poll_fn(|cx| self.poll_receive(cx)) => received?,
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
                }
            };
            let input = match received {
                Received::Input(input) => input,
                Received::Nothing => continue,
                Received::End => {
                    if let Some(game) = &mut self.game {
                        let text = game.end_of_input();
                        self.send(&text).await?;
                    }
                    return Ok(CloseReason::ClientClosed);
                }
            };
            match input {
                Input::Negotiation(bytes) => {
                    self.write(&bytes).await?;
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

    /// What is left of an earlier read, the end once the input has ended, or `None`
    /// when the socket must be read.
    fn queued(&mut self) -> Option<Received> {
        if let Some(input) = self.pending.pop_front() {
            if self.pending.is_empty() {
                // Released, so that a paste does not leave an idle session holding
                // its queue.
                self.pending = VecDeque::new();
            }
            return Some(Received::Input(input));
        }
        self.input_ended.then_some(Received::End)
    }

    /// Read once into a buffer on the stack and decode all of it: the first item is
    /// returned, the others queued in `pending`. A poll function rather than an
    /// `async fn`, so the buffer lives on the thread's stack for the call, never in the
    /// session's future; the codec keeps whatever is unfinished, so nothing of the
    /// buffer outlives it.
    ///
    /// Through `AsyncRead::poll_read`, not `try_read`: after a read that did not fill
    /// the buffer, tokio knows the socket is drained (epoll is edge-triggered) and
    /// waits for the next event, where `try_read` would make one more `recv` per
    /// command only to be told `EAGAIN` (a third of the syscalls of a command).
    fn poll_receive(&mut self, cx: &mut task::Context<'_>) -> Poll<std::io::Result<Received>> {
        let mut buf = [MaybeUninit::<u8>::uninit(); READ_SIZE];
        let mut read_buf = ReadBuf::uninit(&mut buf);
        ready!(Pin::new(&mut self.stream).poll_read(cx, &mut read_buf))?;
        let bytes = read_buf.filled();
        if bytes.is_empty() {
            self.input_ended = true;
            return Poll::Ready(Ok(self
                .codec
                .finish()
                .map_or(Received::End, Received::Input)));
        }
        let mut pos = 0;
        let Some(first) = self.codec.decode_slice(bytes, &mut pos) else {
            return Poll::Ready(Ok(Received::Nothing));
        };
        while let Some(item) = self.codec.decode_slice(bytes, &mut pos) {
            self.pending.push_back(item);
        }
        Poll::Ready(Ok(Received::Input(first)))
    }

    /// Send `text`, its `\n` as `\r\n`, encoded into a fresh `Vec` (hot from malloc's
    /// thread cache, where a buffer kept in the session would be cold).
    async fn send(&mut self, text: &str) -> std::io::Result<()> {
        let output = Output::Text(text);
        let mut bytes = Vec::with_capacity(output.encoded_len());
        output.encode_into(&mut bytes);
        self.write(&bytes).await
    }

    /// Write `bytes` as they are, giving up after [`WRITE_TIMEOUT`]. Nearly every
    /// reply fits in the socket's buffer and is written by the first poll; the timer is
    /// only set up when it is not, so a command costs no timer.
    async fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let send = self.stream.write_all(bytes);
        tokio::pin!(send);
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
        if let Some(game) = &mut self.game {
            let kind = game.kind();
            let reply = game.handle(line, &mut self.memory);
            return self.after_reply(kind, reply);
        }
        let text = match Command::parse(line) {
            Command::Empty => String::from(lobby::PROMPT),
            Command::Play { kind, args } => match kind.start(&args, &self.context) {
                Ok(mut game) => {
                    debug!(peer = %self.peer, game = kind.name(), "game started");
                    let reply = game.start(&mut self.memory);
                    self.game = Some(game);
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
