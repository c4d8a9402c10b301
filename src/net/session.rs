//! One connection, from banner to goodbye: bytes in, lines to the console, replies and
//! messages out.
//!
//! The session is transport only. It reads the socket through the telnet codec, hands
//! each line to the player's [`Console`] (which decides what it does), writes what
//! comes back, and writes what arrives in its [`Inbox`] from elsewhere in the server.
//! It also keeps the idle timer and listens for shutdown, in one `select!`.
//!
//! What a command costs matters with thousands of mostly idle players, so three things
//! are kept from the hand-written future of earlier rounds (BENCHMARKS.md compares the
//! two shapes):
//! - a read goes into a buffer on the stack, which is hot, and the codec keeps the
//!   only thing that must outlive it (an unfinished line);
//! - the idle timer is not reset by every line: a line only notes its time, and the
//!   timer, polled only once its due time has passed, moves itself to the real
//!   deadline when it fires;
//! - shutdown is polled only once its flag is up ([`crate::net::shutdown`]).

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{self, ready, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, OwnedSemaphorePermit};
use tokio::time::{Instant, Sleep};
use tracing::info;

use crate::catalog::table::Context;
use crate::codec::telnet::{
    Input, Output, Signal, TelnetCodec, ECHO_OPTION, LINE_TOO_LONG, NAWS_OPTION, SGA_OPTION,
    TTYPE_OPTION,
};
use crate::codec::terminal::{
    self, Answer, Edit, Key, KeyReader, LineEditor, Negotiation, Verdict,
};
use crate::console::lobby;
use crate::console::{Console, Outcome};
use crate::net::shutdown::{LastWaker, Shutdown};
use crate::players::inbox::{Delivery, Inbox};
use crate::players::registry::{Activity, Registration};
use crate::seat::{Seat, Services};

/// How long a client has to agree to single keys before the player is told it did not.
const KEYS_ANSWER_WAIT: Duration = Duration::from_secs(3);

/// What the session knows of a terminal that asked for keys or colour (SPEC section
/// 10). Boxed in the session and made on first use: `nc` and scripts never need it.
#[derive(Default)]
struct Tty {
    keys: Negotiation,
    /// While single keys are asked for: when the client's time to answer runs out.
    deadline: Option<Pin<Box<Sleep>>>,
    reader: KeyReader,
    editor: LineEditor,
    /// Columns and rows, when the client told (NAWS).
    window: Option<(u16, u16)>,
    /// The window size and terminal type were asked for.
    asked_about_terminal: bool,
}

/// Sent to every session when the server stops.
pub const SHUTTING_DOWN: &str = "\nServer shutting down.\n";

/// Sent instead when the server stops under a registered player's game (SPEC 8).
pub const SHUTTING_DOWN_KEPT: &str =
    "\nServer shutting down. Your game is kept: type resume when you are back.\n";

/// Sent when an idle session is closed.
pub const IDLE_CLOSED: &str = "\nClosed after too long without input. Goodbye.\n";

/// Sent, with the limit, to a connection that has not sent a whole line in time.
pub const LOGIN_TIMED_OUT: &str = "Closed: no command came within";

/// Sent when messages for a player pile up because the client stopped reading.
pub const FELL_BEHIND: &str =
    "\nToo many messages are waiting for you: closing. Reconnect to catch up.\n";

/// The most one read takes from the socket, into a buffer on the stack (left
/// uninitialised, so its size costs nothing per read). A command is a few bytes; pasted
/// input or a long line simply takes several reads, since the codec keeps what is
/// unfinished.
const READ_SIZE: usize = 1024;

/// How long one reply may take to leave. A client that stops reading fills its socket
/// buffers; after this long its session is closed rather than held open forever.
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long the last message of a session that the server closes may take: the
/// client may be gone, and closing goes on regardless.
const LAST_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// The longest the idle warning comes before the close.
const MAX_IDLE_WARNING: Duration = Duration::from_secs(60);

