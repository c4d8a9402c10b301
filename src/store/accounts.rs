//! Registered players: a name, its password's hash and the player's settings (SPEC
//! section 7), one row of `accounts` each, keyed by the name in lower case.

use super::engine::on_engine;
use super::{Store, StoreError};

/// A registered player, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow, serde::Serialize, serde::Deserialize)]
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

impl Store {
    /// The account of the name whose lower-case form is `key`, if it is registered.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn account(&self, key: &str) -> Result<Option<Account>, StoreError> {
        on_engine!(self, |pool, sql| {
            Ok(sqlx::query_as(sql(
                "SELECT name, password_hash, settings FROM accounts WHERE name_key = ?",
            ))
            .bind(key)
            .fetch_optional(pool)
            .await?)
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

    /// Set the password of `name` (whose lower-case form is `key`), registering it
    /// with default settings if it is not: what `arcade admin set-password` and
    /// `arcade accounts set-password` do, out of band. Whether the name was registered
    /// already.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn set_password(
        &self,
        key: &str,
        name: &str,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        let changed = on_engine!(self, |pool, sql| {
            sqlx::query(sql(
                "UPDATE accounts SET password_hash = ? WHERE name_key = ?",
            ))
            .bind(password_hash)
            .bind(key)
            .execute(pool)
            .await?
            .rows_affected()
        });
        if changed > 0 {
            return Ok(true);
        }
        // A race with a registration in between leaves the registration's password:
        // set it again.
        match self.register(key, name, password_hash, "").await? {
            Registered::Created => Ok(false),
            Registered::Taken => Box::pin(self.set_password(key, name, password_hash)).await,
        }
    }

    /// Delete the account of the name whose lower-case form is `key`: the name is free
    /// for anyone again. Its results and recordings stay. Whether there was one.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn delete_account(&self, key: &str) -> Result<bool, StoreError> {
        let deleted = on_engine!(self, |pool, sql| {
            sqlx::query(sql("DELETE FROM accounts WHERE name_key = ?"))
                .bind(key)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(deleted > 0)
    }

    /// Every registered name, in order, as chosen.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn account_names(&self) -> Result<Vec<String>, StoreError> {
        on_engine!(self, |pool, sql| {
            Ok(
                sqlx::query_scalar(sql("SELECT name FROM accounts ORDER BY name_key"))
                    .fetch_all(pool)
                    .await?,
            )
        })
    }
}
