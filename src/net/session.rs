//! One connection, from banner to goodbye: bytes in, lines to the console, replies and
//! messages out.
//!
//! The session is transport only. It reads the socket through the telnet codec, hands
//! each line to the player's [`Console`] (which decides what it does), writes what
//! comes back, and writes what arrives in its [`Inbox`] from elsewhere in the server.
//! It also keeps the idle timer, whose alarm and the server's shutdown ring as bells in
//! the same inbox ([`crate::players::inbox::Bell`]), in one `select!`. This file
//! is that loop; `session/step.rs` is what one event does (at once, or boxed when it
//! must wait), `session/output.rs` writes, `session/keys.rs` handles single keys,
//! colour and telnet signals, [`crate::net::idle`] is the idle timer and
//! [`crate::net::tty`] the terminal state a session keeps, `session/transport.rs` what
//! it needs of its stream: a TCP socket (telnet, `nc`) or an SSH channel, the session
//! being generic over it so that the telnet path pays nothing for SSH.
//!
//! What a command costs matters with thousands of mostly idle players, so four things
//! are kept from the hand-written future of earlier rounds (docs/BENCHMARKS.md compares the
//! two shapes):
//! - the loop's future waits for the next event and nothing else: an event that has
//!   to wait for more is carried out in a box of its own (`session/step.rs`);
//! - a read goes into a buffer on the stack, which is hot, and the codec keeps the
//!   only thing that must outlive it (an unfinished line);
//! - the idle timer is not reset by every line ([`crate::net::idle`]);
//! - no timer or shutdown listener of its own: the registry's alarm clock and
//!   shutdown ring the inbox, which the session polls anyway (an atomic load).

mod keys;
mod moving;
mod output;
mod probe;
mod step;
mod transport;

pub use moving::{read_state, restore, Moved, SessionState, SSH_CANNOT_MOVE, UPGRADED};
pub use transport::{Terminal, Transport};

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Poll};

use tokio::io::ReadBuf;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, OwnedSemaphorePermit};
use tracing::info;

use crate::catalog::table::Context;
use crate::codec::telnet::{Input, TelnetCodec};
use crate::console::Console;
use crate::net::idle::{IdleEvent, IdleTimer, Timeouts};
use crate::net::tty::{keys_deadline, Tty};
use crate::players::inbox::{Bell, Delivery, Inbox, Next};
use crate::players::registry::Registration;
use crate::seat::{Seat, Services};

use step::{Done, Step};

/// Sent to every session when the server stops.
pub const SHUTTING_DOWN: &str = "\nServer shutting down.\n";

/// Sent instead when the server stops under a registered player's game (SPEC 8).
pub const SHUTTING_DOWN_KEPT: &str =
    "\nServer shutting down. Your game is kept: type resume when you are back.\n";

/// Sent when an idle session is closed.
pub const IDLE_CLOSED: &str = "\nClosed after too long without input. Goodbye.\n";

/// Sent, with the limit, to a connection that has not sent a whole line in time.
pub const LOGIN_TIMED_OUT: &str = "Closed: no command came within";

/// The most one read takes from the socket, into a buffer on the stack (left
/// uninitialised, so its size costs nothing per read). A command is a few bytes; pasted
/// input or a long line simply takes several reads, since the codec keeps what is
/// unfinished.
const READ_SIZE: usize = 1024;

/// What the server lends a session for as long as it runs; dropped with it.
#[derive(Debug)]
pub struct Lease {
    /// Its place under `--max-sessions`.
    pub permit: OwnedSemaphorePermit,
    /// Held so that the server, at shutdown, can wait until every session is gone.
    pub done: mpsc::Sender<()>,
}

/// Why a session ended, for the log line.
#[derive(Debug)]
enum Ending {
    Quit,
    ClientClosed,
    Idle,
    LoginTimeout,
    Shutdown,
    Closed,
    /// Moved to a new server process by an upgrade, which serves the connection now.
    Moved,
    Error(std::io::Error),
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Quit => f.write_str("quit"),
            Ending::ClientClosed => f.write_str("client closed"),
            Ending::Idle => f.write_str("idle timeout"),
            Ending::LoginTimeout => f.write_str("no command after connecting"),
            Ending::Shutdown => f.write_str("server shutdown"),
            Ending::Closed => f.write_str("closed by the server"),
            Ending::Moved => f.write_str("moved to the new server"),
            Ending::Error(error) => write!(f, "error: {error}"),
        }
    }
}

