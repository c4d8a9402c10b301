//! Who is online, where, and who watches whom: every session of the server, behind
//! one cheap handle.
//!
//! A session registers when it starts (as a guest, `guest-N`) and is removed when its
//! [`Registration`] drops, however it ends. Each entry holds the sender of the
//! session's inbox, so anything in the server can reach any player without touching
//! another player's socket: the message waits in the player's inbox and the player's
//! own task writes it. Names are unique ignoring case: a second map from the name's
//! lower-case form to the session makes a rename one atomic step.
//!
//! The maps are `DashMap`s (sharded locks): sessions come and go from every worker
//! thread at once. No guard is ever held across an `.await`, and a message to many
//! players is sent after the senders are collected, not under a shard's lock. Nothing
//! here is touched by a game command, except one atomic store a second at most (a
//! session's last activity, for `who`).
//!
//! With `--bus`, the players of the other instances are here too, as entries whose
//! inbox forwards to their instance ([`Remote`]): `who`, `say`, `tell`, `watch`,
//! `kick`, a name's takeover and races reach them through the same senders as a local
//! player. The bus keeps them up to date ([`Registry::ghost`]) and learns of every
//! change to a local session through a [`PresenceTap`].

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use dashmap::DashMap;

use crate::players::accounts::PlayerName;
pub use crate::players::activity::{seconds_since, Activity};
use crate::players::alarms::{self, AlarmClock};
pub use crate::players::bans::{Bans, NameTaken};
pub use crate::players::ids::{Remote, SessionId};
use crate::players::inbox::{self, Bell, Inbox, InboxSender, Message};
pub use crate::players::place::{Place, PlaceView, SessionView};
pub use crate::players::presence::{Presence, PresenceTap};
use crate::races::rules::{self, RaceId, Tell};

/// Every race of this instance, its racers named by session.
pub type Races = rules::Races<SessionId, InboxSender>;
/// A session in a race.
pub type Member = rules::Member<SessionId, InboxSender>;
/// A line for some sessions from the races.
pub type Notice = rules::Notice<InboxSender>;

/// How far before its start a registry counts its seconds from.
const EPOCH_HEADROOM: Duration = Duration::from_secs(24 * 60 * 60);

/// How many session numbers each instance on a bus has to itself: instance `k`
/// numbers its sessions from `k` million up.
pub(super) const INSTANCE_SESSIONS: u64 = 1_000_000;

/// Where a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Home {
    /// On this instance, connected from this address.
    Here(SocketAddr),
    /// On another instance (`--bus`).
    Away(Remote),
}

/// What the registry knows of one session.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) home: Home,
    pub(super) inbox: InboxSender,
    pub(super) name: PlayerName,
    pub(super) place: Place,
    pub(super) watchers: usize,
    /// Hears `say` (the `chat` setting).
    pub(super) chat: bool,
    /// A program playing (SPEC section 12): `[bot]` after its name.
    pub(super) bot: bool,
    pub(super) activity: Arc<Activity>,
}

/// The server's sessions: clone it freely, every clone is the same registry.
#[derive(Debug, Clone)]
pub struct Registry {
    pub(super) shared: Arc<Shared>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

#[derive(Debug)]
pub(super) struct Shared {
    pub(super) sessions: DashMap<SessionId, Entry>,
    /// Lower-case name to session: names are unique ignoring case.
    pub(super) names: DashMap<Arc<str>, SessionId>,
    /// Sessions per client address, for `--max-per-address`.
    pub(super) per_address: DashMap<IpAddr, usize>,
    pub(super) next_id: AtomicU64,
    pub(super) epoch: Instant,
    /// Every race. One lock: races change a few times a second at most (a join, a box
    /// placed), and it is never held across an `.await` nor while sending.
    pub(super) races: Mutex<Races>,
    /// The timers of races with a time limit, aborted when their race closes (a race
    /// with `time=24h` that ends early must not leave its timer a day). Locked only
    /// while the races' lock is held, and only when a race starts or closes.
    pub(super) race_timers: Mutex<HashMap<RaceId, tokio::task::AbortHandle>>,
    /// Remote sessions' numbers here.
    pub(super) ghosts: DashMap<Remote, SessionId>,
    /// The local sessions watching each player, by the one watched (`watched.rs`).
    pub(super) watched_by: DashMap<SessionId, Vec<SessionId>>,
    /// Names a remote session has that a session here held when it was told (a
    /// takeover from another instance, while the old session closes): the remote one
    /// gets the name when it is freed.
    pub(super) waiting_names: DashMap<Arc<str>, SessionId>,
    /// This instance's number on the bus, and where changes go (`--bus` only).
    pub(super) tap: std::sync::OnceLock<(u64, PresenceTap)>,
    /// When each local session's idle timer is next due.
    pub(super) alarms: Arc<AlarmClock>,
    /// Names and addresses an admin's `kick NAME for TIME` keeps out.
    pub(super) bans: Bans,
    /// The server is shutting down: every session, and each one registered from now
    /// on, hears [`Bell::Shutdown`].
    pub(super) shutting_down: AtomicBool,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.alarms.stop();
    }
}

