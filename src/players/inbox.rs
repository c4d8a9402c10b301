//! A session's inbox: how the rest of the server reaches a player at any time (chat, a
//! watched player's board, race news, a kick).
//!
//! Any number of [`InboxSender`]s, one [`Inbox`] owned by the session. Sending never
//! waits and never fails because the player is slow; what a slow player costs is
//! bounded:
//! - [`Message::Frame`]s (a watched game's output) are kept up to [`FRAME_CAP`]; past
//!   that the oldest frame is dropped, and the player is told how many were skipped.
//! - [`Message::Line`]s (chat, tells, news) wait up to [`MESSAGE_CAP`]; past that the
//!   newest are dropped and counted, and once the player has read what waits, one line
//!   says how many were lost ([`dropped_notice`]). A reading player is never closed for
//!   what others send: what others can send is limited where they send it (the chat
//!   limits per player, address and recipient), and a session is closed only when its
//!   own socket stops taking bytes (the session's write timeout).
//! - [`Message::Close`] and the messages of watching always get through.
//!
//! A player on another instance (`--bus`) has a sender too: a [`Forward`] that hands
//! the message to the bus, which carries it to that instance's inbox for the player.
//! Everything that reaches a player through a sender (chat, tells, watching, races,
//! kicks) reaches a remote player the same way, with the same rules at the far end.
//!
//! Besides messages, an inbox carries three bells, which take no room in its queue and
//! are never dropped: the registry's alarm clock rings [`Bell::Alarm`] when the
//! session's idle time may be up, shutdown rings [`Bell::Shutdown`] for every
//! session, and an upgrade's roll call rings [`Bell::Move`]. So a session waits on one thing (its inbox and its socket), not on a timer
//! and a shutdown listener of its own as well (issue 29: each was about 100 bytes a
//! session).
//!
//! tokio's channels either wait when full or drop the newest; a watcher wants the
//! newest board, so the queue is ours: a short `Mutex` around a `VecDeque` (never held
//! across an `.await`), with a length kept outside it so that a session polling an
//! empty inbox, as it does on every command, takes no lock.

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use atomic_waker::AtomicWaker;

use crate::players::accounts::PlayerName;
use crate::players::ids::SessionId;
use crate::races::rules::{RaceGame, RaceId};

/// How many frames of a watched game may wait for a slow player.
pub const FRAME_CAP: usize = 32;

/// How many lines may wait; past it the newest are dropped and counted.
pub const MESSAGE_CAP: usize = 256;

/// The line that tells a player how many lines for them were dropped.
pub fn dropped_notice(dropped: u64) -> String {
    let lines = if dropped == 1 { "line" } else { "lines" };
    format!("({dropped} {lines} for you were dropped: they came faster than you read.)")
}

/// Something for a player from elsewhere in the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A line for the player (chat, news, a broadcast): shown on a line of its own,
    /// then the prompt again. Never dropped. Shared: one line of chat goes to every
    /// player in a place, without a copy each.
    Line(Arc<str>),
    /// A frame of a watched game, exactly as its player saw it. Dropped, oldest first,
    /// when the player falls behind.
    Frame(Arc<str>),
    /// Close the session after this text (a kick, a takeover from elsewhere).
    Close(String),
    /// A player wants to watch this session's game: send it frames from now on.
    Watch {
        /// The watcher's session.
        watcher: SessionId,
        /// Where its frames go.
        inbox: InboxSender,
        /// The watcher reads through a screen reader: it gets the game described in
        /// words (SPEC section 10) rather than the player's screen.
        reader: bool,
    },
    /// A watcher has stopped watching.
    Unwatch(SessionId),
    /// The game this session watched is over, or its player gone: back to the lobby.
    WatchEnded {
        /// The player that was watched.
        name: PlayerName,
    },
    /// The recording with this id, played back to this session, has come to its end.
    ReplayEnded(i64),
    /// The race this session is in has started: start its game (carried along, as a
    /// racer on another instance has no copy of the race).
    RaceStart(RaceId, Arc<RaceGame>),
    /// The race is over (its time ran out, or everyone is done): stop its game, or
    /// stop watching it.
    RaceStop(RaceId),
    /// The solver proved the position of this session's game of boxes dead (a corral:
    /// SPEC section 13), after the push that made it: the warning, for the position
    /// with this key only (a later move makes it stale).
    Deadlock {
        /// The solver's key of the position proven dead.
        position: u64,
        /// The warning's lines.
        text: String,
    },
}