/// How long a session may go without input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Without a line for this long, a session is warned, then closed.
    pub idle: Duration,
    /// A connection that has not sent one complete line this long after connecting is
    /// closed: a silent connection must not hold a place for the whole idle timeout.
    pub login: Duration,
}

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
    FellBehind,
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
            Ending::FellBehind => f.write_str("fell behind its messages"),
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
    Shutdown,
}

/// One connected player.
pub struct Session {
    stream: TcpStream,
    codec: TelnetCodec,
    /// Items after the first of one read (pipelined input, such as a pasted script),
    /// served in order before the socket is read again.
    pending: VecDeque<Input>,
    /// The client closed its side: nothing more to read.
    input_ended: bool,
    console: Console,
    inbox: Inbox,
    shutdown: Shutdown,
    idle: IdleTimer,
    /// Where the session notes its input, for `who`.
    activity: Arc<Activity>,
    /// The client was told not to echo (a password is asked for).
    echo_off: bool,
    /// Single keys and colour, once asked for.
    tty: Option<Box<Tty>>,
    peer: SocketAddr,
    context: Arc<Context>,
    /// Held: the session leaves the registry when it ends.
    _registration: Registration,
    /// Held: released when the session ends.
    _lease: Lease,
}

impl Session {
    /// A session on an accepted stream, registered as `registration` with `inbox`;
    /// `lease` is held until it ends. `None` if the registration has gone already.
    #[allow(clippy::too_many_arguments)] // each is one thing the server lends
    pub fn new(
        stream: TcpStream,
        peer: SocketAddr,
        context: Arc<Context>,
        services: Services,
        timeouts: Timeouts,
        shutdown: Shutdown,
        (registration, inbox): (Registration, Inbox),
        lease: Lease,
    ) -> Option<Session> {
        let seat = Seat::new(services, registration.id(), peer.ip())?;
        Some(Session {
            stream,
            codec: TelnetCodec::new(),
            pending: VecDeque::new(),
            input_ended: false,
            console: Console::lobby(seat),
            inbox,
            shutdown,
            idle: IdleTimer::new(timeouts),
            activity: Arc::clone(registration.activity()),
            echo_off: false,
            tty: None,
            peer,
            context,
            _registration: registration,
            _lease: lease,
        })
    }

