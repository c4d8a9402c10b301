//! One connection, from banner to goodbye: the lobby, then a game, then the lobby again.
//!
//! The session owns the socket and the game owns the rules: a line from the codec goes
//! to the lobby parser or to the running game, and whatever text comes back is written
//! at once. The session also keeps the idle timer and listens for shutdown.
//!
//! [`Session`] is the connection's task itself, a future written by hand, because of
//! what a command costs with thousands of mostly idle players: everything a session
//! owns is cold in the cache (and often in the TLB) when its next command comes, and
//! each separate cache line the command touches is a miss. So:
//! - the fields every command touches come first, together, and the rest is kept
//!   apart ([`Session`] says how they are laid out);
//! - the idle timer and the shutdown listener are boxed and polled only when they can
//!   have fired;
//! - there is no read or write buffer: a read goes into a buffer on the stack, which is
//!   hot, and the codec keeps the only thing that must outlive it (an unfinished line);
//!   a reply is encoded into a fresh `Vec`, which malloc's thread cache hands out hot,
//!   and is kept only when the socket cannot take it at once.

use std::collections::VecDeque;
use std::future::Future;
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{self, ready, Poll, Waker};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{broadcast, mpsc, OwnedSemaphorePermit};
use tokio::task::JoinHandle;
use tokio::time::{Instant, Sleep};
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
#[derive(Debug)]
pub struct Shutdown {
    notify: broadcast::Receiver<()>,
    /// The signal's flag, raised before the channel closes: [`Session`] looks at it
    /// on every wake-up and polls [`Shutdown::recv`] only once it is up.
    started: Arc<AtomicBool>,
}

impl Shutdown {
    /// Wait until shutdown is signalled (the signal fired or was dropped).
    pub async fn recv(mut self) {
        // Nothing is ever sent: the channel closes when the signal goes.
        let _ = self.notify.recv().await;
    }
}

/// Why a session ended, for the log line.
#[derive(Debug)]
enum CloseReason {
    Ended(Ending),
    Error(std::io::Error),
}

/// The ways a session ends on purpose, each after one last message (or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Quit,
    ClientClosed,
    Idle,
    Shutdown,
}

impl Ending {
    /// Whether the last message may be lost: when the server closes the session, the
    /// client may be gone already, and closing goes on regardless.
    fn ignores_write_errors(self) -> bool {
        matches!(self, Ending::Idle | Ending::Shutdown)
    }
}

impl std::fmt::Display for CloseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CloseReason::Ended(Ending::Quit) => f.write_str("quit"),
            CloseReason::Ended(Ending::ClientClosed) => f.write_str("client closed"),
            CloseReason::Ended(Ending::Idle) => f.write_str("idle timeout"),
            CloseReason::Ended(Ending::Shutdown) => f.write_str("server shutdown"),
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

/// Where the session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Not polled yet: the banner is next.
    Greeting,
    /// Waiting for input (or shutdown, or the idle timer).
    Reading,
    /// A reply the socket could not take at once is in `Cold::outgoing`; then read
    /// again, or end.
    Writing { then: Option<Ending> },
    /// A save runs on a blocking thread (`Cold::saving`).
    Saving,
    /// The last message is out: end.
    Closing(Ending),
}

impl Step {
    /// Where a session goes once a reply is out: on reading, or to its end.
    fn after_write(then: Option<Ending>) -> Step {
        then.map_or(Step::Reading, Step::Closing)
    }
}

/// What the server lends a session for as long as it runs; dropped with it.
pub struct Lease {
    /// Its place under `--max-sessions`.
    pub permit: OwnedSemaphorePermit,
    /// Held so that the server, at shutdown, can wait until every session is gone.
    pub done: mpsc::Sender<()>,
}

