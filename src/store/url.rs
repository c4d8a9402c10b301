//! Where the store lives: the `--db` URL, parsed and checked before anything
//! connects, and shown with its password masked (URLs are logged and shown in errors).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use sqlx::postgres::PgConnectOptions;

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
}
