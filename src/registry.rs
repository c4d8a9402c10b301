//! Who is online: every session of the server, behind one cheap handle.
//!
//! A session registers when it starts and is removed when its [`Registration`] drops,
//! however it ends. Each entry holds the sender of the session's inbox, so anything in
//! the server can reach any player without touching another player's socket: the
//! message waits in the player's inbox and the player's own task writes it.
//!
//! The map is a `DashMap` (sharded locks): sessions come and go from every worker
//! thread at once. No guard is ever held across an `.await`, and a message to many
//! players is sent after the senders are collected, not under a shard's lock.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use dashmap::DashMap;

use crate::inbox::{self, Inbox, InboxSender, Message};

/// A session's number, unique for the life of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(u64);

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What the registry knows of one session.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The client's address.
    pub peer: SocketAddr,
    inbox: InboxSender,
}

/// The server's sessions: clone it freely, every clone is the same registry.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    sessions: DashMap<SessionId, Entry>,
    /// Sessions per client address, for `--max-per-address`.
    per_address: DashMap<IpAddr, usize>,
    next_id: AtomicU64,
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
}

impl Registration {
    /// The session's number.
    pub fn id(&self) -> SessionId {
        self.id
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some((_, entry)) = self.registry.shared.sessions.remove(&self.id) {
            let address = entry.peer.ip();
            if let dashmap::Entry::Occupied(mut count) =
                self.registry.shared.per_address.entry(address)
            {
                *count.get_mut() -= 1;
                if *count.get() == 0 {
                    count.remove();
                }
            }
        }
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Add a session connected from `peer`: its registration, to hold for as long as
    /// it runs, and its inbox.
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
        let (sender, inbox) = inbox::inbox();
        self.shared.sessions.insert(
            id,
            Entry {
                peer,
                inbox: sender,
            },
        );
        let registration = Registration {
            registry: self.clone(),
            id,
        };
        Ok((registration, inbox))
    }

    /// How many sessions are connected from `address`.
    pub fn sessions_from(&self, address: IpAddr) -> usize {
        self.shared
            .per_address
            .get(&address)
            .map_or(0, |count| *count)
    }

    /// How many sessions are registered.
    pub fn len(&self) -> usize {
        self.shared.sessions.len()
    }

    /// Whether no session is registered.
    pub fn is_empty(&self) -> bool {
        self.shared.sessions.is_empty()
    }

    /// Every session's number and address, in the order they came.
    pub fn sessions(&self) -> Vec<(SessionId, SocketAddr)> {
        let mut sessions: Vec<(SessionId, SocketAddr)> = self
            .shared
            .sessions
            .iter()
            .map(|entry| (*entry.key(), entry.peer))
            .collect();
        sessions.sort();
        sessions
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
        senders
            .into_iter()
            .filter(|sender| sender.send(message.clone()).is_ok())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::Delivery;

    fn peer(n: u8) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, n], 4000))
    }

    async fn received(inbox: &mut Inbox) -> Message {
        match tokio::time::timeout(std::time::Duration::from_secs(5), inbox.recv()).await {
            Ok(Delivery::Message { message, .. }) => message,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn sessions_register_and_leave() {
        let registry = Registry::new();
        assert!(registry.is_empty());
        let (first, _first_inbox) = registry.register(peer(1), 10).unwrap();
        let (second, _second_inbox) = registry.register(peer(2), 10).unwrap();
        assert_ne!(first.id(), second.id());
        assert_eq!(
            registry.sessions(),
            vec![(first.id(), peer(1)), (second.id(), peer(2))]
        );
        let gone = first.id();
        drop(first);
        assert_eq!(registry.len(), 1);
        assert!(!registry.send(gone, Message::Line("hello?".into())));
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
        let _again = registry.register(peer(2), 2).unwrap();
        drop(second);
        drop(_again);
        assert_eq!(registry.sessions_from(peer(2).ip()), 0);
    }
}
