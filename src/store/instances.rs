//! Several instances on one PostgreSQL: each registers itself in `instances` and
//! renews its heartbeat every second ([`Store::instance`] is its id); recordings say
//! which instance has them open, and only those of an instance whose heartbeat has
//! stopped are closed by the others. A gone instance's number is taken again by the
//! next to start (numbers stay small: they name instances on the bus, and their
//! guests and races are numbered from them). Recording ids come in blocks from a
//! sequence ([`Store::recording_ids`]), so that no two instances give the same one.
//!
//! SQLite has one instance per file: its number is random, its ids every one from
//! the first free, and what it finds open at start is what a crash left.

use std::ops::Range;
use std::time::Duration;

use sqlx::postgres::PgPool;
use sqlx::AssertSqlSafe;

use super::engine::Engine;
use super::{Store, StoreError};

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
pub(super) fn close_stale_sql(and: &str) -> String {
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
pub(super) async fn claim_instance(pool: &PgPool) -> Result<(i64, i64), sqlx::Error> {
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
pub(super) async fn heartbeat_loop(pool: PgPool, instance: i64, claimed: i64) {
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

/// PostgreSQL: let go of this instance's claim, so that its number is free for the
/// next instance to start at once (and its heartbeat, if one is on its way, no
/// longer renews it).
pub(super) async fn leave(pool: &PgPool, instance: i64, claimed: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE instances SET heartbeat_at = 0 WHERE id = $1 AND started_at = $2")
        .bind(instance)
        .bind(claimed)
        .execute(pool)
        .await?;
    Ok(())
}

impl Store {
    /// Recording ids this instance may give, so that a session never waits for the
    /// database to start a recording a recording. SQLite: every id from the first free one (one
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
}
