//! The changes to local sessions that other instances must hear of (`--bus`), and
//! where the registry sends them.

use crate::players::ids::SessionId;

/// A change to a local session that other instances must hear of (`--bus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// The session is new or changed (name, place, watchers, chat).
    Changed(SessionId),
    /// The session has ended.
    Left(SessionId),
}

/// Where the registry reports changes to local sessions: the bus. Bounded: when it is
/// full the change is dropped and `dirty` set, and the bus sends every session again.
#[derive(Debug)]
pub struct PresenceTap {
    /// The changes, to the bus.
    pub changes: tokio::sync::mpsc::Sender<Presence>,
    /// A change was dropped.
    pub dirty: std::sync::atomic::AtomicBool,
}
