//! Who an SSH client is (SPEC section 11): the user name is the player's name,
//! `guest` a guest. An unregistered name needs nothing (the `none` method); a
//! registered one its password, checked exactly as the telnet login checks it (the
//! same [`LoginThrottle`](crate::players::throttle::LoginThrottle) counters per name
//! and address, the same bounded hasher), or a public key its player added with
//! `sshkey add`. What is decided is a [`Found`] the seat takes after the banner, as
//! it would take the answer to `name NAME` and a password.

use std::net::IpAddr;

use russh::keys::PublicKey;

use crate::players::accounts::PlayerName;
use crate::players::ssh_keys::AuthorizedKey;
use crate::seat::{store_failed, Found, Services};
use crate::store::Account;

/// The SSH user name that asks for a guest name.
pub const GUEST: &str = "guest";

/// What the `none` method finds for a user name.
#[derive(Debug)]
pub enum Unchecked {
    /// In, with no password: a guest, an unregistered name, or a name that cannot be
    /// one (the seat says why and the player stays a guest).
    In(Found),
    /// The name is registered: a password or a key is needed.
    Registered,
}

/// The `none` method: who `user` is without a password.
pub async fn without_password(services: &Services, user: &str) -> Unchecked {
    if user.eq_ignore_ascii_case(GUEST) {
        return Unchecked::In(Found::LoginRefused(String::from(
            "You are a guest: name NAME takes a name.",
        )));
    }
    let name = match PlayerName::parse(user) {
        Ok(name) => name,
        Err(error) => return Unchecked::In(Found::LoginRefused(format!("{error}"))),
    };
    match services.store.account(&name.key()).await {
        Ok(Some(_)) => Unchecked::Registered,
        Ok(None) => Unchecked::In(Found::LookedUp {
            name,
            account: Ok(None),
        }),
        Err(error) => Unchecked::In(Found::LookedUp {
            name,
            account: Err(store_failed(&error)),
        }),
    }
}

/// The `password` method: `Some` when `password` is the registered `user`'s. Refused
/// by the throttle before any hash when its counters say so.
pub async fn with_password(
    services: &Services,
    user: &str,
    password: &str,
    address: IpAddr,
) -> Option<Found> {
    let name = PlayerName::parse(user).ok()?;
    let account = match services.store.account(&name.key()).await {
        Ok(account) => account?,
        Err(error) => {
            store_failed(&error);
            return None;
        }
    };
    let attempt = match services.safeguards.throttle.admit(&name.key(), address) {
        Ok(attempt) => attempt,
        Err(refused) => {
            services.metrics.logins_refused.inc();
            tracing::debug!(name = %name, %address, %refused, "SSH login refused");
            return None;
        }
    };
    let matches = match services
        .safeguards
        .hasher
        .verify(password.to_owned(), Some(account.password_hash.clone()))
        .await
    {
        Ok(matches) => matches,
        Err(_busy) => {
            services.metrics.logins_refused.inc();
            tracing::debug!(name = %name, %address, "SSH login refused: the hashing queue is full");
            return None;
        }
    };
    drop(attempt);
    if !matches {
        tracing::warn!(name = %name, %address, "wrong password (SSH)");
        return None;
    }
    Some(logged_in(services, name, account).await)
}

/// Whether `key` is one the registered `user` added (asked before the client proves
/// that it holds the key, and again after).
pub async fn key_is_known(services: &Services, user: &str, key: &PublicKey) -> bool {
    let Ok(name) = PlayerName::parse(user) else {
        return false;
    };
    match services.store.ssh_keys(&name.key()).await {
        Ok(keys) => keys
            .iter()
            .any(|kept| AuthorizedKey::matches(&kept.key, key)),
        Err(error) => {
            store_failed(&error);
            false
        }
    }
}

/// The `publickey` method, once the client proved it holds `key`: `Some` when it is
/// one of the registered `user`'s keys.
pub async fn with_key(services: &Services, user: &str, key: &PublicKey) -> Option<Found> {
    if !key_is_known(services, user, key).await {
        return None;
    }
    let name = PlayerName::parse(user).ok()?;
    let account = services.store.account(&name.key()).await.ok()??;
    tracing::info!(name = %name, "SSH login by key");
    Some(logged_in(services, name, account).await)
}

/// A registered player is in: what the seat takes, with the unfinished game, as a
/// telnet login finds it.
async fn logged_in(services: &Services, name: PlayerName, account: Account) -> Found {
    let unfinished = crate::seat::unfinished_game(services, &name).await;
    Found::LoggedIn {
        name,
        account: Some(account),
        unfinished,
    }
}
