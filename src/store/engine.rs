//! The engine behind the store, and how one query's text serves both.
//!
//! Every query is written once, in the SQL both engines read, with `?` for its
//! parameters (rewritten to PostgreSQL's `$1, $2, ...`): [`on_engine!`] compiles each
//! method's body once for each engine's pool, so rows and parameters are typed for
//! each. Counts cross into SQL as signed 64-bit integers, through [`clamp`] and
//! [`unclamp`].

use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;
use sqlx::AssertSqlSafe;

/// The pool of the engine behind the store.
#[derive(Debug, Clone)]
pub(super) enum Engine {
    /// An SQLite file, or a database in memory.
    Sqlite(SqlitePool),
    /// A PostgreSQL database, which several instances may share.
    Postgres(PgPool),
}

impl Engine {
    /// The statement that locks an account's row (`?`: its name key) until the end
    /// of the transaction, so that two adds under one account's cap take turns:
    /// PostgreSQL's READ COMMITTED would let each count before the other's insert.
    /// None on SQLite, which writes one transaction at a time anyway.
    pub(super) fn account_lock(&self) -> Option<&'static str> {
        match self {
            Engine::Sqlite(_) => None,
            Engine::Postgres(_) => Some("SELECT 1 FROM accounts WHERE name_key = ? FOR UPDATE"),
        }
    }
}

/// A count as SQL keeps it (a signed 64-bit integer).
pub(super) fn clamp(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A count read back from SQL.
pub(super) fn unclamp(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// A query's text for SQLite, which reads `?` itself.
pub(super) fn sqlite_sql(text: &str) -> AssertSqlSafe<String> {
    AssertSqlSafe(text.to_string())
}

/// A query's text for PostgreSQL: each `?` becomes `$1`, `$2`, ... in order. The
/// store's queries have no `?` inside quotes.
pub(super) fn postgres_sql(text: &str) -> AssertSqlSafe<String> {
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
            $crate::store::engine::Engine::Sqlite($pool) => {
                let $sql = $crate::store::engine::sqlite_sql;
                $body
            }
            $crate::store::engine::Engine::Postgres($pool) => {
                let $sql = $crate::store::engine::postgres_sql;
                $body
            }
        }
    };
}
pub(super) use on_engine;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_numbered_for_postgres() {
        assert_eq!(
            postgres_sql("UPDATE t SET a = ? WHERE b = ? AND c = ?").0,
            "UPDATE t SET a = $1 WHERE b = $2 AND c = $3"
        );
        assert_eq!(sqlite_sql("a = ?").0, "a = ?");
    }
}
