//! Recordings (SPEC section 8): how each game began, its input lines in batches as
//! the recorder writes them, where it stands (open, ended, unfinished, discarded),
//! and the lists and the sweep of old ones. The recorder's batches of changes are
//! written here too ([`Store::write`]), results with them, in one transaction.
//!
//! The store keeps the input lines as the recorder encoded them and hands them back
//! so ([`StoredRecording`]): decoding them is `records::recording`'s business, which
//! sits above the store.

use sqlx::{AssertSqlSafe, QueryBuilder};

use crate::games::Outcome;

use super::engine::{clamp, on_engine, unclamp, Engine};
use super::input_log::{INPUTS_AFTER, MOVED_AFTER};
use super::instances::close_stale_sql;
use super::results::NewResult;
use super::{Store, StoreError};

/// How a recorded game began.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Start {
    /// The game's name (a row of [`crate::catalog::table::GAMES`]).
    pub game: String,
    /// The words after `play GAME`, with a drawn seed added (an unseeded 2048).
    pub args: Vec<String>,
    /// What the session remembered that the game shows (2048's best score), as the
    /// game's row writes it ([`crate::catalog::table::GameKind::memory`]).
    pub memory: String,
    /// The starting world of a game that keeps one ([`crate::games::Game::state`]): a
    /// saved wumpus world may be overwritten later, the recording must not change
    /// with it.
    pub world: Option<String>,
}

/// A recording as the store keeps it: how it began, and its input lines in the
/// batches they were written in, still encoded as the recorder wrote them
/// (`records::recording` decodes them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecording {
    /// How it began.
    pub start: Start,
    /// Its batches of encoded input lines, in order, each numbered by its first line.
    pub batches: Vec<(i64, String)>,
}

/// What a recording's row shows in lists.
pub(super) const LISTED: &str = "SELECT id, player, game, args, state, inputs, duration_ms, outcome, started_at, level FROM recordings";

/// Where a recording stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordingState {
    /// Being played.
    Open,
    /// Over: ended by the game, left, or its guest gone.
    Ended,
    /// A registered player's game that lost its connection: `resume` plays it on.
    Unfinished,
    /// Given up for a new game.
    Discarded,
}

impl RecordingState {
    /// The word kept in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordingState::Open => "open",
            RecordingState::Ended => "ended",
            RecordingState::Unfinished => "unfinished",
            RecordingState::Discarded => "discarded",
        }
    }

    fn from_word(word: &str) -> RecordingState {
        match word {
            "open" => RecordingState::Open,
            "unfinished" => RecordingState::Unfinished,
            "discarded" => RecordingState::Discarded,
            _ => RecordingState::Ended,
        }
    }
}

/// A recording as `recordings` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its id, for `replay ID`.
    pub id: i64,
    /// Who played.
    pub player: String,
    /// Which game.
    pub game: String,
    /// Its arguments (the level).
    pub args: String,
    /// Where it stands.
    pub state: RecordingState,
    /// Input lines.
    pub inputs: u64,
    /// From the start to the last input.
    pub duration_ms: u64,
    /// How its last finish ended, if it had one.
    pub outcome: Option<Outcome>,
    /// When it started, Unix milliseconds.
    pub started_at: i64,
    /// Its leaderboard's level (as `top GAME LEVEL` names it, and the web page's
    /// filter matches it); `None` for recordings made before the store kept it.
    pub level: Option<String>,
}

/// A new recording, for [`Change::Open`].
#[derive(Debug, Clone)]
pub struct NewRecording {
    /// Its id (one of [`Store::recording_ids`]).
    pub id: i64,
    /// The player's name as shown.
    pub player: String,
    /// The name in lower case.
    pub player_key: String,
    /// Whether the name is registered.
    pub registered: bool,
    /// How the game began.
    pub start: Start,
    /// Its leaderboard's level (as `top GAME LEVEL` names it), for the web page's list.
    pub level: String,
    /// The race it is played in, if any (its number on this instance).
    pub race: Option<i64>,
    /// Unix milliseconds.
    pub started_at: i64,
}

