//! The bus between instances (`--bus nats://...`, SPEC section 11): presence, chat,
//! watching, races, kicks and takeovers carried over NATS, so that players on several
//! instances see each other as if on one.
//!
//! NATS is the proven engine here; this file only says what travels:
//! - `arcade.presence`, heard by every instance: each instance's heartbeat (every
//!   [`HEARTBEAT`], with its open races for `races`), and its sessions' changes
//!   (batched as they come). An instance heard for the first time is sent every local
//!   session at once on its own subject; an instance not heard for [`SILENCE`] is gone,
//!   and its players with it (a killed instance drops out of `who` that way).
//! - `arcade.to.N`, heard by instance N only: a message for one of its players (a line,
//!   a watched board, a kick...), and the race commands of racers on other instances
//!   (as NATS requests: the answer comes back to the racer's command).
//!
//! The players of other instances live in the registry with a sender that hands their
//! messages to this bus ([`Forward`]), so the rest of the server reaches them as it
//! reaches anyone. Nothing here waits on a session's path: a message goes into a
//! bounded queue that one task publishes from; when the queue is full (the bus is down
//! and NATS's own buffer too) the message is dropped and counted. Without the bus
//! (NATS down) every instance keeps working on its own: its players see only each
//! other until the bus is back, when the instances send each other their sessions
//! again.
//!
//! Payloads are JSON (serde): a few hundred bytes a message, readable with `nats sub`.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use dashmap::DashMap;
use futures_util::StreamExt as _;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::catalog::table::GameKind;
use crate::games::{Outcome, Progress, Tiles};
use crate::metrics::Metrics;
use crate::players::accounts::PlayerName;
use crate::players::inbox::{Forward, Gone, InboxSender, Message};
use crate::players::registry::{Presence, PresenceTap, Registry, Remote, SessionId, SessionView};
use crate::races::rules::{self, Member, RaceGame, RaceId};

/// How often an instance says it is alive (and what races it has).
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// An instance not heard for this long is gone, and its players with it.
pub const SILENCE: Duration = Duration::from_secs(4);

/// How often an instance tells every session again: how fresh other instances' idle
/// times are, and what heals a change lost on the way.
pub const REFRESH: Duration = Duration::from_secs(10);

/// How long a racer's command waits for the race's instance to answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// Messages waiting to be published, at most: past that they are dropped (the bus is
/// down and NATS's own buffer full).
const OUTBOX: usize = 65_536;

/// Local sessions' changes waiting to be told, at most: past that every session is
/// told again at the next heartbeat.
const CHANGES: usize = 16_384;

/// The subject every instance hears.
const PRESENCE: &str = "arcade.presence";

/// The subject instance `instance` hears alone.
fn subject_of(instance: u64) -> String {
    format!("arcade.to.{instance}")
}

/// Why the bus could not start.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// The URL is not a NATS server's.
    #[error("--bus {0}: use nats://HOST:PORT (a NATS server; several separated by commas)")]
    Url(String),
    /// NATS refused a subscription.
    #[error("cannot subscribe on the bus {url}: {reason}")]
    Subscribe {
        /// The server.
        url: String,
        /// Why.
        reason: String,
    },
}

/// What travels on [`PRESENCE`].
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Announce {
    /// An instance is alive, with its open races.
    Heartbeat { from: u64, races: Vec<RaceRow> },
    /// Sessions of `from` changed or ended.
    Sessions {
        from: u64,
        changed: Vec<(u64, SessionView)>,
        gone: Vec<u64>,
    },
    /// Part of a roll call of `from`'s sessions.
    All(Roll),
    /// `from` is stopping.
    Bye { from: u64 },
}

/// Part of a roll call: every session of instance `from`, in parts of at most
/// [`ROLL_PART`] (NATS refuses a message over its `max_payload`, 1 MiB by default).
/// When the `last` part has come, the sessions of `from` numbered up to `upto` that no
/// part named have ended (those numbered above it are newer than the roll call).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Roll {
    from: u64,
    /// Which roll call of `from`.
    roll: u64,
    /// The highest session number `from` had given when the roll call began.
    upto: u64,
    sessions: Vec<(u64, SessionView)>,
    last: bool,
}