/// What [`Inbox::recv`] hands the session: the next message, and how many frames were
/// dropped before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The message.
    pub message: Message,
    /// Frames dropped since the last delivery.
    pub skipped: u64,
}

/// A bell rung for a session, beside its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bell {
    /// The session's alarm is due: its idle time may be up.
    Alarm,
    /// The server is shutting down.
    Shutdown,
    /// An upgrade calls the roll: the session hands its state over, or says why not
    /// (SPEC section 11, `crate::players::moves`).
    Move,
}

impl Bell {
    fn bit(self) -> u8 {
        match self {
            Bell::Alarm => 1,
            Bell::Shutdown => 2,
            Bell::Move => 4,
        }
    }
}

/// What [`Inbox::next`] hands the session: a bell, or the next message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// A bell was rung ([`Bell::Shutdown`] comes first, and again on every call after).
    Bell(Bell),
    /// A message.
    Delivery(Delivery),
}

/// The receiving side, owned by the session.
#[derive(Debug)]
pub struct Inbox {
    shared: Arc<Shared>,
}

/// A sending side: cheap to clone, never waits.
#[derive(Debug, Clone)]
pub struct InboxSender {
    target: Target,
}

/// Where a sender's messages go.
#[derive(Debug, Clone)]
enum Target {
    /// A session of this instance.
    Local(Arc<Shared>),
    /// A session of another instance, through the bus.
    Remote(Arc<dyn Forward>),
}

/// Carries messages to a session of another instance (the bus). It never waits: a
/// message that cannot be queued for the bus is dropped as a slow player's frame is,
/// and the player counts as gone when its instance is.
pub trait Forward: std::fmt::Debug + Send + Sync {
    /// Hand `message` on.
    ///
    /// # Errors
    /// [`Gone`] when the player's instance is no longer reachable.
    fn forward(&self, message: Message) -> Result<(), Gone>;

    /// Whether the player's instance is no longer reachable.
    fn is_gone(&self) -> bool;

    /// The player's instance: the senders of one instance can share one message.
    fn instance(&self) -> u64;

    /// The player's session number on its instance.
    fn session(&self) -> u64;

    /// Hand `message` on to the players `sessions` of this player's instance at once.
    ///
    /// # Errors
    /// [`Gone`] when the instance is no longer reachable.
    fn forward_many(&self, sessions: Vec<u64>, message: Message) -> Result<(), Gone>;
}

/// Send `message` to every one of `senders`: one copy per local session, one per
/// other instance for all of its players (a line of lobby chat to a thousand players
/// on three instances is two messages on the bus, not seven hundred). How many it
/// reached.
pub fn send_all(senders: &[InboxSender], message: &Message) -> usize {
    let mut reached = 0;
    let mut remote: Vec<&Arc<dyn Forward>> = Vec::new();
    for sender in senders {
        match &sender.target {
            Target::Local(shared) => reached += usize::from(shared.push(message.clone()).is_ok()),
            Target::Remote(forward) => remote.push(forward),
        }
    }
    remote.sort_by_key(|forward| forward.instance());
    for group in remote.chunk_by(|one, other| one.instance() == other.instance()) {
        let sessions = group.iter().map(|forward| forward.session()).collect();
        if group[0].forward_many(sessions, message.clone()).is_ok() {
            reached += group.len();
        }
    }
    reached
}

/// Two senders are equal when they reach the same inbox.
impl PartialEq for InboxSender {
    fn eq(&self, other: &InboxSender) -> bool {
        match (&self.target, &other.target) {
            (Target::Local(one), Target::Local(other)) => Arc::ptr_eq(one, other),
            (Target::Remote(one), Target::Remote(other)) => {
                std::ptr::addr_eq(Arc::as_ptr(one), Arc::as_ptr(other))
            }
            _ => false,
        }
    }
}

