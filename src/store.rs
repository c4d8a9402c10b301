//! What the server keeps across restarts: the database behind `--db URL`.
//!
//! The default is an embedded SQLite file, `DATA-DIR/arcade.db`, created with its
//! schema on first use: nothing to install. Its schema is a list of versioned
//! migrations kept in `migrations/sqlite/` and compiled into the binary. The store is
//! reached only through async calls (sqlx runs each SQLite connection on a thread of
//! its own), so no session's task ever waits on the disk; and it is used only for
//! what is rare (a login, a registration, a changed setting), never on a command's hot
//! path.
//!
//! The interface speaks of accounts, not of SQL, so that another engine (PostgreSQL,
//! for several instances) can stand behind it with the same migrations in meaning.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, QueryBuilder, Row as _, Sqlite};

use crate::games::{Finish, Outcome};
use crate::recording::{self, Recording, Start};
use crate::table::Board;

/// Where the store lives, from `--db`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbUrl {
    /// `sqlite://PATH`: an SQLite file, created if missing.
    Sqlite(PathBuf),
    /// `sqlite::memory:`: a database in memory, gone when the server stops (for tests
    /// and trials: accounts do not survive a restart).
    Memory,
}

/// A `--db` value the server cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--db {0}: use sqlite://PATH (an SQLite file, created if missing) or sqlite::memory:")]
pub struct BadDbUrl(pub String);

impl FromStr for DbUrl {
    type Err = BadDbUrl;

    fn from_str(text: &str) -> Result<DbUrl, BadDbUrl> {
        if text == "sqlite::memory:" {
            return Ok(DbUrl::Memory);
        }
        match text.strip_prefix("sqlite://") {
            Some(path) if !path.is_empty() => Ok(DbUrl::Sqlite(PathBuf::from(path))),
            _ => Err(BadDbUrl(text.to_string())),
        }
    }
}

impl DbUrl {
    /// The default store: `arcade.db` in the data directory.
    pub fn in_data_dir(data_dir: &Path) -> DbUrl {
        DbUrl::Sqlite(data_dir.join("arcade.db"))
    }
}

impl std::fmt::Display for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbUrl::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            DbUrl::Memory => f.write_str("sqlite::memory:"),
        }
    }
}

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be opened or created.
    #[error("cannot open the database {url}: {source}")]
    Open {
        /// Which database.
        url: String,
        /// Why.
        source: sqlx::Error,
    },
    /// The schema cannot be brought up to date.
    #[error("cannot update the database {url} to this version's schema: {source}")]
    Migrate {
        /// Which database.
        url: String,
        /// Why.
        source: sqlx::migrate::MigrateError,
    },
    /// A query failed (the disk is full, the file is locked or damaged...).
    #[error("the database failed: {0}")]
    Query(#[from] sqlx::Error),
    /// What the database holds cannot be read back.
    #[error("the database holds damaged data: {0}")]
    Damaged(String),
}