/// Sessions in one part of a roll call: about 30 KB of JSON, and about a millisecond
/// of the receiver's CPU, taken in one go between its sessions' turns (a part of 2,000
/// held a worker thread for 9 ms, and the tail of every session's latency with it).
const ROLL_PART: usize = 250;

/// Local sessions' changes in one message, at most: what a receiver handles in one go
/// (a few microseconds each).
const CHANGES_PART: usize = 128;

/// Players named in one message for many (a broadcast to a large instance goes in
/// several): well under NATS's 1 MiB.
const DELIVER_PART: usize = 20_000;

/// What travels on an instance's own subject.
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Direct {
    /// A message for sessions `to` (one player; a place's chat, a broadcast).
    Deliver { to: Vec<u64>, message: Wire },
    /// Part of a roll call of `from`'s sessions, to an instance that has just heard
    /// of it.
    Snapshot(Roll),
    /// A racer's command for a race of this instance.
    Race {
        from: Remote,
        name: String,
        op: RaceOp,
    },
}

/// A [`Message`] as it travels: sessions named by instance and number.
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Wire {
    Line(String),
    Frame(String),
    Close(String),
    Watch(Remote),
    Unwatch(Remote),
    WatchEnded(String),
    RaceStart(RaceId, WireGame),
    RaceStop(RaceId),
}

/// A race's game as it travels.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct WireGame {
    game: String,
    args: Vec<String>,
    world: Option<String>,
}

/// A racer's progress as it travels.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireProgress {
    moves: u64,
    placed: Option<(usize, usize)>,
    tiles: Option<(u64, u64, u64)>,
    gold: Option<bool>,
    ended: Option<String>,
}

/// One open race, as `races` lists it on every instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaceRow {
    /// The race.
    pub id: RaceId,
    /// Its game.
    pub label: String,
    /// Its host.
    pub host: String,
    /// How many race.
    pub racers: usize,
    /// Seconds since it started, if it has.
    pub running: Option<u64>,
    /// Its time limit, in seconds.
    pub limit: Option<u64>,
}

impl From<rules::Listed> for RaceRow {
    fn from(race: rules::Listed) -> RaceRow {
        RaceRow {
            id: race.id,
            label: race.label,
            host: race.host.to_string(),
            racers: race.racers,
            running: race.running.map(|running| running.as_secs()),
            limit: race.limit.map(|limit| limit.as_secs()),
        }
    }
}

/// A racer's command for a race on another instance.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum RaceOp {
    /// `join N`.
    Join(RaceId),
    /// `start`.
    Start,
    /// `/standings`.
    Standings,
    /// `leave`, or the race's game left.
    Leave,
    /// The racer's game got this far.
    Progress(WireProgress),
}

impl RaceOp {
    /// The progress of a racer's game, to send.
    pub fn progress(progress: &Progress) -> RaceOp {
        RaceOp::Progress(WireProgress {
            moves: progress.moves,
            placed: progress.placed,
            tiles: progress
                .tiles
                .map(|tiles| (tiles.score, tiles.largest, tiles.win)),
            gold: progress.gold,
            ended: progress.ended.map(|outcome| outcome.as_str().to_string()),
        })
    }
}

/// What the race's instance answers a racer's command.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RaceAnswer {
    /// What to show the racer.
    pub text: String,
    /// The racer is in this race now (a `join` that worked).
    pub joined: bool,
}

/// The bus: cheap to clone.
#[derive(Debug, Clone)]
pub struct Bus {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    instance: u64,
    client: async_nats::Client,
    registry: Registry,
    outbox: mpsc::Sender<(String, Bytes)>,
    /// Other instances: when last heard, and their open races.
    peers: DashMap<u64, Peer>,
    /// Remote watchers of local players: their numbers here.
    watchers: DashMap<Remote, SessionId>,
    /// Local watchers that are not sessions (the web page's), by number: where the
    /// frames of a remote player they watch go.
    page_watchers: DashMap<u64, InboxSender>,
    /// Roll calls of other instances being heard: the sessions named so far.
    rolls: DashMap<(u64, u64), HashSet<u64>>,
    /// This instance's roll calls so far.
    rolls_sent: std::sync::atomic::AtomicU64,
    /// What /metrics reports of the bus.
    metrics: Arc<Metrics>,
    stopping: AtomicBool,
}

#[derive(Debug, Clone)]
struct Peer {
    heard: Instant,
    races: Vec<RaceRow>,
}

