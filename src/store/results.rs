//! Results: a level solved or a game ended by its rules, kept with the recording that
//! reaches it (SPEC section 8). Each waits for its replay ([`Store::pending_results`],
//! [`Store::set_verified`]); the checked ones make the leaderboards, a player's
//! stats and the results CSV.
//!
//! Rows are read into the private `*Row` types below, derived with `sqlx::FromRow`
//! for both engines (each column read with `try_get`: a damaged or hand-edited
//! database gives an error to report, never a panic), then turned into what the
//! callers see, counts unsigned.

use crate::catalog::table::Board;
use crate::games::{Finish, Outcome};

use super::engine::{on_engine, unclamp};
use super::{Store, StoreError};

/// A result, for [`Change::Result`](super::Change::Result).
#[derive(Debug, Clone)]
pub struct NewResult {
    /// The recording it comes from.
    pub recording_id: i64,
    /// How many of its inputs reach it.
    pub upto: u64,
    /// Who.
    pub player: String,
    /// The name in lower case.
    pub player_key: String,
    /// Whether the name is registered.
    pub registered: bool,
    /// A bot's (SPEC section 12): ranked apart from people.
    pub bot: bool,
    /// Which game.
    pub game: String,
    /// Its leaderboard's level.
    pub level: String,
    /// The game's arguments (2048's size, win value and seed).
    pub args: String,
    /// What was reached.
    pub finish: Finish,
    /// Time played up to it.
    pub duration_ms: i64,
    /// Unix milliseconds.
    pub finished_at: i64,
    /// Reached after `/hint` or `/solve` (SPEC section 13).
    pub helped: bool,
}

/// A result waiting for its replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The result's id.
    pub id: i64,
    /// Its recording.
    pub recording_id: i64,
    /// The inputs that reach it.
    pub upto: u64,
    /// What it says was reached, its level always named (`None`: an outcome this
    /// server never writes).
    pub finish: Option<Finish>,
    /// Whether it says it was reached after `/hint` or `/solve`.
    pub helped: bool,
}

/// A leaderboard's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    /// Who.
    pub player: String,
    /// Moves (actions for wumpus).
    pub moves: u64,
    /// Pushes.
    pub pushes: u64,
    /// Score.
    pub score: u64,
    /// Largest tile.
    pub largest_tile: u64,
    /// How many results the player has on this board (wins with the gold for wumpus).
    pub wins: u64,
    /// Time played.
    pub duration_ms: u64,
    /// When, Unix milliseconds.
    pub finished_at: i64,
    /// The recording that reaches it (`/recordings/ID`).
    pub recording_id: i64,
    /// Reached after `/hint` or `/solve`: ranked after every result without help.
    pub helped: bool,
}

/// A checked result, as the results CSV lists it for grading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graded {
    /// The result's id (the CSV is read page by page in id order).
    pub id: i64,
    /// Who.
    pub player: String,
    /// Which game.
    pub game: String,
    /// Its leaderboard's level.
    pub level: String,
    /// How it ended, as stored (`solved`, `won`, ...).
    pub outcome: String,
    /// Moves (actions for wumpus).
    pub moves: u64,
    /// Pushes.
    pub pushes: u64,
    /// Score.
    pub score: u64,
    /// Time played.
    pub duration_ms: u64,
    /// When, Unix milliseconds.
    pub finished_at: i64,
    /// The recording that reaches it.
    pub recording_id: i64,
    /// The race it was played in, if any (its number on the instance that ran it).
    pub race: Option<i64>,
    /// Reached after `/hint` or `/solve`.
    pub helped: bool,
}

/// A player's record, for `stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// The name as last recorded (`None`: never played).
    pub player: Option<String>,
    /// Games recorded.
    pub games: u64,
    /// Time played, over every recording.
    pub played_ms: u64,
    /// Checked results, oldest first: the game, and what was reached (its level
    /// named).
    pub results: Vec<(String, Finish)>,
}

/// What a result row says was reached.
#[derive(sqlx::FromRow)]
struct FinishRow {
    level: String,
    outcome: String,
    moves: i64,
    pushes: i64,
    score: i64,
    largest_tile: i64,
    gold: bool,
}

impl FinishRow {
    /// What was reached (`None`: an outcome this server never writes).
    fn finish(self) -> Option<Finish> {
        Some(Finish {
            level: Some(self.level),
            outcome: Outcome::from_word(&self.outcome)?,
            moves: unclamp(self.moves),
            pushes: unclamp(self.pushes),
            score: unclamp(self.score),
            largest_tile: unclamp(self.largest_tile),
            gold: self.gold,
        })
    }
}

