//! What a player command hands back: words to show, or work for the console to run
//! as a job (the store, a slow password hash), and what that work found.

use std::net::IpAddr;
use std::time::Duration;

use crate::players::accounts::{PlayerName, Settings};
use crate::store::{Account, Registered, StoreError};

use super::services::Services;

/// What a player command does.
#[derive(Debug)]
pub enum Reply {
    /// Say this; the prompt follows.
    Say(String),
    /// Do this work first.
    Work(Work),
    /// Say this and wait: frames of the watched game follow, with their prompts.
    Watching(String),
}

/// Work a player command needs from the store or a slow hash.
#[derive(Debug)]
pub enum Work {
    /// Is `name` registered?
    LookUp {
        /// The name asked for.
        name: PlayerName,
    },
    /// Check `password` against `account`.
    LogIn {
        /// The name, as typed.
        name: PlayerName,
        /// Its account.
        account: Account,
        /// What the player typed.
        password: String,
    },
    /// Register the seat's name with `password`.
    Register {
        /// The name.
        name: PlayerName,
        /// The password.
        password: String,
        /// The settings to keep.
        settings: Settings,
    },
    /// Delete `name`'s account (an admin's `unregister`).
    Unregister {
        /// The name.
        name: PlayerName,
    },
    /// `bot NAME [TOKEN]`: take `name` as a guest's, or log in to its account with
    /// one of its bot tokens.
    Bot {
        /// The name.
        name: PlayerName,
        /// The token, if one was given.
        token: Option<String>,
    },
    /// Keep a registered player's settings, then say `text`.
    SaveSettings {
        /// The name.
        name: PlayerName,
        /// The settings.
        settings: Settings,
        /// What to say once kept.
        text: String,
    },
}

/// What [`Work`] found.
#[derive(Debug)]
pub enum Found {
    /// Whether the name is registered.
    LookedUp {
        /// The name asked for.
        name: PlayerName,
        /// Its account, if registered.
        account: Result<Option<Account>, String>,
    },
    /// Whether the password was right.
    LoggedIn {
        /// The name, as typed.
        name: PlayerName,
        /// The account, if the password matched.
        account: Option<Account>,
        /// The game of the player's unfinished game, if one waits (or is being played
        /// on the connection about to be taken over).
        unfinished: Option<String>,
    },
    /// A login attempt was refused before its password was checked: what to say.
    LoginRefused(String),
    /// How registering went.
    Registered(Result<Registered, RegisterFailed>),
    /// Whether the account was there and is deleted.
    Unregistered {
        /// The name.
        name: PlayerName,
        /// Whether there was one.
        deleted: Result<bool, String>,
    },
    /// What `bot NAME [TOKEN]` found.
    Bot {
        /// The name.
        name: PlayerName,
        /// Taken, logged in, or refused.
        login: BotLogin,
    },
    /// The settings are kept (or could not be).
    SettingsSaved {
        /// What to say.
        text: String,
    },
}

impl Work {
    /// Do the work: the store's queries are async, hashing runs on a blocking thread.
    pub async fn run(self, services: Services, address: IpAddr) -> Found {
        match self {
            Work::LookUp { name } => Found::LookedUp {
                account: services
                    .store
                    .account(&name.key())
                    .await
                    .map_err(|error| store_failed(&error)),
                name,
            },
            Work::LogIn {
                name,
                account,
                password,
            } => {
                let attempt = match services.safeguards.throttle.admit(&name.key(), address) {
                    Ok(attempt) => attempt,
                    Err(refused) => {
                        // Refusals cost nothing and may come by the thousand: counted,
                        // and logged at debug only, so that they cannot fill the disk.
                        services.metrics.logins_refused.inc();
                        tracing::debug!(name = %name, %address, %refused, "login refused");
                        return Found::LoginRefused(refused.to_string());
                    }
                };
                let hash = account.password_hash.clone();
                let matches = match services
                    .safeguards
                    .hasher
                    .verify(password, Some(hash))
                    .await
                {
                    Ok(matches) => matches,
                    Err(busy) => {
                        services.metrics.logins_refused.inc();
                        tracing::debug!(name = %name, %address, "login refused: the hashing queue is full");
                        return Found::LoginRefused(busy.to_string());
                    }
                };
                // In flight is while the password is checked, not while the store is
                // read after a right one.
                drop(attempt);
                if !matches {
                    tracing::warn!(name = %name, %address, "wrong password");
                }
                let unfinished = if matches {
                    unfinished_game(&services, &name).await
                } else {
                    None
                };
                Found::LoggedIn {
                    name,
                    account: matches.then_some(account),
                    unfinished,
                }
            }
            Work::Register {
                name,
                password,
                settings,
            } => {
                if let Err(refused) = services.safeguards.throttle.register(address) {
                    services.metrics.logins_refused.inc();
                    tracing::debug!(name = %name, %address, "registration refused: too many from the address");
                    return Found::Registered(Err(RegisterFailed::Refused(refused.to_string())));
                }
                let hash = match services.safeguards.hasher.hash(password).await {
                    Ok(Ok(hash)) => hash,
                    Ok(Err(error)) => {
                        return Found::Registered(Err(RegisterFailed::Store(error.to_string())))
                    }
                    Err(busy) => {
                        services.metrics.logins_refused.inc();
                        return Found::Registered(Err(RegisterFailed::Refused(busy.to_string())));
                    }
                };
                let result = services
                    .store
                    .register(&name.key(), name.as_str(), &hash, &settings.to_stored())
                    .await
                    .map_err(|error| RegisterFailed::Store(store_failed(&error)));
                Found::Registered(result)
            }
            Work::Unregister { name } => Found::Unregistered {
                deleted: services
                    .store
                    .delete_account(&name.key())
                    .await
                    .map_err(|error| store_failed(&error)),
                name,
            },
            Work::Bot { name, token } => Found::Bot {
                login: bot_log_in(&services, address, &name, token).await,
                name,
            },
            Work::SaveSettings {
                name,
                settings,
                text,
            } => {
                let text = match services
                    .store
                    .save_settings(&name.key(), &settings.to_stored())
                    .await
                {
                    Ok(()) => text,
                    Err(error) => format!(
                        "{text}(It could not be kept for next time: {}.)\n",
                        store_failed(&error)
                    ),
                };
                Found::SettingsSaved { text }
            }
        }
    }
}