/// One address already has as many sessions as it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{address} already has {limit} sessions")]
pub struct TooManyFromAddress {
    /// The client's address.
    pub address: IpAddr,
    /// The limit it reached.
    pub limit: usize,
}

/// A session's place in the registry: removed when this is dropped.
#[derive(Debug)]
pub struct Registration {
    registry: Registry,
    id: SessionId,
    activity: Arc<Activity>,
    /// The step of the alarm clock the session's alarm is set for (0: none).
    alarm: u64,
}

impl Registration {
    pub(super) fn new(registry: Registry, id: SessionId, activity: Arc<Activity>) -> Registration {
        Registration {
            registry,
            id,
            activity,
            alarm: 0,
        }
    }

    /// The session's number.
    pub fn id(&self) -> SessionId {
        self.id
    }

    /// Where the session notes its input, for `who`.
    pub fn activity(&self) -> &Arc<Activity> {
        &self.activity
    }
}

impl Registration {
    /// Where the session connects from (as the proxy said, behind one); `None` once
    /// it has left the registry.
    pub fn peer(&self) -> Option<SocketAddr> {
        let entry = self.registry.shared.sessions.get(&self.id)?;
        match entry.home {
            Home::Here(peer) => Some(peer),
            Home::Away(_) => None,
        }
    }

    /// Now, in milliseconds on the registry's alarm clock.
    pub fn now_ms(&self) -> u64 {
        self.registry.shared.alarms.now_ms()
    }