/// A player of another instance: what its sender hands on.
#[derive(Debug)]
struct RemoteInbox {
    bus: Weak<Shared>,
    to: Remote,
}

impl Forward for RemoteInbox {
    fn forward(&self, message: Message) -> Result<(), Gone> {
        self.forward_many(vec![self.to.session], message)
    }

    fn is_gone(&self) -> bool {
        self.bus
            .upgrade()
            .is_none_or(|bus| !bus.peers.contains_key(&self.to.instance))
    }

    fn instance(&self) -> u64 {
        self.to.instance
    }

    fn session(&self) -> u64 {
        self.to.session
    }

    fn forward_many(&self, sessions: Vec<u64>, message: Message) -> Result<(), Gone> {
        let bus = self.bus.upgrade().ok_or(Gone)?;
        if !bus.peers.contains_key(&self.to.instance) {
            return Err(Gone);
        }
        let Some(wire) = bus.wire(message) else {
            return Ok(());
        };
        for part in sessions.chunks(DELIVER_PART) {
            bus.post(
                subject_of(self.to.instance),
                &Direct::Deliver {
                    to: part.to_vec(),
                    message: wire.clone(),
                },
            );
        }
        Ok(())
    }
}

impl Shared {
    /// `message` as it travels; `None` for what stays on this instance.
    fn wire(&self, message: Message) -> Option<Wire> {
        Some(match message {
            Message::Line(line) => Wire::Line(line.to_string()),
            Message::Frame(frame) => Wire::Frame(frame.to_string()),
            Message::Close(text) => Wire::Close(text),
            Message::Watch { watcher, inbox } => {
                if self.registry.remote_of(watcher).is_some() {
                    // Ghosts do not watch: only a local session or page sends this.
                    return None;
                }
                if self.registry.sender(watcher).is_none() {
                    self.page_watchers.insert(watcher.number(), inbox);
                }
                Wire::Watch(self.here(watcher))
            }
            Message::Unwatch(watcher) => {
                self.page_watchers.remove(&watcher.number());
                Wire::Unwatch(self.here(watcher))
            }
            Message::WatchEnded { name } => Wire::WatchEnded(name.to_string()),
            Message::RaceStart(race, game) => Wire::RaceStart(
                race,
                WireGame {
                    game: game.kind.name.to_string(),
                    args: game.args.clone(),
                    world: game.world.clone(),
                },
            ),
            Message::RaceStop(race) => Wire::RaceStop(race),
            // A replay plays on the viewer's own instance.
            Message::ReplayEnded(_) => return None,
        })
    }
}

impl Shared {
    /// Send every local session to `subject`, in parts, each made a message by `wrap`.
    fn roll_call<T: Serialize>(&self, subject: String, wrap: impl Fn(Roll) -> T) {
        let roll = self.rolls_sent.fetch_add(1, Ordering::Relaxed);
        // Taken before the views: a session numbered above it is newer than the call.
        let upto = self.registry.last_number();
        let views = self.registry.views();
        let parts = views.len().div_ceil(ROLL_PART).max(1);
        let mut views = views.into_iter();
        for part in 0..parts {
            let sessions: Vec<(u64, SessionView)> = views.by_ref().take(ROLL_PART).collect();
            self.post(
                subject.clone(),
                &wrap(Roll {
                    from: self.instance,
                    roll,
                    upto,
                    sessions,
                    last: part + 1 == parts,
                }),
            );
        }
    }

    /// Tell /metrics how many other instances are heard.
    fn count_peers(&self) {
        self.metrics
            .bus_instances
            .set(i64::try_from(self.peers.len()).unwrap_or(i64::MAX));
    }

    /// How other instances name local session `id`.
    fn here(&self, id: SessionId) -> Remote {
        Remote {
            instance: self.instance,
            session: id.number(),
        }
    }

    /// Queue `what` for `subject`; dropped (and counted) when the queue is full.
    fn post(&self, subject: String, what: &impl Serialize) {
        let Ok(payload) = serde_json::to_vec(what) else {
            return;
        };
        if self
            .outbox
            .try_send((subject, Bytes::from(payload)))
            .is_err()
        {
            self.metrics.bus_dropped.inc();
        }
    }

