//! What the server keeps across restarts: the database behind `--db URL`.
//!
//! The default is an embedded SQLite file, `DATA-DIR/arcade.db`, created with its
//! schema on first use: nothing to install. `--db postgres://...` puts it on a
//! PostgreSQL server instead, which several instances share (SPEC section 11). Each
//! engine's schema is a list of versioned migrations, `migrations/sqlite/` and
//! `migrations/postgres/`, the same tables with the same meaning, compiled into the
//! binary. The store is reached only through async calls, so no session's task ever
//! waits on the disk or the network; and it is used only for what is rare (a login, a
//! registration, a changed setting), never on a command's hot path.
//!
//! Every query is written once, in the SQL both engines read, with `?` for its
//! parameters (rewritten to PostgreSQL's `$1, $2, ...`): `on_engine!` compiles each
//! method's body once for each engine's pool. The few statements only one engine
//! has (instances, id sequences, row locks) say so where they are.
//!
//! Several instances on one PostgreSQL: each registers itself in `instances` and
//! renews its heartbeat every second ([`Store::instance`] is its id); recordings say
//! which instance has them open, and only those of an instance whose heartbeat has
//! stopped are closed by the others. Recording ids come in blocks from a sequence
//! ([`Store::recording_ids`]), result ids from the database; a gone instance's number
//! is taken again by the next to start (numbers stay small: they name instances on
//! the bus, and their guests and races are numbered from them); checking a result and the sweep are safe to run on
//! every instance at once.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, QueryBuilder, Row as _};

use crate::catalog::table::Board;
use crate::games::{Finish, Outcome};
use crate::records::recording::{self, Recording, Start};

/// Where the store lives, from `--db`.
#[derive(Clone, PartialEq, Eq)]
pub enum DbUrl {
    /// `sqlite://PATH`: an SQLite file, created if missing.
    Sqlite(PathBuf),
    /// `sqlite::memory:`: a database in memory, gone when the server stops (for tests
    /// and trials: accounts do not survive a restart).
    Memory,
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (or `postgresql://`): a PostgreSQL
    /// database, which several instances may share. The database must exist; its
    /// tables are created on first use.
    Postgres(String),
}

/// A `--db` value the server cannot use (its password, if it had one, masked).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--db {0}: use sqlite://PATH (an SQLite file, created if missing), sqlite::memory: \
     or postgres://USER:PASSWORD@HOST:PORT/DATABASE (an existing PostgreSQL database, \
     for several instances)"
)]
pub struct BadDbUrl(pub String);

impl FromStr for DbUrl {
    type Err = BadDbUrl;

    fn from_str(text: &str) -> Result<DbUrl, BadDbUrl> {
        if text == "sqlite::memory:" {
            return Ok(DbUrl::Memory);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            // sqlx's own parser: what it accepts here it connects with later.
            return match PgConnectOptions::from_str(text) {
                Ok(_) => Ok(DbUrl::Postgres(text.to_string())),
                Err(_) => Err(BadDbUrl(masked(text))),
            };
        }
        match text.strip_prefix("sqlite://") {
            Some(path) if !path.is_empty() => Ok(DbUrl::Sqlite(PathBuf::from(path))),
            _ => Err(BadDbUrl(masked(text))),
        }
    }
}

impl DbUrl {
    /// The default store: `arcade.db` in the data directory.
    pub fn in_data_dir(data_dir: &Path) -> DbUrl {
        DbUrl::Sqlite(data_dir.join("arcade.db"))
    }
}

/// `url` with its password, in the user part or as a `password=` parameter, replaced
/// by `***`: URLs are logged and shown in errors.
fn masked(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{name}:***@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    let path = match path.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) if key.eq_ignore_ascii_case("password") => {
                        format!("{key}=***")
                    }
                    _ => pair.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => path.to_string(),
    };
    format!("{scheme}://{authority}{path}")
}

impl std::fmt::Display for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbUrl::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            DbUrl::Memory => f.write_str("sqlite::memory:"),
            DbUrl::Postgres(url) => f.write_str(&masked(url)),
        }
    }
}

