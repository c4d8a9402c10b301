//! What the bus's tasks share: the connection, the registry, the other instances
//! heard, and the senders that reach another instance's players.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;

use bytes::Bytes;
use dashmap::DashMap;
use serde::Serialize;
use tokio::sync::mpsc;

use crate::cluster::wire::{
    subject_of, Direct, RaceRow, Roll, Wire, WireGame, DELIVER_PART, ROLL_PART,
};
use crate::metrics::Metrics;
use crate::players::inbox::{Forward, Gone, InboxSender, Message};
use crate::players::registry::{PlaceView, Registry, Remote, SessionId, SessionView};
use crate::text::{has_removed, one_line, Keep};

#[derive(Debug)]
pub(super) struct Shared {
    pub(super) instance: u64,
    pub(super) client: async_nats::Client,
    pub(super) registry: Registry,
    pub(super) outbox: mpsc::Sender<(String, Bytes)>,
    /// Other instances: when last heard, and their open races.
    pub(super) peers: DashMap<u64, Peer>,
    /// Remote watchers of local players: their numbers here.
    pub(super) watchers: DashMap<Remote, SessionId>,
    /// Local watchers that are not sessions (the web page's), by number: where the
    /// frames of a remote player they watch go.
    pub(super) page_watchers: DashMap<u64, InboxSender>,
    /// Roll calls of other instances being heard: the sessions named so far.
    pub(super) rolls: DashMap<(u64, u64), HashSet<u64>>,
    /// This instance's roll calls so far.
    pub(super) rolls_sent: std::sync::atomic::AtomicU64,
    /// What /metrics reports of the bus.
    pub(super) metrics: Arc<Metrics>,
    pub(super) stopping: AtomicBool,
    /// Whether a `Close` from no instance heard was logged already (it is told
    /// once: a forger could fill the log otherwise).
    pub(super) warned_close: AtomicBool,
}

#[derive(Debug, Clone)]
pub(super) struct Peer {
    pub(super) heard: Instant,
    pub(super) races: Vec<RaceRow>,
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
                    from: Some(bus.instance),
                },
            );
        }
        Ok(())
    }
}

impl Shared {
    /// `message` as it travels; `None` for what stays on this instance.
    pub(super) fn wire(&self, message: Message) -> Option<Wire> {
        Some(match message {
            Message::Line(line) => Wire::Line(line.to_string()),
            Message::Frame(frame) => Wire::Frame(frame.to_string()),
            Message::Close(text) => Wire::Close(text),
            Message::Watch { watcher, inbox, .. } => {
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
            // A replay plays on the viewer's own instance, and the solver answers the
            // session that asked on its own.
            Message::ReplayEnded(_) | Message::Deadlock { .. } => return None,
        })
    }
}

impl Shared {
    /// Send every local session to `subject`, in parts, each made a message by `wrap`.
    pub(super) fn roll_call<T: Serialize>(&self, subject: String, wrap: impl Fn(Roll) -> T) {
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
    pub(super) fn count_peers(&self) {
        self.metrics
            .bus_instances
            .set(i64::try_from(self.peers.len()).unwrap_or(i64::MAX));
    }

    /// How other instances name local session `id`.
    pub(super) fn here(&self, id: SessionId) -> Remote {
        Remote {
            instance: self.instance,
            session: id.number(),
        }
    }

    /// Queue `what` for `subject`; dropped (and counted) when the queue is full.
    pub(super) fn post(&self, subject: String, what: &impl Serialize) {
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
    pub(super) fn sender_to(self: &Arc<Self>, remote: Remote) -> InboxSender {
        InboxSender::remote(Arc::new(RemoteInbox {
            bus: Arc::downgrade(self),
            to: remote,
        }))
    }

    /// Keep what another instance says of its session (a new one gets its sender), if
    /// that instance is a peer (heard, and not forgotten since): the ghost's number
    /// here. Its names are checked as names by the registry; its game's label, shown
    /// in `who`, is cleaned here of control characters.
    pub(super) fn ghost(self: &Arc<Self>, remote: Remote, view: &SessionView) -> Option<SessionId> {
        let cleaned = match &view.place {
            PlaceView::Game { game, label } if has_removed(label, Keep::Nothing) => {
                Some(SessionView {
                    place: PlaceView::Game {
                        game: game.clone(),
                        label: one_line(label),
                    },
                    ..view.clone()
                })
            }
            _ => None,
        };
        let view = cleaned.as_ref().unwrap_or(view);
        let id = self
            .registry
            .ghost(remote, view, || self.sender_to(remote))?;
        // `forget` runs in other tasks (a goodbye on presence, the silence sweep): one
        // between the caller's `heard` and here has already forgotten this instance's
        // ghosts, and with it no longer a peer nothing would forget this one. A peer is
        // removed before its ghosts, so a ghost made after they were forgotten finds
        // no peer here.
        if !self.peers.contains_key(&remote.instance) {
            self.registry.forget_ghost(remote);
            return None;
        }
        Some(id)
    }
}