/// What woke the session.
enum Event {
    Input(Input),
    /// The client did not answer `set keys on` in time.
    KeysUnanswered,
    /// The client closed its side and everything it sent has been handed over.
    End,
    Delivery(Delivery),
    Idle(IdleEvent),
    /// A ladder's move was not made in time (SPEC section 12).
    MoveTimeout,
    Shutdown,
    /// An upgrade's roll call.
    Move,
}

/// One connected player, on a TCP socket unless said otherwise.
pub struct Session<S: Transport = TcpStream> {
    stream: S,
    codec: TelnetCodec,
    /// Items after the first of one read (pipelined input, such as a pasted script),
    /// served in order before the socket is read again.
    /// Boxed, and there only while it holds something: a session's future is kept by
    /// every idle player (8 bytes there rather than a `VecDeque`'s 32).
    #[allow(clippy::box_collection)]
    pending: Option<Box<VecDeque<Input>>>,
    /// The client closed its side: nothing more to read.
    input_ended: bool,
    console: Console,
    inbox: Inbox,
    idle: IdleTimer,
    /// The client was told not to echo (a password is asked for).
    echo_off: bool,
    /// Single keys and colour, once asked for.
    tty: Option<Box<Tty>>,
    context: Arc<Context>,
    /// Held: the session leaves the registry when it ends.
    registration: Registration,
    /// Held: released when the session ends.
    _lease: Lease,
}

impl<S: Transport> Session<S> {
    /// A session on an accepted stream, registered as `registration` with `inbox`;
    /// `lease` is held until it ends. `None` if the registration has gone already.
    /// A stream without telnet gets a codec without it; one with a pty gets keys from
    /// the start (its client sends keys and echoes nothing).
    #[allow(clippy::too_many_arguments)] // each is one thing the server lends
    pub fn new(
        stream: S,
        peer: SocketAddr,
        context: Arc<Context>,
        services: Services,
        timeouts: Timeouts,
        (mut registration, inbox): (Registration, Inbox),
        lease: Lease,
    ) -> Option<Session<S>> {
        let seat = Seat::new(services, registration.id(), peer.ip())?;
        let idle = IdleTimer::new(timeouts, registration.now_ms());
        registration.alarm_at(idle.due());
        let (codec, tty) = match stream.terminal() {
            Terminal::Telnet => (TelnetCodec::new(), None),
            Terminal::Plain => (TelnetCodec::without_telnet(false), None),
            Terminal::Pty => (TelnetCodec::without_telnet(true), Some(Tty::pty())),
        };
        Some(Session {
            stream,
            codec,
            pending: None,
            input_ended: false,
            console: Console::lobby(seat),
            inbox,
            idle,
            echo_off: false,
            tty,
            context,
            registration,
            _lease: lease,
        })
    }

    /// Serve the connection until it ends; errors end only this session.
    ///
    /// Not an `async fn`: one taking `self` by value keeps the argument and its moved
    /// copy side by side in its future, twice the session for as long as it lives.
    #[allow(clippy::manual_async_fn)] // see above: the async fn is twice the size
    pub fn run(self) -> impl Future<Output = ()> + Send {
        self.lifetime(false)
    }

    /// [`Session::run`] for a session moved here by an upgrade: no banner, its first
    /// words wait in its inbox.
    pub fn run_moved(self) -> impl Future<Output = ()> + Send {
        self.lifetime(true)
    }

