//! Ladders (SPEC section 12): what an admin opens (a game, a range of seeds, a time per
//! move, a deadline, whether people may enter), one row of `ladders` each; every
//! entrant's result on each seed, one row of `ladder_results`, which waits for its
//! replay as a result of section 8 does ([`Store::pending_ladder_results`],
//! [`Store::set_ladder_verified`]); and the built-in agents' scores per seed, the
//! baseline the table compares with (`ladder_baselines`). Ladders are never deleted:
//! closing one keeps it, its results and baselines.
//!
//! Seeds and counts are unsigned here and signed 64-bit integers in SQL: a seed above
//! `i64::MAX` is refused by the caller before it reaches the store (the store would
//! keep `i64::MAX` instead, [`clamp`]). Rows are read into the private `*Row` types
//! below with `try_get` (`sqlx::FromRow`): a damaged or hand-edited database gives an
//! error to report, never a panic; a negative seed or count read back is 0.

use super::engine::{clamp, on_engine, unclamp};
use super::{Store, StoreError};

/// What an admin opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LadderSpec {
    /// Which game (a name of the table of games).
    pub game: String,
    /// The first seed played, at most `i64::MAX` and at most `last_seed`.
    pub first_seed: u64,
    /// The last seed played, at most `i64::MAX`.
    pub last_seed: u64,
    /// The time per move, milliseconds (`None`: no clock).
    pub move_ms: Option<u64>,
    /// When the ladder closes by itself, Unix milliseconds (`None`: when an admin
    /// closes it).
    pub until: Option<i64>,
    /// Whether people may enter besides bots.
    pub humans: bool,
    /// The admin who opened it.
    pub opened_by: String,
}

/// A ladder as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ladder {
    /// Its number (`ladder N`).
    pub id: i64,
    /// Which game.
    pub game: String,
    /// The first seed played.
    pub first_seed: u64,
    /// The last seed played.
    pub last_seed: u64,
    /// The time per move, milliseconds (`None`: no clock).
    pub move_ms: Option<u64>,
    /// When it closes by itself, Unix milliseconds (`None`: when an admin closes it).
    pub until: Option<i64>,
    /// Whether people may enter besides bots.
    pub humans: bool,
    /// The admin who opened it.
    pub opened_by: String,
    /// When, Unix milliseconds.
    pub opened_at: i64,
    /// When it was closed, Unix milliseconds (`None`: open).
    pub closed_at: Option<i64>,
}

/// One seed played by one entrant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLadderResult {
    /// The ladder.
    pub ladder_id: i64,
    /// Who, as shown.
    pub player: String,
    /// The name in lower case: a seed is played once per `player_key`.
    pub player_key: String,
    /// Whether a bot played it.
    pub bot: bool,
    /// Which seed, at most `i64::MAX`.
    pub seed: u64,
    /// The seed's game (`None`: nothing was recorded; such a result is never replayed,
    /// so never checked).
    pub recording_id: Option<i64>,
    /// The score (wumpus's may be below 0).
    pub score: i64,
    /// Moves (actions for wumpus).
    pub moves: u64,
    /// How it ended, as the game's rules word it (`won`, `died`, ...).
    pub outcome: String,
    /// The time per move was overrun: the seed is forfeit, needs no replay and is
    /// never pending.
    pub forfeit: bool,
    /// When, Unix milliseconds.
    pub finished_at: i64,
}

/// One seed played by one entrant, as kept, with its check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LadderResult {
    /// Its row.
    pub id: i64,
    /// The ladder.
    pub ladder_id: i64,
    /// Who, as shown.
    pub player: String,
    /// The name in lower case.
    pub player_key: String,
    /// Whether a bot played it.
    pub bot: bool,
    /// Which seed.
    pub seed: u64,
    /// The seed's game (`None`: nothing was recorded).
    pub recording_id: Option<i64>,
    /// The score.
    pub score: i64,
    /// Moves (actions for wumpus).
    pub moves: u64,
    /// How it ended.
    pub outcome: String,
    /// The time per move was overrun.
    pub forfeit: bool,
    /// When, Unix milliseconds.
    pub finished_at: i64,
    /// `None` until the replay checked it (and always for a forfeit), then whether
    /// the replay reached the same end (`true`: it counts on the table).
    pub verified: Option<bool>,
}

