//! A session's part of an upgrade (SPEC section 11). At the roll call's bell, between
//! two lines, a telnet session hands in a copy of its socket and its state: the
//! codec's unfinished line and telnet options, lines read and not yet answered, the
//! terminal (keys, window size, terminal type), the idle timer, and its console (name,
//! place, settings, game by its recording). Then it waits for the verdict: moved (end
//! without a word: the connection stays open in the new process) or stay (go on as if
//! nothing happened). An SSH session cannot move: it is told once the new server
//! serves, and closed, its game kept for `resume`.
//!
//! The copy of its socket is made when the hand-over asks for it, not when the session
//! answers the roll call: a few copies exist at once, not one per session (a server
//! near its open-file limit has no descriptor to spare for each).
//!
//! In the new process [`restore`] makes the session again from the same state, and
//! its first words are `The server was upgraded.` and the prompt, sent as a message.

use std::net::SocketAddr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::net::TcpStream;

use crate::catalog::table::Context;
use crate::codec::telnet::{Input, TelnetCodec};
use crate::console::{Console, ConsoleState};
use crate::net::idle::{IdleState, IdleTimer, Timeouts};
use crate::net::tty::Tty;
use crate::players::inbox::{Inbox, Message};
use crate::players::moves::{Ask, Packed, Verdict};
use crate::players::registry::Registration;
use crate::seat::Services;

use super::{Ending, Lease, Session, Transport};

/// What players see once their session is in the new process (SPEC section 11).
pub const UPGRADED: &str = "The server was upgraded.";

/// What an SSH session is told before it closes, once the new server serves.
pub const SSH_CANNOT_MOVE: &str = "\nThe server was upgraded. SSH connections cannot move to the new server: connect again,\nand type resume to go on with your game.\n";

/// A session as it moves (written).
#[derive(Serialize)]
struct Packing<'a> {
    number: u64,
    peer: SocketAddr,
    codec: &'a TelnetCodec,
    pending: Vec<&'a Input>,
    input_ended: bool,
    echo_off: bool,
    tty: Option<&'a Tty>,
    idle: IdleState,
    console: ConsoleState,
}

/// A session as it moved (read): the same fields as [`Packing`].
#[derive(Deserialize)]
pub struct SessionState {
    number: u64,
    peer: SocketAddr,
    codec: TelnetCodec,
    pending: Vec<Input>,
    input_ended: bool,
    echo_off: bool,
    tty: Option<Box<Tty>>,
    idle: IdleState,
    console: ConsoleState,
}

impl<S: Transport> Session<S> {
    /// The roll call rang: hand in this session, wait for the verdict, and say how it
    /// ends if it does (moved, or an SSH session closed).
    pub(super) async fn move_out(&mut self) -> std::io::Result<Option<Ending>> {
        let Some(seat) = self.console.seat() else {
            return Ok(None);
        };
        let services = seat.services().clone();
        let id = seat.id();
        let packed = if self.stream.socket().is_none() {
            Packed::Closes
        } else {
            match self.pack() {
                Ok(state) => Packed::Moves { state },
                Err(why) => Packed::Refuses(why),
            }
        };
        let closes = matches!(packed, Packed::Closes);
        let Some(mut asks) = services.roll_call.answer(id, packed) else {
            return Ok(None);
        };
        let verdict = loop {
            match asks.recv().await {
                // A copy of the socket, made only when its turn in the hand-over comes.
                Some(Ask::Socket(reply)) => {
                    let copy = self.stream.socket().map_or_else(
                        || Err(std::io::Error::other("not a socket")),
                        |fd| fd.try_clone_to_owned(),
                    );
                    let _ = reply.send(copy);
                }
                Some(Ask::Verdict(verdict)) => break verdict,
                None => break Verdict::Stay,
            }
        };
        match verdict {
            Verdict::Moved if closes => {
                let text = self.console.server_says(SSH_CANNOT_MOVE);
                Ok(Some(self.last_words(&text, Ending::Closed).await))
            }
            Verdict::Moved => {
                self.console.moved_away();
                Ok(Some(Ending::Moved))
            }
            Verdict::Stay => {
                // The new process may have claimed the game before it failed.
                self.console.claim_game();
                Ok(None)
            }
        }
    }