    /// The sender that reaches remote session `remote`.
    fn sender_to(self: &Arc<Self>, remote: Remote) -> InboxSender {
        InboxSender::remote(Arc::new(RemoteInbox {
            bus: Arc::downgrade(self),
            to: remote,
        }))
    }

    /// Keep what another instance says of its session (a new one gets its sender).
    fn ghost(self: &Arc<Self>, remote: Remote, view: &SessionView) -> Option<SessionId> {
        self.registry.ghost(remote, view, || self.sender_to(remote))
    }
}

impl Bus {
    /// Connect to the NATS server at `url` as instance `instance` (a number no other
    /// running instance has: the store's), and carry `registry`'s players to the other
    /// instances and theirs here. The connection is made in the background and made
    /// again whenever it is lost: the server starts and runs without the bus.
    ///
    /// # Errors
    /// [`BusError`] when `url` is not a NATS URL or a subscription is refused.
    pub async fn start(
        url: &str,
        instance: u64,
        registry: Registry,
        metrics: Arc<Metrics>,
    ) -> Result<Bus, BusError> {
        if !url
            .split(',')
            .all(|server| server.trim().starts_with("nats://") && server.trim().len() > 7)
        {
            return Err(BusError::Url(url.to_string()));
        }
        let shown = url.to_string();
        let client = async_nats::ConnectOptions::new()
            .name(format!("arcade-{instance}"))
            .retry_on_initial_connect()
            .max_reconnects(None)
            // Back within a second of the server's return (the default waits up to
            // several seconds between tries).
            .reconnect_delay_callback(|attempts| {
                Duration::from_millis(100)
                    .saturating_mul(u32::try_from(attempts).unwrap_or(10).min(10))
            })
            .request_timeout(Some(REQUEST_TIMEOUT))
            .event_callback(move |event| {
                let shown = shown.clone();
                async move {
                    tracing::info!(bus = %shown, %event, "bus");
                }
            })
            .connect(url)
            .await
            .map_err(|_| BusError::Url(url.to_string()))?;
        let subscribe_error = |error: async_nats::SubscribeError| BusError::Subscribe {
            url: url.to_string(),
            reason: error.to_string(),
        };
        let presence = client.subscribe(PRESENCE).await.map_err(subscribe_error)?;
        let own = client
            .subscribe(subject_of(instance))
            .await
            .map_err(subscribe_error)?;
        let (outbox, queued) = mpsc::channel(OUTBOX);
        let (changes, changed) = mpsc::channel(CHANGES);
        registry.set_tap(
            instance,
            PresenceTap {
                changes,
                dirty: AtomicBool::new(false),
            },
        );
        registry.with_races(|races| races.number_for_instance(instance));
        let shared = Arc::new(Shared {
            instance,
            client: client.clone(),
            registry,
            outbox,
            peers: DashMap::new(),
            watchers: DashMap::new(),
            page_watchers: DashMap::new(),
            rolls: DashMap::new(),
            rolls_sent: std::sync::atomic::AtomicU64::new(0),
            metrics: Arc::clone(&metrics),
            stopping: AtomicBool::new(false),
        });
        tokio::spawn(publish_loop(client, queued, metrics));
        tokio::spawn(presence_loop(Arc::clone(&shared), changed));
        tokio::spawn(listen(Arc::downgrade(&shared), presence, on_announce));
        tokio::spawn(listen(Arc::downgrade(&shared), own, on_direct));
        tracing::info!(bus = url, instance, "on the bus");
        Ok(Bus { shared })
    }

    /// The open races of the other instances.
    pub fn races(&self) -> Vec<RaceRow> {
        let mut rows: Vec<RaceRow> = self
            .shared
            .peers
            .iter()
            .flat_map(|peer| peer.races.clone())
            .collect();
        rows.sort_by_key(|row| row.id);
        rows
    }

    /// The instance that has race `race`, if another instance has it.
    pub fn home_of(&self, race: RaceId) -> Option<u64> {
        self.shared
            .peers
            .iter()
            .find(|peer| peer.races.iter().any(|row| row.id == race))
            .map(|peer| *peer.key())
            .or_else(|| {
                // Races are numbered from their instance's own range.
                let home = u64::from(race / rules::IDS_PER_INSTANCE);
                (home != self.shared.instance && self.shared.peers.contains_key(&home))
                    .then_some(home)
            })
    }

