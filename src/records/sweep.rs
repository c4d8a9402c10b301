//! What the recorder removes and closes: old recordings swept away as `--keep-recordings`
//! says, and the recordings a crash left open closed when a server starts; and the
//! wall clock both read (Unix milliseconds).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::store::{Store, StoreError};

/// How long registered players' games without a result are kept by default.
pub const DEFAULT_KEEP: Duration = Duration::from_secs(90 * 24 * 3600);

/// How long guests' (and other unregistered names') recordings are kept by default: a
/// week, since anyone can make them.
pub const DEFAULT_KEEP_GUESTS: Duration = Duration::from_secs(7 * 24 * 3600);

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}

/// How often old recordings are swept, and how many go per transaction.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);
const SWEEP_BATCH: u32 = 500;
/// How soon a sweep the database refused is tried again (SQLite refuses it at once
/// when the writer wrote between its read and its delete).
const SWEEP_RETRY: Duration = Duration::from_secs(10);

/// How long recordings are kept ([`sweep`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Registered players' games without a result (with one they are kept for good).
    pub keep: Duration,
    /// Guests' and other unregistered names' games (never longer than `keep`).
    pub guests: Duration,
}

impl Default for Retention {
    fn default() -> Retention {
        Retention {
            keep: DEFAULT_KEEP,
            guests: DEFAULT_KEEP_GUESTS,
        }
    }
}

/// Close the recordings a crash left open (a registered player's become unfinished):
/// what a server does when it starts, but not one taking over from an old process
/// (SPEC section 11), whose games are still open because they move.
///
/// # Errors
/// [`StoreError`] when the database cannot be written.
pub async fn close_left_open(store: &Store) -> Result<(), StoreError> {
    let closed = store.close_open_recordings().await?;
    if closed > 0 {
        tracing::info!(
            closed,
            "recordings left open by the last run closed (registered players' can be resumed)"
        );
    }
    Ok(())
}

/// Delete recordings older than `keep` says, a batch at a time, every [`SWEEP_EVERY`].
pub(super) async fn sweep_loop(store: Store, keep: Retention) {
    loop {
        let next = match sweep(&store, keep).await {
            Ok(0) => SWEEP_EVERY,
            Ok(deleted) => {
                tracing::info!(deleted, "old recordings deleted");
                SWEEP_EVERY
            }
            // A database busy or away for a moment does not put the sweep off an hour.
            Err(error) => {
                tracing::error!(%error, "cannot delete old recordings now: trying again in 10 seconds");
                SWEEP_RETRY
            }
        };
        tokio::time::sleep(next).await;
    }
}

/// One sweep: every recording past what `keep` says (guests' past `keep.guests`, but
/// never kept longer than the others), in batches with a pause between them so that
/// the writer gets its turns. How many were deleted.
///
/// # Errors
/// [`StoreError`] from the database.
pub async fn sweep(store: &Store, keep: Retention) -> Result<u64, StoreError> {
    let cutoff = |keep: Duration| {
        let keep_ms = i64::try_from(keep.as_millis()).unwrap_or(i64::MAX);
        now_ms().saturating_sub(keep_ms)
    };
    let registered = cutoff(keep.keep);
    // Never later than the registered players' cutoff: the store sees to that.
    let guests = cutoff(keep.guests);
    let mut deleted = 0;
    loop {
        let done = store.sweep(registered, guests, SWEEP_BATCH).await?;
        deleted += done;
        if done < u64::from(SWEEP_BATCH) {
            return Ok(deleted);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
