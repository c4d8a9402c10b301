//! What the sessions of a social load share: the players' names, and for each watched
//! player what its watchers need to time its frames.
//!
//! A watcher is told nothing about which command a frame answers: the frames are the
//! player's replies, in order. So the player does not send its first command until
//! every one of its watchers has the first board (or has failed): from then on the
//! k-th frame after the first board is the reply to the player's k-th command, and the
//! watcher looks up when that command was sent. A watcher that gets its first board
//! only after the player started could not be matched, and fails as late.

use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::{watch, Notify};
use tokio::time::Instant;

use super::failure::Failure;

/// The name of session `index` in the run tagged `tag`: unique in the run, valid for
/// the server (2-16 letters, digits, `-`), and unlike `guest-N`. The tag keeps two runs
/// against one server (or one run's leftovers) from asking for the same name.
pub(crate) fn name(tag: &str, index: usize) -> String {
    format!("lt{tag}-{index}")
}

/// The session whose name in the run tagged `tag` is `name` ([`name`] the other way
/// round); none for a name of anyone else.
pub(crate) fn index_of(tag: &str, name: &[u8]) -> Option<usize> {
    let index = name
        .strip_prefix(b"lt")?
        .strip_prefix(tag.as_bytes())?
        .strip_prefix(b"-")?;
    if index.is_empty() || index.len() > 19 || !index.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(index).ok()?.parse().ok()
}

/// A tag for the names of one run: four random lowercase letters.
pub(crate) fn run_tag() -> String {
    (0..4)
        .map(|_| char::from(b'a' + rand::random_range(0..26u8)))
        .collect()
}

/// Where a watched player is, for its watchers waiting to watch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Connecting, naming itself, starting its game.
    Starting,
    /// In its game: it can be watched.
    Playing,
    /// Failed or finished: it will not be watched (any more).
    Gone,
}

/// How far the setup of one player's watchers has come.
#[derive(Debug)]
struct Setup {
    /// Watchers that have neither received the first board nor failed.
    pending: usize,
    /// Watchers that received the first board before the player's first command.
    watching: usize,
    /// The player has sent its first command: a watcher now would be too late.
    started: bool,
}

/// One watched player, shared with its watchers.
#[derive(Debug)]
pub(crate) struct Watched {
    stage: watch::Sender<Stage>,
    setup: Mutex<Setup>,
    /// Wakes the player when the last pending watcher is done.
    settled: Notify,
    /// Each of the player's commands, in order.
    sends: Mutex<Vec<Sent>>,
}

/// One command of a watched player, for its watchers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sent {
    /// When it was sent, in microseconds since the run's start.
    pub(crate) at_us: u64,
    /// Whether it counts in the measured window, by the same rule as the player's own
    /// latency (so that the frames expected are the commands measured, times the
    /// watchers).
    pub(crate) measured: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is a single assignment or push: a panic cannot
    // leave them half done.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Watched {
    /// A player that `watchers` sessions will watch.
    pub(crate) fn new(watchers: usize) -> Watched {
        Watched {
            stage: watch::Sender::new(Stage::Starting),
            setup: Mutex::new(Setup {
                pending: watchers,
                watching: 0,
                started: false,
            }),
            settled: Notify::new(),
            sends: Mutex::new(Vec::new()),
        }
    }

    /// The player has reached `stage`.
    pub(crate) fn set_stage(&self, stage: Stage) {
        self.stage.send_replace(stage);
    }

    /// For a watcher: wait until the player is in its game (true) or gone (false), at
    /// most until `deadline`.
    pub(crate) async fn wait_playing(&self, deadline: Instant) -> bool {
        let mut stage = self.stage.subscribe();
        let playing =
            tokio::time::timeout_at(deadline, stage.wait_for(|stage| *stage != Stage::Starting))
                .await;
        matches!(playing, Ok(Ok(stage)) if *stage == Stage::Playing)
    }

    /// For a watcher that has the first board: count it in, unless the player has
    /// already started (then its frames cannot be matched to commands).
    ///
    /// # Errors
    /// [`Failure::LateWatch`] when the player started first.
    pub(crate) fn arrived(&self) -> Result<(), Failure> {
        let mut setup = lock(&self.setup);
        if setup.started {
            return Err(Failure::LateWatch);
        }
        setup.watching += 1;
        self.leave_pending(setup);
        Ok(())
    }

    /// For a watcher that failed before it had the first board: stop waiting for it.
    pub(crate) fn gave_up(&self) {
        let setup = lock(&self.setup);
        if !setup.started {
            self.leave_pending(setup);
        }
    }

    fn leave_pending(&self, mut setup: MutexGuard<'_, Setup>) {
        setup.pending = setup.pending.saturating_sub(1);
        if setup.pending == 0 {
            // A permit, so that a player not yet waiting still sees it.
            self.settled.notify_one();
        }
    }

    /// For the player, in its game: wait until every watcher has the first board or
    /// has failed, at most until `deadline`; then start. Returns how many watch, each
    /// of whom should get a frame for every command from now on.
    pub(crate) async fn start(&self, deadline: Instant) -> usize {
        loop {
            if lock(&self.setup).pending == 0 {
                break;
            }
            if tokio::time::timeout_at(deadline, self.settled.notified())
                .await
                .is_err()
            {
                break;
            }
        }
        let mut setup = lock(&self.setup);
        setup.started = true;
        setup.watching
    }

    /// For the player: its next command goes out now. Called before the command is
    /// written, so that its frame always finds it.
    pub(crate) fn sending(&self, sent: Sent) {
        lock(&self.sends).push(sent);
    }

    /// How many commands the player has sent.
    pub(crate) fn sent_len(&self) -> usize {
        lock(&self.sends).len()
    }

    /// For a watcher: when the player sent command `index` (counting from 0), if it
    /// has.
    pub(crate) fn sent(&self, index: usize) -> Option<Sent> {
        lock(&self.sends).get(index).copied()
    }
}