    /// Serve the connection until it ends; errors end only this session.
    ///
    /// Not an `async fn`: one taking `self` by value keeps the argument and its moved
    /// copy side by side in its future, twice the session for as long as it lives.
    #[allow(clippy::manual_async_fn)] // see above: the async fn is twice the size
    pub fn run(mut self) -> impl Future<Output = ()> + Send {
        async move {
            let opened = std::time::Instant::now();
            info!(peer = %self.peer, "connection opened");
            let ending = match self.serve().await {
                Ok(ending) => ending,
                Err(error) => Ending::Error(error),
            };
            let duration = opened.elapsed();
            info!(peer = %self.peer, ?duration, reason = %ending, "connection closed");
            // A session without a registered name keeps its saves for itself only.
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

    async fn serve(&mut self) -> std::io::Result<Ending> {
        self.send(&lobby::banner()).await?;
        loop {
            // When the line being answered arrived, for the latency metric.
            let mut line_came = None;
            let outcome = match self.next_event().await? {
                Event::Input(Input::Line(line)) => {
                    if self.observed() {
                        line_came = Some(Instant::now());
                    }
                    self.idle.line_came();
                    self.activity.touch();
                    self.console.handle_line(line.trim())
                }
                Event::Input(Input::LineTooLong) => {
                    self.idle.input_came();
                    Outcome::Send(format!("{LINE_TOO_LONG}\n{}", self.console.prompt()))
                }
                Event::Input(Input::Negotiation(bytes)) => {
                    self.write(&bytes).await?;
                    continue;
                }
                Event::Input(Input::Keys(bytes)) => {
                    // Boxed, like every rare wait here: keys come only from those
                    // who asked for them.
                    if Box::pin(self.keys(&bytes)).await? {
                        return Ok(Ending::Quit);
                    }
                    continue;
                }
                Event::Input(Input::Signal(signal)) => match Box::pin(self.signal(signal)).await? {
                    Some(outcome) => outcome,
                    None => continue,
                },
                Event::KeysUnanswered => {
                    let verdict = self.tty.as_deref_mut().map(|tty| {
                        tty.deadline = None;
                        tty.keys.answer(Answer::Silence, ECHO_OPTION, SGA_OPTION)
                    });
                    match verdict {
                        Some(Verdict::Unanswered) => self.keys_refused(
                            "Your client did not answer (nc and scripts never do)",
                        ),
                        _ => continue,
                    }
                }
                Event::End => {
                    let text = self.console.end_of_input();
                    if !text.is_empty() {
                        self.send(&text).await?;
                    }
                    return Ok(Ending::ClientClosed);
                }
                Event::Delivery(Delivery::Message { message, skipped }) => {
                    match self.console.on_message(message, skipped) {
                        Outcome::Close(text) => {
                            return Ok(self.last_words(&text, Ending::Closed).await)
                        }
                        Outcome::Send(text) => Outcome::Send(self.around_typing(text)),
                        outcome => outcome,
                    }
                }
                Event::Delivery(Delivery::Overflow) => {
                    return Ok(self.last_words(FELL_BEHIND, Ending::FellBehind).await);
                }
                Event::Idle(IdleEvent::Warn(warning)) => Outcome::Send(format!(
                    "\nNo input for a while: this session closes in {} seconds unless you type something.\n{}",
                    warning.as_secs().max(1),
                    self.console.prompt()
                )),
                Event::Idle(IdleEvent::Close) => {
                    return Ok(self.last_words(IDLE_CLOSED, Ending::Idle).await);
                }
                Event::Idle(IdleEvent::LoginTimeout(timeout)) => {
                    let seconds = timeout.as_secs();
                    let unit = if seconds == 1 { "second" } else { "seconds" };
                    let text =
                        format!("\n{LOGIN_TIMED_OUT} {seconds} {unit} of connecting.\n");
                    return Ok(self.last_words(&text, Ending::LoginTimeout).await);
                }
                Event::Shutdown => {
                    let words = if self.console.keeps_game() {
                        SHUTTING_DOWN_KEPT
                    } else {
                        SHUTTING_DOWN
                    };
                    return Ok(self.last_words(words, Ending::Shutdown).await);
                }
            };
            if self.act(outcome).await? {
                return Ok(Ending::Quit);
            }
            if let (Some(came), Some(seat)) = (line_came, self.console.seat()) {
                seat.services().metrics.command(came.elapsed());
            }
        }
    }

    /// The next thing to act on: what is left of an earlier read, the end once the
    /// input has ended, else whichever comes first of shutdown, a message, the idle
    /// timer and the socket.
    async fn next_event(&mut self) -> std::io::Result<Event> {
        loop {
            if let Some(input) = self.pending.pop_front() {
                if self.pending.is_empty() && self.pending.capacity() > 0 {
                    // Released, so that a paste does not leave an idle session holding
                    // its queue.
                    self.pending = VecDeque::new();
                }
                return Ok(Event::Input(input));
            }
            if self.input_ended {
                return Ok(Event::End);
            }
            // A client that floods lines still yields to shutdown and messages,
            // because tokio's cooperative budget makes the read return Pending now
            // and then.
            let event = tokio::select! {
                biased;
                () = &mut self.shutdown => Some(Event::Shutdown),
                delivery = self.inbox.recv() => Some(Event::Delivery(delivery)),
                idle = &mut self.idle => Some(Event::Idle(idle)),
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

    /// Carry out what a line led to; true when the session is to close.
    async fn act(&mut self, mut outcome: Outcome) -> std::io::Result<bool> {
        loop {
            match outcome {
                Outcome::Send(text) => {
                    self.send(&text).await?;
                    if self.tty.is_some() || self.wants_terminal() {
                        Box::pin(self.sync_terminal()).await?;
                    }
                    if self.observed() {
                        self.activity.set_progress(self.console.progress());
                    }
                    return Ok(false);
                }
                Outcome::Close(text) => {
                    self.send(&text).await?;
                    return Ok(true);
                }
                Outcome::Wait(job) => {
                    // The session waits for the job (what blocks runs on a blocking
                    // thread); messages wait in the inbox meanwhile.
                    // Boxed: a job's future (a store query, a hash) is large, and
                    // rare, while the session's future lives as long as its player.
                    // The levels of now: a reload gives new games the new files.
                    let context = self.console.seat().map_or_else(
                        || Arc::clone(&self.context),
                        |seat| seat.services().contexts.current(),
                    );
                    let done = Box::pin(job.run(context)).await;
                    outcome = self.console.finish(done);
                }
            }
        }
    }

    /// Whether the web page is on, the only reader of each game's progress and each
    /// command's latency.
    fn observed(&self) -> bool {
        self.console.seat().is_some_and(|seat| seat.services().web)
    }

    /// The server closes the session: a last message, which may be lost (the client
    /// may be gone, or not reading), then `ending`.
    async fn last_words(&mut self, text: &str, ending: Ending) -> Ending {
        let bytes = encode(text);
        // Boxed, like every rare wait here: an `async fn`'s future is as large as its
        // largest wait, and a session's future lives as long as its player.
        let _ = Box::pin(tokio::time::timeout(
            LAST_WRITE_TIMEOUT,
            self.stream.write_all(&bytes),
        ))
        .await;
        ending
    }

    /// Send `text`, its `\n` as `\r\n`; nothing if it is empty. When the console has
    /// begun or stopped asking for a secret, the client is first told to stop or to go
    /// on echoing what is typed (`IAC WILL ECHO` / `IAC WONT ECHO`); with keys on the
    /// server echoes, and simply echoes no secret. With colour on, boards are painted.
    async fn send(&mut self, text: &str) -> std::io::Result<()> {
        let painted;
        let text = match self.paint(text) {
            Some(text) => {
                painted = text;
                painted.as_str()
            }
            None => text,
        };
        let keys_on = self.tty.as_ref().is_some_and(|tty| tty.keys.is_on());
        let hide = self.console.hides_input() && !keys_on;
        if hide == self.echo_off {
            if text.is_empty() {
                return Ok(());
            }
            return self.write(&encode(text)).await;
        }
        self.echo_off = hide;
        let mut bytes = self.codec.echo(hide).to_vec();
        Output::Text(text).encode_into(&mut bytes);
        self.write(&bytes).await
    }

    /// Write `bytes` as they are. Nearly every reply fits in the socket's buffer and
    /// leaves at once; the rest is written as the client reads, for at most
    /// [`WRITE_TIMEOUT`], or until shutdown.
    async fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let written = match self.stream.try_write(bytes) {
            Ok(written) => written,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => 0,
            Err(error) => return Err(error),
        };
        let rest = &bytes[written..];
        if rest.is_empty() {
            return Ok(());
        }
        Box::pin(self.write_slowly(rest)).await
    }

    /// The rest of a reply the socket could not take at once.
    async fn write_slowly(&mut self, rest: &[u8]) -> std::io::Result<()> {
        tokio::select! {
            result = tokio::time::timeout(WRITE_TIMEOUT, self.stream.write_all(rest)) => {
                result.unwrap_or_else(|_| {
                    Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the client stopped reading",
                    ))
                })
            }
            // A client that does not read must not hold up shutdown; it would not
            // read the goodbye either.
            () = &mut self.shutdown => Err(std::io::Error::other(
                "server shutting down while the client was not reading",
            )),
        }
    }
}

/// The moment `set keys on` goes unanswered; never, when nothing is being asked. A
/// `poll_fn`, not an `async fn`: it is made on every turn of the session's loop, inside
/// the session's future.
fn keys_deadline(tty: &mut Option<Box<Tty>>) -> impl Future<Output = ()> + '_ {
    poll_fn(
        move |cx| match tty.as_deref_mut().and_then(|tty| tty.deadline.as_mut()) {
            Some(deadline) => deadline.as_mut().poll(cx),
            None => Poll::Pending,
        },
    )
}

/// Single keys, colour and the telnet signals (SPEC section 10).
impl Session {
    /// With colour on and a board in `text`: the text painted, the board drawn in
    /// place, and a word if it is wider than the window.
    fn paint(&self, text: &str) -> Option<String> {
        // Colour on makes the terminal's state (`sync_terminal`): without it, no
        // setting is looked at on a reply.
        let tty = self.tty.as_deref()?;
        if !self.console.settings().color {
            return None;
        }
        let palette = self.console.palette()?;
        let (mut painted, width) = terminal::paint(text, &palette);
        if let (Some(width), Some((columns, _))) = (width, tty.window) {
            if let Some(warning) = terminal::too_wide(width, columns) {
                let at = painted.rfind('\n').map_or(0, |at| at + 1);
                painted.insert_str(at, &warning);
            }
        }
        Some(painted)
    }