/// One connected player, and the task that serves it: a future written by hand.
///
/// Why by hand: with thousands of mostly idle players, a command finds its session
/// cold in the cache, and every separate cache line the command touches costs a miss.
/// An `async fn` spreads what a command touches over its whole future (the
/// generated state of each nested `.await` sits at the end of its own part), and perf
/// showed one miss in each of half a dozen functions. Here the fields every command
/// uses come first, in this order (`repr(C)`), followed by the game; everything else
/// is in `Cold`. The idle timer and the shutdown listener are boxed and polled only
/// when they can have fired, so a command does not touch them.
///
/// With a Sokoban game, what a command touches is the first 192 bytes of the session
/// (a test checks it). tokio 1.54 puts a task's future 64 bytes into the task's 128-byte aligned
/// block of memory, so these are the rest of its first two 128-byte blocks (cache
/// lines come in such pairs): the task's header and the session together.
#[repr(C)]
pub struct Session {
    // Touched by every command, the fields read first at the front: the task keeps
    // the session right after its header.
    step: Step,
    /// The idle warning was sent since the last input.
    warned: bool,
    /// The client closed its side and the codec was finished: nothing more to read.
    input_ended: bool,
    stream: TcpStream,
    codec: TelnetCodec,
    /// Items after the first of one read (pipelined input, such as a pasted script),
    /// in order; they are served before the socket is read again. Nearly always
    /// `None`.
    #[allow(clippy::box_collection)] // 8 bytes among the hot fields instead of 32
    pending: Option<Box<VecDeque<Input>>>,
    /// Raised just before shutdown is broadcast: the listener is polled only then.
    shutdown_started: Arc<AtomicBool>,
    /// When the idle timer (`Cold::idle`) is due: it is polled only after this.
    idle_due: Instant,
    /// The waker the idle timer and the shutdown listener last saw; polled with
    /// another, they are polled again so that they hold the new one.
    waker: Option<Waker>,
    game: Option<RunningGame>,
    cold: Cold,
}

/// The parts of a session that a command does not touch.
struct Cold {
    /// When the last line came. Written by every line but read only when the idle
    /// timer fires: a store to a cold line does not hold the command up the way a
    /// load does.
    last_input: Instant,
    peer: SocketAddr,
    context: Arc<Context>,
    memory: Memory,
    idle_timeout: Duration,
    /// `Sleep` is `!Unpin`; boxed, so that the session is `Unpin` and the timer stays
    /// out of the lines a command touches.
    idle: Pin<Box<Sleep>>,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
    /// For the log line at the end.
    opened: std::time::Instant,
    outgoing: Outgoing,
    /// The save running on a blocking thread, and the game's reply to send before its
    /// outcome.
    saving: Option<(JoinHandle<String>, String)>,
    /// Only held: released when the session ends.
    _lease: Lease,
}

/// A reply the socket could not take at once.
#[derive(Default)]
struct Outgoing {
    bytes: Vec<u8>,
    written: usize,
    /// Made when the socket first says it is full.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl Session {
    /// A session on an accepted stream; `lease` is held until it ends.
    pub fn new(
        stream: TcpStream,
        peer: SocketAddr,
        context: Arc<Context>,
        idle_timeout: Duration,
        shutdown: Shutdown,
        lease: Lease,
    ) -> Session {
        let now = Instant::now();
        let idle_due = now + (idle_timeout - idle_warning(idle_timeout));
        Session {
            step: Step::Greeting,
            warned: false,
            input_ended: false,
            stream,
            codec: TelnetCodec::new(),
            pending: None,
            shutdown_started: Arc::clone(&shutdown.started),
            idle_due,
            waker: None,
            game: None,
            cold: Cold {
                last_input: now,
                peer,
                context,
                memory: Memory::default(),
                idle_timeout,
                idle: Box::pin(tokio::time::sleep_until(idle_due)),
                shutdown: Box::pin(shutdown.recv()),
                opened: std::time::Instant::now(),
                outgoing: Outgoing::default(),
                saving: None,
                _lease: lease,
            },
        }
    }

    /// Serve until the session ends; errors end only this session.
    fn drive(&mut self, cx: &mut task::Context<'_>) -> Poll<CloseReason> {
        loop {
            let result = match self.step {
                Step::Greeting => {
                    info!(peer = %self.cold.peer, "connection opened");
                    self.send(cx, &lobby::banner(), None)
                }
                Step::Reading => match self.next_input(cx) {
                    Poll::Ready(Ok(received)) => self.on_received(cx, received),
                    Poll::Ready(Err(error)) => Err(error),
                    Poll::Pending => ready!(self.poll_interruptions(cx)),
                },
                Step::Writing { then } => match ready!(self.poll_outgoing(cx)) {
                    Ok(()) => {
                        self.step = Step::after_write(then);
                        Ok(())
                    }
                    Err(error) => self.write_failed(error, then),
                },
                Step::Saving => match ready!(self.poll_save(cx)) {
                    Some(text) => self.send(cx, &text, None),
                    // No save was running (cannot happen): back to the game.
                    None => {
                        self.step = Step::Reading;
                        Ok(())
                    }
                },
                Step::Closing(ending) => return Poll::Ready(CloseReason::Ended(ending)),
            };
            if let Err(error) = result {
                return Poll::Ready(CloseReason::Error(error));
            }
        }
    }