/// A `ladders` row.
#[derive(sqlx::FromRow)]
struct LadderRow {
    id: i64,
    game: String,
    first_seed: i64,
    last_seed: i64,
    move_ms: Option<i64>,
    deadline: Option<i64>,
    humans: bool,
    opened_by: String,
    opened_at: i64,
    closed_at: Option<i64>,
}

impl From<LadderRow> for Ladder {
    fn from(row: LadderRow) -> Ladder {
        Ladder {
            id: row.id,
            game: row.game,
            first_seed: unclamp(row.first_seed),
            last_seed: unclamp(row.last_seed),
            move_ms: row.move_ms.map(unclamp),
            until: row.deadline,
            humans: row.humans,
            opened_by: row.opened_by,
            opened_at: row.opened_at,
            closed_at: row.closed_at,
        }
    }
}

/// A `ladder_results` row.
#[derive(sqlx::FromRow)]
struct LadderResultRow {
    id: i64,
    ladder_id: i64,
    player: String,
    player_key: String,
    bot: bool,
    seed: i64,
    recording_id: Option<i64>,
    score: i64,
    moves: i64,
    outcome: String,
    forfeit: bool,
    finished_at: i64,
    verified: Option<bool>,
}

impl From<LadderResultRow> for LadderResult {
    fn from(row: LadderResultRow) -> LadderResult {
        LadderResult {
            id: row.id,
            ladder_id: row.ladder_id,
            player: row.player,
            player_key: row.player_key,
            bot: row.bot,
            seed: unclamp(row.seed),
            recording_id: row.recording_id,
            score: row.score,
            moves: unclamp(row.moves),
            outcome: row.outcome,
            forfeit: row.forfeit,
            finished_at: row.finished_at,
            verified: row.verified,
        }
    }
}

/// The columns of a `ladders` row, in [`LadderRow`]'s order.
const LADDER_COLUMNS: &str = "id, game, first_seed, last_seed, move_ms, deadline, humans, \
     opened_by, opened_at, closed_at";

/// The columns of a `ladder_results` row, in [`LadderResultRow`]'s order.
const RESULT_COLUMNS: &str = "id, ladder_id, player, player_key, bot, seed, recording_id, \
     score, moves, outcome, forfeit, finished_at, verified";

impl Store {
    /// Open a ladder as `spec` says, at `opened_at` (Unix milliseconds): its new id.
    /// The caller has checked the spec: `first_seed <= last_seed <= i64::MAX`.
    ///
    /// # Errors
    /// [`StoreError::Query`] (also when `first_seed > last_seed`: the table refuses
    /// it).
    pub async fn open_ladder(&self, spec: &LadderSpec, opened_at: i64) -> Result<i64, StoreError> {
        on_engine!(self, |pool, sql| {
            Ok(sqlx::query_scalar(sql(
                "INSERT INTO ladders (game, first_seed, last_seed, move_ms, deadline, humans, \
                 opened_by, opened_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            ))
            .bind(&spec.game)
            .bind(clamp(spec.first_seed))
            .bind(clamp(spec.last_seed))
            .bind(spec.move_ms.map(clamp))
            .bind(spec.until)
            .bind(spec.humans)
            .bind(&spec.opened_by)
            .bind(opened_at)
            .fetch_one(pool)
            .await?)
        })
    }

    /// Close the open ladder `id` at `at` (Unix milliseconds); `false` when there is
    /// no such open ladder (none, or closed already: the first close stands).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn close_ladder(&self, id: i64, at: i64) -> Result<bool, StoreError> {
        let closed = on_engine!(self, |pool, sql| {
            sqlx::query(sql(
                "UPDATE ladders SET closed_at = ? WHERE id = ? AND closed_at IS NULL",
            ))
            .bind(at)
            .bind(id)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(closed == 1)
    }

    /// The open ladders, and the closed ones too when `closed_too`, newest first (the
    /// last opened first).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn ladders(&self, closed_too: bool) -> Result<Vec<Ladder>, StoreError> {
        let query = format!(
            "SELECT {LADDER_COLUMNS} FROM ladders WHERE closed_at IS NULL OR ? ORDER BY id DESC"
        );
        on_engine!(self, |pool, sql| {
            let rows: Vec<LadderRow> = sqlx::query_as(sql(&query))
                .bind(closed_too)
                .fetch_all(pool)
                .await?;
            Ok(rows.into_iter().map(Ladder::from).collect())
        })
    }

    /// The ladder `id`, open or closed.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn ladder(&self, id: i64) -> Result<Option<Ladder>, StoreError> {
        let query = format!("SELECT {LADDER_COLUMNS} FROM ladders WHERE id = ?");
        on_engine!(self, |pool, sql| {
            let row: Option<LadderRow> = sqlx::query_as(sql(&query))
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(Ladder::from))
        })
    }