    /// Send racer `from` (called `name`)'s command to instance `home`, which has the
    /// race, and wait for its answer.
    pub async fn race_request(
        &self,
        home: u64,
        from: SessionId,
        name: &PlayerName,
        op: RaceOp,
    ) -> Result<RaceAnswer, String> {
        let request = Direct::Race {
            from: self.shared.here(from),
            name: name.to_string(),
            op,
        };
        let payload = serde_json::to_vec(&request).map_err(|error| error.to_string())?;
        let answer = self
            .shared
            .client
            .request(subject_of(home), Bytes::from(payload))
            .await
            .map_err(|_| String::from("The race's server did not answer: try again."))?;
        serde_json::from_slice(&answer.payload)
            .map_err(|_| String::from("The race's server gave an answer this one cannot read."))
    }

    /// Tell instance `home` of racer `from`'s command, not waiting for an answer.
    pub fn race_notice(&self, home: u64, from: SessionId, name: &PlayerName, op: RaceOp) {
        self.shared.post(
            subject_of(home),
            &Direct::Race {
                from: self.shared.here(from),
                name: name.to_string(),
                op,
            },
        );
    }

    /// Tell the other instances that this one is stopping, and send what waits.
    pub async fn stop(&self) {
        self.shared.stopping.store(true, Ordering::Relaxed);
        let bye = Announce::Bye {
            from: self.shared.instance,
        };
        if let Ok(payload) = serde_json::to_vec(&bye) {
            let _ = self
                .shared
                .client
                .publish(PRESENCE, Bytes::from(payload))
                .await;
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), self.shared.client.flush()).await;
    }
}

/// Publish what the sessions queued, in order.
async fn publish_loop(
    client: async_nats::Client,
    mut queued: mpsc::Receiver<(String, Bytes)>,
    metrics: Arc<Metrics>,
) {
    while let Some((subject, payload)) = queued.recv().await {
        match client.publish(subject, payload).await {
            Ok(()) => metrics.bus_messages.inc(),
            Err(error) => {
                metrics.bus_dropped.inc();
                tracing::debug!(%error, "bus: a message was not published");
            }
        }
    }
}

/// Tell the other instances of local sessions' changes as they come (a batch of what
/// waits at once), say that this instance is alive every [`HEARTBEAT`], and forget
/// instances gone silent.
async fn presence_loop(shared: Arc<Shared>, mut changed: mpsc::Receiver<Presence>) {
    let mut tick = tokio::time::interval(HEARTBEAT);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut refreshed = Instant::now();
    let mut batch = Vec::new();
    loop {
        tokio::select! {
            got = changed.recv_many(&mut batch, CHANGES_PART) => {
                if got == 0 {
                    return;
                }
                let mut seen = HashSet::new();
                let mut changes = Vec::new();
                let mut gone = Vec::new();
                // Newest first, each session once.
                for change in batch.drain(..).rev() {
                    match change {
                        Presence::Changed(id) if seen.insert(id) => {
                            if let Some(view) = shared.registry.view(id) {
                                changes.push((id.number(), view));
                            }
                        }
                        Presence::Left(id) if seen.insert(id) => gone.push(id.number()),
                        _ => {}
                    }
                }
                shared.post(
                    PRESENCE.to_string(),
                    &Announce::Sessions { from: shared.instance, changed: changes, gone },
                );
            }
            _ = tick.tick() => {
                if shared.stopping.load(Ordering::Relaxed) {
                    continue;
                }
                heartbeat(&shared);
                // Built here, in the task that sends the changes, so that it comes
                // after every change already sent and before those to come.
                if shared.registry.take_dirty() || refreshed.elapsed() >= REFRESH {
                    refreshed = Instant::now();
                    shared.roll_call(PRESENCE.to_string(), Announce::All);
                }
            }
        }
    }
}

/// Say this instance is alive (with its races); forget instances not heard for
/// [`SILENCE`].
fn heartbeat(shared: &Arc<Shared>) {
    let now = Instant::now();
    let races = shared.registry.with_races(|races| races.list(now));
    let races = races.into_iter().map(RaceRow::from).collect();
    shared.post(
        PRESENCE.to_string(),
        &Announce::Heartbeat {
            from: shared.instance,
            races,
        },
    );
    let silent: Vec<u64> = shared
        .peers
        .iter()
        .filter(|peer| now.saturating_duration_since(peer.heard) > SILENCE)
        .map(|peer| *peer.key())
        .collect();
    for instance in silent {
        tracing::warn!(
            instance,
            "bus: an instance went silent; its players are gone"
        );
        forget(shared, instance);
    }
}