    /// Whether the settings ask for single keys or colour.
    fn wants_terminal(&self) -> bool {
        let settings = self.console.settings();
        settings.keys || settings.color
    }

    /// Bring the terminal in line with the settings: ask for single keys when they are
    /// wanted (and the window size and terminal type), give them back when not.
    async fn sync_terminal(&mut self) -> std::io::Result<()> {
        let settings = self.console.settings();
        if !settings.keys && !settings.color && self.tty.is_none() {
            return Ok(());
        }
        let tty = self.tty.get_or_insert_with(Box::default);
        let mut bytes = Vec::new();
        if settings.keys && tty.keys.ask() {
            bytes.extend_from_slice(&self.codec.offer(ECHO_OPTION, true));
            bytes.extend_from_slice(&self.codec.offer(SGA_OPTION, true));
            tty.deadline = Some(Box::pin(tokio::time::sleep(KEYS_ANSWER_WAIT)));
        }
        if !settings.keys && tty.keys.give_back() {
            bytes.extend_from_slice(&self.codec.offer(ECHO_OPTION, false));
            bytes.extend_from_slice(&self.codec.offer(SGA_OPTION, false));
            self.codec.set_character_mode(false);
            tty.deadline = None;
            tty.editor = LineEditor::default();
            self.echo_off = false;
        }
        // A telnet client (it negotiates) is asked for its window and terminal once.
        if !tty.asked_about_terminal && (settings.keys || self.codec.negotiated()) {
            tty.asked_about_terminal = true;
            bytes.extend_from_slice(&self.codec.ask(NAWS_OPTION));
            bytes.extend_from_slice(&self.codec.ask(TTYPE_OPTION));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.write(&bytes).await
    }

    /// The client did not agree to single keys: say so, and stay in line mode.
    fn keys_refused(&mut self, why: &str) -> Outcome {
        if let Some(tty) = self.tty.as_deref_mut() {
            tty.keys = Negotiation::Off;
            tty.deadline = None;
        }
        self.console.keys_refused();
        Outcome::Send(format!(
            "\n{why}: keys stay off. Single keys need a telnet client; lines and Enter work as before.\n{}",
            self.console.prompt()
        ))
    }

    /// A telnet command or answer: what to show, if anything.
    async fn signal(&mut self, signal: Signal) -> std::io::Result<Option<Outcome>> {
        let prompt = self.console.prompt();
        let Some(tty) = self.tty.as_deref_mut() else {
            return Ok(match signal {
                Signal::Interrupt => Some(Outcome::Send(format!("^C\n{prompt}"))),
                Signal::AreYouThere => {
                    Some(Outcome::Send(format!("\n[arcade: yes, here]\n{prompt}")))
                }
                _ => None,
            });
        };
        let keys_on = tty.keys.is_on();
        Ok(match signal {
            Signal::Agreed(option @ (ECHO_OPTION | SGA_OPTION))
            | Signal::Declined(option @ (ECHO_OPTION | SGA_OPTION))
                if tty.keys.is_asking() =>
            {
                let answer = match signal {
                    Signal::Agreed(_) => Answer::Agreed(option),
                    _ => Answer::Declined(option),
                };
                match tty.keys.answer(answer, ECHO_OPTION, SGA_OPTION) {
                    Verdict::On => {
                        tty.deadline = None;
                        self.codec.set_character_mode(true);
                        Some(Outcome::Send(format!(
                            "\nSingle keys are on. In 2048 each key acts at once; in Sokoban and Star\nPusher w a s d and the arrow keys take one step. Other keys start a line you\nend with Enter (type d3 as D3). Ctrl-C drops a line.\n{prompt}"
                        )))
                    }
                    Verdict::Refused => {
                        Some(self.keys_refused("Your client refused character mode"))
                    }
                    Verdict::Pending | Verdict::Unanswered => None,
                }
            }
            Signal::Agreed(TTYPE_OPTION) => {
                self.write(&TelnetCodec::ask_terminal_type()).await?;
                None
            }
            Signal::Agreed(_) => None,
            Signal::Declined(_) | Signal::AbortOutput => None,
            Signal::WindowSize { width, height } => {
                tty.window = Some((width, height));
                None
            }
            Signal::TerminalType(kind) => {
                tracing::debug!(peer = %self.peer, terminal = %kind, "terminal type");
                None
            }
            Signal::AreYouThere => Some(Outcome::Send(format!("\n[arcade: yes, here]\n{prompt}"))),
            Signal::Interrupt => {
                tty.editor.key(Key::Interrupt, false);
                Some(Outcome::Send(format!("^C\n{prompt}")))
            }
            Signal::EraseChar if keys_on => {
                let hide = self.console.hides_input();
                if let Edit::Echo(echo) = tty.editor.key(Key::Erase, hide) {
                    self.write(&encode(&echo)).await?;
                }
                None
            }
            Signal::EraseLine if keys_on => {
                let hide = self.console.hides_input();
                if let Edit::Echo(echo) = tty.editor.key(Key::KillLine, hide) {
                    self.write(&encode(&echo)).await?;
                }
                None
            }
            Signal::EraseChar | Signal::EraseLine => None,
        })
    }

    /// Keys from a character-mode client: edited into lines, or acting at once. True
    /// when the session is to close.
    async fn keys(&mut self, bytes: &[u8]) -> std::io::Result<bool> {
        let mut keys = Vec::new();
        match self.tty.as_deref_mut() {
            Some(tty) => tty.reader.feed(bytes, &mut keys),
            None => return Ok(false),
        }
        self.idle.input_came();
        for key in keys {
            let Some(tty) = self.tty.as_deref_mut() else {
                return Ok(false);
            };
            let empty = tty.editor.line().is_empty();
            let instant = match key {
                Key::Char(c) if empty => self.console.instant(c),
                Key::Arrow(arrow) if empty => self.console.arrow(arrow),
                _ => None,
            };
            let outcome = if let Some(line) = instant {
                // The key ends the line it was typed on, as Enter would.
                let echo = match key {
                    Key::Char(c) => format!("{c}\r\n"),
                    _ => String::from("\r\n"),
                };
                self.write(echo.as_bytes()).await?;
                self.console.handle_line(line)
            } else {
                let hide = self.console.hides_input();
                match tty.editor.key(key, hide) {
                    Edit::Echo(echo) => {
                        self.write(&encode(&echo)).await?;
                        continue;
                    }
                    Edit::Abandon => Outcome::Send(format!("^C\n{}", self.console.prompt())),
                    Edit::Submit(line) => {
                        if !hide {
                            self.write(b"\r\n").await?;
                        }
                        self.idle.line_came();
                        self.console.handle_line(line.trim())
                    }
                }
            };
            self.activity.touch();
            if self.act(outcome).await? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A message arriving while the player types, with keys on: the half-typed line
    /// is cleared first and typed again after it.
    fn around_typing(&self, text: String) -> String {
        match self.tty.as_deref() {
            Some(Tty { keys, editor, .. })
                if keys.is_on() && !editor.line().is_empty() && !text.is_empty() =>
            {
                format!(
                    "\r\u{1b}[K{}{}",
                    text.trim_start_matches('\n'),
                    editor.line()
                )
            }
            _ => text,
        }
    }
}

/// `text` as it goes on the wire.
fn encode(text: &str) -> Vec<u8> {
    let output = Output::Text(text);
    let mut bytes = Vec::with_capacity(output.encoded_len());
    output.encode_into(&mut bytes);
    bytes
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
async fn read_some(
    stream: &mut TcpStream,
    codec: &mut TelnetCodec,
    pending: &mut VecDeque<Input>,
) -> std::io::Result<Read> {
    poll_fn(|cx| {
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
            pending.push_back(item);
        }
        Poll::Ready(Ok(Read::Input(first)))
    })
    .await
}

/// What the idle timer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdleEvent {
    /// Warn the player that the session closes in this long.
    Warn(Duration),
    /// Close the session.
    Close,
    /// Close the session: no whole line came within this long of connecting.
    LoginTimeout(Duration),
}

/// The idle timer: warns, then closes, a session that has had no input for a while.
///
/// A line only notes its time ([`IdleTimer::input_came`]); the timer is not touched.
/// When it fires, it finds whether input came since and moves itself to the real
/// deadline. It is polled only once its due time has passed, or with a new waker.
///
/// Until the first whole line it also keeps the login deadline, which comes first.
struct IdleTimer {
    timeout: Duration,
    /// Until the first whole line: the login timeout, and when it ends.
    login: Option<(Duration, Instant)>,
    last_input: Instant,
    /// The warning was sent since the last input.
    warned: bool,
    /// When `sleep` is due: it is polled only after this.
    due: Instant,
    /// `Sleep` is `!Unpin`; boxed, so that the session is `Unpin`.
    sleep: Pin<Box<Sleep>>,
    /// The waker `sleep` was last polled with.
    waker: LastWaker,
}

impl IdleTimer {
    fn new(timeouts: Timeouts) -> IdleTimer {
        let Timeouts {
            idle: timeout,
            login,
        } = timeouts;
        let now = Instant::now();
        let login_ends = now + login;
        let due = (now + (timeout - idle_warning(timeout))).min(login_ends);
        IdleTimer {
            timeout,
            login: Some((login, login_ends)),
            last_input: now,
            warned: false,
            due,
            sleep: Box::pin(tokio::time::sleep_until(due)),
            waker: LastWaker::default(),
        }
    }

    /// Input came: the idle time counts from now.
    fn input_came(&mut self) {
        self.warned = false;
        self.last_input = Instant::now();
    }

    /// A whole line came: the idle time counts from now, and the login is over.
    fn line_came(&mut self) {
        self.input_came();
        self.login = None;
    }
}

impl Future for IdleTimer {
    type Output = IdleEvent;

    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<IdleEvent> {
        let timer = &mut *self;
        if !timer.waker.is_new(cx) && Instant::now() < timer.due {
            return Poll::Pending;
        }
        let warning = idle_warning(timer.timeout);
        loop {
            if timer.sleep.as_mut().poll(cx).is_pending() {
                timer.due = timer.sleep.deadline();
                return Poll::Pending;
            }
            if let Some((login, ends)) = timer.login {
                if Instant::now() >= ends {
                    return Poll::Ready(IdleEvent::LoginTimeout(login));
                }
            }
            let deadline = timer.last_input
                + if timer.warned {
                    timer.timeout
                } else {
                    timer.timeout - warning
                };
            if Instant::now() < deadline {
                // Input came since the timer was set: wait for the rest (or for the
                // end of the login, if that comes first).
                let next = match timer.login {
                    Some((_, ends)) => deadline.min(ends),
                    None => deadline,
                };
                timer.sleep.as_mut().reset(next);
                continue;
            }
            if timer.warned {
                return Poll::Ready(IdleEvent::Close);
            }
            timer.warned = true;
            let closes_at = timer.last_input + timer.timeout;
            timer.sleep.as_mut().reset(closes_at);
            timer.due = closes_at;
            // A timer that fired has let go of the waker: poll it to give it one.
            let _ = timer.sleep.as_mut().poll(cx);
            return Poll::Ready(IdleEvent::Warn(warning));
        }
    }
}

/// How long before closing an idle session it is warned: half the idle timeout, at
/// most [`MAX_IDLE_WARNING`].
fn idle_warning(idle_timeout: Duration) -> Duration {
    (idle_timeout / 2).min(MAX_IDLE_WARNING)
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
    /// their alignment (1,192). Row 8 of the benchmark measures what a session really
    /// costs.
    const MAX_FUTURE: usize = 1192;

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
            crate::records::recorder::DEFAULT_KEEP,
            crate::players::accounts::LoginThrottle::new(),
        )
        .await
        .unwrap();
        let signal = crate::net::shutdown::ShutdownSignal::new();
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
            timeouts(600, 60),
            signal.subscribe(),
            registry.register(peer, 10).unwrap(),
            lease,
        )
        .unwrap();
        eprintln!(
            "input {} event {} outcome {} console {} tty {}",
            std::mem::size_of::<Input>(),
            std::mem::size_of::<Event>(),
            std::mem::size_of::<Outcome>(),
            std::mem::size_of::<Console>(),
            std::mem::size_of::<Session>()
        );
        let future = session.run();
        let size = std::mem::size_of_val(&future);
        assert!(size <= MAX_FUTURE, "a session's future is {size} bytes");
    }