/// One change the recorder writes ([`Store::write`]).
#[derive(Debug, Clone)]
pub enum Change {
    /// A recording begins.
    Open(Box<NewRecording>),
    /// Input lines of recording `id`, encoded (`records::recording::encode_input`),
    /// one after the other.
    Inputs {
        /// The recording.
        id: i64,
        /// The number of the first of them in the recording, from 0: what orders a
        /// recording's rows.
        first: u64,
        /// The lines.
        lines: String,
    },
    /// A recording changes state.
    State {
        /// The recording.
        id: i64,
        /// Its new state.
        state: RecordingState,
        /// How it ended, if it did by its rules.
        outcome: Option<Outcome>,
        /// What it holds by now, when it closes (kept for the lists then, rather than
        /// counted at every write).
        played: Option<Played>,
    },
    /// The player's unfinished game is given up.
    Discard {
        /// Whose.
        player_key: String,
    },
    /// A result to check and keep.
    Result(Box<NewResult>),
}

/// What a recording holds when it closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// Input lines.
    pub inputs: u64,
    /// Milliseconds from the start to now.
    pub duration_ms: u64,
}

/// Values one multi-row INSERT binds at most: far below SQLite's limit, and few enough
/// that the statements kept prepared stay small. A prepared INSERT holds memory in
/// proportion to its values, on each of the pool's connections that ran one: at 500
/// rows of `recordings` (13 values a row, 0.7 to 1.3 MB a statement), the whole
/// chunks kept took about 370 bytes for every session of row 5 (docs/BENCHMARKS.md,
/// run BS). Counted in values rather than rows, the wide rows, rare (a game's start,
/// a result), come fewer to a statement, and the input lines, three values and every
/// second's most, stay 500 to one: fewer rows a statement cost the store's benchmark
/// 0.2 µs a line in more executions (run BS).
const VALUES_PER_STATEMENT: usize = 1_500;

/// Rows of `values` values each in one INSERT.
const fn rows_per_statement(values: usize) -> usize {
    VALUES_PER_STATEMENT / values
}

/// `recordings` rows (a game's start) one INSERT carries at most.
const OPENS_PER_STATEMENT: usize = rows_per_statement(13);
/// `input_log` rows (a recording's second of lines) one INSERT carries at most.
const LINES_PER_STATEMENT: usize = rows_per_statement(3);
/// `results` rows one INSERT carries at most.
const RESULTS_PER_STATEMENT: usize = rows_per_statement(18);

/// Whether a multi-row INSERT of `rows` rows, of statements `whole` rows long, is kept
/// in the connection's statement cache: only a whole chunk, whose text is the same
/// every time. Each other count is another text, and sqlx kept up to a hundred of
/// them per connection, each holding memory in proportion to its rows (heaptrack,
/// docs/BENCHMARKS.md run BQ), so a busy server whose batches varied could keep up to
/// tens of MB there (a bound from those figures, not measured over a long run). The
/// others are prepared, run and dropped (sqlx keeps one such statement a connection
/// until the next), about one parse a second per kind of row.
fn cached(rows: usize, whole: usize) -> bool {
    rows == whole
}

/// A recording's row as the lists read it.
#[derive(sqlx::FromRow)]
pub(super) struct ListedRow {
    id: i64,
    player: String,
    game: String,
    args: String,
    state: String,
    inputs: i64,
    duration_ms: i64,
    outcome: Option<String>,
    started_at: i64,
    level: Option<String>,
}

impl From<ListedRow> for Listed {
    fn from(row: ListedRow) -> Listed {
        Listed {
            id: row.id,
            player: row.player,
            game: row.game,
            args: row.args,
            state: RecordingState::from_word(&row.state),
            inputs: unclamp(row.inputs),
            duration_ms: unclamp(row.duration_ms),
            outcome: row.outcome.as_deref().and_then(Outcome::from_word),
            started_at: row.started_at,
            level: row.level,
        }
    }
}