/// Tells a player's watchers that it is gone, however its session ends.
pub(crate) struct GoneOnDrop<'a>(pub(crate) Option<&'a Watched>);

impl Drop for GoneOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(watched) = self.0 {
            watched.set_stage(Stage::Gone);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn names_are_valid_and_unique() {
        let tag = run_tag();
        assert_eq!(tag.len(), 4);
        assert!(tag.bytes().all(|byte| byte.is_ascii_lowercase()));
        let first = name(&tag, 0);
        let last = name(&tag, 1_999_999);
        assert_ne!(first, name(&tag, 1));
        assert!(last.len() <= 16, "{last}");
        assert!(!first.starts_with("guest-"));
        assert!(last
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-'));
        assert_eq!(index_of(&tag, first.as_bytes()), Some(0));
        assert_eq!(index_of(&tag, last.as_bytes()), Some(1_999_999));
    }

    #[test]
    fn only_this_runs_names_have_an_index() {
        assert_eq!(index_of("abcd", b"ltabcd-42"), Some(42));
        for other in [
            &b"ltabce-42"[..],
            b"ltabcd-",
            b"ltabcd-4x",
            b"ltabcd42",
            b"abcd-42",
            b"ann",
            b"ltabcd-+4",
        ] {
            assert_eq!(
                index_of("abcd", other),
                None,
                "{}",
                String::from_utf8_lossy(other)
            );
        }
    }

    #[tokio::test]
    async fn the_player_starts_once_every_watcher_is_in() {
        let watched = Watched::new(3);
        watched.arrived().unwrap();
        watched.gave_up();
        let deadline = Instant::now() + Duration::from_secs(5);
        // One watcher still pending: the player waits for it.
        let early = tokio::time::timeout(Duration::from_millis(50), watched.start(deadline)).await;
        assert!(early.is_err(), "started with a watcher pending");
        watched.arrived().unwrap();
        assert_eq!(watched.start(deadline).await, 2);
        // After the start a watcher is late, and its frames will not be timed.
        assert!(matches!(watched.arrived(), Err(Failure::LateWatch)));
    }

    #[tokio::test]
    async fn the_player_starts_at_the_deadline_without_its_watchers() {
        let watched = Watched::new(1);
        let deadline = Instant::now() + Duration::from_millis(20);
        assert_eq!(watched.start(deadline).await, 0);
    }

    #[tokio::test]
    async fn watchers_learn_whether_the_player_plays() {
        let watched = Watched::new(1);
        let soon = Instant::now() + Duration::from_millis(20);
        assert!(!watched.wait_playing(soon).await, "still starting");
        watched.set_stage(Stage::Playing);
        let later = Instant::now() + Duration::from_secs(5);
        assert!(watched.wait_playing(later).await);
        drop(GoneOnDrop(Some(&watched)));
        assert!(!watched.wait_playing(later).await);
        let sent = Sent {
            at_us: 7,
            measured: true,
        };
        watched.sending(sent);
        assert_eq!(watched.sent(0), Some(sent));
        assert_eq!(watched.sent_len(), 1);
        assert_eq!(watched.sent(1), None);
    }
}
