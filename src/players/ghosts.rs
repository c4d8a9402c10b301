//! The players of other instances in the registry (`--bus`): each is an entry whose
//! inbox forwards to its instance, kept up to date by the bus ([`Registry::ghost`]),
//! and every change to a local session told to the bus through a [`PresenceTap`].

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use crate::players::accounts::PlayerName;
use crate::players::ids::{Remote, SessionId};
use crate::players::inbox::InboxSender;
use crate::players::place::{Place, PlaceView, SessionView};
use crate::players::presence::{Presence, PresenceTap};
use crate::players::registry::{seconds_since, Activity, Entry, Home, Registry, INSTANCE_SESSIONS};

impl Registry {
    /// How many sessions are connected to this instance (not counting other
    /// instances' players, which `len` counts with `--bus`). Walks the map: for rare
    /// questions such as an upgrade's.
    pub fn here(&self) -> usize {
        self.shared
            .sessions
            .iter()
            .filter(|entry| matches!(entry.home, Home::Here(_)))
            .count()
    }

    /// Report local sessions' changes to `tap` from now on, as instance `instance`
    /// (`--bus`). Once only: false if a tap is set already.
    pub fn set_tap(&self, instance: u64, tap: PresenceTap) -> bool {
        if self.shared.tap.set((instance, tap)).is_err() {
            return false;
        }
        // Guests are `guest-N` after their session's number: numbers of their own per
        // instance keep a guest's name unique on every instance.
        let first = instance.saturating_mul(INSTANCE_SESSIONS);
        self.shared.next_id.fetch_max(first, Ordering::Relaxed);
        true
    }

    /// This instance's number on the bus, if it is on one.
    pub fn instance(&self) -> Option<u64> {
        self.shared.tap.get().map(|(instance, _)| *instance)
    }

    /// Whether a change was dropped since last asked (the bus then sends every
    /// session again).
    pub fn take_dirty(&self) -> bool {
        self.shared
            .tap
            .get()
            .is_some_and(|(_, tap)| tap.dirty.swap(false, Ordering::Relaxed))
    }

