//! A session's last activity and its game's progress, shared between the session
//! (which writes them) and the registry (`who` and the web page's table read them).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::games::Progress;

/// A session's last activity, in whole seconds since the registry started: the
/// session writes it (at most once a second), `who` reads it. Also how far its game
/// has got, for the web page's table: written after each line in a game, read by the
/// page a few times a second at most, so the lock is never contended for long.
#[derive(Debug)]
pub struct Activity {
    pub(super) epoch: Instant,
    pub(super) last: AtomicU32,
    /// Boxed: only a server with the web page on keeps it, and every session holds
    /// an activity (72 bytes less for each, issue 29). Written in place once there.
    pub(super) progress: Mutex<Option<Box<Progress>>>,
}

impl Activity {
    /// The session had input now.
    pub fn touch(&self) {
        let now = seconds_since(self.epoch);
        // A store only when the second changed: a cache line other threads read is
        // written at most once a second, not on every command.
        if self.last.load(Ordering::Relaxed) != now {
            self.last.store(now, Ordering::Relaxed);
        }
    }

    /// The session's game has got this far (`None`: not in a game).
    pub fn set_progress(&self, progress: Option<Progress>) {
        let mut kept = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        match (kept.as_deref_mut(), progress) {
            (Some(kept), Some(progress)) => *kept = progress,
            (_, progress) => *kept = progress.map(Box::new),
        }
    }

    pub(super) fn progress(&self) -> Option<Progress> {
        self.progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_deref()
            .copied()
    }

    /// How long since the last input.
    pub(super) fn idle(&self) -> Duration {
        let now = seconds_since(self.epoch);
        Duration::from_secs(u64::from(
            now.saturating_sub(self.last.load(Ordering::Relaxed)),
        ))
    }
}

/// Whole seconds since `epoch`.
pub fn seconds_since(epoch: Instant) -> u32 {
    u32::try_from(epoch.elapsed().as_secs()).unwrap_or(u32::MAX)
}