    #[allow(clippy::manual_async_fn)] // see `run`
    fn lifetime(mut self, moved: bool) -> impl Future<Output = ()> + Send {
        async move {
            // On the registry's clock: 8 bytes where an `Instant` takes 16.
            let opened = self.registration.now_ms();
            if moved {
                info!(peer = %self.peer(), "connection moved here by an upgrade");
            } else {
                info!(peer = %self.peer(), "connection opened");
            }
            let ending = match self.serve(moved).await {
                Ok(ending) => ending,
                Err(error) => Ending::Error(error),
            };
            let duration =
                std::time::Duration::from_millis(self.registration.now_ms().saturating_sub(opened));
            info!(peer = %self.peer(), ?duration, reason = %ending, "connection closed");
            // A session without a registered name keeps its saves for itself only
            // (one that moved keeps them for the new process).
            if matches!(ending, Ending::Moved) {
                return;
            }
            if let Some(folder) = self.console.saves_to_forget() {
                let folder = self.context.data_dir.join(folder);
                tokio::task::spawn_blocking(move || {
                    if let Err(error) = std::fs::remove_dir_all(&folder) {
                        tracing::warn!(%error, folder = %folder.display(), "cannot remove a session's saves");
                    }
                });
            }
        }
    }

    /// The connection from its banner to its end. Not an `async fn`, nor is
    /// `next_event`: each would keep `self` twice in every idle player's future.
    #[allow(clippy::manual_async_fn)] // see above
    fn serve(&mut self, moved: bool) -> impl Future<Output = std::io::Result<Ending>> + '_ {
        async move {
            if moved {
                // Greeted by the message waiting in its inbox.
            } else if self.stream.arrives() {
                // Boxed, like every rare wait here: only SSH logins arrive with a name.
                // (Asked of the stream inside: a `Found` held here would be held by
                // every idle player's future.)
                Box::pin(self.arrive()).await?;
            } else {
                let detect = self
                    .console
                    .seat()
                    .is_some_and(|seat| seat.services().detect_readers);
                // Boxed: once per connection, and only with --detect-readers.
                if detect && Box::pin(self.probe_terminal()).await? {
                    self.console.reader_detected();
                }
                // Boxed: once per connection.
                let banner = self.console.banner();
                Box::pin(self.send(&banner)).await?;
            }
            loop {
                let event = self.next_event().await?;
                // A statement of its own: the `?`'s temporary would otherwise be kept
                // across the await below.
                let step = self.at_once(event)?;
                let done = match step {
                    Step::Done(done) => done,
                    // Boxed, like every rare wait here (`session/step.rs`).
                    Step::Later(rest) => Box::pin(self.later(rest)).await?,
                };
                let line_came = match done {
                    Done::Quiet => continue,
                    Done::Answered(line_came) => line_came,
                    Done::End(ending) => return Ok(ending),
                };
                // A ladder's move is waited for from now: the alarm rings when it is due.
                if let Some(due) = self.console.clock_starts(self.registration.now_ms()) {
                    self.registration.alarm_at(due.min(self.idle.due()));
                }
                if let (Some(came), Some(seat)) = (line_came, self.console.seat()) {
                    seat.services().metrics.command(came.elapsed());
                }
                // An exec request's command is done once it leaves the player at rest.
                if self.stream.one_command() && self.console.at_rest() {
                    return Ok(Ending::Quit);
                }
            }
        }
    }

    /// The next thing to act on: what is left of an earlier read, the end once the
    /// input has ended, else whichever comes first of shutdown, a message, the idle
    /// timer and the socket.
    #[allow(clippy::manual_async_fn)] // see `serve`
    fn next_event(&mut self) -> impl Future<Output = std::io::Result<Event>> + '_ {
        async move {
            loop {
                if let Some(queue) = &mut self.pending {
                    let input = queue.pop_front();
                    if queue.is_empty() {
                        // Released, so that a paste does not leave an idle session holding
                        // its queue.
                        self.pending = None;
                    }
                    if let Some(input) = input {
                        return Ok(Event::Input(input));
                    }
                }
                if self.input_ended {
                    return Ok(Event::End);
                }
                // A client that floods lines still yields to shutdown and messages,
                // because tokio's cooperative budget makes the read return Pending now
                // and then.
                let event = tokio::select! {
                    biased;
                    next = self.inbox.next() => match next {
                        Next::Bell(Bell::Shutdown) => Some(Event::Shutdown),
                        Next::Bell(Bell::Move) => Some(Event::Move),
                        Next::Delivery(delivery) => Some(Event::Delivery(delivery)),
                        Next::Bell(Bell::Alarm) => {
                            let now = self.registration.now_ms();
                            if self.console.move_overdue(now) {
                                Some(Event::MoveTimeout)
                            } else {
                                let event = self.idle.alarm(now);
                                let due = self.idle.due();
                                let due = self.console.move_due().map_or(due, |move_due| move_due.min(due));
                                self.registration.alarm_at(due);
                                event.map(Event::Idle)
                            }
                        }
                    },
                    () = keys_deadline(&mut self.tty) => Some(Event::KeysUnanswered),
                    read = read_some(&mut self.stream, &mut self.codec, &mut self.pending) => {
                        match read? {
                            Read::Input(input) => Some(Event::Input(input)),
                            Read::Nothing => None,
                            Read::End(last) => {
                                self.input_ended = true;
                                last.map(Event::Input)
                            }
                        }
                    }
                };
                if let Some(event) = event {
                    return Ok(event);
                }
            }
        }
    }

    /// The banner of a session whose stream logged the player in (SSH): the seat
    /// takes the name, and a pty turns keys and colour on; what it says follows the
    /// banner, before the prompt.
    async fn arrive(&mut self) -> std::io::Result<()> {
        let pty = self.stream.terminal() == Terminal::Pty;
        let said = match self.stream.arrival() {
            Some(found) => self.console.arrive(found, pty),
            None => String::new(),
        };
        // An exec request shows what its command says, not the lobby's welcome.
        if self.stream.one_command() {
            return self.send(&said).await;
        }
        let banner = self.console.banner();
        let mut text = banner
            .strip_suffix(crate::console::lobby::PROMPT)
            .unwrap_or(&banner)
            .to_owned();
        text.push_str(&said);
        text.push_str(self.console.prompt());
        self.send(&text).await
    }

    /// Where the session connects from, for the log. Asked of the registry rather
    /// than kept here: 32 bytes less in every idle player's future (issue 29).
    fn peer(&self) -> String {
        self.registration
            .peer()
            .map_or_else(|| "unknown".to_owned(), |peer| peer.to_string())
    }

    /// Whether the web page is on, the only reader of each game's progress and each
    /// command's latency.
    fn observed(&self) -> bool {
        self.console.seat().is_some_and(|seat| seat.services().web)
    }
}
/// What one read from the socket brought.
enum Read {
    /// The first item the read completed; any others wait in `pending`.
    Input(Input),
    /// Nothing complete yet (part of a line, or telnet commands that need no answer).
    Nothing,
    /// The client closed its side; the codec's last unfinished line, if any.
    End(Option<Input>),
}

