//! Who watches whom, by the one watched: the local sessions watching each player, so
//! that a remote player's end reaches its watchers here without a walk over every
//! session.
//!
//! With `--bus`, every session of another instance that ends is forgotten here
//! ([`Registry::forget_ghost`]), and its watchers on this instance must hear that the
//! watch ended: its own instance can no longer tell them. Found by a walk over the
//! sessions, each end cost a walk over every player of every instance, so that 9,000
//! players leaving one instance at once (a lab's network gone) cost each other
//! instance 0.65 s of CPU; with the index, 0.01 s (`bench/ghosts.sh`, BENCHMARKS.md).
//! The index is kept where a local session's place changes ([`Registry::set_place`])
//! and where it leaves ([`Registry::remove`]).

use crate::players::inbox::{InboxSender, Message};
use crate::players::registry::{Home, Place, Registry, SessionId};

impl Registry {
    /// Local session `watcher` was watching `from` and now watches `to` (either may be
    /// none): the index follows. Called with no guard of the sessions' map held.
    pub(super) fn rewatch(
        &self,
        watcher: SessionId,
        from: Option<SessionId>,
        to: Option<SessionId>,
    ) {
        if from == to {
            return;
        }
        if let Some(watched) = from {
            if let dashmap::Entry::Occupied(mut watchers) = self.shared.watched_by.entry(watched) {
                watchers.get_mut().retain(|&id| id != watcher);
                if watchers.get().is_empty() {
                    watchers.remove();
                }
            }
        }
        if let Some(watched) = to {
            self.shared
                .watched_by
                .entry(watched)
                .or_default()
                .push(watcher);
        }
    }

    /// Local sessions watching `id` (a remote player now gone) stop: its own instance
    /// can no longer tell them.
    pub(super) fn end_watching_of(&self, id: SessionId) {
        let Some((_, watchers)) = self.shared.watched_by.remove(&id) else {
            return;
        };
        let Some(name) = self.name_of(id) else {
            return;
        };
        // A watcher that moved on since is not told: its place says so.
        let inboxes: Vec<InboxSender> = watchers
            .iter()
            .filter_map(|watcher| {
                let entry = self.shared.sessions.get(watcher)?;
                let still = matches!(entry.home, Home::Here(_))
                    && matches!(entry.place, Place::Watching { id: watched, .. } if watched == id);
                still.then(|| entry.inbox.clone())
            })
            .collect();
        for inbox in inboxes {
            let _ = inbox.send(Message::WatchEnded { name: name.clone() });
        }
    }
}