    /// The next input: what is left of an earlier read, the end once the input has
    /// ended, or a read of the socket.
    fn next_input(&mut self, cx: &mut task::Context<'_>) -> Poll<std::io::Result<Received>> {
        if let Some(pending) = &mut self.pending {
            if let Some(input) = pending.pop_front() {
                if pending.is_empty() {
                    // Released, so that a paste does not leave an idle session holding
                    // its queue.
                    self.pending = None;
                }
                return Poll::Ready(Ok(Received::Input(input)));
            }
        }
        if self.input_ended {
            return Poll::Ready(Ok(Received::End));
        }
        // A client that floods lines still yields to shutdown, because tokio's
        // cooperative budget makes `poll_read` return Pending now and then.
        self.poll_receive(cx)
    }

    /// Read once into a buffer on the stack and decode all of it: the first item is
    /// returned, the others queued in `pending`. The buffer lives on the thread's
    /// stack for the call, never in the session; the codec keeps whatever is
    /// unfinished, so nothing of the buffer outlives it.
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
            self.pending
                .get_or_insert_with(Box::default)
                .push_back(item);
        }
        Poll::Ready(Ok(Received::Input(first)))
    }

    /// Act on what a read brought: answer it, and end after the last message when
    /// the client is gone.
    fn on_received(
        &mut self,
        cx: &mut task::Context<'_>,
        received: Received,
    ) -> std::io::Result<()> {
        match received {
            Received::Nothing => Ok(()),
            Received::End => match &mut self.game {
                Some(game) => {
                    let text = game.end_of_input();
                    self.send(cx, &text, Some(Ending::ClientClosed))
                }
                None => {
                    self.step = Step::Closing(Ending::ClientClosed);
                    Ok(())
                }
            },
            Received::Input(Input::Negotiation(bytes)) => self.write(cx, bytes.to_vec(), None),
            Received::Input(Input::LineTooLong) => {
                self.input_came();
                let text = format!("{LINE_TOO_LONG}\n{}", self.prompt());
                self.send(cx, &text, None)
            }
            Received::Input(Input::Line(line)) => {
                self.input_came();
                let outcome = self.handle_line(line.trim());
                self.act(cx, outcome)
            }
        }
    }

    /// A line came: the idle timer counts from now. The timer itself is not touched;
    /// when it fires, it finds the deadline has moved.
    fn input_came(&mut self) {
        self.warned = false;
        self.cold.last_input = Instant::now();
    }

    /// Waiting for input: look at shutdown and the idle timer, but only when they can
    /// have fired (or hold an old waker). Ready when one of them made the session send
    /// something.
    fn poll_interruptions(&mut self, cx: &mut task::Context<'_>) -> Poll<std::io::Result<()>> {
        let fresh_waker = !self
            .waker
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()));
        if fresh_waker {
            self.waker = Some(cx.waker().clone());
        }
        if (fresh_waker || self.shutdown_started.load(Ordering::Acquire))
            && self.cold.shutdown.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(self.send(cx, SHUTTING_DOWN, Some(Ending::Shutdown)));
        }
        if fresh_waker || Instant::now() >= self.idle_due {
            return self.poll_idle(cx);
        }
        Poll::Pending
    }

    /// The idle timer: when it fires, move it to the real deadline if input came
    /// since, else warn, or close after the warning.
    fn poll_idle(&mut self, cx: &mut task::Context<'_>) -> Poll<std::io::Result<()>> {
        let idle_timeout = self.cold.idle_timeout;
        let warning = idle_warning(idle_timeout);
        loop {
            if self.cold.idle.as_mut().poll(cx).is_pending() {
                self.idle_due = self.cold.idle.deadline();
                return Poll::Pending;
            }
            let deadline = self.cold.last_input
                + if self.warned {
                    idle_timeout
                } else {
                    idle_timeout - warning
                };
            if Instant::now() < deadline {
                // Input came since the timer was set: wait for the rest.
                self.cold.idle.as_mut().reset(deadline);
                continue;
            }
            if self.warned {
                return Poll::Ready(self.send(cx, IDLE_CLOSED, Some(Ending::Idle)));
            }
            self.warned = true;
            let closes_at = self.cold.last_input + idle_timeout;
            self.cold.idle.as_mut().reset(closes_at);
            // A timer that fired has let go of the waker: poll it to give it one. If
            // it is already due, the next wait finds it so.
            let _ = self.cold.idle.as_mut().poll(cx);
            self.idle_due = closes_at;
            let text = format!(
                "\nNo input for a while: this session closes in {} seconds unless you type something.\n{}",
                warning.as_secs().max(1),
                self.prompt()
            );
            return Poll::Ready(self.send(cx, &text, None));
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

    /// Send `text`, its `\n` as `\r\n`, encoded into a fresh `Vec` (hot from malloc's
    /// thread cache, where a buffer kept in the session would be cold); then go on to
    /// `then`, or read again.
    fn send(
        &mut self,
        cx: &mut task::Context<'_>,
        text: &str,
        then: Option<Ending>,
    ) -> std::io::Result<()> {
        let output = Output::Text(text);
        let mut bytes = Vec::with_capacity(output.encoded_len());
        output.encode_into(&mut bytes);
        self.write(cx, bytes, then)
    }

    /// Write `bytes` as they are. Nearly every reply fits in the socket's buffer and is
    /// written here; what does not is kept in `Cold::outgoing` and the session waits
    /// in [`Step::Writing`], at most [`WRITE_TIMEOUT`].
    fn write(
        &mut self,
        cx: &mut task::Context<'_>,
        bytes: Vec<u8>,
        then: Option<Ending>,
    ) -> std::io::Result<()> {
        let mut written = 0;
        match write_some(&mut self.stream, cx, &bytes, &mut written) {
            Poll::Ready(Ok(())) => {
                self.step = Step::after_write(then);
                Ok(())
            }
            Poll::Ready(Err(error)) => self.write_failed(error, then),
            Poll::Pending => {
                self.cold.outgoing = Outgoing {
                    bytes,
                    written,
                    deadline: None,
                };
                self.step = Step::Writing { then };
                Ok(())
            }
        }
    }

    /// Go on writing `Cold::outgoing`; an error once [`WRITE_TIMEOUT`] has passed since
    /// the socket first said it was full.
    fn poll_outgoing(&mut self, cx: &mut task::Context<'_>) -> Poll<std::io::Result<()>> {
        let outgoing = &mut self.cold.outgoing;
        if write_some(&mut self.stream, cx, &outgoing.bytes, &mut outgoing.written)?.is_ready() {
            *outgoing = Outgoing::default();
            return Poll::Ready(Ok(()));
        }
        let deadline = outgoing
            .deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(WRITE_TIMEOUT)));
        ready!(deadline.as_mut().poll(cx));
        Poll::Ready(Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the client stopped reading",
        )))
    }

    /// A write failed: the session ends with the error, unless it was ending anyway.
    fn write_failed(&mut self, error: std::io::Error, then: Option<Ending>) -> std::io::Result<()> {
        match then {
            Some(ending) if ending.ignores_write_errors() => {
                self.step = Step::Closing(ending);
                Ok(())
            }
            _ => Err(error),
        }
    }

    /// Handle one trimmed line: the lobby's or the game's rules, no I/O. What to send
    /// comes back as an [`Outcome`].
    fn handle_line(&mut self, line: &str) -> Outcome {
        if let Some(game) = &mut self.game {
            let kind = game.kind();
            let reply = game.handle(line, &mut self.cold.memory);
            return self.after_reply(kind, reply);
        }
        let text = match Command::parse(line) {
            Command::Empty => String::from(lobby::PROMPT),
            Command::Play { kind, args } => match kind.start(&args, &self.cold.context) {
                Ok(mut game) => {
                    debug!(peer = %self.cold.peer, game = kind.name(), "game started");
                    let reply = game.start(&mut self.cold.memory);
                    self.game = Some(game);
                    return self.after_reply(kind, reply);
                }
                Err(message) => format!("{message}\n{}", lobby::PROMPT),
            },
            Command::UnknownGame(word) => {
                format!("{}\n{}", lobby::unknown_game(word), lobby::PROMPT)
            }
            Command::Levels(kind) => {
                format!(
                    "{}{}",
                    lobby::levels(kind, &self.cold.context),
                    lobby::PROMPT
                )
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

    /// Carry out what a line led to.
    fn act(&mut self, cx: &mut task::Context<'_>, outcome: Outcome) -> std::io::Result<()> {
        match outcome {
            Outcome::Send(text) => self.send(cx, &text, None),
            Outcome::Save {
                kind,
                name,
                state,
                text,
            } => {
                // The only step that waits for a thread.
                let data_dir = self.cold.context.data_dir.clone();
                let save = tokio::task::spawn_blocking(move || {
                    saves::save(&data_dir, kind, &name, &state)
                });
                self.cold.saving = Some((save, text));
                self.step = Step::Saving;
                Ok(())
            }
            Outcome::Quit => self.send(cx, lobby::GOODBYE, Some(Ending::Quit)),
        }
    }

    /// Wait for the save: the game's reply, the save's outcome and the game prompt.
    fn poll_save(&mut self, cx: &mut task::Context<'_>) -> Poll<Option<String>> {
        let Some((save, _)) = &mut self.cold.saving else {
            return Poll::Ready(None);
        };
        let message = ready!(Pin::new(save).poll(cx))
            .unwrap_or_else(|error| format!("Could not save: {error}.\n"));
        Poll::Ready(self.cold.saving.take().map(|(_, mut text)| {
            text.push_str(&message);
            text.push_str(games::PROMPT);
            text
        }))
    }
}

impl Future for Session {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<()> {
        let session = self.get_mut();
        let reason = ready!(session.drive(cx));
        let duration = session.cold.opened.elapsed();
        info!(peer = %session.cold.peer, ?duration, %reason, "connection closed");
        Poll::Ready(())
    }
}

/// How long before closing an idle session it is warned: half the idle timeout, at
/// most [`MAX_IDLE_WARNING`].
fn idle_warning(idle_timeout: Duration) -> Duration {
    (idle_timeout / 2).min(MAX_IDLE_WARNING)
}

/// Write `bytes` from `*written` on, as far as the socket takes them.
fn write_some(
    stream: &mut TcpStream,
    cx: &mut task::Context<'_>,
    bytes: &[u8],
    written: &mut usize,
) -> Poll<std::io::Result<()>> {
    while *written < bytes.len() {
        match ready!(Pin::new(&mut *stream).poll_write(cx, &bytes[*written..])) {
            Ok(0) => return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
            Ok(n) => *written += n,
            Err(error) => return Poll::Ready(Err(error)),
        }
    }
    Poll::Ready(Ok(()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::sokoban::Sokoban;

    /// How much of the session a Sokoban command may touch: see [`Session`].
    const HOT_BYTES: usize = 192;

    #[test]
    fn what_a_sokoban_command_touches_is_together() {
        let (levels, _) = crate::levels::Levels::load(None);
        let level = levels
            .sokoban
            .get(crate::games::sokoban::DEFAULT_LEVEL)
            .unwrap();
        let game = RunningGame::Sokoban(Sokoban::new(level));
        let RunningGame::Sokoban(sokoban) = &game else {
            unreachable!()
        };
        let sokoban_in_game =
            std::ptr::from_ref(sokoban) as usize - std::ptr::from_ref(&game) as usize;
        let hot_end =
            std::mem::offset_of!(Session, game) + sokoban_in_game + std::mem::size_of::<Sokoban>();
        assert!(hot_end <= HOT_BYTES, "{hot_end} bytes");
    }

    /// A session on a real connection, outside any server: its client, the signal
    /// it listens to, and the session itself.
    async fn lone_session() -> (TcpStream, ShutdownSignal, Session) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (stream, peer) = listener.accept().await.unwrap();
        let (levels, _) = crate::levels::Levels::load(None);
        let context = Arc::new(Context {
            levels,
            data_dir: std::env::temp_dir(),
        });
        let signal = ShutdownSignal::new();
        let (done, _) = mpsc::channel(1);
        let lease = Lease {
            permit: Arc::new(tokio::sync::Semaphore::new(1))
                .try_acquire_owned()
                .unwrap(),
            done,
        };
        let session = Session::new(
            stream,
            peer,
            context,
            Duration::from_secs(600),
            signal.subscribe(),
            lease,
        );
        (client, signal, session)
    }

    #[tokio::test]
    async fn a_session_polled_with_a_new_waker_still_hears_shutdown() {
        let (_client, signal, mut session) = lone_session().await;
        // First polled by someone else (a waker that does nothing), then by its own
        // task: shutdown must wake that task, so the listener has to be given the new
        // waker.
        let noop = futures::task::noop_waker();
        let mut elsewhere = task::Context::from_waker(&noop);
        assert!(Pin::new(&mut session).poll(&mut elsewhere).is_pending());
        let running = tokio::spawn(session);
        // Fired while the session's task waits, so that only its wake-up can tell it.
        tokio::time::sleep(Duration::from_millis(50)).await;
        signal.fire();
        let ended = tokio::time::timeout(Duration::from_secs(5), running).await;
        ended
            .expect("the session ends on shutdown")
            .expect("the session did not panic");
    }

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