/// A count as SQL keeps it (a signed 64-bit integer).
fn clamp(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A count read back from SQL.
fn unclamp(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// What a recording's row shows in lists.
const LISTED: &str = "SELECT id, player, game, args, state, inputs, duration_ms, outcome, started_at FROM recordings";

// Rows are read with `try_get`: a damaged or hand-edited database gives an error to
// report, never a panic.

fn listed(row: &SqliteRow) -> Result<Listed, sqlx::Error> {
    let outcome: Option<String> = row.try_get("outcome")?;
    let state: String = row.try_get("state")?;
    Ok(Listed {
        id: row.try_get("id")?,
        player: row.try_get("player")?,
        game: row.try_get("game")?,
        args: row.try_get("args")?,
        state: RecordingState::from_word(&state),
        inputs: unclamp(row.try_get("inputs")?),
        duration_ms: unclamp(row.try_get("duration_ms")?),
        outcome: outcome.as_deref().and_then(Outcome::from_word),
        started_at: row.try_get("started_at")?,
    })
}

/// What a result row says was reached (`None`: an outcome this server never writes).
fn finish_of(row: &SqliteRow) -> Result<Option<Finish>, sqlx::Error> {
    let outcome: String = row.try_get("outcome")?;
    let level: String = row.try_get("level")?;
    let Some(outcome) = Outcome::from_word(&outcome) else {
        return Ok(None);
    };
    Ok(Some(Finish {
        level: Some(level),
        outcome,
        moves: unclamp(row.try_get("moves")?),
        pushes: unclamp(row.try_get("pushes")?),
        score: unclamp(row.try_get("score")?),
        largest_tile: unclamp(row.try_get("largest_tile")?),
        gold: row.try_get("gold")?,
    }))
}

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
}

/// A new recording, for [`Change::Open`].
#[derive(Debug, Clone)]
pub struct NewRecording {
    /// Its id ([`Store::next_recording_id`]).
    pub id: i64,
    /// The player's name as shown.
    pub player: String,
    /// The name in lower case.
    pub player_key: String,
    /// Whether the name is registered.
    pub registered: bool,
    /// How the game began.
    pub start: Start,
    /// Unix milliseconds.
    pub started_at: i64,
}

/// A result, for [`Change::Result`].
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
}

/// One change the recorder writes ([`Store::write`]).
#[derive(Debug, Clone)]
pub enum Change {
    /// A recording begins.
    Open(Box<NewRecording>),
    /// Input lines of recording `id`, encoded ([`recording::encode_input`]), one
    /// after the other.
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

/// Rows one INSERT carries at most: far below SQLite's limit of bound values.
const ROWS_PER_STATEMENT: usize = 500;

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

/// A registered player, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The name as the player chose it.
    pub name: String,
    /// The password's Argon2id hash in PHC format.
    pub password_hash: String,
    /// The player's settings, as `chat=on keys=off`.
    pub settings: String,
}

/// The outcome of registering a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    /// The account was made.
    Created,
    /// Someone registered the name first.
    Taken,
}

/// The database: cheap to clone (a pool of connections inside).
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
}

/// How long a query waits for a lock another connection holds before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