    /// Tell the bus of a local session's change, if there is a bus.
    pub(super) fn tell_bus(&self, change: Presence) {
        if let Some((_, tap)) = self.shared.tap.get() {
            if tap.changes.try_send(change).is_err() {
                tap.dirty.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Tell the bus that local session `id` changed, if it is a local session.
    pub(super) fn changed(&self, id: SessionId) {
        if self.shared.tap.get().is_some() && self.remote_of(id).is_none() {
            self.tell_bus(Presence::Changed(id));
        }
    }

    /// The remote session that `id` stands for, if it is one.
    pub fn remote_of(&self, id: SessionId) -> Option<Remote> {
        match self.shared.sessions.get(&id)?.home {
            Home::Away(remote) => Some(remote),
            Home::Here(_) => None,
        }
    }

    /// The number here of remote session `remote`, if it is known.
    pub fn ghost_id(&self, remote: Remote) -> Option<SessionId> {
        self.shared.ghosts.get(&remote).map(|id| *id)
    }

    /// How another instance names session `id` (local or remote).
    pub fn remote_name_of(&self, id: SessionId) -> Option<Remote> {
        match self.shared.sessions.get(&id)?.home {
            Home::Away(remote) => Some(remote),
            Home::Here(_) => Some(Remote {
                instance: self.instance()?,
                session: id.0,
            }),
        }
    }

    /// The session here that another instance's `remote` names: this instance's own,
    /// or a remote one's number here.
    pub fn local_id(&self, remote: Remote) -> Option<SessionId> {
        if Some(remote.instance) == self.instance() {
            let id = SessionId(remote.session);
            return self.shared.sessions.contains_key(&id).then_some(id);
        }
        self.ghost_id(remote)
    }

    /// What other instances are told of local session `id`.
    pub fn view(&self, id: SessionId) -> Option<SessionView> {
        let entry = self.shared.sessions.get(&id)?;
        if !matches!(entry.home, Home::Here(_)) {
            return None;
        }
        let (name, place, idle, watchers, chat, bot) = (
            entry.name.to_string(),
            entry.place.clone(),
            entry.activity.idle(),
            entry.watchers,
            entry.chat,
            entry.bot,
        );
        drop(entry);
        Some(SessionView {
            name,
            place: self.place_view(&place),
            idle: u32::try_from(idle.as_secs()).unwrap_or(u32::MAX),
            watchers,
            chat,
            bot,
        })
    }

    /// Every local session's number and view, for a full report to the bus.
    pub fn views(&self) -> Vec<(u64, SessionView)> {
        let ids: Vec<SessionId> = self
            .shared
            .sessions
            .iter()
            .filter(|entry| matches!(entry.home, Home::Here(_)))
            .map(|entry| *entry.key())
            .collect();
        ids.into_iter()
            .filter_map(|id| Some((id.0, self.view(id)?)))
            .collect()
    }

    pub(super) fn place_view(&self, place: &Place) -> PlaceView {
        match place {
            Place::Lobby => PlaceView::Lobby,
            Place::Game { game, label } => PlaceView::Game {
                game: (*game).to_string(),
                label: label.clone(),
            },
            Place::Watching { id, name } => match self.remote_name_of(*id) {
                Some(remote) => PlaceView::Watching {
                    instance: remote.instance,
                    session: remote.session,
                    name: name.to_string(),
                },
                None => PlaceView::Lobby,
            },
            Place::Race { race, playing } => PlaceView::Race {
                race: *race,
                playing: *playing,
            },
            Place::WatchingRace(race) => PlaceView::WatchingRace(*race),
        }
    }

    /// The place here of what another instance reports; `None` when it names what is
    /// not known here (a game this server has not; a player not seen yet).
    pub(super) fn place_from_view(&self, view: &PlaceView) -> Option<Place> {
        Some(match view {
            PlaceView::Lobby => Place::Lobby,
            PlaceView::Game { game, label } => Place::Game {
                game: crate::catalog::table::GameKind::from_name(game)?.name,
                label: label.clone(),
            },
            PlaceView::Watching {
                instance,
                session,
                name,
            } => Place::Watching {
                id: self.local_id(Remote {
                    instance: *instance,
                    session: *session,
                })?,
                name: PlayerName::from_peer(name)?,
            },
            PlaceView::Race { race, playing } => Place::Race {
                race: *race,
                playing: *playing,
            },
            PlaceView::WatchingRace(race) => Place::WatchingRace(*race),
        })
    }

    /// Add or update remote session `remote` as `view` says, reached through `inbox`
    /// (made only for a session new here). Its number here. A name another session
    /// holds here stays that session's (the two instances will settle it: the newer
    /// login takes the name over).
    pub fn ghost(
        &self,
        remote: Remote,
        view: &SessionView,
        inbox: impl FnOnce() -> InboxSender,
    ) -> Option<SessionId> {
        let name = PlayerName::from_peer(&view.name)?;
        let place = self.place_from_view(&view.place).unwrap_or(Place::Lobby);
        let idle = u64::from(view.idle);
        // Looked up and claimed under one entry: the bus hears an instance on two
        // subjects, in two tasks, and a session named on both at once (its roll call
        // to an instance that just heard of it, its change on presence) was made
        // twice, one entry then out of `ghosts`: forgotten by nothing, in `who` for
        // good. (No lock on `sessions` is held while `ghosts` is asked: none is taken
        // the other way round.)
        let (id, new) = match self.shared.ghosts.entry(remote) {
            dashmap::Entry::Occupied(known) => (*known.get(), false),
            dashmap::Entry::Vacant(vacant) => {
                let id = SessionId(self.shared.next_id.fetch_add(1, Ordering::Relaxed) + 1);
                let activity = Arc::new(Activity {
                    epoch: self.shared.epoch,
                    last: AtomicU32::new(0),
                    progress: Mutex::new(None),
                });
                self.shared.sessions.insert(
                    id,
                    Entry {
                        home: Home::Away(remote),
                        inbox: inbox(),
                        name: name.clone(),
                        place: Place::Lobby,
                        watchers: 0,
                        chat: true,
                        bot: view.bot,
                        activity,
                    },
                );
                vacant.insert(id);
                (id, true)
            }
        };
        // Told again every roll call: the names' map is touched only for a new
        // session or a new name.
        let renamed = self.shared.sessions.get_mut(&id).map(|mut entry| {
            let renamed = (entry.name != name).then(|| entry.name.clone());
            if renamed.is_some() {
                entry.name = name.clone();
            }
            if entry.place != place {
                entry.place = place;
            }
            entry.watchers = view.watchers;
            entry.chat = view.chat;
            entry.bot = view.bot;
            let now = u64::from(seconds_since(self.shared.epoch));
            let last = u32::try_from(now.saturating_sub(idle)).unwrap_or(0);
            entry.activity.last.store(last, Ordering::Relaxed);
            renamed
        })?;
        if let Some(old) = &renamed {
            if old.key() != name.key()
                && self
                    .shared
                    .names
                    .remove_if(old.key().as_str(), |_, holder| *holder == id)
                    .is_some()
            {
                self.hand_on_name(old.shared_key());
            }
        }
        if new || renamed.is_some() {
            let holder = *self.shared.names.entry(name.shared_key()).or_insert(id);
            if holder != id {
                self.shared.waiting_names.insert(name.shared_key(), id);
            }
        }
        Some(id)
    }

    /// Remote session `remote` has ended.
    pub fn forget_ghost(&self, remote: Remote) {
        if let Some((_, id)) = self.shared.ghosts.remove(&remote) {
            self.end_watching_of(id);
            self.remove(id);
        }
    }

    /// Every remote session of `instance` is gone (it stopped, or is out of reach);
    /// or, with `keep`, those numbered up to its number that it does not name (the
    /// others came after it was written).
    pub fn forget_instance(
        &self,
        instance: u64,
        keep: Option<(&std::collections::HashSet<u64>, u64)>,
    ) {
        let gone: Vec<Remote> = self
            .shared
            .ghosts
            .iter()
            .map(|entry| *entry.key())
            .filter(|remote| {
                remote.instance == instance
                    && !keep.is_some_and(|(keep, upto)| {
                        remote.session > upto || keep.contains(&remote.session)
                    })
            })
            .collect();
        for remote in gone {
            self.forget_ghost(remote);
        }
    }
}