/// A recording's row whole: what the lists show, and the rest of its start.
#[derive(sqlx::FromRow)]
struct WholeRow {
    #[sqlx(flatten)]
    listed: ListedRow,
    memory: String,
    world: Option<String>,
}

/// A recording's row with its player's standing, for [`Store::recording_head`].
#[derive(sqlx::FromRow)]
struct HeadRow {
    #[sqlx(flatten)]
    whole: WholeRow,
    registered: bool,
}

/// A recording without its inputs ([`Store::recording_head`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingHead {
    /// What the lists show of it.
    pub listed: Listed,
    /// How it began.
    pub start: Start,
    /// Whether its player's name was registered (a guest's is not).
    pub registered: bool,
}

impl Store {
    /// Write a batch of the recorder's changes in one transaction. Rows of a kind go
    /// in together, a few hundred to a statement (a second of 10,000 players is
    /// thousands of rows, and a statement costs more than a row); state changes go in
    /// their order, after the recordings they change. Writing a batch again that was
    /// written (a commit whose answer was lost) adds nothing twice.
    ///
    /// # Errors
    /// [`StoreError::Query`]: nothing of the batch was written.
    pub async fn write(&self, changes: &[Change]) -> Result<(), StoreError> {
        let mut opens = Vec::new();
        let mut inputs = Vec::new();
        let mut results = Vec::new();
        for change in changes {
            match change {
                Change::Open(open) => opens.push(&**open),
                Change::Inputs { id, first, lines } => {
                    inputs.push((*id, clamp(*first), lines.as_str()));
                }
                Change::Result(result) => results.push(&**result),
                Change::State { .. } | Change::Discard { .. } => {}
            }
        }
        let instance = self.shared.instance;
        on_engine!(self, |pool, sql| {
            let mut tx = pool.begin().await?;
            for chunk in opens.chunks(OPENS_PER_STATEMENT) {
                let mut insert = QueryBuilder::new(
                    "INSERT INTO recordings (id, player, player_key, registered, game, args, memory, world, started_at, state, instance, level, race) ",
                );
                insert.push_values(chunk, |mut row, open| {
                    row.push_bind(open.id)
                        .push_bind(&open.player)
                        .push_bind(&open.player_key)
                        .push_bind(open.registered)
                        .push_bind(&open.start.game)
                        .push_bind(open.start.args.join(" "))
                        .push_bind(&open.start.memory)
                        .push_bind(&open.start.world)
                        .push_bind(open.started_at)
                        .push_bind(RecordingState::Open.as_str())
                        .push_bind(instance)
                        .push_bind(&open.level)
                        .push_bind(open.race);
                });
                insert.push(" ON CONFLICT DO NOTHING");
                insert
                    .build()
                    .persistent(cached(chunk.len(), OPENS_PER_STATEMENT))
                    .execute(&mut *tx)
                    .await?;
            }
            for change in changes {
                match change {
                    Change::State {
                        id,
                        state,
                        outcome,
                        played,
                    } => {
                        let (count, duration) = played.map_or((None, None), |played| {
                            (Some(clamp(played.inputs)), Some(clamp(played.duration_ms)))
                        });
                        // An open recording is this instance's; a closed one nobody's.
                        let holder = (*state == RecordingState::Open).then_some(instance);
                        sqlx::query(sql(
                            "UPDATE recordings SET state = ?, outcome = COALESCE(?, outcome), \
                             inputs = COALESCE(?, inputs), duration_ms = COALESCE(?, duration_ms), \
                             instance = ? WHERE id = ?",
                        ))
                        .bind(state.as_str())
                        .bind(outcome.map(Outcome::as_str))
                        .bind(count)
                        .bind(duration)
                        .bind(holder)
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                    }
                    Change::Discard { player_key } => {
                        sqlx::query(sql(
                            "UPDATE recordings SET state = 'discarded' WHERE player_key = ? AND state = 'unfinished'",
                        ))
                        .bind(player_key)
                        .execute(&mut *tx)
                        .await?;
                    }
                    Change::Open(_) | Change::Inputs { .. } | Change::Result(_) => {}
                }
            }
            // Appended to the log, not put in their places in `inputs`
            // (super::input_log says why); a batch written twice is one row once moved.
            for chunk in inputs.chunks(LINES_PER_STATEMENT) {
                let mut insert =
                    QueryBuilder::new("INSERT INTO input_log (recording_id, batch, lines) ");
                insert.push_values(chunk, |mut row, &(id, first, lines)| {
                    row.push_bind(id).push_bind(first).push_bind(lines);
                });
                insert
                    .build()
                    .persistent(cached(chunk.len(), LINES_PER_STATEMENT))
                    .execute(&mut *tx)
                    .await?;
            }
            for chunk in results.chunks(RESULTS_PER_STATEMENT) {
                let mut insert = QueryBuilder::new(
                    "INSERT INTO results (recording_id, upto, player, player_key, registered, game, level, args, \
                     outcome, moves, pushes, score, largest_tile, gold, duration_ms, finished_at, helped, bot) ",
                );
                insert.push_values(chunk, |mut row, result| {
                    let finish = &result.finish;
                    row.push_bind(result.recording_id)
                        .push_bind(clamp(result.upto))
                        .push_bind(&result.player)
                        .push_bind(&result.player_key)
                        .push_bind(result.registered)
                        .push_bind(&result.game)
                        .push_bind(&result.level)
                        .push_bind(&result.args)
                        .push_bind(finish.outcome.as_str())
                        .push_bind(clamp(finish.moves))
                        .push_bind(clamp(finish.pushes))
                        .push_bind(clamp(finish.score))
                        .push_bind(clamp(finish.largest_tile))
                        .push_bind(finish.gold)
                        .push_bind(result.duration_ms)
                        .push_bind(result.finished_at)
                        .push_bind(result.helped)
                        .push_bind(result.bot);
                });
                // One result per recording and input count (the index results_once).
                insert.push(" ON CONFLICT DO NOTHING");
                insert
                    .build()
                    .persistent(cached(chunk.len(), RESULTS_PER_STATEMENT))
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The recording `id`, whole, with what the lists show of it: its start and its
    /// input lines as they were written, still encoded
    /// (`records::recording::load` decodes them).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn recording(
        &self,
        id: i64,
    ) -> Result<Option<(Listed, StoredRecording)>, StoreError> {
        let found = on_engine!(self, |pool, sql| {
            let Some(row) = sqlx::query_as::<_, WholeRow>(sql(
                "SELECT id, player, game, args, state, inputs, duration_ms, outcome, started_at, level, \
                 memory, world FROM recordings WHERE id = ?",
            ))
            .bind(id)
            .fetch_optional(pool)
            .await?
            else {
                return Ok(None);
            };
            let batches: Vec<(i64, String)> = sqlx::query_as(sql(INPUTS_AFTER))
                .bind(id)
                .bind(-1_i64)
                .bind(id)
                .bind(-1_i64)
                .bind(i64::MAX)
                .fetch_all(pool)
                .await?;
            (row, batches)
        });
        let (row, batches) = found;
        let listed = Listed::from(row.listed);
        let start = Start {
            game: listed.game.clone(),
            args: listed.args.split_whitespace().map(String::from).collect(),
            memory: row.memory,
            world: row.world,
        };
        Ok(Some((listed, StoredRecording { start, batches })))
    }

    /// The recording `id` without its inputs: what the lists show of it, how it
    /// began, and whether its player's name was registered. What a reader of a long
    /// recording asks first, then its inputs page by page ([`Store::recording_inputs`]).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn recording_head(&self, id: i64) -> Result<Option<RecordingHead>, StoreError> {
        let row = on_engine!(self, |pool, sql| {
            sqlx::query_as::<_, HeadRow>(sql(
                "SELECT id, player, game, args, state, inputs, duration_ms, outcome, started_at, level, \
                 memory, world, registered FROM recordings WHERE id = ?",
            ))
            .bind(id)
            .fetch_optional(pool)
            .await?
        });
        Ok(row.map(|row| {
            let listed = Listed::from(row.whole.listed);
            let start = Start {
                game: listed.game.clone(),
                args: listed.args.split_whitespace().map(String::from).collect(),
                memory: row.whole.memory,
                world: row.whole.world,
            };
            RecordingHead {
                listed,
                start,
                registered: row.registered,
            }
        }))
    }

    /// Up to `limit` of recording `id`'s batches of input lines (still encoded), in
    /// order, from the first after batch number `after` (`None`: from the start),
    /// each with its number: the next page starts after the last one given.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn recording_inputs(
        &self,
        id: i64,
        after: Option<i64>,
        limit: u32,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        // Batch numbers count input lines from 0, so -1 is before every batch.
        let after = after.unwrap_or(-1);
        on_engine!(self, |pool, sql| {
            // The moved batches first: a long recording's pages scan the log once,
            // on the last page, not once a page (super::input_log::MOVED_AFTER).
            let moved: Vec<(i64, String)> = sqlx::query_as(sql(MOVED_AFTER))
                .bind(id)
                .bind(after)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?;
            if moved.len() >= limit as usize {
                return Ok(moved);
            }
            Ok(sqlx::query_as(sql(INPUTS_AFTER))
                .bind(id)
                .bind(after)
                .bind(id)
                .bind(after)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?)
        })
    }

    /// The most recent recordings, newest first; only `player_key`'s when given.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn recordings(
        &self,
        player_key: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Listed>, StoreError> {
        let limit = i64::from(limit);
        on_engine!(self, |pool, sql| {
            let rows: Vec<ListedRow> = match player_key {
                Some(key) => {
                    sqlx::query_as(sql(&format!(
                        "{LISTED} WHERE player_key = ? ORDER BY id DESC LIMIT ?"
                    )))
                    .bind(key)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?
                }
                None => {
                    sqlx::query_as(sql(&format!("{LISTED} ORDER BY id DESC LIMIT ?")))
                        .bind(limit)
                        .fetch_all(pool)
                        .await?
                }
            };
            Ok(rows.into_iter().map(Listed::from).collect())
        })
    }

    /// The registered player's newest game that is unfinished, or still open (its
    /// connection may be closing, as in a takeover): id, game and state. On
    /// PostgreSQL a game left open by an instance that stopped is closed first, in
    /// one statement (so two instances cannot both take it open), and reported
    /// unfinished: `resume` plays it on here.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn waiting_game(
        &self,
        player_key: &str,
    ) -> Result<Option<(i64, String, RecordingState)>, StoreError> {
        if let Engine::Postgres(pool) = &self.shared.engine {
            sqlx::query(AssertSqlSafe(close_stale_sql(
                "AND player_key = $1 AND registered",
            )))
            .bind(player_key)
            .execute(pool)
            .await?;
        }
        on_engine!(self, |pool, sql| {
            let row: Option<(i64, String, String)> = sqlx::query_as(sql(
                "SELECT id, game, state FROM recordings WHERE player_key = ? AND registered \
                 AND state IN ('unfinished', 'open') ORDER BY id DESC LIMIT 1",
            ))
            .bind(player_key)
            .fetch_optional(pool)
            .await?;
            Ok(row.map(|(id, game, state)| (id, game, RecordingState::from_word(&state))))
        })
    }