    /// Keep one seed played by one entrant: its id, or `None` when this entrant
    /// (`player_key`) has a result for this seed of this ladder already (a seed is
    /// played once; the first result stands). Whether the ladder is still open is the
    /// caller's to decide. The seed is at most `i64::MAX` (the caller's check).
    ///
    /// # Errors
    /// [`StoreError::Query`] (also when there is no such ladder).
    pub async fn add_ladder_result(
        &self,
        result: &NewLadderResult,
    ) -> Result<Option<i64>, StoreError> {
        on_engine!(self, |pool, sql| {
            Ok(sqlx::query_scalar(sql(
                "INSERT INTO ladder_results (ladder_id, player, player_key, bot, seed, \
                 recording_id, score, moves, outcome, forfeit, finished_at) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
                 ON CONFLICT (ladder_id, player_key, seed) DO NOTHING RETURNING id",
            ))
            .bind(result.ladder_id)
            .bind(&result.player)
            .bind(&result.player_key)
            .bind(result.bot)
            .bind(clamp(result.seed))
            .bind(result.recording_id)
            .bind(result.score)
            .bind(clamp(result.moves))
            .bind(&result.outcome)
            .bind(result.forfeit)
            .bind(result.finished_at)
            .fetch_optional(pool)
            .await?)
        })
    }