/// Instance `instance` is gone: its players, and their watching of ours.
fn forget(shared: &Shared, instance: u64) {
    shared.peers.remove(&instance);
    shared.count_peers();
    shared.registry.forget_instance(instance, None);
    shared
        .watchers
        .retain(|remote, _| remote.instance != instance);
}

/// Instance `from` was heard now. Heard for the first time, it has heard nothing of
/// this one yet: every session goes to it alone.
fn heard(shared: &Arc<Shared>, from: u64) {
    let new = match shared.peers.get_mut(&from) {
        Some(mut peer) => {
            peer.heard = Instant::now();
            false
        }
        None => {
            shared.peers.insert(
                from,
                Peer {
                    heard: Instant::now(),
                    races: Vec::new(),
                },
            );
            true
        }
    };
    if new {
        shared.count_peers();
        tracing::info!(instance = from, "bus: an instance joined");
        shared.roll_call(subject_of(from), Direct::Snapshot);
    }
}

/// Hear what comes on `subscriber`, one message at a time, each read as a `T` and
/// handed to `handle` with the subject to answer on, if any. The sessions of this
/// worker thread get their turn between two messages, however many wait.
async fn listen<T: serde::de::DeserializeOwned>(
    shared: Weak<Shared>,
    mut subscriber: async_nats::Subscriber,
    handle: fn(&Arc<Shared>, T, Option<async_nats::Subject>),
) {
    while let Some(message) = subscriber.next().await {
        tokio::task::yield_now().await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        match serde_json::from_slice::<T>(&message.payload) {
            Ok(what) => handle(&shared, what, message.reply),
            Err(error) => {
                tracing::warn!(subject = %message.subject, %error, "bus: a message this server cannot read was ignored")
            }
        }
    }
}

/// An announcement of another instance: its heartbeat, its sessions, its goodbye.
fn on_announce(shared: &Arc<Shared>, announce: Announce, _: Option<async_nats::Subject>) {
    let from = match &announce {
        Announce::Heartbeat { from, .. }
        | Announce::Sessions { from, .. }
        | Announce::All(Roll { from, .. })
        | Announce::Bye { from } => *from,
    };
    if from == shared.instance {
        return;
    }
    if !matches!(announce, Announce::Bye { .. }) {
        heard(shared, from);
    }
    match announce {
        Announce::Heartbeat { from, races } => {
            if let Some(mut peer) = shared.peers.get_mut(&from) {
                peer.races = races;
            }
        }
        Announce::Sessions {
            from,
            changed,
            gone,
        } => {
            for (session, view) in &changed {
                shared.ghost(
                    Remote {
                        instance: from,
                        session: *session,
                    },
                    view,
                );
            }
            for session in gone {
                let remote = Remote {
                    instance: from,
                    session,
                };
                shared.watchers.remove(&remote);
                shared.registry.forget_ghost(remote);
            }
        }
        Announce::All(roll) => heard_roll(shared, roll),
        Announce::Bye { from } => {
            tracing::info!(instance = from, "bus: an instance stopped");
            forget(shared, from);
        }
    }
}

/// A part of another instance's roll call: keep its sessions; at the last part,
/// forget that instance's sessions the roll call did not name.
fn heard_roll(shared: &Arc<Shared>, roll: Roll) {
    let Roll {
        from,
        roll,
        upto,
        sessions,
        last,
    } = roll;
    for (session, view) in &sessions {
        shared.ghost(
            Remote {
                instance: from,
                session: *session,
            },
            view,
        );
    }
    // Older roll calls of `from` that never ended (a part lost) are dropped.
    shared
        .rolls
        .retain(|&(instance, other), _| instance != from || other + 1 >= roll);
    let named = sessions.iter().map(|(session, _)| *session);
    if last {
        let (_, mut keep) = shared.rolls.remove(&(from, roll)).unwrap_or_default();
        keep.extend(named);
        shared.registry.forget_instance(from, Some((&keep, upto)));
    } else {
        shared.rolls.entry((from, roll)).or_default().extend(named);
    }
}

