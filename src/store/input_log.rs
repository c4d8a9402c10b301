//! The inputs' log: where the recorder's input lines are written, in the order written,
//! before they move to `inputs`, where a recording's lines are found by its index
//! (issue 29; docs/decisions.md, "The inputs' log").
//!
//! Each second the writer puts a batch of lines for every recording being played. Put
//! in their places in `inputs`, 10,000 players' batches dirtied a page each, and each
//! second's transaction grew with the table (from 51 ms to 282 ms a second over five
//! minutes in docs/BENCHMARKS.md's run BN); appended to `input_log`, a table without a
//! key, they fill a few pages at its end. [`Store::compact_inputs`] moves them every
//! so often in one statement. On SQLite a move joins each recording's batches into
//! one row and appends the rows to `inputs`, which is kept in the order moved (its
//! index by recording is what is placed by recording, an entry a recording a move):
//! kept in recording order, the table's last page of every recording was rewritten
//! each move, and a move's cost grew with the table (run BN: 0.2 s in the first
//! minute, 1.0 s in the tenth). Readers read both tables ([`INPUTS_AFTER`]), a
//! paged reader `inputs` alone first ([`MOVED_AFTER`]): a row is in exactly one of
//! them at any moment, as a move is one transaction.

use super::engine::{on_engine, Engine};
use super::{Store, StoreError};

/// A recording's batches (`recording_id` bound twice with the batch to start after,
/// then the limit) in order from both tables. `UNION` keeps one of a batch written
/// twice, a commit whose answer was lost. The log has no index, so this scans it:
/// readers that page ask [`MOVED_AFTER`] first.
pub(super) const INPUTS_AFTER: &str =
    "SELECT batch, lines FROM inputs WHERE recording_id = ? AND batch > ? \
     UNION SELECT batch, lines FROM input_log WHERE recording_id = ? AND batch > ? \
     ORDER BY batch LIMIT ?";

/// A recording's batches from `inputs` alone (`recording_id`, the batch to start
/// after, the limit): a key range, no scan of the log. A full page of them is the
/// page [`INPUTS_AFTER`] would give: a recording's logged batches all come after its
/// moved ones, or are copies of moved ones (a commit whose answer was lost, written
/// again). That holds because one writer writes a recording, in order, one
/// transaction a write, and a move takes the whole log (SQLite) or every row its
/// snapshot sees, which holds a batch's predecessors too (PostgreSQL). Only a shorter
/// page, the recording's last, needs the log.
pub(super) const MOVED_AFTER: &str =
    "SELECT batch, lines FROM inputs WHERE recording_id = ? AND batch > ? \
     ORDER BY batch LIMIT ?";

/// SQLite: the log's rows moved to `inputs`, each recording's batches joined into
/// one row (a batch's lines, one `\n` each, after another's: the row is a batch
/// numbered by its first line, as a reader pages by), in recording order. `inputs` is
/// kept in the order moved (migration 0012), so the rows go at its end and only the
/// index entry, one a recording a move, is placed by recording. A row joins the
/// batches that begin in one block of 1,024 lines (`batch / 1024`), so that a script's
/// recording still pages a few hundred KiB at a time.
///
/// Copies: of a batch written twice (a commit whose answer was lost) one is joined
/// (`GROUP BY recording_id, batch`). One writer never logs a batch again after a
/// move, but two servers sharing the file during an upgrade might: one's retried
/// write, moved by the other between the commit and the retry. A retry holds what
/// failed and everything played after it, so such copies are of the last batches
/// moved for their recording: the row they begin starts with lines the row before
/// it ends with, and readers keep those once (`records::recording::decode_batch`).
/// When that row began with the same batch, the two rows have one key and start at
/// the same line, and each holds the recording's lines from there on: the longer
/// holds the other and is kept (`DO UPDATE ... WHERE` longer). A copy out of that
/// order (of a moved batch without the later moved ones) would lose the lines joined
/// after it; no writer logs one. Nothing is looked up when no key is taken, where an
/// index probe for each logged batch cost 2-3 ms a second at 10,000 games, and some
/// 12 once the index outgrew the cache (docs/BENCHMARKS.md, runs BT and BW).
///
/// In one transaction with [`SQLITE_EMPTY`]: SQLite has one writer at a time, and a
/// write statement takes the write lock before it reads, so no row can be written
/// between the two. (`WHERE true`: SQLite's grammar needs one before `ON CONFLICT` in
/// an `INSERT ... SELECT`.)
const SQLITE_MOVE: &str = "WITH logged AS (\
         SELECT recording_id, batch, MIN(lines) AS lines FROM input_log \
         GROUP BY recording_id, batch) \
     INSERT INTO inputs (recording_id, batch, lines) \
     SELECT recording_id, MIN(batch), group_concat(lines, '' ORDER BY batch) FROM logged \
     WHERE true GROUP BY recording_id, batch / 1024 ORDER BY recording_id, MIN(batch) \
     ON CONFLICT (recording_id, batch) DO UPDATE SET lines = excluded.lines \
     WHERE length(excluded.lines) > length(inputs.lines)";

/// SQLite: whether the log has a row (its first: no scan).
const SQLITE_ANY: &str = "SELECT 1 FROM input_log LIMIT 1";

/// SQLite: the log emptied, after [`SQLITE_MOVE`].
const SQLITE_EMPTY: &str = "DELETE FROM input_log";

/// PostgreSQL: the log's rows deleted and put in `inputs` by one statement, so that it
/// moves exactly the rows it sees: another instance's lines committed meanwhile stay
/// for the next move, and two instances moving at once move each row once.
const POSTGRES_MOVE: &str =
    "WITH moved AS (DELETE FROM input_log RETURNING recording_id, batch, lines) \
     INSERT INTO inputs (recording_id, batch, lines) \
     SELECT recording_id, batch, lines FROM moved ORDER BY recording_id, batch \
     ON CONFLICT DO NOTHING";

impl Store {
    /// Move the input lines written to the log so far to their places in `inputs`
    /// (the module's doc says why). Returns how many rows were moved (on PostgreSQL,
    /// how many were new to `inputs`).
    ///
    /// # Errors
    /// [`StoreError::Query`]: nothing was moved; the lines are still read from the log.
    pub async fn compact_inputs(&self) -> Result<u64, StoreError> {
        match &self.shared.engine {
            Engine::Sqlite(pool) => {
                // Nothing to move, no write: a server that starts, or sweeps, takes no
                // write lock that `arcade admin` beside it would wait for.
                let any: Option<i64> = sqlx::query_scalar(SQLITE_ANY).fetch_optional(pool).await?;
                if any.is_none() {
                    return Ok(0);
                }
                let mut tx = pool.begin().await?;
                sqlx::query(SQLITE_MOVE).execute(&mut *tx).await?;
                let moved = sqlx::query(SQLITE_EMPTY).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(moved.rows_affected())
            }
            Engine::Postgres(pool) => Ok(sqlx::query(POSTGRES_MOVE)
                .execute(pool)
                .await?
                .rows_affected()),
        }
    }

    /// The rows waiting in the log to be moved: for tests and operators, a scan of
    /// the log.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn logged_inputs(&self) -> Result<u64, StoreError> {
        let rows: i64 = on_engine!(self, |pool, sql| {
            sqlx::query_scalar(sql("SELECT COUNT(*) FROM input_log"))
                .fetch_one(pool)
                .await?
        });
        Ok(u64::try_from(rows).unwrap_or(0))
    }
}