impl Store {
    /// Open the store at `url`, creating the database and its schema if needed.
    ///
    /// # Errors
    /// [`StoreError::Open`] or [`StoreError::Migrate`], naming the database.
    pub async fn open(url: &DbUrl) -> Result<Store, StoreError> {
        let (options, connections) = match url {
            DbUrl::Sqlite(path) => (
                SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .busy_timeout(BUSY_TIMEOUT)
                    // With WAL, NORMAL syncs at checkpoints, not at every commit: a
                    // power cut may lose the last commits (at most what the recorder
                    // says a crash loses), an application crash loses nothing.
                    .synchronous(SqliteSynchronous::Normal)
                    // 8 MiB of page cache per connection instead of 2: a second's
                    // input lines of 10,000 players touch the last page of each of
                    // their recordings (bench row 2: 11 µs a command with 1 MiB).
                    .pragma("cache_size", "-8192"),
                4,
            ),
            // Every connection to `:memory:` is a database of its own: keep one.
            DbUrl::Memory => (SqliteConnectOptions::new().in_memory(true), 1),
        };
        let pool = SqlitePoolOptions::new()
            .max_connections(connections)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                url: url.to_string(),
                source,
            })?;
        sqlx::migrate!("migrations/sqlite")
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                url: url.to_string(),
                source,
            })?;
        Ok(Store { pool })
    }

    /// The account of the name whose lower-case form is `key`, if it is registered.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn account(&self, key: &str) -> Result<Option<Account>, StoreError> {
        let row =
            sqlx::query("SELECT name, password_hash, settings FROM accounts WHERE name_key = ?")
                .bind(key)
                .fetch_optional(&self.pool)
                .await?;
        row.map(|row| {
            Ok(Account {
                name: row.try_get("name")?,
                password_hash: row.try_get("password_hash")?,
                settings: row.try_get("settings")?,
            })
        })
        .transpose()
    }

    /// Register `name` (whose lower-case form is `key`) with a password hash and
    /// settings, unless it is registered already.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn register(
        &self,
        key: &str,
        name: &str,
        password_hash: &str,
        settings: &str,
    ) -> Result<Registered, StoreError> {
        let created_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
            });
        let result = sqlx::query(
            "INSERT INTO accounts (name_key, name, password_hash, settings, created_at) \
             VALUES (?, ?, ?, ?, ?) ON CONFLICT (name_key) DO NOTHING",
        )
        .bind(key)
        .bind(name)
        .bind(password_hash)
        .bind(settings)
        .bind(created_at)
        .execute(&self.pool)
        .await?;
        Ok(if result.rows_affected() == 1 {
            Registered::Created
        } else {
            Registered::Taken
        })
    }

    /// Keep a registered player's settings.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn save_settings(&self, key: &str, settings: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE accounts SET settings = ? WHERE name_key = ?")
            .bind(settings)
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The first free recording id: the server numbers its recordings itself, so that
    /// a session never waits for the database to start one.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn next_recording_id(&self) -> Result<i64, StoreError> {
        let next: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) + 1 FROM recordings")
            .fetch_one(&self.pool)
            .await?;
        Ok(next)
    }

    /// After a crash: recordings still open belonged to sessions that are gone. A
    /// registered player's becomes unfinished (resume finds it), a guest's ended.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn close_open_recordings(&self) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE recordings SET state = CASE WHEN registered = 1 THEN 'unfinished' ELSE 'ended' END \
             WHERE state = 'open'",
        )
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// Write a batch of the recorder's changes in one transaction. Rows of a kind go
    /// in together, a few hundred to a statement (a second of 10,000 players is
    /// thousands of rows, and a statement costs more than a row); state changes go in
    /// their order, after the recordings they change.
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
        // In key order, so that one statement's rows fill neighbouring pages.
        inputs.sort_unstable_by_key(|&(id, first, _)| (id, first));
        let mut tx = self.pool.begin().await?;
        for chunk in opens.chunks(ROWS_PER_STATEMENT) {
            QueryBuilder::<Sqlite>::new(
                "INSERT INTO recordings (id, player, player_key, registered, game, args, memory, world, started_at, state) ",
            )
            .push_values(chunk, |mut row, open| {
                row.push_bind(open.id)
                    .push_bind(&open.player)
                    .push_bind(&open.player_key)
                    .push_bind(open.registered)
                    .push_bind(&open.start.game)
                    .push_bind(open.start.args.join(" "))
                    .push_bind(&open.start.memory)
                    .push_bind(&open.start.world)
                    .push_bind(open.started_at)
                    .push_bind(RecordingState::Open.as_str());
            })
            .build()
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
                    sqlx::query(
                        "UPDATE recordings SET state = ?, outcome = COALESCE(?, outcome), \
                         inputs = COALESCE(?, inputs), duration_ms = COALESCE(?, duration_ms) WHERE id = ?",
                    )
                    .bind(state.as_str())
                    .bind(outcome.map(Outcome::as_str))
                    .bind(count)
                    .bind(duration)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                }
                Change::Discard { player_key } => {
                    sqlx::query(
                        "UPDATE recordings SET state = 'discarded' WHERE player_key = ? AND state = 'unfinished'",
                    )
                    .bind(player_key)
                    .execute(&mut *tx)
                    .await?;
                }
                Change::Open(_) | Change::Inputs { .. } | Change::Result(_) => {}
            }
        }
        for chunk in inputs.chunks(ROWS_PER_STATEMENT) {
            QueryBuilder::<Sqlite>::new("INSERT INTO inputs (recording_id, batch, lines) ")
                .push_values(chunk, |mut row, &(id, first, lines)| {
                    row.push_bind(id).push_bind(first).push_bind(lines);
                })
                .build()
                .execute(&mut *tx)
                .await?;
        }
        for chunk in results.chunks(ROWS_PER_STATEMENT) {
            QueryBuilder::<Sqlite>::new(
                "INSERT INTO results (recording_id, upto, player, player_key, registered, game, level, args, \
                 outcome, moves, pushes, score, largest_tile, gold, duration_ms, finished_at) ",
            )
            .push_values(chunk, |mut row, result| {
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
                    .push_bind(result.finished_at);
            })
            .build()
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The recording `id`, whole, with what the lists show of it.
    ///
    /// # Errors
    /// [`StoreError::Query`]; [`StoreError::Damaged`] when its inputs cannot be read.
    pub async fn recording(&self, id: i64) -> Result<Option<(Listed, Recording)>, StoreError> {
        let Some(row) = sqlx::query(AssertSqlSafe(format!("{LISTED} WHERE id = ?")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let listed = listed(&row)?;
        let args: String = row.try_get("args")?;
        let (memory, world): (String, Option<String>) =
            sqlx::query_as("SELECT memory, world FROM recordings WHERE id = ?")
                .bind(id)
                .fetch_one(&self.pool)
                .await?;
        let start = Start {
            game: listed.game.clone(),
            args: args.split_whitespace().map(String::from).collect(),
            memory,
            world,
        };
        let batches: Vec<String> =
            sqlx::query_scalar("SELECT lines FROM inputs WHERE recording_id = ? ORDER BY batch")
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
        let mut inputs = Vec::new();
        for batch in &batches {
            recording::decode_inputs(batch, &mut inputs)
                .map_err(|error| StoreError::Damaged(format!("recording {id}: {error}")))?;
        }
        Ok(Some((listed, Recording { start, inputs })))
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
        let rows = match player_key {
            Some(key) => {
                sqlx::query(AssertSqlSafe(format!(
                    "{LISTED} WHERE player_key = ? ORDER BY id DESC LIMIT ?"
                )))
                .bind(key)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
            }
            None => {
                sqlx::query(AssertSqlSafe(format!("{LISTED} ORDER BY id DESC LIMIT ?")))
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        Ok(rows.iter().map(listed).collect::<Result<_, _>>()?)
    }

    /// The registered player's newest game that is unfinished, or still open (its
    /// connection may be closing, as in a takeover): id, game and state.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn waiting_game(
        &self,
        player_key: &str,
    ) -> Result<Option<(i64, String, RecordingState)>, StoreError> {
        let row = sqlx::query(
            "SELECT id, game, state FROM recordings WHERE player_key = ? AND registered = 1 \
             AND state IN ('unfinished', 'open') ORDER BY id DESC LIMIT 1",
        )
        .bind(player_key)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            let state: String = row.try_get("state")?;
            Ok((
                row.try_get("id")?,
                row.try_get("game")?,
                RecordingState::from_word(&state),
            ))
        })
        .transpose()
    }

    /// Results not yet checked by replay, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn pending_results(&self, limit: u32) -> Result<Vec<Pending>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, recording_id, upto, level, outcome, moves, pushes, score, largest_tile, gold \
             FROM results WHERE verified IS NULL ORDER BY id LIMIT ?",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let pending = rows.iter().map(|row| {
            Ok(Pending {
                id: row.try_get("id")?,
                recording_id: row.try_get("recording_id")?,
                upto: unclamp(row.try_get("upto")?),
                finish: finish_of(row)?,
            })
        });
        Ok(pending.collect::<Result<_, sqlx::Error>>()?)
    }

    /// Mark results checked, in one transaction: each on the leaderboards (`true`)
    /// or kept out.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn set_verified(&self, marks: &[(i64, bool)]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        for &(id, same_end) in marks {
            sqlx::query("UPDATE results SET verified = ? WHERE id = ?")
                .bind(same_end)
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The best ten of one leaderboard, one line per player (their best result).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn top(
        &self,
        game: &str,
        level: &str,
        board: Board,
    ) -> Result<Vec<Ranked>, StoreError> {
        // A player's best result, then the players in order; ties go to the earlier.
        let (filter, best, order) = match board {
            Board::Moves => (
                "outcome = 'solved'",
                "moves, pushes, id",
                "moves, pushes, id",
            ),
            Board::Pushes => (
                "outcome = 'solved'",
                "pushes, moves, id",
                "pushes, moves, id",
            ),
            Board::Score => ("1 = 1", "score DESC, id", "score DESC, id"),
            Board::Gold => ("gold = 1", "moves, id", "wins DESC, moves, id"),
        };
        let query = format!(
            "SELECT player, moves, pushes, score, largest_tile, wins, duration_ms, finished_at FROM ( \
               SELECT *, COUNT(*) OVER (PARTITION BY player_key) AS wins, \
                 ROW_NUMBER() OVER (PARTITION BY player_key ORDER BY {best}) AS place \
               FROM results WHERE game = ? AND level = ? AND verified = 1 AND {filter}) \
             WHERE place = 1 ORDER BY {order} LIMIT 10"
        );
        // Built from the constants above only: nothing a player typed.
        let rows = sqlx::query(AssertSqlSafe(query))
            .bind(game)
            .bind(level)
            .fetch_all(&self.pool)
            .await?;
        let ranked = rows.iter().map(|row| {
            Ok(Ranked {
                player: row.try_get("player")?,
                moves: unclamp(row.try_get("moves")?),
                pushes: unclamp(row.try_get("pushes")?),
                score: unclamp(row.try_get("score")?),
                largest_tile: unclamp(row.try_get("largest_tile")?),
                wins: unclamp(row.try_get("wins")?),
                duration_ms: unclamp(row.try_get("duration_ms")?),
                finished_at: row.try_get("finished_at")?,
            })
        });
        Ok(ranked.collect::<Result<_, sqlx::Error>>()?)
    }

    /// Every leaderboard that has a checked result: game, level and how many results.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn boards(&self) -> Result<Vec<(String, String, u64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT game, level, COUNT(*) AS n FROM results WHERE verified = 1 \
             GROUP BY game, level ORDER BY game, level",
        )
        .fetch_all(&self.pool)
        .await?;
        let boards = rows.iter().map(|row| {
            Ok((
                row.try_get("game")?,
                row.try_get("level")?,
                unclamp(row.try_get("n")?),
            ))
        });
        Ok(boards.collect::<Result<_, sqlx::Error>>()?)
    }

    /// A player's results, checked ones only, oldest first, and their recordings'
    /// count and time played.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn stats(&self, player_key: &str) -> Result<Stats, StoreError> {
        let totals = sqlx::query(
            "SELECT COUNT(*) AS games, COALESCE(SUM(duration_ms), 0) AS played, MAX(player) AS player \
             FROM recordings WHERE player_key = ?",
        )
        .bind(player_key)
        .fetch_one(&self.pool)
        .await?;
        let rows = sqlx::query(
            "SELECT game, level, outcome, moves, pushes, score, largest_tile, gold FROM results \
             WHERE player_key = ? AND verified = 1 ORDER BY id",
        )
        .bind(player_key)
        .fetch_all(&self.pool)
        .await?;
        let mut results = Vec::with_capacity(rows.len());
        for row in &rows {
            if let Some(finish) = finish_of(row)? {
                results.push((row.try_get("game")?, finish));
            }
        }
        Ok(Stats {
            player: totals.try_get("player")?,
            games: unclamp(totals.try_get("games")?),
            played_ms: unclamp(totals.try_get("played")?),
            results,
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
        let rows = sqlx::query(
            "SELECT id, player, game, level, outcome, moves, pushes, score, duration_ms, finished_at \
             FROM results WHERE verified = 1 AND finished_at >= ? AND id > ? ORDER BY id LIMIT ?",
        )
        .bind(since_ms)
        .bind(after)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let graded = rows.iter().map(|row| {
            Ok(Graded {
                id: row.try_get("id")?,
                player: row.try_get("player")?,
                game: row.try_get("game")?,
                level: row.try_get("level")?,
                outcome: row.try_get("outcome")?,
                moves: unclamp(row.try_get("moves")?),
                pushes: unclamp(row.try_get("pushes")?),
                score: unclamp(row.try_get("score")?),
                duration_ms: unclamp(row.try_get("duration_ms")?),
                finished_at: row.try_get("finished_at")?,
            })
        });
        Ok(graded.collect::<Result<_, sqlx::Error>>()?)
    }

    /// Delete up to `batch` recordings that started before `cutoff_ms` and are not
    /// kept: a guest's or unregistered name's, or a registered player's without a
    /// result. Unfinished games are kept. Their inputs and results go with them.
    /// Returns how many were deleted.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn sweep(&self, cutoff_ms: i64, batch: u32) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM recordings r WHERE started_at < ? AND state NOT IN ('open', 'unfinished') \
             AND NOT (registered = 1 AND EXISTS (SELECT 1 FROM results WHERE recording_id = r.id)) \
             ORDER BY id LIMIT ?",
        )
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
                sqlx::query(table).bind(id).execute(&mut *tx).await?;
            }
        }
        tx.commit().await?;
        Ok(ids.len() as u64)
    }

    /// Forget every account: the fuzz target's inputs each start from an empty store
    /// without paying for a new one.
    pub(crate) async fn clear(&self) -> Result<(), StoreError> {
        for table in [
            "DELETE FROM accounts",
            "DELETE FROM inputs",
            "DELETE FROM results",
            "DELETE FROM recordings",
        ] {
            sqlx::query(table).execute(&self.pool).await?;
        }
        Ok(())
    }

    /// This instance's number among the instances sharing the store (PostgreSQL);
    /// `None` for a store of its own (SQLite). PLACEHOLDER until the PostgreSQL store.
    pub fn instance(&self) -> Option<u64> {
        std::env::var("ARCADE_TEST_INSTANCE").ok()?.parse().ok()
    }

    /// Close every connection, so that the file is complete on disk.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            "sqlite:///tmp/x.db".parse(),
            Ok(DbUrl::Sqlite(PathBuf::from("/tmp/x.db")))
        );
        assert_eq!(
            "sqlite://data/arcade.db"
                .parse::<DbUrl>()
                .map(|url| url.to_string()),
            Ok(String::from("sqlite://data/arcade.db"))
        );
        assert_eq!("sqlite::memory:".parse(), Ok(DbUrl::Memory));
        for bad in ["", "sqlite://", "mysql://x", "/tmp/x.db"] {
            assert!(bad.parse::<DbUrl>().is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn accounts_are_kept_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        let url = DbUrl::in_data_dir(dir.path());
        let store = Store::open(&url).await.unwrap();
        assert_eq!(store.account("ann").await.unwrap(), None);
        assert_eq!(
            store
                .register("ann", "Ann", "$hash", "chat=on")
                .await
                .unwrap(),
            Registered::Created
        );
        assert_eq!(
            store.register("ann", "ANN", "$other", "").await.unwrap(),
            Registered::Taken
        );
        store.save_settings("ann", "chat=off").await.unwrap();
        store.close().await;
        let again = Store::open(&url).await.unwrap();
        assert_eq!(
            again.account("ann").await.unwrap(),
            Some(Account {
                name: String::from("Ann"),
                password_hash: String::from("$hash"),
                settings: String::from("chat=off"),
            })
        );
    }

    #[tokio::test]
    async fn a_database_in_memory_works_for_its_life() {
        let store = Store::open(&DbUrl::Memory).await.unwrap();
        store.register("bo", "Bo", "$h", "").await.unwrap();
        assert!(store.account("bo").await.unwrap().is_some());
    }

    #[tokio::test]
    async fn a_database_that_cannot_be_made_is_reported_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "not a folder").unwrap();
        let url = DbUrl::Sqlite(blocker.join("arcade.db"));
        let error = Store::open(&url).await.unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("cannot open the database {url}: ")),
            "{error}"
        );
    }
}