/// A result waiting for its replay, as `pending_results` reads it.
#[derive(sqlx::FromRow)]
struct PendingRow {
    id: i64,
    recording_id: i64,
    upto: i64,
    helped: bool,
    #[sqlx(flatten)]
    finish: FinishRow,
}

impl From<PendingRow> for Pending {
    fn from(row: PendingRow) -> Pending {
        Pending {
            id: row.id,
            recording_id: row.recording_id,
            upto: unclamp(row.upto),
            finish: row.finish.finish(),
            helped: row.helped,
        }
    }
}

/// A checked result of a player, as `stats` reads it.
#[derive(sqlx::FromRow)]
struct PlayedRow {
    game: String,
    #[sqlx(flatten)]
    finish: FinishRow,
}

/// A leaderboard's line, as `top` reads it.
#[derive(sqlx::FromRow)]
struct RankedRow {
    player: String,
    moves: i64,
    pushes: i64,
    score: i64,
    largest_tile: i64,
    wins: i64,
    duration_ms: i64,
    finished_at: i64,
    recording_id: i64,
    helped: bool,
}

impl From<RankedRow> for Ranked {
    fn from(row: RankedRow) -> Ranked {
        Ranked {
            player: row.player,
            moves: unclamp(row.moves),
            pushes: unclamp(row.pushes),
            score: unclamp(row.score),
            largest_tile: unclamp(row.largest_tile),
            wins: unclamp(row.wins),
            duration_ms: unclamp(row.duration_ms),
            finished_at: row.finished_at,
            recording_id: row.recording_id,
            helped: row.helped,
        }
    }
}

/// A checked result, as `results_since` reads it.
#[derive(sqlx::FromRow)]
struct GradedRow {
    id: i64,
    player: String,
    game: String,
    level: String,
    outcome: String,
    moves: i64,
    pushes: i64,
    score: i64,
    duration_ms: i64,
    finished_at: i64,
    recording_id: i64,
    race: Option<i64>,
    helped: bool,
}

impl From<GradedRow> for Graded {
    fn from(row: GradedRow) -> Graded {
        Graded {
            id: row.id,
            player: row.player,
            game: row.game,
            level: row.level,
            outcome: row.outcome,
            moves: unclamp(row.moves),
            pushes: unclamp(row.pushes),
            score: unclamp(row.score),
            duration_ms: unclamp(row.duration_ms),
            finished_at: row.finished_at,
            recording_id: row.recording_id,
            race: row.race,
            helped: row.helped,
        }
    }
}

/// The results `board` ranks, as SQL over a `results` row.
fn ranks(board: Board) -> &'static str {
    match board {
        Board::Moves | Board::Pushes => "outcome = 'solved'",
        Board::Score => "TRUE",
        Board::Gold => "gold",
    }
}

/// The results some game's main board ranks, as SQL over a `results` row: built from
/// the table of games only, nothing a player typed.
fn main_boards() -> String {
    let mut cases = String::from("CASE game");
    for kind in crate::catalog::table::GAMES {
        if let Some(&board) = kind.boards.first() {
            cases.push_str(&format!(" WHEN '{}' THEN {}", kind.name, ranks(board)));
        }
    }
    cases.push_str(" ELSE FALSE END");
    cases
}

