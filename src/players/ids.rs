//! Who a session is: its number on this instance, and a session of another
//! instance named by that instance's number and the session's number there.

/// A session's number, unique for the life of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub(super) u64);

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl SessionId {
    /// The number, as other instances know the session by (`--bus`).
    pub fn number(self) -> u64 {
        self.0
    }
}

/// A session of another instance: that instance's number and the session's number
/// there.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Remote {
    /// The instance.
    pub instance: u64,
    /// The session's number on it.
    pub session: u64,
}