    /// Every result of the ladder `ladder_id`, checked or not, by entrant
    /// (`player_key`, in byte order) then seed.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn ladder_results(&self, ladder_id: i64) -> Result<Vec<LadderResult>, StoreError> {
        let query = format!("SELECT {RESULT_COLUMNS} FROM ladder_results WHERE ladder_id = ?");
        let mut results: Vec<LadderResult> = on_engine!(self, |pool, sql| {
            let rows: Vec<LadderResultRow> = sqlx::query_as(sql(&query))
                .bind(ladder_id)
                .fetch_all(pool)
                .await?;
            rows.into_iter().map(LadderResult::from).collect()
        });
        // Sorted here, not by SQL: PostgreSQL orders text by its database's locale
        // (`bo_2` before `bo1` in en_US), SQLite by bytes; the table reads the same on
        // both. No two results have the same entrant and seed (UNIQUE).
        results.sort_unstable_by(|a, b| (&a.player_key, a.seed).cmp(&(&b.player_key, b.seed)));
        Ok(results)
    }

    /// The results of one entrant (`player_key`, the name in lower case) on the
    /// ladder `ladder_id`, checked or not, by seed.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn ladder_results_of(
        &self,
        ladder_id: i64,
        player_key: &str,
    ) -> Result<Vec<LadderResult>, StoreError> {
        let query = format!(
            "SELECT {RESULT_COLUMNS} FROM ladder_results WHERE ladder_id = ? AND player_key = ? \
             ORDER BY seed"
        );
        on_engine!(self, |pool, sql| {
            let rows: Vec<LadderResultRow> = sqlx::query_as(sql(&query))
                .bind(ladder_id)
                .bind(player_key)
                .fetch_all(pool)
                .await?;
            Ok(rows.into_iter().map(LadderResult::from).collect())
        })
    }

    /// Up to `limit` results of any ladder waiting for their replay, oldest first:
    /// not checked yet, not forfeit, with a recording.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn pending_ladder_results(
        &self,
        limit: u32,
    ) -> Result<Vec<LadderResult>, StoreError> {
        let limit = i64::from(limit);
        // The same condition as the index ladder_results_pending, so that it is used.
        let query = format!(
            "SELECT {RESULT_COLUMNS} FROM ladder_results \
             WHERE verified IS NULL AND NOT forfeit AND recording_id IS NOT NULL \
             ORDER BY id LIMIT ?"
        );
        on_engine!(self, |pool, sql| {
            let rows: Vec<LadderResultRow> = sqlx::query_as(sql(&query))
                .bind(limit)
                .fetch_all(pool)
                .await?;
            Ok(rows.into_iter().map(LadderResult::from).collect())
        })
    }

    /// Mark ladder results checked, in one transaction: each counts on its table
    /// (`true`) or is kept out. The first mark stands: instances checking the same
    /// result at once (each runs a verifier) change nothing of each other's. Only
    /// what can be pending is marked: a forfeit, or a result without a recording,
    /// keeps `verified` NULL whatever the marks say.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn set_ladder_verified(&self, marks: &[(i64, bool)]) -> Result<(), StoreError> {
        self.mark_verified(
            "UPDATE ladder_results SET verified = ? WHERE id = ? AND verified IS NULL \
             AND NOT forfeit AND recording_id IS NOT NULL",
            marks,
        )
        .await
    }

    /// Keep what the built-in `agent` scored on `seed` of the ladder `ladder_id`,
    /// replacing what it scored there before. The seed is at most `i64::MAX`.
    ///
    /// # Errors
    /// [`StoreError::Query`] (also when there is no such ladder).
    pub async fn set_ladder_baseline(
        &self,
        ladder_id: i64,
        seed: u64,
        agent: &str,
        score: i64,
    ) -> Result<(), StoreError> {
        on_engine!(self, |pool, sql| {
            sqlx::query(sql(
                "INSERT INTO ladder_baselines (ladder_id, seed, agent, score) VALUES (?, ?, ?, ?) \
                 ON CONFLICT (ladder_id, seed, agent) DO UPDATE SET score = excluded.score",
            ))
            .bind(ladder_id)
            .bind(clamp(seed))
            .bind(agent)
            .bind(score)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// The built-in agents' scores on the ladder `ladder_id`: `(seed, agent, score)`
    /// by seed, then agent (in byte order).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn ladder_baselines(
        &self,
        ladder_id: i64,
    ) -> Result<Vec<(u64, String, i64)>, StoreError> {
        let mut baselines: Vec<(u64, String, i64)> = on_engine!(self, |pool, sql| {
            let rows: Vec<(i64, String, i64)> = sqlx::query_as(sql(
                "SELECT seed, agent, score FROM ladder_baselines WHERE ladder_id = ?",
            ))
            .bind(ladder_id)
            .fetch_all(pool)
            .await?;
            rows.into_iter()
                .map(|(seed, agent, score)| (unclamp(seed), agent, score))
                .collect()
        });
        // By bytes on both engines, as `ladder_results`; (seed, agent) is the key.
        baselines.sort_unstable_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        Ok(baselines)
    }
}

#[cfg(test)]
mod tests {
    use super::super::engine::Engine;
    use super::super::DbUrl;
    use super::*;

    /// A hand-edited row: a negative seed reads as 0, a flag that is no flag is an
    /// error to report, never a panic.
    #[tokio::test]
    async fn a_hand_edited_ladder_is_read_back_or_reported() {
        let store = Store::open(&DbUrl::Memory).await.unwrap();
        let spec = LadderSpec {
            game: String::from("wumpus"),
            first_seed: 1,
            last_seed: 9,
            move_ms: None,
            until: None,
            humans: false,
            opened_by: String::from("admin"),
        };
        let id = store.open_ladder(&spec, 1).await.unwrap();
        let Engine::Sqlite(pool) = &store.shared.engine else {
            panic!("an SQLite store");
        };
        let edit = |text: &'static str| sqlx::query(sqlx::AssertSqlSafe(text)).execute(pool);
        edit("UPDATE ladders SET first_seed = -5, move_ms = -1")
            .await
            .unwrap();
        let ladder = store.ladder(id).await.unwrap().expect("the ladder");
        assert_eq!((ladder.first_seed, ladder.move_ms), (0, Some(0)));
        edit("UPDATE ladders SET humans = 'maybe'").await.unwrap();
        assert!(store.ladder(id).await.is_err());
        assert!(store.ladders(true).await.is_err());
    }
}