impl Store {
    /// Results not yet checked by replay, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn pending_results(&self, limit: u32) -> Result<Vec<Pending>, StoreError> {
        let limit = i64::from(limit);
        on_engine!(self, |pool, sql| {
            let rows: Vec<PendingRow> = sqlx::query_as(sql(
                "SELECT id, recording_id, upto, helped, level, outcome, moves, pushes, score, largest_tile, gold \
                 FROM results WHERE verified IS NULL ORDER BY id LIMIT ?",
            ))
            .bind(limit)
            .fetch_all(pool)
            .await?;
            Ok(rows.into_iter().map(Pending::from).collect())
        })
    }

    /// Mark results checked, in one transaction: each on the leaderboards (`true`)
    /// or kept out. The first mark stands: instances checking the same result at once
    /// (each runs a verifier) change nothing of each other's.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn set_verified(&self, marks: &[(i64, bool)]) -> Result<(), StoreError> {
        self.mark_verified(
            "UPDATE results SET verified = ? WHERE id = ? AND verified IS NULL",
            marks,
        )
        .await
    }

    /// Run `update` (parameters: the mark, then the row's id) for each of `marks`, in
    /// one transaction: how results and ladder results are marked checked.
    pub(super) async fn mark_verified(
        &self,
        update: &str,
        marks: &[(i64, bool)],
    ) -> Result<(), StoreError> {
        on_engine!(self, |pool, sql| {
            let mut tx = pool.begin().await?;
            for &(id, same_end) in marks {
                sqlx::query(sql(update))
                    .bind(same_end)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The best ten of one leaderboard, one line per player (their best result).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    /// `bots`: the bots' board (SPEC section 12: bots are ranked apart from people).
    pub async fn top(
        &self,
        game: &str,
        level: &str,
        board: Board,
        bots: bool,
    ) -> Result<Vec<Ranked>, StoreError> {
        // A player's best result, then the players in order; ties go to the earlier.
        // A result reached with help (`/hint`, `/solve`) comes after every one without:
        // help never beats an honest result (SPEC section 13).
        let filter = ranks(board);
        let (best, order) = match board {
            Board::Moves => ("helped, moves, pushes, id", "helped, moves, pushes, id"),
            Board::Pushes => ("helped, pushes, moves, id", "helped, pushes, moves, id"),
            Board::Score => ("helped, score DESC, id", "helped, score DESC, id"),
            Board::Gold => ("helped, moves, id", "wins DESC, helped, moves, id"),
        };
        // Built from the constants above only: nothing a player typed.
        let query = format!(
            "SELECT player, moves, pushes, score, largest_tile, wins, duration_ms, finished_at, recording_id, helped FROM ( \
               SELECT *, COUNT(*) OVER (PARTITION BY player_key) AS wins, \
                 ROW_NUMBER() OVER (PARTITION BY player_key ORDER BY {best}) AS place \
               FROM results WHERE game = ? AND level = ? AND verified AND bot = ? AND {filter}) AS best \
             WHERE place = 1 ORDER BY {order} LIMIT 10"
        );
        on_engine!(self, |pool, sql| {
            let rows: Vec<RankedRow> = sqlx::query_as(sql(&query))
                .bind(game)
                .bind(level)
                .bind(bots)
                .fetch_all(pool)
                .await?;
            Ok(rows.into_iter().map(Ranked::from).collect())
        })
    }

    /// Every leaderboard that has a checked result it ranks: game, level and how many
    /// such results (a wumpus game lost counts nowhere: `top wumpus` shows wins with
    /// the gold only, and `top` says the same).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn boards(&self) -> Result<Vec<(String, String, u64)>, StoreError> {
        on_engine!(self, |pool, sql| {
            let rows: Vec<(String, String, i64)> = sqlx::query_as(sql(&format!(
                "SELECT game, level, COUNT(*) AS n FROM results WHERE verified AND {} \
                 GROUP BY game, level ORDER BY game, level",
                main_boards()
            )))
            .fetch_all(pool)
            .await?;
            Ok(rows
                .into_iter()
                .map(|(game, level, n)| (game, level, unclamp(n)))
                .collect())
        })
    }

    /// A player's results, checked ones only, oldest first, and their recordings'
    /// count and time played.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn stats(&self, player_key: &str) -> Result<Stats, StoreError> {
        on_engine!(self, |pool, sql| {
            // SUM of BIGINT is NUMERIC on PostgreSQL: cast back.
            let (games, played, player): (i64, i64, Option<String>) = sqlx::query_as(sql(
                "SELECT COUNT(*), CAST(COALESCE(SUM(duration_ms), 0) AS BIGINT), MAX(player) \
                 FROM recordings WHERE player_key = ?",
            ))
            .bind(player_key)
            .fetch_one(pool)
            .await?;
            let rows: Vec<PlayedRow> = sqlx::query_as(sql(
                "SELECT game, level, outcome, moves, pushes, score, largest_tile, gold FROM results \
                 WHERE player_key = ? AND verified ORDER BY id",
            ))
            .bind(player_key)
            .fetch_all(pool)
            .await?;
            let results = rows
                .into_iter()
                .filter_map(|row| Some((row.game, row.finish.finish()?)))
                .collect();
            Ok(Stats {
                player,
                games: unclamp(games),
                played_ms: unclamp(played),
                results,
            })
        })
    }

    /// Up to `limit` checked results (those on the leaderboards) finished at or after
    /// `since_ms` with an id above `after`, in id order: one page of the results CSV.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn results_since(
        &self,
        since_ms: i64,
        after: i64,
        limit: u32,
    ) -> Result<Vec<Graded>, StoreError> {
        let limit = i64::from(limit);
        on_engine!(self, |pool, sql| {
            let rows: Vec<GradedRow> = sqlx::query_as(sql(
                "SELECT r.id, r.player, r.game, r.level, r.outcome, r.moves, r.pushes, r.score, \
                 r.duration_ms, r.finished_at, r.recording_id, g.race, r.helped \
                 FROM results r LEFT JOIN recordings g ON g.id = r.recording_id \
                 WHERE r.verified AND r.finished_at >= ? AND r.id > ? ORDER BY r.id LIMIT ?",
            ))
            .bind(since_ms)
            .bind(after)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            Ok(rows.into_iter().map(Graded::from).collect())
        })
    }
}
