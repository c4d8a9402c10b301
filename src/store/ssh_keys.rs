//! The public keys registered players added for SSH logins (SPEC section 11,
//! `sshkey`): one row of `ssh_keys` each, in the OpenSSH one-line form, gone with
//! their account.

use super::engine::on_engine;
use super::{Store, StoreError};

/// A key as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredKey {
    /// Its row.
    pub id: i64,
    /// The OpenSSH one-line form: type, base64 and comment.
    pub key: String,
    /// Its SHA256 fingerprint (`SHA256:...`).
    pub fingerprint: String,
}

/// What adding a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAdded {
    /// It is kept.
    Added,
    /// The player had added it already.
    Known,
    /// The player has as many keys as allowed.
    Full,
}

impl Store {
    /// The keys of the player whose name's lower-case form is `key`, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn ssh_keys(&self, key: &str) -> Result<Vec<StoredKey>, StoreError> {
        on_engine!(self, |pool, sql| {
            Ok(sqlx::query_as(sql(
                "SELECT id, key, fingerprint FROM ssh_keys WHERE name_key = ? ORDER BY id",
            ))
            .bind(key)
            .fetch_all(pool)
            .await?)
        })
    }

    /// Add `public_key` (one-line form, with its `fingerprint`) to the keys of the
    /// player `name_key`, unless it has `max` keys already or this one. In one
    /// statement, so that two sessions adding at once cannot pass `max`.
    ///
    /// # Errors
    /// [`StoreError::Query`] (also when the account is gone).
    pub async fn add_ssh_key(
        &self,
        name_key: &str,
        public_key: &str,
        fingerprint: &str,
        max: usize,
    ) -> Result<KeyAdded, StoreError> {
        let added_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
            });
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        // Two adds at once must not both pass the cap: they take turns.
        let lock = self.shared.engine.account_lock();
        let inserted = on_engine!(self, |pool, sql| {
            let mut tx = pool.begin().await?;
            if let Some(lock) = lock {
                sqlx::query(sql(lock))
                    .bind(name_key)
                    .execute(&mut *tx)
                    .await?;
            }
            let inserted = sqlx::query(sql(
                "INSERT INTO ssh_keys (name_key, key, fingerprint, added_at) \
                 SELECT ?, ?, ?, ? \
                 WHERE (SELECT COUNT(*) FROM ssh_keys WHERE name_key = ?) < ? \
                 ON CONFLICT (name_key, fingerprint) DO NOTHING",
            ))
            .bind(name_key)
            .bind(public_key)
            .bind(fingerprint)
            .bind(added_at)
            .bind(name_key)
            .bind(max)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            inserted
        });
        if inserted == 1 {
            return Ok(KeyAdded::Added);
        }
        let keys = self.ssh_keys(name_key).await?;
        Ok(if keys.iter().any(|kept| kept.fingerprint == fingerprint) {
            KeyAdded::Known
        } else {
            KeyAdded::Full
        })
    }

    /// Remove key `id` of the player `name_key`: whether it was there.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn remove_ssh_key(&self, name_key: &str, id: i64) -> Result<bool, StoreError> {
        let deleted = on_engine!(self, |pool, sql| {
            sqlx::query(sql("DELETE FROM ssh_keys WHERE name_key = ? AND id = ?"))
                .bind(name_key)
                .bind(id)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(deleted == 1)
    }
}
