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
//! Every query is written once, in the SQL both engines read (`engine`): each
//! method's body is compiled once for each engine's pool. The few statements only
//! one engine has (instances, id sequences, row locks) say so where they are.
//!
//! This file holds the handle, its opening and closing; the rest is one file per thing
//! kept, each with its queries and its rows: `url` (where the store lives), `instances`
//! (several instances on one PostgreSQL, recording ids), `accounts`, `recordings` (and
//! the recorder's batches of changes), `input_log` (where their input lines are
//! appended before they move to `inputs`), `search` (recordings found by player,
//! game, level and date, for the web page), `results` (leaderboards, stats, the results
//! CSV), `ssh_keys` (players' public keys for SSH), `bot_tokens` (the hashes of
//! players' bot tokens), `ladders` (ladders, their entrants' results per seed, the
//! built-in agents' baselines). Checking a result and the sweep are safe to run on
//! every instance at once.

mod accounts;
mod bot_tokens;
mod engine;
mod input_log;
mod instances;
mod ladders;
mod priority;
mod recordings;
mod results;
mod search;
mod ssh_keys;
mod url;

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

pub use accounts::{Account, Registered};
pub use bot_tokens::{StoredToken, TokenAdded};
pub use instances::{HEARTBEAT_EVERY, RECORDING_ID_BLOCK, STALE_AFTER_MS};
pub use ladders::{Ladder, LadderResult, LadderSpec, NewLadderResult};
pub use recordings::{
    Change, Listed, NewRecording, Played, RecordingHead, RecordingState, Start, StoredRecording,
};
pub use results::{Graded, NewResult, Pending, Ranked, Stats};
pub use search::RecordingFilter;
pub use ssh_keys::{KeyAdded, StoredKey};
pub use url::{masked as masked_url, BadDbUrl, DbUrl, UrlParser};

use engine::{on_engine, Engine};

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

/// The database: cheap to clone (a pool of connections inside). One pointer: every
/// session's seat holds a clone, so its size is every session's.
#[derive(Debug, Clone)]
pub struct Store {
    shared: std::sync::Arc<Shared>,
}

/// What every clone of a [`Store`] shares.
#[derive(Debug)]
struct Shared {
    /// The pool of connections.
    engine: Engine,
    /// This instance's id ([`Store::instance`]).
    instance: i64,
    /// When it claimed that id (PostgreSQL): the claim's other half.
    claimed: i64,
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
                let (instance, claimed) = instances::claim_instance(&pool)
                    .await
                    .map_err(open_failed)?;
                tokio::spawn(instances::heartbeat_loop(pool.clone(), instance, claimed));
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
            // Each connection's thread below the sessions' (store::priority).
            .after_connect(|_, _| {
                Box::pin(async {
                    priority::lower_sqlite_threads();
                    Ok(())
                })
            })
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

    /// Forget every account: the fuzz target's inputs each start from an empty store
    /// without paying for a new one.
    pub(crate) async fn clear(&self) -> Result<(), StoreError> {
        for table in [
            "DELETE FROM accounts",
            "DELETE FROM inputs",
            "DELETE FROM input_log",
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
                let leave = instances::leave(pool, self.shared.instance, self.shared.claimed);
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
