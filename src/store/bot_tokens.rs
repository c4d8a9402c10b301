//! The tokens registered players made for their bots (SPEC section 12, `bottoken`):
//! one row of `bot_tokens` each, holding the token's SHA-256 hash (never the token),
//! the prefix `bottoken list` shows, when it was made and last used; gone with their
//! account. A bot's login finds its token by hash ([`Store::bot_token_matches`]).

use super::engine::on_engine;
use super::{Store, StoreError};

/// A token as the store keeps it (its hash aside: nothing shows it).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredToken {
    /// Its row.
    pub id: i64,
    /// `arcbot_` and the token's first hex digits.
    pub prefix: String,
    /// When it was made, Unix milliseconds.
    pub created_at: i64,
    /// When a bot last logged in with it, Unix milliseconds; `None`: never.
    pub last_used_at: Option<i64>,
}

/// What adding a token did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenAdded {
    /// It is kept, as the `n`th of the player's list (from 1, oldest first).
    Added(usize),
    /// The player holds as many tokens as allowed.
    Full,
}

/// Unix milliseconds now.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}

impl Store {
    /// The tokens of the player whose name's lower-case form is `name_key`, oldest
    /// first (as `bottoken list` numbers them).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn bot_tokens(&self, name_key: &str) -> Result<Vec<StoredToken>, StoreError> {
        on_engine!(self, |pool, sql| {
            Ok(sqlx::query_as(sql(
                "SELECT id, prefix, created_at, last_used_at FROM bot_tokens \
                 WHERE name_key = ? ORDER BY id",
            ))
            .bind(name_key)
            .fetch_all(pool)
            .await?)
        })
    }

    /// Keep the token whose SHA-256 hash (hex) is `token_hash`, shown as `prefix`, for
    /// the player `name_key`, unless the player holds `max` tokens already. Two
    /// sessions adding at once cannot pass `max`: the count and the insert are one
    /// statement, which SQLite runs under its one write lock; on PostgreSQL, where two
    /// such statements would each count without the other's row, the account's row is
    /// locked first (`FOR UPDATE`, which also waits for any transaction adding a
    /// token: its row's foreign key holds a share lock on the account), so the insert
    /// counts what the other added.
    ///
    /// # Errors
    /// [`StoreError::Query`] (also when the account is gone).
    pub async fn add_bot_token(
        &self,
        name_key: &str,
        token_hash: &str,
        prefix: &str,
        max: usize,
    ) -> Result<TokenAdded, StoreError> {
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        let lock = self.shared.engine.account_lock();
        let place = on_engine!(self, |pool, sql| {
            let mut tx = pool.begin().await?;
            if let Some(lock) = lock {
                sqlx::query(sql(lock))
                    .bind(name_key)
                    .execute(&mut *tx)
                    .await?;
            }
            let id: Option<i64> = sqlx::query_scalar(sql(
                "INSERT INTO bot_tokens (name_key, token_hash, prefix, created_at) \
                 SELECT ?, ?, ?, ? \
                 WHERE (SELECT COUNT(*) FROM bot_tokens WHERE name_key = ?) < ? \
                 RETURNING id",
            ))
            .bind(name_key)
            .bind(token_hash)
            .bind(prefix)
            .bind(now_ms())
            .bind(name_key)
            .bind(max)
            .fetch_optional(&mut *tx)
            .await?;
            let place = match id {
                Some(id) => Some(
                    sqlx::query_scalar::<_, i64>(sql(
                        "SELECT COUNT(*) FROM bot_tokens WHERE name_key = ? AND id <= ?",
                    ))
                    .bind(name_key)
                    .bind(id)
                    .fetch_one(&mut *tx)
                    .await?,
                ),
                None => None,
            };
            tx.commit().await?;
            place
        });
        Ok(match place {
            Some(n) => TokenAdded::Added(usize::try_from(n).unwrap_or(usize::MAX)),
            None => TokenAdded::Full,
        })
    }

    /// Revoke the `n`th token (from 1, oldest first) of the player `name_key`: the
    /// token revoked, or `None` when there is no `n`th. One statement, so that what
    /// is numbered is what is deleted.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn revoke_bot_token(
        &self,
        name_key: &str,
        n: usize,
    ) -> Result<Option<StoredToken>, StoreError> {
        let Some(skipped) = n.checked_sub(1).and_then(|n| i64::try_from(n).ok()) else {
            return Ok(None);
        };
        on_engine!(self, |pool, sql| {
            Ok(
                sqlx::query_as(sql("DELETE FROM bot_tokens WHERE name_key = ? AND id = \
                 (SELECT id FROM bot_tokens WHERE name_key = ? ORDER BY id LIMIT 1 OFFSET ?) \
                 RETURNING id, prefix, created_at, last_used_at"))
                .bind(name_key)
                .bind(name_key)
                .bind(skipped)
                .fetch_optional(pool)
                .await?,
            )
        })
    }

    /// Whether the player `name_key` holds the token whose SHA-256 hash (hex) is
    /// `token_hash`; when it does, the token's last use is now. The token is found by
    /// its hash in one `UPDATE`: a revoked token, or another player's, matches nothing.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn bot_token_matches(
        &self,
        name_key: &str,
        token_hash: &str,
    ) -> Result<bool, StoreError> {
        let updated = on_engine!(self, |pool, sql| {
            sqlx::query(sql(
                "UPDATE bot_tokens SET last_used_at = ? WHERE name_key = ? AND token_hash = ?",
            ))
            .bind(now_ms())
            .bind(name_key)
            .bind(token_hash)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(updated == 1)
    }
}