    /// Ring the session's [`Bell::Alarm`] at `at_ms` (on the clock of
    /// [`Self::now_ms`]), in place of the alarm set before.
    pub fn alarm_at(&mut self, at_ms: u64) {
        let shared = &self.registry.shared;
        if shared.alarms.start() {
            let registry = Arc::downgrade(shared);
            tokio::spawn(alarms::ring_alarms(
                Arc::clone(&shared.alarms),
                move |due: &[SessionId]| {
                    let Some(shared) = registry.upgrade() else {
                        return false;
                    };
                    for id in due {
                        if let Some(entry) = shared.sessions.get(id) {
                            entry.inbox.ring(Bell::Alarm);
                        }
                    }
                    true
                },
            ));
        }
        self.alarm = shared.alarms.set(self.id, self.alarm, at_ms);
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.registry.shared.alarms.clear(self.id, self.alarm);
        self.registry.remove(self.id);
        self.registry.tell_bus(Presence::Left(self.id));
    }
}
impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry {
            shared: Arc::new(Shared {
                sessions: DashMap::new(),
                names: DashMap::new(),
                per_address: DashMap::new(),
                next_id: AtomicU64::new(0),
                // A day before now: a remote player's idle time, older than this
                // registry, still fits in seconds since the epoch.
                epoch: Instant::now()
                    .checked_sub(EPOCH_HEADROOM)
                    .unwrap_or_else(Instant::now),
                races: Mutex::new(Races::default()),
                race_timers: Mutex::new(HashMap::new()),
                ghosts: DashMap::new(),
                watched_by: DashMap::new(),
                waiting_names: DashMap::new(),
                tap: std::sync::OnceLock::new(),
                alarms: Arc::new(AlarmClock::started_before(EPOCH_HEADROOM)),
                bans: Bans::default(),
                shutting_down: AtomicBool::new(false),
            }),
        }
    }

    /// A session is gone (its connection, or its instance): free its name, its share
    /// of its address, its place in a race.
    pub(super) fn remove(&self, id: SessionId) {
        let shared = &self.shared;
        let Some((_, entry)) = shared.sessions.remove(&id) else {
            return;
        };
        // Its watchers here are told by the seat (a local player) or by
        // `end_watching_of` (a remote one); the index forgets them.
        shared.watched_by.remove(&id);
        // The name is ours to free only if nobody has taken it over.
        let key = entry.name.shared_key();
        if shared
            .names
            .remove_if(&key, |_, holder| *holder == id)
            .is_some()
        {
            self.hand_on_name(key);
        }
        if let Home::Here(peer) = entry.home {
            self.rewatch(id, entry.place.watched(), None);
            if let dashmap::Entry::Occupied(mut count) = shared.per_address.entry(peer.ip()) {
                *count.get_mut() -= 1;
                if *count.get() == 0 {
                    count.remove();
                }
            }
        }
        // A racer whose connection went is kept as "left"; a watcher of a race stops.
        let notices = self.with_races(|races| {
            races.unwatch(id);
            races.leave(id, Instant::now()).map(|(_, notices)| notices)
        });
        if let Some(notices) = notices {
            self.deliver(notices);
        }
    }

    /// A freed name goes to the remote session that has it, if one waits for it.
    pub(super) fn hand_on_name(&self, key: Arc<str>) {
        if let Some((key, waiting)) = self.shared.waiting_names.remove(&key) {
            let still = self
                .shared
                .sessions
                .get(&waiting)
                .is_some_and(|entry| *entry.name.key() == *key);
            if still {
                self.shared.names.entry(key).or_insert(waiting);
            }
        }
    }

    /// Add a session connected from `peer`, as the guest `guest-N`: its registration,
    /// to hold for as long as it runs, and its inbox.
    ///
    /// # Errors
    /// [`TooManyFromAddress`] when `peer`'s address already has `per_address` sessions.
    pub fn register(
        &self,
        peer: SocketAddr,
        per_address: usize,
    ) -> Result<(Registration, Inbox), TooManyFromAddress> {
        {
            let mut count = self.shared.per_address.entry(peer.ip()).or_insert(0);
            if *count >= per_address {
                return Err(TooManyFromAddress {
                    address: peer.ip(),
                    limit: per_address,
                });
            }
            *count += 1;
        }
        let id = SessionId(self.shared.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        // No chosen name can start with `guest-`, and session numbers are never
        // reused, so a guest's name is always free.
        let name = PlayerName::guest(id.0);
        self.shared.names.insert(name.shared_key(), id);
        Ok(self.enter(id, peer, name))
    }

    /// Session `id` from `peer`, its `name` already taken for it, in the registry: its
    /// registration and its inbox.
    pub(super) fn enter(
        &self,
        id: SessionId,
        peer: SocketAddr,
        name: PlayerName,
    ) -> (Registration, Inbox) {
        let (sender, inbox) = inbox::inbox();
        let activity = Arc::new(Activity {
            epoch: self.shared.epoch,
            last: AtomicU32::new(seconds_since(self.shared.epoch)),
            progress: Mutex::new(None),
        });
        self.shared.sessions.insert(
            id,
            Entry {
                home: Home::Here(peer),
                inbox: sender,
                name,
                place: Place::Lobby,
                watchers: 0,
                chat: true,
                bot: false,
                activity: Arc::clone(&activity),
            },
        );
        if self.shared.shutting_down.load(Ordering::SeqCst) {
            // Registered while every session was being told: told too.
            if let Some(entry) = self.shared.sessions.get(&id) {
                entry.inbox.ring(Bell::Shutdown);
            }
        }
        let registration = Registration::new(self.clone(), id, activity);
        self.tell_bus(Presence::Changed(id));
        (registration, inbox)
    }

    /// The server is shutting down: ring [`Bell::Shutdown`] for every session of this
    /// instance, and for each one registered from now on.
    pub fn shut_down(&self) {
        self.shared.shutting_down.store(true, Ordering::SeqCst);
        for entry in &self.shared.sessions {
            if matches!(entry.home, Home::Here(_)) {
                entry.inbox.ring(Bell::Shutdown);
            }
        }
    }

    /// How many sessions are registered (on every instance, with `--bus`).
    pub fn len(&self) -> usize {
        self.shared.sessions.len()
    }

    /// Whether no session is registered.
    pub fn is_empty(&self) -> bool {
        self.shared.sessions.is_empty()
    }

    /// How many sessions are connected from `address`.
    pub fn sessions_from(&self, address: IpAddr) -> usize {
        self.shared
            .per_address
            .get(&address)
            .map_or(0, |count| *count)
    }

    /// Every local session's number and address, in the order they came.
    pub fn sessions(&self) -> Vec<(SessionId, SocketAddr)> {
        let mut sessions: Vec<(SessionId, SocketAddr)> = self
            .shared
            .sessions
            .iter()
            .filter_map(|entry| match entry.home {
                Home::Here(peer) => Some((*entry.key(), peer)),
                Home::Away(_) => None,
            })
            .collect();
        sessions.sort();
        sessions
    }

    /// The name of session `id`.
    pub fn name_of(&self, id: SessionId) -> Option<PlayerName> {
        self.shared
            .sessions
            .get(&id)
            .map(|entry| entry.name.clone())
    }

    /// The inbox of session `id`.
    pub fn sender(&self, id: SessionId) -> Option<InboxSender> {
        self.shared
            .sessions
            .get(&id)
            .map(|entry| entry.inbox.clone())
    }

    /// Whether session `id` is playing a game.
    pub fn is_playing(&self, id: SessionId) -> bool {
        self.shared.sessions.get(&id).is_some_and(|entry| {
            matches!(
                entry.place,
                Place::Game { .. } | Place::Race { playing: true, .. }
            )
        })
    }

    /// Do `change` to the races under their lock. What it returns to send (its
    /// [`Notice`]s) goes to [`Registry::deliver`] after the lock is let go.
    pub fn with_races<T>(&self, change: impl FnOnce(&mut Races) -> T) -> T {
        let mut races = self
            .shared
            .races
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let result = change(&mut races);
        // Whatever closed a race went through here: its timer goes with it. Most
        // changes close nothing, and then the timers are not touched.
        let closed = races.take_closed();
        if !closed.is_empty() {
            let mut timers = self
                .shared
                .race_timers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            for race in closed {
                if let Some(timer) = timers.remove(&race) {
                    timer.abort();
                }
            }
        }
        result
    }

    /// Send what the races had to say.
    pub fn deliver(&self, notices: Vec<Notice>) {
        for notice in notices {
            let message = match notice.what {
                Tell::Line(line) => Message::Line(line),
                Tell::Frame(frame) => Message::Frame(frame),
                Tell::Start(race, game) => Message::RaceStart(race, game),
                Tell::Stop(race) => Message::RaceStop(race),
            };
            inbox::send_all(&notice.to, &message);
        }
    }

    /// Every session in the lobby and in no race: whom an admin's `race ... all`
    /// invites.
    pub fn in_lobby(&self, except: SessionId) -> Vec<InboxSender> {
        self.shared
            .sessions
            .iter()
            .filter(|entry| *entry.key() != except && entry.place == Place::Lobby)
            .map(|entry| entry.inbox.clone())
            .collect()
    }

    /// The session called `name` (any case), and how to reach it.
    pub fn find(&self, name: &str) -> Option<(SessionId, PlayerName, InboxSender)> {
        let id = *self.shared.names.get(name.to_ascii_lowercase().as_str())?;
        let entry = self.shared.sessions.get(&id)?;
        Some((id, entry.name.clone(), entry.inbox.clone()))
    }

    /// The names and addresses kept out for a while.
    pub fn bans(&self) -> &Bans {
        &self.shared.bans
    }

    /// Rename session `id` to `name`.
    ///
    /// # Errors
    /// [`NameTaken`] when another session has that name (in any case), or an admin
    /// kicked it for a while.
    pub fn rename(&self, id: SessionId, name: &PlayerName) -> Result<(), NameTaken> {
        if let Some(kicked) = self.shared.bans.refuse_name(name) {
            return Err(kicked);
        }
        match self.shared.names.entry(name.shared_key()) {
            dashmap::Entry::Occupied(holder) if *holder.get() != id => {
                return Err(NameTaken::Playing(name.clone()));
            }
            dashmap::Entry::Occupied(_) => {}
            dashmap::Entry::Vacant(vacant) => {
                vacant.insert(id);
            }
        }
        self.set_name(id, name);
        Ok(())
    }

    /// Give session `id` the name `name` even if another session has it (a registered
    /// player who proved the password): that other session is told `why` and closed.
    /// Returns the session that lost the name, if any. A name an admin kicked for a
    /// while is taken and the session closed at once, told for how long.
    pub fn take_over(&self, id: SessionId, name: &PlayerName, why: &str) -> Option<SessionId> {
        if let Some(kicked) = self.shared.bans.refuse_name(name) {
            self.send(id, Message::Close(kicked.to_string()));
            return None;
        }
        let previous = self.shared.names.insert(name.shared_key(), id);
        self.set_name(id, name);
        let previous = previous.filter(|previous| *previous != id)?;
        self.send(previous, Message::Close(why.to_string()));
        Some(previous)
    }

    /// Set `id`'s name in its entry and free its old one.
    pub(super) fn set_name(&self, id: SessionId, name: &PlayerName) {
        let old = self.shared.sessions.get_mut(&id).map(|mut entry| {
            let old = entry.name.clone();
            entry.name = name.clone();
            old
        });
        if let Some(old) = old.filter(|old| old.key() != name.key()) {
            self.shared
                .names
                .remove_if(old.key().as_str(), |_, holder| *holder == id);
        }
        self.changed(id);
    }

    /// Where session `id` is.
    pub fn place_of(&self, id: SessionId) -> Option<Place> {
        self.shared
            .sessions
            .get(&id)
            .map(|entry| entry.place.clone())
    }

    /// Note where session `id` is.
    pub fn set_place(&self, id: SessionId, place: Place) {
        let to = place.watched();
        let old = self
            .shared
            .sessions
            .get_mut(&id)
            .map(|mut entry| std::mem::replace(&mut entry.place, place));
        // The guard is gone: the index has locks of its own.
        if let Some(old) = old {
            self.rewatch(id, old.watched(), to);
        }
        self.changed(id);
    }

    /// Note how many watch session `id`.
    pub fn set_watchers(&self, id: SessionId, watchers: usize) {
        if let Some(mut entry) = self.shared.sessions.get_mut(&id) {
            entry.watchers = watchers;
        }
        self.changed(id);
    }

    /// Note whether session `id` hears `say`.
    pub fn set_chat(&self, id: SessionId, chat: bool) {
        if let Some(mut entry) = self.shared.sessions.get_mut(&id) {
            entry.chat = chat;
        }
        self.changed(id);
    }

    /// The highest session number given so far: every session that comes later has a
    /// higher one.
    pub fn last_number(&self) -> u64 {
        self.shared.next_id.load(Ordering::Relaxed)
    }

    /// Seconds since the registry started: what [`SessionRow::last_active`] counts in.
    pub fn now(&self) -> u32 {
        seconds_since(self.shared.epoch)
    }

    /// A number for something that watches like a session but is not one (the web
    /// page's watch of a board): never a session's, so that the watched session keeps
    /// it apart from its other watchers.
    pub fn watcher_id(&self) -> SessionId {
        SessionId(self.shared.next_id.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Those who hear what session `id` says: everyone else in the same place (the
    /// lobby; one game and its watchers) whose chat is on.
    pub fn hearers(&self, id: SessionId) -> Vec<InboxSender> {
        let Some(speaker) = self
            .shared
            .sessions
            .get(&id)
            .map(|entry| group(id, &entry.place))
        else {
            return Vec::new();
        };
        self.shared
            .sessions
            .iter()
            .filter(|entry| {
                *entry.key() != id && entry.chat && group(*entry.key(), &entry.place) == speaker
            })
            .map(|entry| entry.inbox.clone())
            .collect()
    }

    /// Send `message` to session `id`; false when there is no such session.
    pub fn send(&self, id: SessionId, message: Message) -> bool {
        // The sender is cloned out so that no shard lock is held while sending.
        let sender = self
            .shared
            .sessions
            .get(&id)
            .map(|entry| entry.inbox.clone());
        sender.is_some_and(|sender| sender.send(message).is_ok())
    }

    /// Send `message` to every session; how many it reached.
    pub fn broadcast(&self, message: &Message) -> usize {
        let senders: Vec<InboxSender> = self
            .shared
            .sessions
            .iter()
            .map(|entry| entry.inbox.clone())
            .collect();
        inbox::send_all(&senders, message)
    }
}

/// Who hears one another: the lobby, or one game (its player and its watchers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Group {
    Lobby,
    Game(SessionId),
    Race(RaceId),
}

pub(super) fn group(id: SessionId, place: &Place) -> Group {
    match place {
        Place::Lobby => Group::Lobby,
        Place::Game { .. } => Group::Game(id),
        Place::Watching { id, .. } => Group::Game(*id),
        Place::Race { race, .. } | Place::WatchingRace(race) => Group::Race(*race),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::inbox::Delivery;

    fn peer(n: u8) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, n], 4000))
    }

    fn name(text: &str) -> PlayerName {
        PlayerName::parse(text).unwrap()
    }

    async fn received(inbox: &mut Inbox) -> Message {
        match tokio::time::timeout(Duration::from_secs(5), inbox.recv()).await {
            Ok(Delivery { message, .. }) => message,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn shutdown_rings_every_session_and_each_one_registered_after() {
        use crate::players::inbox::{Bell, Next};
        let registry = Registry::new();
        let (_first, mut first) = registry.register(peer(1), 10).unwrap();
        registry.shut_down();
        let (_second, mut second) = registry.register(peer(2), 10).unwrap();
        for inbox in [&mut first, &mut second] {
            let next = tokio::time::timeout(Duration::from_secs(5), inbox.next()).await;
            assert_eq!(next.unwrap(), Next::Bell(Bell::Shutdown));
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_sessions_alarm_rings_when_due_and_leaves_with_it() {
        use crate::players::inbox::{Bell, Next};
        let registry = Registry::new();
        let (mut registration, mut inbox) = registry.register(peer(1), 10).unwrap();
        let at = registration.now_ms() + 1_000;
        registration.alarm_at(at);
        let next = tokio::time::timeout(Duration::from_secs(5), inbox.next()).await;
        assert_eq!(next.unwrap(), Next::Bell(Bell::Alarm));
        assert!(registration.now_ms() >= at, "not before it was due");
        registration.alarm_at(registration.now_ms() + 1_000);
        assert_eq!(registry.shared.alarms.len(), 1);
        drop(registration);
        assert_eq!(
            registry.shared.alarms.len(),
            0,
            "the alarm went with the session"
        );
    }

    #[tokio::test]
    async fn sessions_register_as_guests_and_leave() {
        let registry = Registry::new();
        assert!(registry.is_empty());
        let (first, _first_inbox) = registry.register(peer(1), 10).unwrap();
        let (second, _second_inbox) = registry.register(peer(2), 10).unwrap();
        assert_ne!(first.id(), second.id());
        assert_eq!(
            registry.sessions(),
            vec![(first.id(), peer(1)), (second.id(), peer(2))]
        );
        assert_eq!(
            registry.name_of(first.id()).map(|name| name.to_string()),
            Some(format!("guest-{}", first.id()))
        );
        let gone = first.id();
        drop(first);
        assert_eq!(registry.len(), 1);
        assert!(!registry.send(gone, Message::Line("hello?".into())));
        assert!(registry.find(&format!("guest-{gone}")).is_none());
    }

    #[tokio::test]
    async fn messages_reach_one_or_all() {
        let registry = Registry::new();
        let (one, mut one_inbox) = registry.register(peer(1), 10).unwrap();
        let (_two, mut two_inbox) = registry.register(peer(2), 10).unwrap();
        assert!(registry.send(one.id(), Message::Line("just you".into())));
        assert_eq!(
            received(&mut one_inbox).await,
            Message::Line("just you".into())
        );
        let everyone = Message::Line("everyone".into());
        assert_eq!(registry.broadcast(&everyone), 2);
        assert_eq!(received(&mut one_inbox).await, everyone);
        assert_eq!(received(&mut two_inbox).await, everyone);
    }

    #[test]
    fn names_are_unique_ignoring_case_and_freed_on_leaving() {
        let registry = Registry::new();
        let (ann, _a) = registry.register(peer(1), 10).unwrap();
        let (other, _b) = registry.register(peer(2), 10).unwrap();
        registry.rename(ann.id(), &name("Ann")).unwrap();
        assert_eq!(
            registry.rename(other.id(), &name("ANN")),
            Err(NameTaken::Playing(name("ANN")))
        );
        // Renaming to one's own name in another case is fine.
        registry.rename(ann.id(), &name("ann")).unwrap();
        assert_eq!(registry.find("ANN").map(|(id, ..)| id), Some(ann.id()));
        // The guest name is free again, and so is Ann once she leaves.
        assert!(registry.find(&format!("guest-{}", ann.id())).is_none());
        drop(ann);
        registry.rename(other.id(), &name("Ann")).unwrap();
    }

    #[tokio::test]
    async fn a_take_over_closes_the_old_session_and_keeps_the_name() {
        let registry = Registry::new();
        let (old, mut old_inbox) = registry.register(peer(1), 10).unwrap();
        let (new, _new_inbox) = registry.register(peer(2), 10).unwrap();
        registry.rename(old.id(), &name("Ann")).unwrap();
        let lost = registry.take_over(
            new.id(),
            &name("Ann"),
            "Someone logged in as Ann from elsewhere.",
        );
        assert_eq!(lost, Some(old.id()));
        assert_eq!(
            received(&mut old_inbox).await,
            Message::Close("Someone logged in as Ann from elsewhere.".into())
        );
        // The old session ending does not free the name it lost.
        drop(old);
        assert_eq!(registry.find("ann").map(|(id, ..)| id), Some(new.id()));
    }

    #[test]
    fn say_reaches_the_same_place_only_and_who_lists_everyone() {
        let registry = Registry::new();
        let (a, _a) = registry.register(peer(1), 10).unwrap();
        let (b, _b) = registry.register(peer(1), 10).unwrap();
        let (c, _c) = registry.register(peer(1), 10).unwrap();
        let (d, _d) = registry.register(peer(1), 10).unwrap();
        registry.rename(a.id(), &name("anna")).unwrap();
        registry.rename(b.id(), &name("bob")).unwrap();
        registry.rename(c.id(), &name("cy")).unwrap();
        registry.rename(d.id(), &name("di")).unwrap();
        // anna and bob in the lobby, cy playing, di watching cy.
        registry.set_place(
            c.id(),
            Place::Game {
                game: "sokoban",
                label: String::from("classic"),
            },
        );
        registry.set_place(
            d.id(),
            Place::Watching {
                id: c.id(),
                name: name("cy"),
            },
        );
        registry.set_watchers(c.id(), 1);
        assert_eq!(registry.hearers(a.id()).len(), 1);
        assert_eq!(registry.hearers(c.id()).len(), 1);
        assert_eq!(registry.hearers(d.id()).len(), 1);
        registry.set_chat(b.id(), false);
        assert_eq!(registry.hearers(a.id()).len(), 0);
        let who: Vec<String> = registry
            .who()
            .iter()
            .map(|line| format!("{} {} {}", line.name, line.place, line.watchers))
            .collect();
        assert_eq!(
            who,
            [
                "anna lobby 0",
                "bob lobby 0",
                "cy sokoban classic 1",
                "di watching cy 0"
            ]
        );
    }

    #[test]
    fn the_table_shows_players_in_games_first_and_counts_everyone() {
        let registry = Registry::new();
        let mut held = Vec::new();
        for (n, name) in ["dora", "Bob", "eve", "ann", "Carl"].iter().enumerate() {
            let (registration, inbox) = registry.register(peer(1), 10).unwrap();
            registry
                .rename(registration.id(), &self::name(name))
                .unwrap();
            if n == 3 {
                registry.set_place(
                    registration.id(),
                    Place::Game {
                        game: "sokoban",
                        label: String::from("classic"),
                    },
                );
            }
            held.push((registration, inbox));
        }
        // In a game first, then (all as active as each other) those who came first.
        let (rows, total) = registry.table(3);
        assert_eq!(total, 5);
        let names: Vec<&str> = rows.iter().map(|row| row.name.as_str()).collect();
        assert_eq!(names, ["ann", "dora", "Bob"]);
        let (rows, _) = registry.table(10);
        assert_eq!(rows.len(), 5);
        assert_eq!(rows[0].game, Some(("sokoban", String::from("classic"))));
        assert_eq!(rows[1].game, None);
    }

    /// A remote player's sender, for tests: what it was handed.
    #[derive(Debug, Default)]
    struct Recorded(Mutex<Vec<Message>>);

    impl crate::players::inbox::Forward for Recorded {
        fn forward(&self, message: Message) -> Result<(), crate::players::inbox::Gone> {
            self.0.lock().unwrap().push(message);
            Ok(())
        }

        fn is_gone(&self) -> bool {
            false
        }

        fn instance(&self) -> u64 {
            2
        }

        fn session(&self) -> u64 {
            7
        }

        fn forward_many(
            &self,
            sessions: Vec<u64>,
            message: Message,
        ) -> Result<(), crate::players::inbox::Gone> {
            for _ in sessions {
                self.0.lock().unwrap().push(message.clone());
            }
            Ok(())
        }
    }

    fn view(name: &str, place: PlaceView) -> SessionView {
        SessionView {
            name: name.to_string(),
            place,
            idle: 5,
            watchers: 0,
            chat: true,
            bot: false,
        }
    }

    #[tokio::test]
    async fn players_of_other_instances_are_listed_reached_and_forgotten() {
        let registry = Registry::new();
        let (tap, mut changes) = tokio::sync::mpsc::channel(16);
        assert!(registry.set_tap(
            1,
            PresenceTap {
                changes: tap,
                dirty: std::sync::atomic::AtomicBool::new(false),
            }
        ));
        let (ann, mut ann_inbox) = registry.register(peer(1), 10).unwrap();
        // Instance 1 numbers its sessions from a million: guests' names stay unique.
        assert_eq!(
            registry.name_of(ann.id()).unwrap().as_str(),
            "guest-1000001"
        );
        registry.rename(ann.id(), &name("ann")).unwrap();
        let recorded = Arc::new(Recorded::default());
        let bob_there = Remote {
            instance: 2,
            session: 2_000_007,
        };
        let forward: Arc<dyn crate::players::inbox::Forward> = recorded.clone();
        let bob = registry
            .ghost(
                bob_there,
                &view(
                    "bob",
                    PlaceView::Game {
                        game: String::from("wumpus"),
                        label: String::new(),
                    },
                ),
                || InboxSender::remote(forward),
            )
            .unwrap();
        let who: Vec<String> = registry
            .who()
            .iter()
            .map(|line| format!("{} {} {}", line.name, line.place, line.idle.as_secs()))
            .collect();
        assert_eq!(who, ["ann lobby 0", "bob wumpus 5"]);
        // A tell finds bob, and goes through his instance's sender.
        let (_, _, to_bob) = registry.find("BOB").unwrap();
        to_bob.send(Message::Line(Arc::from("hi bob"))).unwrap();
        assert_eq!(
            recorded.0.lock().unwrap().as_slice(),
            [Message::Line(Arc::from("hi bob"))]
        );
        // ann watches bob: other instances hear it in their own terms.
        registry.set_place(
            ann.id(),
            Place::Watching {
                id: bob,
                name: name("bob"),
            },
        );
        assert_eq!(
            registry.view(ann.id()).unwrap().place,
            PlaceView::Watching {
                instance: 2,
                session: 2_000_007,
                name: String::from("bob"),
            }
        );
        // Only local sessions' changes go to the bus.
        let mut told = Vec::new();
        while let Ok(change) = changes.try_recv() {
            told.push(change);
        }
        assert!(told.contains(&Presence::Changed(ann.id())));
        assert!(!told.contains(&Presence::Changed(bob)));
        // bob's instance is gone: so is bob, and ann stops watching him.
        registry.forget_instance(2, None);
        assert!(registry.find("bob").is_none());
        assert_eq!(registry.len(), 1);
        assert_eq!(
            received(&mut ann_inbox).await,
            Message::WatchEnded { name: name("bob") }
        );
    }

    #[tokio::test]
    async fn a_remote_players_end_reaches_only_those_still_watching_it() {
        let registry = Registry::new();
        let remote = |session| Remote {
            instance: 2,
            session,
        };
        let forward: Arc<dyn crate::players::inbox::Forward> = Arc::new(Recorded::default());
        let ghost = |session, who: &str| {
            let forward = Arc::clone(&forward);
            let id = registry
                .ghost(remote(session), &view(who, PlaceView::Lobby), || {
                    InboxSender::remote(forward)
                })
                .unwrap();
            (id, name(who))
        };
        let (bob, bob_name) = ghost(2_000_001, "bob");
        let (eve, eve_name) = ghost(2_000_002, "eve");
        let watching = |id, name: &PlayerName| Place::Watching {
            id,
            name: name.clone(),
        };
        let (ann, mut ann_inbox) = registry.register(peer(1), 10).unwrap();
        let (cy, mut cy_inbox) = registry.register(peer(2), 10).unwrap();
        let (dan, _dan_inbox) = registry.register(peer(3), 10).unwrap();
        for watcher in [&ann, &cy, &dan] {
            registry.set_place(watcher.id(), watching(bob, &bob_name));
        }
        // cy moves on to eve, dan leaves: neither watches bob any more.
        registry.set_place(cy.id(), watching(eve, &eve_name));
        drop(dan);
        assert_eq!(
            registry.shared.watched_by.get(&bob).map(|ids| ids.clone()),
            Some(vec![ann.id()])
        );
        registry.forget_ghost(remote(2_000_001));
        registry.forget_ghost(remote(2_000_002));
        assert_eq!(
            received(&mut ann_inbox).await,
            Message::WatchEnded { name: bob_name }
        );
        // cy hears of eve first: it was not told of bob, whom it no longer watched.
        assert_eq!(
            received(&mut cy_inbox).await,
            Message::WatchEnded { name: eve_name }
        );
        assert!(registry.shared.watched_by.is_empty(), "nothing left behind");
        registry.set_place(ann.id(), Place::Lobby);
        assert!(registry.shared.watched_by.is_empty());
    }

    #[test]
    fn a_name_taken_over_from_another_instance_passes_when_freed() {
        let registry = Registry::new();
        let (old, _inbox) = registry.register(peer(1), 10).unwrap();
        registry.rename(old.id(), &name("cy")).unwrap();
        let there = Remote {
            instance: 3,
            session: 3_000_001,
        };
        let forward: Arc<dyn crate::players::inbox::Forward> = Arc::new(Recorded::default());
        let ghost = registry
            .ghost(there, &view("cy", PlaceView::Lobby), || {
                InboxSender::remote(forward)
            })
            .unwrap();
        // The local cy still has the name until its connection closes.
        assert_eq!(registry.find("cy").map(|(id, ..)| id), Some(old.id()));
        // Both are registered; only one is connected here (what an upgrade counts).
        assert_eq!((registry.len(), registry.here()), (2, 1));
        drop(old);
        assert_eq!(registry.find("cy").map(|(id, ..)| id), Some(ghost));
    }

    #[test]
    fn one_address_has_at_most_its_share() {
        let registry = Registry::new();
        let first = registry.register(peer(2), 2).unwrap();
        let second = registry.register(peer(2), 2).unwrap();
        assert_eq!(
            registry.register(peer(2), 2).err(),
            Some(TooManyFromAddress {
                address: peer(2).ip(),
                limit: 2
            })
        );
        // Another address is not held back.
        let _other = registry.register(peer(3), 2).unwrap();
        assert_eq!(registry.sessions_from(peer(2).ip()), 2);
        drop(first);
        assert_eq!(registry.sessions_from(peer(2).ip()), 1);
        let again = registry.register(peer(2), 2).unwrap();
        drop(second);
        drop(again);
        assert_eq!(registry.sessions_from(peer(2).ip()), 0);
    }
}