    /// Delete up to `batch` recordings that are not kept: a guest's or unregistered
    /// name's that started before `guests_cutoff_ms`, or a registered player's
    /// without a result that started before `cutoff_ms` (the earlier of the two: guests
    /// are kept no longer). Unfinished games and ladders' seeds are kept. Their inputs and results go
    /// with them. Returns how many were deleted. On PostgreSQL the rows another
    /// instance's sweep is deleting at the same time are left to it.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn sweep(
        &self,
        cutoff_ms: i64,
        guests_cutoff_ms: i64,
        batch: u32,
    ) -> Result<u64, StoreError> {
        // A ladder's seed is kept as long as its ladder (its replay is the check of
        // its result, and its table links to it), whoever played it.
        const OLD: &str = "SELECT id FROM recordings r WHERE started_at < ? \
             AND state NOT IN ('open', 'unfinished') \
             AND NOT EXISTS (SELECT 1 FROM ladder_results WHERE recording_id = r.id) \
             AND (NOT registered OR (started_at < ? \
                  AND NOT EXISTS (SELECT 1 FROM results WHERE recording_id = r.id))) \
             ORDER BY id LIMIT ?";
        // The later cutoff bounds every row, the earlier one the registered players'.
        let guests_cutoff_ms = guests_cutoff_ms.max(cutoff_ms);
        let batch = i64::from(batch);
        let locked = match self.shared.engine {
            // One writer at a time: nothing to skip. (The transaction reads, then
            // writes: on SQLite it fails at once with SQLITE_BUSY when another
            // connection wrote in between, whatever the busy timeout. The sweep is
            // tried again soon, see `recorder::sweep_loop`; BEGIN IMMEDIATE instead
            // held the write lock at every sweep and made `arcade admin` fail to
            // open the database beside a running server.)
            Engine::Sqlite(_) => "",
            Engine::Postgres(_) => " FOR UPDATE SKIP LOCKED",
        };
        let old = format!("{OLD}{locked}");
        // A closed recording's last lines were written with its state, maybe still in
        // the log: moved first, they go with it below.
        self.compact_inputs().await?;
        on_engine!(self, |pool, sql| {
            let mut tx = pool.begin().await?;
            let ids: Vec<i64> = sqlx::query_scalar(sql(&old))
                .bind(guests_cutoff_ms)
                .bind(cutoff_ms)
                .bind(batch)
                .fetch_all(&mut *tx)
                .await?;
            for id in &ids {
                for table in [
                    "DELETE FROM inputs WHERE recording_id = ?",
                    "DELETE FROM results WHERE recording_id = ?",
                    "DELETE FROM recordings WHERE id = ?",
                ] {
                    sqlx::query(sql(table)).bind(id).execute(&mut *tx).await?;
                }
            }
            tx.commit().await?;
            Ok(ids.len() as u64)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::DbUrl;
    use sqlx::Connection as _;

    fn open(id: i64) -> Change {
        Change::Open(Box::new(NewRecording {
            id,
            player: String::from("Bo"),
            player_key: String::from("bo"),
            registered: false,
            start: Start {
                game: String::from("sokoban"),
                args: vec![String::from("classic")],
                memory: String::new(),
                world: None,
            },
            level: String::from("classic"),
            race: None,
            started_at: 0,
        }))
    }

    /// Batches of every size below a whole chunk leave no prepared statement of
    /// theirs behind: before, each size was one more statement kept by the connection
    /// (up to a hundred), each holding memory in proportion to its rows.
    #[tokio::test]
    async fn batches_of_other_sizes_leave_no_statement_cached() {
        let store = Store::open(&DbUrl::Memory).await.unwrap();
        let cached = || async {
            match &store.shared.engine {
                Engine::Sqlite(pool) => pool.acquire().await.unwrap().cached_statements_size(),
                Engine::Postgres(_) => unreachable!("a database in memory is SQLite"),
            }
        };
        let mut id = 0;
        let mut batch = |rows: usize| -> Vec<Change> {
            (0..rows)
                .map(|_| {
                    id += 1;
                    open(id)
                })
                .collect()
        };
        store.write(&batch(1)).await.unwrap();
        let after_one = cached().await;
        for rows in 2..=12 {
            store.write(&batch(rows)).await.unwrap();
        }
        assert_eq!(cached().await, after_one, "statements kept per batch size");
        // A whole chunk is kept, once: its text is the same every time.
        store.write(&batch(OPENS_PER_STATEMENT)).await.unwrap();
        store.write(&batch(OPENS_PER_STATEMENT)).await.unwrap();
        assert_eq!(cached().await, after_one + 1);
    }
}