/// Why a registration did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterFailed {
    /// A limit refused it: the whole sentence to say.
    Refused(String),
    /// The store or the hash failed: what failed.
    Store(String),
}

/// A store error as players see it; the details go to the log.
pub fn store_failed(error: &StoreError) -> String {
    tracing::error!(%error, "the store failed");
    String::from("the server's database is not available right now, try again later")
}
/// The game a player who just logged in left unfinished, if any (telnet and SSH
/// logins alike): the recorder writes first, since the game may have started a
/// moment ago.
pub(crate) async fn unfinished_game(services: &Services, name: &PlayerName) -> Option<String> {
    services.recorder.flush(Duration::from_secs(2)).await;
    services
        .store
        .waiting_game(&name.key())
        .await
        .unwrap_or_else(|error| {
            store_failed(&error);
            None
        })
        .map(|(_, game, _)| game)
}

/// What `bot NAME [TOKEN]` found.
#[derive(Debug)]
pub enum BotLogin {
    /// The name is nobody's account: taken as a guest's.
    Guest,
    /// The token is one of the account's: logged in.
    Account {
        /// The account.
        account: Account,
        /// The game it left unfinished, if one waits.
        unfinished: Option<String>,
    },
    /// Refused: the whole sentence to say.
    Refused(String),
}

/// The work of `bot NAME [TOKEN]`: is the name an account's, and is the token one of
/// its own? Wrong tokens count against the name and the address as wrong passwords do.
async fn bot_log_in(
    services: &Services,
    address: IpAddr,
    name: &PlayerName,
    token: Option<String>,
) -> BotLogin {
    let account = match services.store.account(&name.key()).await {
        Ok(account) => account,
        Err(error) => {
            return BotLogin::Refused(format!("Cannot log in now: {}.", store_failed(&error)))
        }
    };
    let Some(account) = account else {
        if services.names_admin(name.as_str()) {
            return BotLogin::Refused(format!(
                "{name} is kept for this server's admin: choose another name for your bot."
            ));
        }
        return BotLogin::Guest;
    };
    let Some(token) = token else {
        return BotLogin::Refused(format!(
            "{name} is registered: its bot logs in with one of its tokens (bot {name} TOKEN;\nthe owner makes one with bottoken new)."
        ));
    };
    let attempt = match services.safeguards.throttle.admit(&name.key(), address) {
        Ok(attempt) => attempt,
        Err(refused) => {
            services.metrics.logins_refused.inc();
            return BotLogin::Refused(refused.to_string());
        }
    };
    let matches = token_matches(services, name, &token).await;
    drop(attempt);
    match matches {
        Ok(true) => BotLogin::Account {
            unfinished: unfinished_game(services, name).await,
            account,
        },
        Ok(false) => {
            tracing::warn!(name = %name, %address, "wrong bot token");
            BotLogin::Refused(format!(
                "That is not one of {name}'s bot tokens (bottoken list shows them to their owner)."
            ))
        }
        Err(error) => BotLogin::Refused(format!("Cannot log in now: {}.", store_failed(&error))),
    }
}

/// Whether `token` is one of the bot tokens of the account `name`.
async fn token_matches(
    services: &Services,
    name: &PlayerName,
    token: &str,
) -> Result<bool, crate::store::StoreError> {
    let Ok(token) = crate::players::bot_tokens::BotToken::parse(token) else {
        return Ok(false);
    };
    services
        .store
        .bot_token_matches(&name.key(), token.hash().as_str())
        .await
}