// By hand: the derived one would print the password.
impl std::fmt::Debug for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DbUrl({self})")
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
    /// A query failed (the disk is full, the file is locked or damaged, the database
    /// server is down or does not answer in time...).
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

/// A query's text for SQLite, which reads `?` itself.
fn sqlite_sql(text: &str) -> AssertSqlSafe<String> {
    AssertSqlSafe(text.to_string())
}

/// A query's text for PostgreSQL: each `?` becomes `$1`, `$2`, ... in order. The
/// queries of this file have no `?` inside quotes.
fn postgres_sql(text: &str) -> AssertSqlSafe<String> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut number = 0;
    for c in text.chars() {
        if c == '?' {
            number += 1;
            out.push('$');
            out.push_str(&number.to_string());
        } else {
            out.push(c);
        }
    }
    AssertSqlSafe(out)
}

/// Run a body written once on whichever engine the store has: `$pool` is that
/// engine's pool and `$sql` turns a query's text into that engine's. The body is
/// compiled once for each, so rows and parameters are typed for each.
macro_rules! on_engine {
    ($store:expr, |$pool:ident, $sql:ident| $body:expr) => {
        match &$store.shared.engine {
            Engine::Sqlite($pool) => {
                let $sql = sqlite_sql;
                $body
            }
            Engine::Postgres($pool) => {
                let $sql = postgres_sql;
                $body
            }
        }
    };
}

/// What a recording's row shows in lists.
const LISTED: &str = "SELECT id, player, game, args, state, inputs, duration_ms, outcome, started_at FROM recordings";

/// The columns the shared row readers below need, on either engine's rows. Rows are
/// read with `try_get`: a damaged or hand-edited database gives an error to report,
/// never a panic.
trait Columns {
    fn int(&self, name: &str) -> Result<i64, sqlx::Error>;
    fn text(&self, name: &str) -> Result<String, sqlx::Error>;
    fn maybe_text(&self, name: &str) -> Result<Option<String>, sqlx::Error>;
    fn flag(&self, name: &str) -> Result<bool, sqlx::Error>;
}

macro_rules! columns_of {
    ($row:ty) => {
        impl Columns for $row {
            fn int(&self, name: &str) -> Result<i64, sqlx::Error> {
                self.try_get(name)
            }
            fn text(&self, name: &str) -> Result<String, sqlx::Error> {
                self.try_get(name)
            }
            fn maybe_text(&self, name: &str) -> Result<Option<String>, sqlx::Error> {
                self.try_get(name)
            }
            fn flag(&self, name: &str) -> Result<bool, sqlx::Error> {
                self.try_get(name)
            }
        }
    };
}
columns_of!(SqliteRow);
columns_of!(PgRow);

fn listed(row: &impl Columns) -> Result<Listed, sqlx::Error> {
    let outcome = row.maybe_text("outcome")?;
    Ok(Listed {
        id: row.int("id")?,
        player: row.text("player")?,
        game: row.text("game")?,
        args: row.text("args")?,
        state: RecordingState::from_word(&row.text("state")?),
        inputs: unclamp(row.int("inputs")?),
        duration_ms: unclamp(row.int("duration_ms")?),
        outcome: outcome.as_deref().and_then(Outcome::from_word),
        started_at: row.int("started_at")?,
    })
}

/// What a result row says was reached (`None`: an outcome this server never writes).
fn finish_of(row: &impl Columns) -> Result<Option<Finish>, sqlx::Error> {
    let Some(outcome) = Outcome::from_word(&row.text("outcome")?) else {
        return Ok(None);
    };
    Ok(Some(Finish {
        level: Some(row.text("level")?),
        outcome,
        moves: unclamp(row.int("moves")?),
        pushes: unclamp(row.int("pushes")?),
        score: unclamp(row.int("score")?),
        largest_tile: unclamp(row.int("largest_tile")?),
        gold: row.flag("gold")?,
    }))
}

