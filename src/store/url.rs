//! Where the store lives: the `--db` URL, parsed and checked before anything
//! connects, and shown with its password masked (URLs are logged and shown in errors).
//! The masking is [`masked`], which `--bus` uses too.

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

/// URL schemes whose user part alone (`nats://TOKEN@HOST`) is a secret: NATS reads a
/// user without a password as a token.
const TOKEN_SCHEMES: &[&str] = &["nats", "tls", "ws", "wss"];

/// `url` with its secrets replaced by `***`, as URLs are logged and shown in errors:
/// the password of the user part, a `password=` parameter, and a NATS URL's token
/// (a user part without a password). A list separated by commas (`--bus` with
/// several NATS servers, or PostgreSQL's hosts) is masked URL by URL; a comma inside
/// a password does not split it.
pub fn masked(url: &str) -> String {
    let mut urls: Vec<String> = Vec::new();
    for piece in url.split(',') {
        match urls.last_mut() {
            // A piece without a scheme belongs to the URL before it (a second host of
            // PostgreSQL's, or the rest of a password with a comma).
            Some(last) if !piece.contains("://") => {
                last.push(',');
                last.push_str(piece);
            }
            _ => urls.push(piece.to_string()),
        }
    }
    urls.iter()
        .map(|one| masked_one(one))
        .collect::<Vec<_>>()
        .join(",")
}

/// One URL of [`masked`]. The user part is everything before the URL's last `@`, so
/// that a password with a `/`, `?` or `@` that was not percent-encoded is masked whole
/// rather than shown in part (an `@` further on masks too much, never too little).
fn masked_one(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (user, tail) = match rest.rsplit_once('@') {
        Some((user, tail)) => {
            let user = match user.split_once(':') {
                Some((name, _)) => format!("{name}:***@"),
                None if TOKEN_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) => {
                    String::from("***@")
                }
                None => format!("{user}@"),
            };
            (user, tail)
        }
        None => (String::new(), rest),
    };
    let tail = match tail.split_once('?') {
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
        None => tail.to_string(),
    };
    format!("{scheme}://{user}{tail}")
}

/// clap's parser of a URL option that may hold a secret (`--db`, `--bus`): clap's own
/// message for a bad value repeats it as given, password included; this one says only
/// `T`'s error, which masks it.
pub struct UrlParser<T>(std::marker::PhantomData<fn() -> T>);

impl<T> UrlParser<T> {
    /// The parser of `T`.
    pub fn new() -> UrlParser<T> {
        UrlParser(std::marker::PhantomData)
    }
}

impl<T> Default for UrlParser<T> {
    fn default() -> UrlParser<T> {
        UrlParser::new()
    }
}

impl<T> Clone for UrlParser<T> {
    fn clone(&self) -> UrlParser<T> {
        UrlParser::new()
    }
}

impl<T> clap::builder::TypedValueParser for UrlParser<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let fail = |kind, message: String| clap::Error::raw(kind, message + "\n").with_cmd(cmd);
        let text = value.to_str().ok_or_else(|| {
            fail(
                clap::error::ErrorKind::InvalidUtf8,
                String::from("a URL option is not valid UTF-8"),
            )
        })?;
        text.parse().map_err(|error: T::Err| {
            fail(clap::error::ErrorKind::ValueValidation, error.to_string())
        })
    }
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
        assert_eq!(masked("postgres://ann@h/db"), "postgres://ann@h/db");
        assert_eq!(
            masked("postgres://a:pw@h1:5432,h2:5432/db"),
            "postgres://a:***@h1:5432,h2:5432/db"
        );
        for bad in ["", "sqlite://", "mysql://x", "/tmp/x.db"] {
            assert!(bad.parse::<DbUrl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn bus_urls_are_masked_server_by_server() {
        assert_eq!(
            masked("nats://u:secret@h1:4222,nats://u:secret@h2:4222"),
            "nats://u:***@h1:4222,nats://u:***@h2:4222"
        );
        // NATS reads a lone user part as a token.
        assert_eq!(masked("tls://s3cr3t@h:4222"), "tls://***@h:4222");
        // Not percent-encoded: a comma, a slash, an @ in the password.
        assert_eq!(masked("nats://u:pa,ss@h"), "nats://u:***@h");
        assert_eq!(masked("nats://u:p/a@ss@h:1"), "nats://u:***@h:1");
        assert_eq!(masked("nats://u:p?a=ss@h"), "nats://u:***@h");
        assert_eq!(masked("nats://h:4222"), "nats://h:4222");
    }
}
