//! Accounts managed out of band, on the server's store, from the command line:
//! `arcade admin set-password NAME`, `arcade accounts set-password|delete|list`.
//!
//! Why out of band: an `--admin` name registered over telnet belonged to whoever typed
//! `register` first, a student as likely as the teacher. The admin's password is set
//! here instead, by whoever can run commands on the server's machine (or reach its
//! `--db`), and telnet refuses `register` for an admin name. The same commands reset a
//! student's forgotten password and free a name.

use std::io::{self, BufRead as _, IsTerminal as _};

use crate::players::accounts::{hash_password, PlayerName, MAX_PASSWORD, MIN_PASSWORD};
use crate::store::{DbUrl, Store, StoreError};

/// What an account command could not do.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The name is no possible name.
    #[error("{name:?} is not a possible name: {why}")]
    BadName {
        /// As typed.
        name: String,
        /// Why not.
        why: crate::players::accounts::BadName,
    },
    /// The password was refused.
    #[error("{0}")]
    BadPassword(String),
    /// Standard input could not be read.
    #[error("cannot read the password: {0}")]
    Read(#[from] io::Error),
    /// The store failed.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The password could not be hashed.
    #[error("{0}")]
    Hash(#[from] crate::players::accounts::HashError),
    /// No such account.
    #[error("{0} is not registered in {1}.")]
    NotRegistered(String, String),
}

/// A name given on the command line (or in `--admin`): trimmed and checked as the
/// lobby checks names.
///
/// # Errors
/// [`AccountError::BadName`].
pub fn parse_name(text: &str) -> Result<PlayerName, AccountError> {
    let trimmed = text.trim();
    PlayerName::parse(trimmed).map_err(|why| AccountError::BadName {
        name: trimmed.to_string(),
        why,
    })
}

/// The new password: asked twice with echo off on a terminal, else the first line of
/// standard input (for scripts: `printf '%s\n' "$PW" | arcade admin set-password ann`).
///
/// # Errors
/// [`AccountError::BadPassword`] when it is too short or long or the two differ.
pub fn read_password() -> Result<String, AccountError> {
    let password = if io::stdin().is_terminal() {
        let first = rpassword::prompt_password("New password: ")?;
        let again = rpassword::prompt_password("Type it again: ")?;
        if first != again {
            return Err(AccountError::BadPassword(String::from(
                "The two passwords differ: nothing was changed.",
            )));
        }
        first
    } else {
        let mut line = String::new();
        io::stdin().lock().read_line(&mut line)?;
        line.trim_end_matches(['\r', '\n']).to_string()
    };
    let length = password.chars().count();
    if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&length) {
        return Err(AccountError::BadPassword(format!(
            "A password is {MIN_PASSWORD} to {MAX_PASSWORD} characters: nothing was changed."
        )));
    }
    Ok(password)
}

/// Set `name`'s password on the store at `url` (registering it if it is not): what
/// to print.
///
/// # Errors
/// [`AccountError`].
pub async fn set_password(
    url: &DbUrl,
    name: &PlayerName,
    password: &str,
) -> Result<String, AccountError> {
    let password = password.to_string();
    let hash = tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|error| AccountError::Read(io::Error::other(error)))??;
    let store = Store::open(url).await?;
    let existed = store.set_password(&name.key(), name.as_str(), &hash).await;
    store.close().await;
    Ok(if existed? {
        format!("The password of {name} is changed.")
    } else {
        format!("{name} is registered with this password.")
    })
}

/// Delete `name`'s account on the store at `url`: what to print.
///
/// # Errors
/// [`AccountError::NotRegistered`], [`AccountError::Store`].
pub async fn delete(url: &DbUrl, name: &PlayerName) -> Result<String, AccountError> {
    let store = Store::open(url).await?;
    let deleted = store.delete_account(&name.key()).await;
    store.close().await;
    if deleted? {
        Ok(format!(
            "{} Its results and recordings stay.",
            crate::players::accounts::unregistered(name)
        ))
    } else {
        Err(AccountError::NotRegistered(
            name.to_string(),
            url.to_string(),
        ))
    }
}

/// Every registered name on the store at `url`, one a line.
///
/// # Errors
/// [`AccountError::Store`].
pub async fn list(url: &DbUrl) -> Result<String, AccountError> {
    let store = Store::open(url).await?;
    let names = store.account_names().await;
    store.close().await;
    Ok(names?.iter().map(|name| format!("{name}\n")).collect())
}