fn ranked(row: &impl Columns) -> Result<Ranked, sqlx::Error> {
    Ok(Ranked {
        player: row.text("player")?,
        moves: unclamp(row.int("moves")?),
        pushes: unclamp(row.int("pushes")?),
        score: unclamp(row.int("score")?),
        largest_tile: unclamp(row.int("largest_tile")?),
        wins: unclamp(row.int("wins")?),
        duration_ms: unclamp(row.int("duration_ms")?),
        finished_at: row.int("finished_at")?,
    })
}

fn graded(row: &impl Columns) -> Result<Graded, sqlx::Error> {
    Ok(Graded {
        id: row.int("id")?,
        player: row.text("player")?,
        game: row.text("game")?,
        level: row.text("level")?,
        outcome: row.text("outcome")?,
        moves: unclamp(row.int("moves")?),
        pushes: unclamp(row.int("pushes")?),
        score: unclamp(row.int("score")?),
        duration_ms: unclamp(row.int("duration_ms")?),
        finished_at: row.int("finished_at")?,
    })
}

fn pending(row: &impl Columns) -> Result<Pending, sqlx::Error> {
    Ok(Pending {
        id: row.int("id")?,
        recording_id: row.int("recording_id")?,
        upto: unclamp(row.int("upto")?),
        finish: finish_of(row)?,
    })
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

/// The database: cheap to clone (a pool of connections inside). One pointer: every
/// session's seat holds a clone, so its size is every session's.
#[derive(Debug, Clone)]
pub struct Store {
    shared: std::sync::Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    engine: Engine,
    /// This instance's id ([`Store::instance`]).
    instance: i64,
    /// When it claimed that id (PostgreSQL): the claim's other half.
    claimed: i64,
}

/// The pool of the engine behind the store.
#[derive(Debug, Clone)]
enum Engine {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// How long a query waits for a lock another connection holds before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections to PostgreSQL per instance: the recorder's writer, the verifier, the
/// sweep, the heartbeat and a few logins at once. Three instances take 24 of
/// PostgreSQL's default 100.
const PG_CONNECTIONS: u32 = 8;

/// How long a query waits for a connection: a database that is down gives an error
/// after this (the recorder retries, a login says to try later), not a hang.
const PG_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// How often an instance renews its heartbeat.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);

/// An instance whose heartbeat is this old (milliseconds) is gone: its open
/// recordings are closed by the others.
pub const STALE_AFTER_MS: i64 = 3_000;

/// Heartbeats between two closings of the recordings gone instances left open (a
/// player who logs in meanwhile has theirs closed at once by [`Store::waiting_game`]).
const CLOSE_STALE_EVERY: u64 = 5;

/// Recording ids one call of [`Store::recording_ids`] hands out on PostgreSQL: the
/// `INCREMENT BY` of the sequence `recording_ids` (migrations/postgres/0003).
pub const RECORDING_ID_BLOCK: i64 = 10_000;

/// PostgreSQL's clock in Unix milliseconds: heartbeats are written and judged by
/// one clock, whatever the instances' clocks say.
const PG_NOW_MS: &str = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

/// PostgreSQL: close the open recordings of instances whose heartbeat stopped (a
/// registered player's become unfinished, a guest's ended); `{and}` narrows them.
fn close_stale_sql(and: &str) -> String {
    format!(
        "UPDATE recordings r SET state = CASE WHEN registered THEN 'unfinished' ELSE 'ended' END, \
         instance = NULL WHERE state = 'open' {and} AND NOT EXISTS (SELECT 1 FROM instances i \
         WHERE i.id = r.instance AND i.heartbeat_at > {PG_NOW_MS} - {STALE_AFTER_MS})"
    )
}

/// PostgreSQL: this instance's number, the lowest a gone instance had (whose open
/// recordings it closes first, so that nothing open is ever under a live number it
/// did not open), or a new one. Numbers are reused so that they stay small: they
/// name the instance on the bus, and its guests and races are numbered from them.
/// Returns the number and when it was claimed (database milliseconds): the two
/// together are this instance's claim, which another instance's claim of the same
/// number replaces.
async fn claim_instance(pool: &PgPool) -> Result<(i64, i64), sqlx::Error> {
    let mut tx = pool.begin().await?;
    let gone: Option<i64> = sqlx::query_scalar(AssertSqlSafe(format!(
        "SELECT id FROM instances WHERE heartbeat_at <= {PG_NOW_MS} - {STALE_AFTER_MS} \
         ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
    )))
    .fetch_optional(&mut *tx)
    .await?;
    let claim: (i64, i64) = match gone {
        Some(id) => {
            sqlx::query(AssertSqlSafe(close_stale_sql("AND r.instance = $1")))
                .bind(id)
                .execute(&mut *tx)
                .await?;
            sqlx::query_as(AssertSqlSafe(format!(
                "UPDATE instances SET started_at = {PG_NOW_MS}, heartbeat_at = {PG_NOW_MS} \
                 WHERE id = $1 RETURNING id, started_at"
            )))
            .bind(id)
            .fetch_one(&mut *tx)
            .await?
        }
        None => {
            sqlx::query_as(AssertSqlSafe(format!(
                "INSERT INTO instances (started_at, heartbeat_at) \
                 VALUES ({PG_NOW_MS}, {PG_NOW_MS}) RETURNING id, started_at"
            )))
            .fetch_one(&mut *tx)
            .await?
        }
    };
    tx.commit().await?;
    Ok(claim)
}

/// Renew the heartbeat of `instance`, claimed at `claimed`, every [`HEARTBEAT_EVERY`]
/// until the pool closes, and now and then close what gone instances left open. A
/// claim let go ([`Store::close`]: heartbeat 0) or taken by another instance (this
/// one's heartbeat stopped for longer than [`STALE_AFTER_MS`], the database out of
/// reach) is never renewed.
async fn heartbeat_loop(pool: PgPool, instance: i64, claimed: i64) {
    let mut tick = tokio::time::interval(HEARTBEAT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let beat = format!(
        "UPDATE instances SET heartbeat_at = {PG_NOW_MS} \
         WHERE id = $1 AND started_at = $2 AND heartbeat_at > 0"
    );
    let mut lost = false;
    let close = close_stale_sql("");
    let mut beats = 0u64;
    let mut failing = false;
    loop {
        tick.tick().await;
        if pool.is_closed() {
            return;
        }
        beats += 1;
        let mut done = sqlx::query(AssertSqlSafe(beat.as_str()))
            .bind(instance)
            .bind(claimed)
            .execute(&pool)
            .await
            .map(|renewed| {
                if renewed.rows_affected() == 0 && !lost && !pool.is_closed() {
                    lost = true;
                    tracing::error!(
                        instance,
                        "this instance's number was taken by another after its heartbeat \
                         stopped (the database was out of reach): restart this instance"
                    );
                }
            });
        if done.is_ok() && beats.is_multiple_of(CLOSE_STALE_EVERY) {
            done = async {
                let closed = sqlx::query(AssertSqlSafe(close.as_str()))
                    .execute(&pool)
                    .await?;
                if closed.rows_affected() > 0 {
                    tracing::info!(
                        closed = closed.rows_affected(),
                        "recordings of instances that stopped closed (registered players' can be resumed)"
                    );
                }
                Ok::<(), sqlx::Error>(())
            }
            .await;
        }
        match done {
            Ok(()) if failing => {
                failing = false;
                tracing::warn!(instance, "the heartbeat reaches the database again");
            }
            Ok(()) => {}
            Err(error) if !failing => {
                failing = true;
                tracing::error!(instance, %error, "cannot renew this instance's heartbeat: retrying every second");
            }
            Err(_) => {}
        }
    }
}

impl Store {
    /// Open the store at `url`, creating the database's schema if needed (the file
    /// too, for SQLite). On PostgreSQL the instance registers itself and its
    /// heartbeat starts; migrations are safe when several instances start at once
    /// (sqlx's migrator holds an advisory lock while it runs).
    ///
    /// # Errors
    /// [`StoreError::Open`] or [`StoreError::Migrate`], naming the database.
    pub async fn open(url: &DbUrl) -> Result<Store, StoreError> {
        let open_failed = |source| StoreError::Open {
            url: url.to_string(),
            source,
        };
        let migrate_failed = |source| StoreError::Migrate {
            url: url.to_string(),
            source,
        };
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
            DbUrl::Postgres(text) => {
                let options = PgConnectOptions::from_str(text).map_err(open_failed)?;
                let pool = PgPoolOptions::new()
                    .max_connections(PG_CONNECTIONS)
                    .min_connections(1)
                    .acquire_timeout(PG_ACQUIRE_TIMEOUT)
                    // A connection found dead on acquiring (the database restarted) is
                    // dropped and a new one made: test_before_acquire, sqlx's default.
                    .idle_timeout(Some(Duration::from_secs(60)))
                    .connect_with(options)
                    .await
                    .map_err(open_failed)?;
                sqlx::migrate!("migrations/postgres")
                    .run(&pool)
                    .await
                    .map_err(migrate_failed)?;
                let (instance, claimed) = claim_instance(&pool).await.map_err(open_failed)?;
                tokio::spawn(heartbeat_loop(pool.clone(), instance, claimed));
                return Ok(Store {
                    shared: std::sync::Arc::new(Shared {
                        engine: Engine::Postgres(pool),
                        instance,
                        claimed,
                    }),
                });
            }
        };
        if let DbUrl::Sqlite(_) = url {
            // One connection first makes the file and switches it to WAL (which the
            // file keeps): the pool's first connections, made at once, would race to
            // switch a new file, and the loser fails with "database is locked".
            use sqlx::Connection as _;
            sqlx::SqliteConnection::connect_with(&options)
                .await
                .map_err(open_failed)?
                .close()
                .await
                .map_err(open_failed)?;
        }
        let pool = SqlitePoolOptions::new()
            .max_connections(connections)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options)
            .await
            .map_err(open_failed)?;
        sqlx::migrate!("migrations/sqlite")
            .run(&pool)
            .await
            .map_err(migrate_failed)?;
        Ok(Store {
            shared: std::sync::Arc::new(Shared {
                engine: Engine::Sqlite(pool),
                // One instance per file: a random number (the bus needs PostgreSQL,
                // whose instances number themselves).
                instance: i64::from(rand::random::<u32>() >> 1) + 1,
                claimed: 0,
            }),
        })
    }

    /// This instance's id: from the `instances` table on PostgreSQL (unique among
    /// the instances sharing the database), a random positive number on SQLite.
    pub fn instance(&self) -> i64 {
        self.shared.instance
    }

    /// Whether the store is on PostgreSQL (shared by several instances).
    pub fn is_shared(&self) -> bool {
        matches!(self.shared.engine, Engine::Postgres(_))
    }

    /// The account of the name whose lower-case form is `key`, if it is registered.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn account(&self, key: &str) -> Result<Option<Account>, StoreError> {
        on_engine!(self, |pool, sql| {
            let row = sqlx::query(sql(
                "SELECT name, password_hash, settings FROM accounts WHERE name_key = ?",
            ))
            .bind(key)
            .fetch_optional(pool)
            .await?;
            row.map(|row| {
                Ok(Account {
                    name: row.try_get("name")?,
                    password_hash: row.try_get("password_hash")?,
                    settings: row.try_get("settings")?,
                })
            })
            .transpose()
        })
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
        let result = on_engine!(self, |pool, sql| {
            sqlx::query(sql(
                "INSERT INTO accounts (name_key, name, password_hash, settings, created_at) \
                 VALUES (?, ?, ?, ?, ?) ON CONFLICT (name_key) DO NOTHING",
            ))
            .bind(key)
            .bind(name)
            .bind(password_hash)
            .bind(settings)
            .bind(created_at)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(if result == 1 {
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
        on_engine!(self, |pool, sql| {
            sqlx::query(sql("UPDATE accounts SET settings = ? WHERE name_key = ?"))
                .bind(settings)
                .bind(key)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// Recording ids this instance may give, so that a session never waits for the
    /// database to start a recording. SQLite: every id from the first free one (one
    /// instance per file). PostgreSQL: a block of [`RECORDING_ID_BLOCK`] from a
    /// sequence, which no other instance is given; ask again for the next block.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn recording_ids(&self) -> Result<Range<i64>, StoreError> {
        match &self.shared.engine {
            Engine::Sqlite(pool) => {
                let next: i64 =
                    sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) + 1 FROM recordings")
                        .fetch_one(pool)
                        .await?;
                Ok(next..i64::MAX)
            }
            Engine::Postgres(pool) => {
                let first: i64 = sqlx::query_scalar("SELECT nextval('recording_ids')")
                    .fetch_one(pool)
                    .await?;
                Ok(first..first.saturating_add(RECORDING_ID_BLOCK))
            }
        }
    }

    /// Recordings still open that belong to no running instance: a registered
    /// player's becomes unfinished (resume finds it), a guest's ended. On SQLite, at
    /// start, that is every open one (after a crash); on PostgreSQL, those of
    /// instances whose heartbeat stopped ([`STALE_AFTER_MS`]), never another live
    /// instance's.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn close_open_recordings(&self) -> Result<u64, StoreError> {
        let done = match &self.shared.engine {
            Engine::Sqlite(pool) => sqlx::query(
                "UPDATE recordings SET state = CASE WHEN registered THEN 'unfinished' ELSE 'ended' END, \
                 instance = NULL WHERE state = 'open'",
            )
            .execute(pool)
            .await?
            .rows_affected(),
            Engine::Postgres(pool) => sqlx::query(AssertSqlSafe(close_stale_sql("")))
                .execute(pool)
                .await?
                .rows_affected(),
        };
        Ok(done)
    }

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
        // In key order, so that one statement's rows fill neighbouring pages.
        inputs.sort_unstable_by_key(|&(id, first, _)| (id, first));
        let instance = self.shared.instance;
        on_engine!(self, |pool, sql| {
            let mut tx = pool.begin().await?;
            for chunk in opens.chunks(ROWS_PER_STATEMENT) {
                let mut insert = QueryBuilder::new(
                    "INSERT INTO recordings (id, player, player_key, registered, game, args, memory, world, started_at, state, instance) ",
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
                        .push_bind(instance);
                });
                insert.push(" ON CONFLICT DO NOTHING");
                insert.build().execute(&mut *tx).await?;
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
            for chunk in inputs.chunks(ROWS_PER_STATEMENT) {
                let mut insert =
                    QueryBuilder::new("INSERT INTO inputs (recording_id, batch, lines) ");
                insert.push_values(chunk, |mut row, &(id, first, lines)| {
                    row.push_bind(id).push_bind(first).push_bind(lines);
                });
                insert.push(" ON CONFLICT DO NOTHING");
                insert.build().execute(&mut *tx).await?;
            }
            for chunk in results.chunks(ROWS_PER_STATEMENT) {
                let mut insert = QueryBuilder::new(
                    "INSERT INTO results (recording_id, upto, player, player_key, registered, game, level, args, \
                     outcome, moves, pushes, score, largest_tile, gold, duration_ms, finished_at) ",
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
                        .push_bind(result.finished_at);
                });
                // One result per recording and input count (the index results_once).
                insert.push(" ON CONFLICT DO NOTHING");
                insert.build().execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The recording `id`, whole, with what the lists show of it.
    ///
    /// # Errors
    /// [`StoreError::Query`]; [`StoreError::Damaged`] when its inputs cannot be read.
    pub async fn recording(&self, id: i64) -> Result<Option<(Listed, Recording)>, StoreError> {
        let found = on_engine!(self, |pool, sql| {
            let Some(row) = sqlx::query(sql(
                "SELECT id, player, game, args, state, inputs, duration_ms, outcome, started_at, \
                 memory, world FROM recordings WHERE id = ?",
            ))
            .bind(id)
            .fetch_optional(pool)
            .await?
            else {
                return Ok(None);
            };
            let listed = listed(&row)?;
            let memory: String = row.try_get("memory")?;
            let world: Option<String> = row.try_get("world")?;
            let batches: Vec<String> = sqlx::query_scalar(sql(
                "SELECT lines FROM inputs WHERE recording_id = ? ORDER BY batch",
            ))
            .bind(id)
            .fetch_all(pool)
            .await?;
            (listed, memory, world, batches)
        });
        let (listed, memory, world, batches) = found;
        let start = Start {
            game: listed.game.clone(),
            args: listed.args.split_whitespace().map(String::from).collect(),
            memory,
            world,
        };
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
        let limit = i64::from(limit);
        on_engine!(self, |pool, sql| {
            let rows = match player_key {
                Some(key) => {
                    sqlx::query(sql(&format!(
                        "{LISTED} WHERE player_key = ? ORDER BY id DESC LIMIT ?"
                    )))
                    .bind(key)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?
                }
                None => {
                    sqlx::query(sql(&format!("{LISTED} ORDER BY id DESC LIMIT ?")))
                        .bind(limit)
                        .fetch_all(pool)
                        .await?
                }
            };
            Ok(rows.iter().map(listed).collect::<Result<_, _>>()?)
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
            let row = sqlx::query(sql(
                "SELECT id, game, state FROM recordings WHERE player_key = ? AND registered \
                 AND state IN ('unfinished', 'open') ORDER BY id DESC LIMIT 1",
            ))
            .bind(player_key)
            .fetch_optional(pool)
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
        })
    }

    /// Results not yet checked by replay, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn pending_results(&self, limit: u32) -> Result<Vec<Pending>, StoreError> {
        let limit = i64::from(limit);
        on_engine!(self, |pool, sql| {
            let rows = sqlx::query(sql(
                "SELECT id, recording_id, upto, level, outcome, moves, pushes, score, largest_tile, gold \
                 FROM results WHERE verified IS NULL ORDER BY id LIMIT ?",
            ))
            .bind(limit)
            .fetch_all(pool)
            .await?;
            Ok(rows.iter().map(pending).collect::<Result<_, _>>()?)
        })
    }

    /// Mark results checked, in one transaction: each on the leaderboards (`true`)
    /// or kept out. The first mark stands: instances checking the same result at once
    /// (each runs a verifier) change nothing of each other's.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn set_verified(&self, marks: &[(i64, bool)]) -> Result<(), StoreError> {
        on_engine!(self, |pool, sql| {
            let mut tx = pool.begin().await?;
            for &(id, same_end) in marks {
                sqlx::query(sql(
                    "UPDATE results SET verified = ? WHERE id = ? AND verified IS NULL",
                ))
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
            Board::Score => ("TRUE", "score DESC, id", "score DESC, id"),
            Board::Gold => ("gold", "moves, id", "wins DESC, moves, id"),
        };
        // Built from the constants above only: nothing a player typed.
        let query = format!(
            "SELECT player, moves, pushes, score, largest_tile, wins, duration_ms, finished_at FROM ( \
               SELECT *, COUNT(*) OVER (PARTITION BY player_key) AS wins, \
                 ROW_NUMBER() OVER (PARTITION BY player_key ORDER BY {best}) AS place \
               FROM results WHERE game = ? AND level = ? AND verified AND {filter}) AS best \
             WHERE place = 1 ORDER BY {order} LIMIT 10"
        );
        on_engine!(self, |pool, sql| {
            let rows = sqlx::query(sql(&query))
                .bind(game)
                .bind(level)
                .fetch_all(pool)
                .await?;
            Ok(rows.iter().map(ranked).collect::<Result<_, _>>()?)
        })
    }

    /// Every leaderboard that has a checked result: game, level and how many results.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn boards(&self) -> Result<Vec<(String, String, u64)>, StoreError> {
        on_engine!(self, |pool, sql| {
            let rows: Vec<(String, String, i64)> = sqlx::query_as(sql(
                "SELECT game, level, COUNT(*) AS n FROM results WHERE verified \
                 GROUP BY game, level ORDER BY game, level",
            ))
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
            let rows = sqlx::query(sql(
                "SELECT game, level, outcome, moves, pushes, score, largest_tile, gold FROM results \
                 WHERE player_key = ? AND verified ORDER BY id",
            ))
            .bind(player_key)
            .fetch_all(pool)
            .await?;
            let mut results = Vec::with_capacity(rows.len());
            for row in &rows {
                if let Some(finish) = finish_of(row)? {
                    results.push((row.try_get("game")?, finish));
                }
            }
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
            let rows = sqlx::query(sql(
                "SELECT id, player, game, level, outcome, moves, pushes, score, duration_ms, finished_at \
                 FROM results WHERE verified AND finished_at >= ? AND id > ? ORDER BY id LIMIT ?",
            ))
            .bind(since_ms)
            .bind(after)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            Ok(rows.iter().map(graded).collect::<Result<_, _>>()?)
        })
    }

    /// Delete up to `batch` recordings that started before `cutoff_ms` and are not
    /// kept: a guest's or unregistered name's, or a registered player's without a
    /// result. Unfinished games are kept. Their inputs and results go with them.
    /// Returns how many were deleted. On PostgreSQL the rows another instance's sweep
    /// is deleting at the same time are left to it.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn sweep(&self, cutoff_ms: i64, batch: u32) -> Result<u64, StoreError> {
        const OLD: &str = "SELECT id FROM recordings r WHERE started_at < ? \
             AND state NOT IN ('open', 'unfinished') \
             AND NOT (registered AND EXISTS (SELECT 1 FROM results WHERE recording_id = r.id)) \
             ORDER BY id LIMIT ?";
        let batch = i64::from(batch);
        let locked = match self.shared.engine {
            // One writer at a time: nothing to skip.
            Engine::Sqlite(_) => "",
            Engine::Postgres(_) => " FOR UPDATE SKIP LOCKED",
        };
        let old = format!("{OLD}{locked}");
        on_engine!(self, |pool, sql| {
            let mut tx = pool.begin().await?;
            let ids: Vec<i64> = sqlx::query_scalar(sql(&old))
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

    /// Forget every account: the fuzz target's inputs each start from an empty store
    /// without paying for a new one.
    pub(crate) async fn clear(&self) -> Result<(), StoreError> {
        for table in [
            "DELETE FROM accounts",
            "DELETE FROM inputs",
            "DELETE FROM results",
            "DELETE FROM recordings",
        ] {
            on_engine!(self, |pool, sql| {
                sqlx::query(sql(table)).execute(pool).await?;
            });
        }
        Ok(())
    }

    /// Close every connection, so that the file is complete on disk. On PostgreSQL
    /// the instance leaves `instances` first, so that what it left open (nothing, after
    /// a clean stop) is at once another's to close.
    pub async fn close(&self) {
        match &self.shared.engine {
            Engine::Sqlite(pool) => pool.close().await,
            Engine::Postgres(pool) => {
                // Its number is free for the next instance to start at once (and its
                // heartbeat, if one is on its way, no longer renews it).
                let leave = sqlx::query(
                    "UPDATE instances SET heartbeat_at = 0 WHERE id = $1 AND started_at = $2",
                )
                .bind(self.shared.instance)
                .bind(self.shared.claimed)
                .execute(pool);
                if let Ok(Err(error)) = tokio::time::timeout(PG_ACQUIRE_TIMEOUT, leave).await {
                    tracing::warn!(%error, "cannot remove this instance from the database's list");
                }
                pool.close().await;
            }
        }
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
        for good in ["postgres://a:b@127.0.0.1:5432/arcade", "postgresql://h/db"] {
            assert_eq!(good.parse(), Ok(DbUrl::Postgres(String::from(good))));
        }
        assert_eq!(
            masked("postgres://a:secret@h:1/db?password=secret&x=1"),
            "postgres://a:***@h:1/db?password=***&x=1"
        );
        for bad in ["", "sqlite://", "mysql://x", "/tmp/x.db"] {
            assert!(bad.parse::<DbUrl>().is_err(), "{bad}");
        }
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
