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

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use sqlx::Row as _;

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
                    .busy_timeout(BUSY_TIMEOUT),
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
        Ok(row.map(|row| Account {
            name: row.get("name"),
            password_hash: row.get("password_hash"),
            settings: row.get("settings"),
        }))
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

    /// Forget every account: the fuzz target's inputs each start from an empty store
    /// without paying for a new one.
    pub(crate) async fn clear(&self) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM accounts")
            .execute(&self.pool)
            .await?;
        Ok(())
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