    /// This session's state, as JSON, or why it cannot move now.
    fn pack(&mut self) -> Result<Vec<u8>, String> {
        let peer = self
            .registration
            .peer()
            .ok_or_else(|| String::from("a session that left the registry"))?;
        let now = self.registration.now_ms();
        let console = self.console.pack(now)?;
        let packing = Packing {
            number: self.registration.id().number(),
            peer,
            codec: &self.codec,
            pending: self
                .pending
                .as_deref()
                .map_or_else(Vec::new, |pending| pending.iter().collect()),
            input_ended: self.input_ended,
            echo_off: self.echo_off,
            tty: self.tty.as_deref(),
            idle: self.idle.pack(now),
            console,
        };
        serde_json::to_vec(&packing)
            .map_err(|error| format!("cannot write a session's state: {error}"))
    }
}

/// A session moved here, made again but not running yet: [`Moved::start`] runs it
/// once the new process serves.
pub struct Moved {
    session: Session<TcpStream>,
}

impl Moved {
    /// Its game is this process's to record from now on: once every session is taken.
    pub fn claim(&self) {
        self.session.console.claim_game();
    }

    /// Not taken after all (another session could not be): dropped without a word or
    /// a write, the old process keeps it.
    pub fn abandon(mut self) {
        self.session.console.moved_away();
    }

    /// Run it: its first words are [`UPGRADED`] and its prompt.
    pub fn start(self) {
        let session = self.session;
        session.console.watch_again();
        tokio::spawn(session.run_moved());
    }
}

/// Read a moved session's state.
///
/// # Errors
/// Why it cannot be read (another version's format).
pub fn read_state(bytes: &[u8]) -> Result<SessionState, String> {
    serde_json::from_slice(bytes)
        .map_err(|error| format!("a session's state this version cannot read: {error}"))
}

impl SessionState {
    /// The session's number and name in the old process, and its client's address:
    /// what it registers here under.
    pub fn identity(&self) -> (u64, &crate::players::accounts::PlayerName, SocketAddr) {
        (self.number, Console::moved_name(&self.console), self.peer)
    }
}

/// Make the session of `state` again on `socket`, registered as `registration` with
/// `inbox`, its game rebuilt by replay; `lease` is held until it ends.
///
/// # Errors
/// Why not (its game cannot be rebuilt): the upgrade fails and the old process keeps
/// the session.
#[allow(clippy::too_many_arguments)] // each is one thing the server lends
pub async fn restore(
    state: SessionState,
    socket: std::os::fd::OwnedFd,
    context: Arc<Context>,
    services: Services,
    timeouts: Timeouts,
    (mut registration, inbox): (Registration, Inbox),
    lease: Lease,
) -> Result<Moved, String> {
    let std_socket = std::net::TcpStream::from(socket);
    std_socket
        .set_nonblocking(true)
        .map_err(|error| format!("session {}'s socket: {error}", state.number))?;
    let stream = TcpStream::from_std(std_socket)
        .map_err(|error| format!("session {}'s socket: {error}", state.number))?;
    let now = registration.now_ms();
    let (console, said) = Console::unpack(
        services,
        (registration.id(), state.peer.ip()),
        state.console,
        Arc::clone(&context),
        now,
    )
    .await?;
    let idle = IdleTimer::unpack(timeouts, now, &state.idle);
    registration.alarm_at(idle.due());
    if let Some(seat) = console.seat() {
        let own = seat.own_inbox();
        let _ = own.send(Message::Line(Arc::from(UPGRADED)));
        if !said.is_empty() {
            let _ = own.send(Message::Line(Arc::from(said.trim_end())));
        }
    }
    let pending =
        (!state.pending.is_empty()).then(|| Box::new(state.pending.into_iter().collect()));
    let mut tty = state.tty;
    if let Some(tty) = tty.as_deref_mut().filter(|tty| tty.keys.is_asking()) {
        // A client asked for keys and not answered yet gets its time again here.
        tty.deadline = Some(Box::pin(tokio::time::sleep(super::keys::KEYS_ANSWER_WAIT)));
    }
    Ok(Moved {
        session: Session {
            stream,
            codec: state.codec,
            pending,
            input_ended: state.input_ended,
            console,
            inbox,
            idle,
            echo_off: state.echo_off,
            tty,
            context,
            registration,
            _lease: lease,
        },
    })
}