/// What is for this instance alone: a message for its players, a roll call, a
/// racer's command (answered on `reply`).
fn on_direct(shared: &Arc<Shared>, direct: Direct, reply: Option<async_nats::Subject>) {
    match direct {
        Direct::Deliver { to, message } => deliver(shared, &to, message),
        Direct::Snapshot(roll) => heard_roll(shared, roll),
        Direct::Race { from, name, op } => {
            let answer = race_op(shared, from, &name, op);
            if let (Some(reply), Some(answer)) = (reply, answer) {
                if let Ok(payload) = serde_json::to_vec(&answer) {
                    let _ = shared
                        .outbox
                        .try_send((reply.to_string(), Bytes::from(payload)));
                }
            }
        }
    }
}

/// A text from the bus, made safe for a terminal: only line breaks and tabs of the
/// control characters are kept.
fn safe(text: &str) -> String {
    crate::text::lines(text)
}

/// Hand a message from another instance to local sessions (or a page watcher) `to`.
fn deliver(shared: &Arc<Shared>, to: &[u64], wire: Wire) {
    let message = match wire {
        Wire::Line(line) => Message::Line(Arc::from(safe(&line))),
        // A board is a game's own output (colours included), as its player saw it.
        Wire::Frame(frame) => Message::Frame(Arc::from(frame)),
        Wire::Close(text) => Message::Close(safe(&text)),
        Wire::Watch(remote) => {
            let watcher = *shared
                .watchers
                .entry(remote)
                .or_insert_with(|| shared.registry.watcher_id());
            Message::Watch {
                watcher,
                inbox: shared.sender_to(remote),
            }
        }
        Wire::Unwatch(remote) => {
            let Some((_, watcher)) = shared.watchers.remove(&remote) else {
                return;
            };
            Message::Unwatch(watcher)
        }
        Wire::WatchEnded(name) => {
            let Some(name) = PlayerName::from_peer(&name) else {
                return;
            };
            Message::WatchEnded { name }
        }
        Wire::RaceStart(race, game) => {
            let Some(kind) = GameKind::from_name(&game.game) else {
                return;
            };
            Message::RaceStart(
                race,
                Arc::new(RaceGame {
                    kind,
                    args: game.args,
                    world: game.world,
                }),
            )
        }
        Wire::RaceStop(race) => Message::RaceStop(race),
    };
    for &to in to {
        let id = shared.registry.local_id(Remote {
            instance: shared.instance,
            session: to,
        });
        if let Some(id) = id {
            shared.registry.send(id, message.clone());
        } else if let Some(page) = shared.page_watchers.get(&to).map(|page| page.clone()) {
            let _ = page.send(message.clone());
        }
    }
}