/// Read once into a buffer on the stack and decode all of it: the first item is
/// returned, the others queued in `pending`. The buffer lives on the thread's stack
/// for the poll, never in the session; the codec keeps whatever is unfinished.
///
/// Through `AsyncRead::poll_read`, not `try_read`: after a read that did not fill the
/// buffer, tokio knows the socket is drained (epoll is edge-triggered) and waits for
/// the next event, where `try_read` would make one more `recv` per command only to be
/// told `EAGAIN`.
///
/// Not an `async fn`: its future would keep its three references twice, in every idle
/// session's future.
#[allow(clippy::box_collection)] // `Session::pending`'s box
fn read_some<'a, S: Transport>(
    stream: &'a mut S,
    codec: &'a mut TelnetCodec,
    pending: &'a mut Option<Box<VecDeque<Input>>>,
) -> impl Future<Output = std::io::Result<Read>> + 'a {
    poll_fn(move |cx| {
        let mut buf = [MaybeUninit::<u8>::uninit(); READ_SIZE];
        let mut read_buf = ReadBuf::uninit(&mut buf);
        ready!(Pin::new(&mut *stream).poll_read(cx, &mut read_buf))?;
        let bytes = read_buf.filled();
        if bytes.is_empty() {
            return Poll::Ready(Ok(Read::End(codec.finish())));
        }
        let mut pos = 0;
        let Some(first) = codec.decode_slice(bytes, &mut pos) else {
            return Poll::Ready(Ok(Read::Nothing));
        };
        while let Some(item) = codec.decode_slice(bytes, &mut pos) {
            pending.get_or_insert_with(Box::default).push_back(item);
        }
        Poll::Ready(Ok(Read::Input(first)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The most a session's task may hold while it waits, beside what it points to:
    /// with thousands of idle players this is most of the memory each costs. 1 KiB
    /// until recordings and resume added a recording handle, a replay and an
    /// unfinished game to every seat (each boxed, 8 bytes apiece), and races a race
    /// number for the game and the seat and the levels' and admins' handles to the
    /// shared services, and terminals (keys, colour) 40: their boxed state, the
    /// watched game (for the watcher's own colours) and the loop's new events: 1,128
    /// bytes in a release build, 1,136 in a debug one (what `cargo test` builds); and
    /// 24 for the arrival of the line being answered, held across the reply's write
    /// for /metrics' latency histogram: 1,152 and 1,160; the debug build keeps 8 more
    /// for the check that the web page is on (1,168); and 24 for several instances: the
    /// bus's handle in the shared services, the boxed race of another instance, and
    /// their alignment (1,192). Issue 29 took it down to 936 (debug) so that tokio's
    /// 128-byte aligned task, future and all, is 1,152 bytes rather than 1,408: the
    /// shared services behind one pointer (72 bytes to 8), the chat limiter made at a
    /// session's first line of chat (72 to 16), whom it watches boxed (40 to 8), the
    /// queue of pipelined lines and the login deadline boxed while empty or over, and a
    /// reply made and written without an await, so that only what a slow client leaves
    /// waits, boxed, and `serve` keeps no reply's state. Then 792, for a task of 1,024:
    /// no idle timer's `Sleep` nor shutdown listener of its own (the registry's alarm
    /// clock and shutdown ring the inbox: 136 bytes here and 200 on the heap), the
    /// reply's outcome kept once rather than twice by `act` (32), and the client's
    /// address asked of the registry for the log (32). Then 536, for a task of 640
    /// (a release build's future is 8 bytes smaller): the loop's future waits for
    /// the next event and nothing else, whatever must wait for more being boxed
    /// (`session/step.rs`; the reply's state, the event and the `?`'s temporary
    /// had been kept across every await: 160), neither `serve`, `next_event`, the
    /// inbox's `next` nor the socket's read an `async fn` (each kept its arguments
    /// twice: 40), the idle timeout and the time the session opened in
    /// milliseconds (16), and the seat's watchers boxed while there are none (16).
    /// Row 5 of the benchmark measures what a session really costs.
    const MAX_FUTURE: usize = 536;

    #[tokio::test]
    async fn a_waiting_session_is_small() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let _client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (stream, peer) = listener.accept().await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let context = Arc::new(Context {
            levels: crate::catalog::levels::Levels::built_in().0,
            data_dir: dir.path().to_path_buf(),
        });
        let registry = crate::players::registry::Registry::new();
        let store = crate::store::Store::open(&crate::store::DbUrl::Memory)
            .await
            .unwrap();
        let services = Services::start(
            registry.clone(),
            store,
            crate::catalog::table::Contexts::new(Arc::clone(&context), None),
            crate::records::recorder::Retention::default(),
            crate::players::throttle::LoginThrottle::new(),
        )
        .await
        .unwrap();
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
            services,
            Timeouts {
                idle: std::time::Duration::from_secs(600),
                login: std::time::Duration::from_secs(60),
            },
            registry.register(peer, 10).unwrap(),
            lease,
        )
        .unwrap();
        eprintln!(
            "input {} event {} outcome {} console {} tty {}",
            std::mem::size_of::<Input>(),
            std::mem::size_of::<Event>(),
            std::mem::size_of::<crate::console::Outcome>(),
            std::mem::size_of::<Console>(),
            std::mem::size_of::<Session>()
        );
        let future = session.run();
        let size = std::mem::size_of_val(&future);
        assert!(size <= MAX_FUTURE, "a session's future is {size} bytes");
    }
}
