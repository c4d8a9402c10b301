//! An upgrade's roll call (SPEC section 11): the server rings [`Bell::Move`] in every
//! local session's inbox, and each session, at rest between two lines, answers with a
//! [`Parcel`]: its state to move, or that it closes once the new server serves (SSH,
//! whose encryption cannot move; a built-in agent), or why it cannot move now. Then it
//! waits, answering what it is [`Ask`]ed: a copy of its socket, when its turn in the
//! hand-over comes (copies are made a few at a time: each is a file descriptor, and a
//! server near its open-file limit has none to spare for every session at once), and
//! at last the verdict: [`Verdict::Moved`] (the new server has it: end without a word,
//! leaving the connection open in the new process) or [`Verdict::Stay`] (the upgrade
//! failed: go on as if nothing happened).
//!
//! What a session's state is belongs to the session; here it is bytes, so that the
//! registry's layer knows nothing of sessions, consoles or codecs.

use std::os::fd::OwnedFd;
use std::sync::atomic::Ordering;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::{mpsc, oneshot};

use crate::players::accounts::PlayerName;
use crate::players::ids::SessionId;
use crate::players::inbox::{self, Bell, Inbox};
use crate::players::registry::Races;
use crate::players::registry::{Home, Registration, Registry};
use crate::races::moving::RacesState;

/// What one session answers the roll call.
#[derive(Debug)]
pub enum Packed {
    /// Its state (JSON, the session's own format); its socket is asked for later.
    Moves {
        /// The session's state.
        state: Vec<u8>,
    },
    /// It cannot move and closes once the new server serves (told why by itself).
    Closes,
    /// It cannot move now, and why (the upgrade is refused and it goes on).
    Refuses(String),
}

/// How the upgrade went, for a session that answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The new server has taken it (or, for [`Packed::Closes`], serves): end.
    Moved,
    /// The upgrade did not happen: go on.
    Stay,
}

/// What a session that answered is asked.
#[derive(Debug)]
pub enum Ask {
    /// A copy of its socket, now.
    Socket(oneshot::Sender<std::io::Result<OwnedFd>>),
    /// How the upgrade went.
    Verdict(Verdict),
}

/// One session's answer, with the way to ask it for its socket and tell it the
/// verdict.
#[derive(Debug)]
pub struct Parcel {
    /// Who answers.
    pub id: SessionId,
    /// What it hands over.
    pub packed: Packed,
    /// Where its asks go.
    pub asks: mpsc::UnboundedSender<Ask>,
}

impl Parcel {
    /// Tell the session how the upgrade went.
    pub fn tell(&self, verdict: Verdict) {
        let _ = self.asks.send(Ask::Verdict(verdict));
    }

    /// Ask the session for a copy of its socket: where it comes.
    pub fn socket(&self) -> oneshot::Receiver<std::io::Result<OwnedFd>> {
        let (socket, coming) = oneshot::channel();
        if self.asks.send(Ask::Socket(socket)).is_err() {
            // Gone: the receiver reports it as closed.
        }
        coming
    }
}

/// The roll call in progress, if any: one per server, in its shared services.
#[derive(Debug, Default)]
pub struct RollCall {
    answers: Mutex<Option<mpsc::UnboundedSender<Parcel>>>,
}

impl RollCall {
    /// Open a roll call: the answers come out of the receiver until [`RollCall::close`].
    pub fn open(&self) -> mpsc::UnboundedReceiver<Parcel> {
        let (sender, receiver) = mpsc::unbounded_channel();
        *self.answers.lock().unwrap_or_else(PoisonError::into_inner) = Some(sender);
        receiver
    }

    /// Close it: a session that hears the bell late finds nobody to answer.
    pub fn close(&self) {
        *self.answers.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// Hand in what session `id` `packed`: where its asks come, or `None` when no roll
    /// call is open (the session goes on).
    pub fn answer(&self, id: SessionId, packed: Packed) -> Option<mpsc::UnboundedReceiver<Ask>> {
        let (asks, waiting) = mpsc::unbounded_channel();
        let answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        answers.as_ref()?.send(Parcel { id, packed, asks }).ok()?;
        Some(waiting)
    }
}

impl Registry {
    /// Ring [`Bell::Move`] for each local session not in `answered`: the roll call's
    /// bell, rung again for whoever has not answered yet (a session let in meanwhile).
    /// The names of those (none: everyone has answered).
    pub fn call_the_roll(
        &self,
        answered: &std::collections::HashSet<SessionId>,
    ) -> Vec<PlayerName> {
        let mut missing = Vec::new();
        for entry in &self.shared.sessions {
            if matches!(entry.home, Home::Here(_)) && !answered.contains(entry.key()) {
                entry.inbox.ring(Bell::Move);
                missing.push(entry.name.clone());
            }
        }
        missing
    }
}

impl Registry {
    /// The session of number `number` here, if there is one: how a moved session
    /// finds the one it watched, also moved.
    pub fn numbered(&self, number: u64) -> Option<SessionId> {
        let id = SessionId(number);
        self.shared.sessions.contains_key(&id).then_some(id)
    }