impl Eq for InboxSender {}

/// The session is gone: nothing more can reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("that session has ended")]
pub struct Gone;

#[derive(Debug, Default)]
struct Shared {
    /// How many messages wait (one more for a note of dropped lines): read without the
    /// lock.
    waiting: AtomicUsize,
    /// The bells rung and not yet heard ([`Bell::bit`]; shutdown's stays).
    bells: AtomicU8,
    waker: AtomicWaker,
    queue: Mutex<Queue>,
}

#[derive(Debug, Default)]
struct Queue {
    messages: VecDeque<Message>,
    frames: usize,
    /// Frames dropped since the last delivery. This and `dropped` are counted in 32
    /// bits, saturating: every session has an inbox, and these make it one malloc
    /// size smaller (issue 29).
    skipped: u32,
    /// Lines dropped since the player last heard of it.
    dropped: u32,
    /// The inbox was dropped.
    closed: bool,
}

/// A new inbox and its first sender.
pub fn inbox() -> (InboxSender, Inbox) {
    let shared = Arc::new(Shared::default());
    (
        InboxSender {
            target: Target::Local(Arc::clone(&shared)),
        },
        Inbox { shared },
    )
}

impl Queue {
    /// What a session polling the inbox should expect.
    fn waiting(&self) -> usize {
        self.messages.len() + usize::from(self.dropped > 0)
    }
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // A panic while holding the lock cannot leave the queue half changed (every
        // change is one push or pop), so a poisoned lock is as good as any.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl InboxSender {
    /// A sender to a session of another instance.
    pub fn remote(forward: Arc<dyn Forward>) -> InboxSender {
        InboxSender {
            target: Target::Remote(forward),
        }
    }

    /// Queue `message` for the session and wake it.
    ///
    /// # Errors
    /// [`Gone`] when the session has ended.
    pub fn send(&self, message: Message) -> Result<(), Gone> {
        match &self.target {
            Target::Local(shared) => shared.push(message),
            Target::Remote(forward) => forward.forward(message),
        }
    }

    /// Ring `bell` for the session (a session of another instance hears its own
    /// instance's bells only).
    pub fn ring(&self, bell: Bell) {
        if let Target::Local(shared) = &self.target {
            shared.bells.fetch_or(bell.bit(), Ordering::AcqRel);
            shared.waker.wake();
        }
    }

    /// Whether the session has ended.
    pub fn is_gone(&self) -> bool {
        match &self.target {
            Target::Local(shared) => shared.queue().closed,
            Target::Remote(forward) => forward.is_gone(),
        }
    }
}

impl Shared {
    fn push(&self, message: Message) -> Result<(), Gone> {
        {
            let mut queue = self.queue();
            if queue.closed {
                return Err(Gone);
            }
            match message {
                Message::Frame(_) => {
                    if queue.frames >= FRAME_CAP {
                        if let Some(oldest) = queue
                            .messages
                            .iter()
                            .position(|queued| matches!(queued, Message::Frame(_)))
                        {
                            queue.messages.remove(oldest);
                            queue.frames -= 1;
                            queue.skipped = queue.skipped.saturating_add(1);
                        }
                    }
                    queue.frames += 1;
                    queue.messages.push_back(message);
                }
                Message::Line(_) if queue.messages.len() - queue.frames >= MESSAGE_CAP => {
                    queue.dropped = queue.dropped.saturating_add(1);
                }
                _ => queue.messages.push_back(message),
            }
            self.waiting.store(queue.waiting(), Ordering::Release);
        }
        self.waker.wake();
        Ok(())
    }
}