    fn timeouts(idle: u64, login: u64) -> Timeouts {
        Timeouts {
            idle: Duration::from_secs(idle),
            login: Duration::from_secs(login),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_idle_timer_warns_then_closes_and_counts_from_the_last_input() {
        let mut timer = IdleTimer::new(timeouts(100, 1000));
        // Input at 30 s moves the warning from 50 s to 80 s.
        tokio::time::sleep(Duration::from_secs(30)).await;
        timer.line_came();
        let started = Instant::now();
        assert_eq!((&mut timer).await, IdleEvent::Warn(Duration::from_secs(50)));
        assert_eq!(started.elapsed(), Duration::from_secs(50));
        assert_eq!((&mut timer).await, IdleEvent::Close);
        assert_eq!(started.elapsed(), Duration::from_secs(100));
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_whole_line_the_login_timeout_closes_first() {
        let started = Instant::now();
        let mut timer = IdleTimer::new(timeouts(100, 10));
        // Bytes without a line ending keep the session from idling, not from the
        // login timeout.
        tokio::time::sleep(Duration::from_secs(5)).await;
        timer.input_came();
        assert_eq!(
            (&mut timer).await,
            IdleEvent::LoginTimeout(Duration::from_secs(10))
        );
        assert_eq!(started.elapsed(), Duration::from_secs(10));
        // After a whole line only the idle timeout counts.
        let mut timer = IdleTimer::new(timeouts(100, 10));
        timer.line_came();
        assert_eq!((&mut timer).await, IdleEvent::Warn(Duration::from_secs(50)));
    }

    #[test]
    fn the_warning_comes_at_most_a_minute_early() {
        assert_eq!(
            idle_warning(Duration::from_secs(10)),
            Duration::from_secs(5)
        );
        assert_eq!(
            idle_warning(Duration::from_secs(1800)),
            Duration::from_secs(60)
        );
    }
}