    /// Register a session moved here by an upgrade, under the number and name it had
    /// in the old process (the watched and the watching find each other by number,
    /// and a guest's name is its number): its registration and inbox. Numbers given
    /// from now on start above it. `None` when the number or the name is taken
    /// already (two moved sessions cannot claim one).
    pub fn register_moved(
        &self,
        number: u64,
        peer: std::net::SocketAddr,
        name: PlayerName,
    ) -> Option<(Registration, Inbox)> {
        let id = SessionId(number);
        let shared = &self.shared;
        if number == 0 || shared.sessions.contains_key(&id) {
            return None;
        }
        match shared.names.entry(name.shared_key()) {
            // With `--bus` the old process's players are still announced as another
            // instance's: the name is the moved session's, the old one's ghost leaves
            // with its instance.
            dashmap::mapref::entry::Entry::Occupied(mut held) => {
                let ghost = shared
                    .sessions
                    .get(held.get())
                    .is_some_and(|entry| matches!(entry.home, Home::Away(_)));
                if !ghost {
                    return None;
                }
                held.insert(id);
            }
            dashmap::mapref::entry::Entry::Vacant(vacant) => {
                vacant.insert(id);
            }
        }
        shared.next_id.fetch_max(number, Ordering::Relaxed);
        *shared.per_address.entry(peer.ip()).or_insert(0) += 1;
        Some(self.enter(id, peer, name))
    }
}

impl Registry {
    /// The races, to move with the sessions: every member named by its session's
    /// number.
    ///
    /// # Errors
    /// Why they cannot move (a racer of another instance).
    pub fn pack_races(&self) -> Result<serde_json::Value, String> {
        let shared = &self.shared;
        let state = self.with_races(|races| {
            races.pack(Instant::now(), |id| {
                match shared
                    .sessions
                    .get(&id)
                    .map(|entry| matches!(entry.home, Home::Here(_)))
                {
                    Some(false) => None,
                    // Here, or gone already (a racer who left): named as it was.
                    Some(true) | None => Some(id.0),
                }
            })
        })?;
        serde_json::to_value(state).map_err(|error| format!("cannot write the races: {error}"))
    }

    /// Put back the races moved with the sessions (registered already), their clocks
    /// going on. A member whose session did not move (SSH) has left its race.
    ///
    /// # Errors
    /// Why they cannot be read.
    pub fn unpack_races(&self, state: serde_json::Value) -> Result<(), String> {
        if state.is_null() {
            return Ok(());
        }
        let state: RacesState = serde_json::from_value(state)
            .map_err(|error| format!("races this version cannot read: {error}"))?;
        let shared = &self.shared;
        let (races, clocks) = Races::unpack(state, Instant::now(), |number| {
            // A number no later session may take: it names a racer.
            shared.next_id.fetch_max(number, Ordering::Relaxed);
            let id = SessionId(number);
            match self.sender(id) {
                Some(inbox) => (id, inbox, true),
                None => (id, inbox::inbox().0, false),
            }
        })?;
        *shared.races.lock().unwrap_or_else(PoisonError::into_inner) = races;
        for (race, left) in clocks {
            self.race_clock(race, left);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::ids::Remote;
    use crate::players::place::SessionView;

    #[tokio::test]
    async fn a_moved_session_takes_its_name_from_the_old_instances_ghost_not_from_a_player_here() {
        let registry = Registry::new();
        let peer = std::net::SocketAddr::from(([127, 0, 0, 1], 4000));
        let ann = PlayerName::parse("ann").unwrap();
        // With `--bus`, the old process's ann is still announced as another instance's.
        let view = SessionView::arrived("ann");
        let remote = Remote {
            instance: 1,
            session: 1_000_001,
        };
        registry.ghost(remote, &view, || inbox::inbox().0).unwrap();
        let (moved, _inbox) = registry
            .register_moved(1_000_001, peer, ann.clone())
            .expect("the name is the moved session's");
        assert_eq!(registry.find("ann").map(|(id, _, _)| id), Some(moved.id()));
        // The old instance's ghost leaves: ann stays.
        registry.forget_ghost(remote);
        assert_eq!(registry.find("ann").map(|(id, _, _)| id), Some(moved.id()));
        // A player here with the name keeps it, and the number is taken too.
        assert!(registry.register_moved(7, peer, ann).is_none());
        let bob = PlayerName::parse("bob").unwrap();
        assert!(registry.register_moved(1_000_001, peer, bob).is_none());
        // Numbers given from now on are above the moved ones.
        let (next, _inbox) = registry.register(peer, 10).unwrap();
        assert!(next.id().number() > 1_000_001);
    }
}