impl Inbox {
    /// The next bell or delivery, waiting until there is one: what a session waits on.
    ///
    /// Not an `async fn`: its future would keep `self` twice, in every idle session's.
    #[allow(clippy::should_implement_trait)] // a wait, not an iterator
    pub fn next(&mut self) -> impl Future<Output = Next> + '_ {
        poll_fn(move |cx| {
            if let Some(bell) = self.heard() {
                return Poll::Ready(Next::Bell(bell));
            }
            if let Poll::Ready(delivery) = self.poll_recv(cx) {
                return Poll::Ready(Next::Delivery(delivery));
            }
            // The waker is registered now: a bell rung before it woke nobody.
            self.heard()
                .map_or(Poll::Pending, |bell| Poll::Ready(Next::Bell(bell)))
        })
    }

    /// Wait until the shutdown bell rings; messages and the alarm stay for
    /// [`Self::next`].
    pub async fn shutdown(&self) {
        poll_fn(|cx| {
            let rung =
                |shared: &Shared| shared.bells.load(Ordering::Acquire) & Bell::Shutdown.bit() != 0;
            if rung(&self.shared) {
                return Poll::Ready(());
            }
            self.shared.waker.register(cx.waker());
            if rung(&self.shared) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
    }

    /// A bell rung and not heard yet: shutdown (every time), else the alarm (once),
    /// else an upgrade's roll call (once), but only once every message queued has been
    /// delivered: what waits in the inbox would not move with the session.
    fn heard(&self) -> Option<Bell> {
        let bells = self.shared.bells.load(Ordering::Acquire);
        if bells == 0 {
            return None;
        }
        if bells & Bell::Shutdown.bit() != 0 {
            return Some(Bell::Shutdown);
        }
        if bells & Bell::Alarm.bit() != 0 {
            self.shared
                .bells
                .fetch_and(!Bell::Alarm.bit(), Ordering::AcqRel);
            return Some(Bell::Alarm);
        }
        if bells & Bell::Move.bit() != 0 && self.shared.waiting.load(Ordering::Acquire) == 0 {
            self.shared
                .bells
                .fetch_and(!Bell::Move.bit(), Ordering::AcqRel);
            return Some(Bell::Move);
        }
        None
    }

    /// The next delivery, waiting until there is one; bells are not heard.
    pub async fn recv(&mut self) -> Delivery {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// The next delivery, if one waits; else the task is woken when one comes.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Delivery> {
        if self.shared.waiting.load(Ordering::Acquire) == 0 {
            self.shared.waker.register(cx.waker());
            // A message sent between the load and the registration woke nobody: look
            // again.
            if self.shared.waiting.load(Ordering::Acquire) == 0 {
                return Poll::Pending;
            }
        }
        let mut queue = self.shared.queue();
        let delivery = if let Some(message) = queue.messages.pop_front() {
            if matches!(message, Message::Frame(_)) {
                queue.frames -= 1;
            }
            Delivery {
                message,
                skipped: u64::from(std::mem::take(&mut queue.skipped)),
            }
        } else if queue.dropped > 0 {
            // What waited is read: now say what did not fit.
            let dropped = std::mem::take(&mut queue.dropped);
            Delivery {
                message: Message::Line(Arc::from(dropped_notice(u64::from(dropped)))),
                skipped: u64::from(std::mem::take(&mut queue.skipped)),
            }
        } else {
            // `waiting` was stale: nothing is queued after all.
            self.shared.waiting.store(0, Ordering::Release);
            drop(queue);
            self.shared.waker.register(cx.waker());
            return Poll::Pending;
        };
        if queue.messages.is_empty() && queue.messages.capacity() > MESSAGE_CAP {
            // A burst is over: do not keep its memory for an idle session.
            queue.messages = VecDeque::new();
        }
        self.shared
            .waiting
            .store(queue.waiting(), Ordering::Release);
        Poll::Ready(delivery)
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        let mut queue = self.shared.queue();
        queue.closed = true;
        queue.messages = VecDeque::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every session keeps one inbox: with its `Arc`'s two counts, 120 bytes or less
    /// is a 128-byte chunk of glibc's malloc, where 128 was a 144-byte one.
    #[test]
    fn an_inbox_is_one_small_allocation() {
        let size = std::mem::size_of::<Shared>();
        assert!(size <= 104, "an inbox's shared part is {size} bytes");
    }

    fn line(text: &str) -> Message {
        Message::Line(Arc::from(text))
    }

    fn frame(text: &str) -> Message {
        Message::Frame(Arc::from(text))
    }

    fn next(inbox: &mut Inbox) -> Option<Delivery> {
        let waker = futures::task::noop_waker();
        match inbox.poll_recv(&mut Context::from_waker(&waker)) {
            Poll::Ready(delivery) => Some(delivery),
            Poll::Pending => None,
        }
    }

    fn message(message: Message, skipped: u64) -> Option<Delivery> {
        Some(Delivery { message, skipped })
    }

    #[test]
    fn messages_arrive_in_order() {
        let (sender, mut inbox) = inbox();
        assert_eq!(next(&mut inbox), None);
        sender.send(line("one")).unwrap();
        sender.clone().send(frame("board")).unwrap();
        sender.send(line("two")).unwrap();
        assert_eq!(next(&mut inbox), message(line("one"), 0));
        assert_eq!(next(&mut inbox), message(frame("board"), 0));
        assert_eq!(next(&mut inbox), message(line("two"), 0));
        assert_eq!(next(&mut inbox), None);
    }

    #[test]
    fn a_slow_reader_loses_the_oldest_frames_only() {
        let (sender, mut inbox) = inbox();
        sender.send(line("hello")).unwrap();
        for n in 0..FRAME_CAP + 10 {
            sender.send(frame(&n.to_string())).unwrap();
        }
        sender.send(line("bye")).unwrap();
        assert_eq!(next(&mut inbox), message(line("hello"), 10));
        // The first ten frames went; the rest are in order.
        for n in 10..FRAME_CAP + 10 {
            assert_eq!(next(&mut inbox), message(frame(&n.to_string()), 0));
        }
        assert_eq!(next(&mut inbox), message(line("bye"), 0));
        assert_eq!(next(&mut inbox), None);
    }

    #[test]
    fn lines_past_the_cap_are_dropped_and_counted_never_closing_the_reader() {
        let (sender, mut inbox) = inbox();
        for n in 0..MESSAGE_CAP {
            sender.send(line(&n.to_string())).unwrap();
        }
        assert_eq!(next(&mut inbox), message(line("0"), 0));
        sender.send(line("fits again")).unwrap();
        sender.send(line("one too many")).unwrap();
        sender.send(line("two too many")).unwrap();
        for n in 1..MESSAGE_CAP {
            assert_eq!(next(&mut inbox), message(line(&n.to_string()), 0));
        }
        assert_eq!(next(&mut inbox), message(line("fits again"), 0));
        assert_eq!(
            next(&mut inbox),
            message(line(&dropped_notice(2)), 0),
            "once the reader has caught up, one line says what was lost"
        );
        assert_eq!(next(&mut inbox), None);
        sender.send(line("heard again")).unwrap();
        assert_eq!(next(&mut inbox), message(line("heard again"), 0));
    }

    #[test]
    fn a_close_always_gets_through() {
        let (sender, mut inbox) = inbox();
        for n in 0..MESSAGE_CAP {
            sender.send(line(&n.to_string())).unwrap();
        }
        sender.send(Message::Close("bye".into())).unwrap();
        let mut last = None;
        while let Some(delivery) = next(&mut inbox) {
            last = Some(delivery);
        }
        assert_eq!(last, message(Message::Close("bye".into()), 0));
    }

    #[test]
    fn sending_to_an_ended_session_says_so() {
        let (sender, inbox) = inbox();
        assert!(!sender.is_gone());
        drop(inbox);
        assert!(sender.is_gone());
        assert_eq!(sender.send(line("anyone?")), Err(Gone));
    }

    /// Every batch the players of other instances were handed: instance, sessions.
    type Batches = Arc<Mutex<Vec<(u64, Vec<u64>)>>>;

    /// A player of another instance, for tests.
    #[derive(Debug)]
    struct Elsewhere {
        instance: u64,
        session: u64,
        batches: Batches,
    }

    impl Forward for Elsewhere {
        fn forward(&self, message: Message) -> Result<(), Gone> {
            self.forward_many(vec![self.session], message)
        }

        fn is_gone(&self) -> bool {
            false
        }

        fn instance(&self) -> u64 {
            self.instance
        }

        fn session(&self) -> u64 {
            self.session
        }

        fn forward_many(&self, sessions: Vec<u64>, _: Message) -> Result<(), Gone> {
            self.batches.lock().unwrap().push((self.instance, sessions));
            Ok(())
        }
    }

    #[test]
    fn one_message_goes_once_to_each_other_instance() {
        let batches: Batches = Arc::default();
        let remote = |instance, session| {
            InboxSender::remote(Arc::new(Elsewhere {
                instance,
                session,
                batches: Arc::clone(&batches),
            }))
        };
        let (local, mut local_inbox) = inbox();
        let senders = [remote(3, 30), local, remote(2, 20), remote(3, 31)];
        assert_eq!(send_all(&senders, &line("hello")), 4);
        assert_eq!(next(&mut local_inbox), message(line("hello"), 0));
        let mut batches = batches.lock().unwrap().clone();
        batches.sort();
        assert_eq!(batches, [(2, vec![20]), (3, vec![30, 31])]);
    }

    #[tokio::test]
    async fn a_waiting_session_is_woken() {
        let (sender, mut inbox) = inbox();
        let waiting = tokio::spawn(async move { inbox.recv().await });
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        sender.send(line("wake up")).unwrap();
        let delivery = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("woken")
            .expect("no panic");
        assert_eq!(delivery, message(line("wake up"), 0).unwrap());
    }

    #[tokio::test]
    async fn the_roll_call_is_heard_after_the_messages_queued_before_it() {
        let (sender, mut inbox) = inbox();
        sender.send(Message::Line(Arc::from("one"))).unwrap();
        sender.send(Message::Line(Arc::from("two"))).unwrap();
        sender.ring(Bell::Move);
        for line in ["one", "two"] {
            match inbox.next().await {
                Next::Delivery(Delivery {
                    message: Message::Line(text),
                    ..
                }) => {
                    assert_eq!(&*text, line);
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(inbox.next().await, Next::Bell(Bell::Move));
        // Heard once.
        sender.send(Message::Line(Arc::from("three"))).unwrap();
        assert!(matches!(inbox.next().await, Next::Delivery(_)));
    }

    #[tokio::test]
    async fn bells_come_before_messages_and_shutdown_is_heard_every_time() {
        let (sender, mut inbox) = inbox();
        sender.send(line("hello")).unwrap();
        sender.ring(Bell::Alarm);
        assert_eq!(inbox.next().await, Next::Bell(Bell::Alarm));
        assert_eq!(
            inbox.next().await,
            Next::Delivery(Delivery {
                message: line("hello"),
                skipped: 0
            })
        );
        sender.ring(Bell::Shutdown);
        assert_eq!(inbox.next().await, Next::Bell(Bell::Shutdown));
        assert_eq!(inbox.next().await, Next::Bell(Bell::Shutdown));
    }

    #[tokio::test]
    async fn a_bell_wakes_a_waiting_session() {
        let (sender, mut inbox) = inbox();
        let waiting = tokio::spawn(async move { inbox.next().await });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        sender.ring(Bell::Alarm);
        let next = tokio::time::timeout(std::time::Duration::from_secs(5), waiting).await;
        assert_eq!(next.unwrap().unwrap(), Next::Bell(Bell::Alarm));
    }

    #[tokio::test]
    async fn waiting_for_shutdown_leaves_messages_and_the_alarm() {
        let (sender, inbox) = inbox();
        sender.send(line("hi")).unwrap();
        sender.ring(Bell::Alarm);
        let ringer = sender.clone();
        let waiting = tokio::spawn(async move {
            inbox.shutdown().await;
            inbox
        });
        tokio::task::yield_now().await;
        assert!(
            !waiting.is_finished(),
            "a message and the alarm are not shutdown"
        );
        ringer.ring(Bell::Shutdown);
        let mut inbox = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(inbox.recv().await.message, line("hi"));
    }
}