/// Do a remote racer's command on a race of this instance; the answer, for those
/// that wait for one.
fn race_op(shared: &Arc<Shared>, from: Remote, name: &str, op: RaceOp) -> Option<RaceAnswer> {
    let registry = &shared.registry;
    // The racer's session is known here from its instance's presence; if its news
    // has not come yet, it is known from now on.
    let ghost = match registry.ghost_id(from) {
        Some(id) => id,
        None => shared.ghost(
            from,
            &SessionView {
                name: name.to_string(),
                place: crate::players::registry::PlaceView::Lobby,
                idle: 0,
                watchers: 0,
                chat: true,
            },
        )?,
    };
    let member = Member {
        id: ghost,
        name: registry.name_of(ghost)?,
        inbox: registry.sender(ghost)?,
    };
    let now = Instant::now();
    let say = |text: String| {
        Some(RaceAnswer {
            text,
            joined: false,
        })
    };
    match op {
        RaceOp::Join(race_id) => {
            let joined = registry.with_races(|races| races.join(race_id, member));
            match joined {
                Ok((label, count, host, notice)) => {
                    registry.deliver(vec![notice]);
                    Some(RaceAnswer {
                        text: crate::seat::joined_race(race_id, &label, count, &host),
                        joined: true,
                    })
                }
                Err(error) => say(format!("{error}\n")),
            }
        }
        RaceOp::Start => say(crate::seat::start_race(registry, ghost, &member.name)),
        RaceOp::Standings => say(registry
            .with_races(|races| races.standings(races.race_of(ghost)?, now))
            .unwrap_or_else(|| String::from("You are not in a race: races lists them.\n"))),
        RaceOp::Leave => {
            if let Some((_, notices)) = registry.with_races(|races| races.leave(ghost, now)) {
                registry.deliver(notices);
            }
            None
        }
        RaceOp::Progress(progress) => {
            let progress = Progress {
                moves: progress.moves,
                placed: progress.placed,
                tiles: progress.tiles.map(|(score, largest, win)| Tiles {
                    score,
                    largest,
                    win,
                }),
                gold: progress.gold,
                ended: progress.ended.as_deref().and_then(Outcome::from_word),
            };
            let (notices, own) = registry.with_races(|races| races.progress(ghost, progress, now));
            registry.deliver(notices);
            if let Some(own) = own {
                let _ = member
                    .inbox
                    .send(Message::Line(Arc::from(own.trim_end_matches('\n'))));
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_travels_reads_back() {
        let direct = Direct::Deliver {
            to: vec![7],
            message: Wire::Watch(Remote {
                instance: 2,
                session: 2_000_001,
            }),
        };
        let text = serde_json::to_string(&direct).unwrap();
        let back: Direct = serde_json::from_str(&text).unwrap();
        assert!(matches!(
            back,
            Direct::Deliver {
                to,
                message: Wire::Watch(Remote {
                    instance: 2,
                    session: 2_000_001
                })
            } if to == [7]
        ));
        let progress = Progress {
            moves: 12,
            placed: Some((2, 4)),
            tiles: None,
            gold: None,
            ended: Some(Outcome::Solved),
        };
        let RaceOp::Progress(wire) = RaceOp::progress(&progress) else {
            panic!("not progress");
        };
        assert_eq!(wire.ended.as_deref(), Some("solved"));
        assert_eq!(wire.placed, Some((2, 4)));
    }

    #[test]
    fn text_from_the_bus_cannot_drive_a_terminal() {
        assert_eq!(safe("hi\u{1b}[2J there\n\u{7}"), "hi[2J there\n");
    }

    fn view(name: &str) -> SessionView {
        SessionView {
            name: name.to_string(),
            place: crate::players::registry::PlaceView::Lobby,
            idle: 0,
            watchers: 0,
            chat: true,
        }
    }

    #[tokio::test]
    async fn a_roll_call_in_parts_forgets_only_the_unnamed_older_sessions() {
        let registry = Registry::new();
        // No NATS server there: the client keeps trying in the background, which is
        // all this test needs of it.
        let bus = Bus::start(
            "nats://127.0.0.1:9",
            1,
            registry.clone(),
            Arc::new(Metrics::new()),
        )
        .await
        .unwrap();
        let shared = &bus.shared;
        let there = |session| Remote {
            instance: 2,
            session,
        };
        for (session, name) in [(2_000_001, "pia"), (2_000_002, "quin"), (2_000_003, "ray")] {
            shared.ghost(there(session), &view(name));
        }
        // Instance 2 rolls sessions up to 2_000_003; 2_000_004 logs in meanwhile.
        shared.ghost(there(2_000_004), &view("sol"));
        let part = |sessions: &[(u64, &str)], last| Roll {
            from: 2,
            roll: 7,
            upto: 2_000_003,
            sessions: sessions
                .iter()
                .map(|&(session, name)| (session, view(name)))
                .collect(),
            last,
        };
        heard_roll(shared, part(&[(2_000_001, "pia")], false));
        assert_eq!(
            registry.len(),
            4,
            "nothing is forgotten before the last part"
        );
        heard_roll(shared, part(&[(2_000_003, "ray")], true));
        let names: Vec<String> = registry
            .who()
            .iter()
            .map(|line| line.name.to_string())
            .collect();
        assert_eq!(names, ["pia", "ray", "sol"]);
        assert!(shared.rolls.is_empty());
    }

    #[test]
    fn only_nats_urls_are_taken() {
        let registry = Registry::new();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        for bad in ["", "http://x", "nats://", "localhost:4222"] {
            let result = runtime.block_on(Bus::start(
                bad,
                1,
                registry.clone(),
                Arc::new(Metrics::new()),
            ));
            assert!(matches!(result, Err(BusError::Url(_))), "{bad}");
        }
    }
}
