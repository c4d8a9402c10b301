//! Names and logins (SPEC section 7): `name`, `register`, the password asked with
//! echo off, and the store's answers that come back as jobs ([`Work`], [`Found`]).

use crate::players::accounts::{PlayerName, Settings, MAX_PASSWORD, MIN_PASSWORD};
use crate::store::Registered;

use super::services::taken_over;
use super::state::{Asking, Seat, Unfinished};
use super::work::{Found, RegisterFailed, Reply, Work};

impl Seat {
    /// Whether the next line is a secret (a password): the client must not echo it.
    pub fn asks_secret(&self) -> bool {
        self.asking.is_some()
    }

    /// The prompt while asking for a secret.
    pub fn secret_prompt(&self) -> Option<&'static str> {
        Some(match self.asking.as_deref()? {
            Asking::Password { .. } => "Password: ",
            Asking::NewPassword => "Choose a password: ",
            Asking::Repeat { .. } => "Type it again: ",
        })
    }

    /// `name` or `name NAME`.
    pub fn name_command(&mut self, name: Option<&str>) -> Reply {
        let Some(name) = name else {
            return Reply::Say(format!("You are {}.\n", self.name));
        };
        let name = match PlayerName::parse(name) {
            Ok(name) => name,
            Err(error) => return Reply::Say(format!("{error}\n")),
        };
        if name == self.name {
            return Reply::Say(format!("You are {}.\n", self.name));
        }
        // A race's lines and places name its racers as they joined.
        if let Some(race) = self.race() {
            return Reply::Say(format!(
                "You are in race {race}: leave it first to change your name.\n"
            ));
        }
        Reply::Work(Work::LookUp { name })
    }

    /// `register`.
    pub fn register(&mut self) -> Reply {
        if self.name.is_guest() {
            return Reply::Say(String::from(
                "Choose a name first (name NAME), then register it.\n",
            ));
        }
        if self.registered {
            return Reply::Say(format!("{} is registered already.\n", self.name));
        }
        if self.services.names_admin(self.name.as_str()) {
            // Whoever typed register first would own the admin role.
            return Reply::Say(format!(
                "{name} is this server's admin name: its password is set on the server\n(arcade admin set-password {name}).\n",
                name = self.name
            ));
        }
        self.asking = Some(Box::new(Asking::NewPassword));
        Reply::Say(String::new())
    }

    /// `unregister NAME` (admins, checked by the command table): delete the account, so
    /// that the name is free; its results and recordings stay.
    pub fn unregister(&mut self, name: Option<&str>) -> Reply {
        let Some(name) = name else {
            return Reply::Say(String::from("Usage: unregister NAME\n"));
        };
        match PlayerName::parse(name) {
            Ok(name) => Reply::Work(Work::Unregister { name }),
            Err(error) => Reply::Say(format!("{error}\n")),
        }
    }

    /// The line typed while a secret was asked for.
    pub fn secret(&mut self, line: &str) -> Reply {
        match self.take_secret(line) {
            // The client echoed neither the line nor its ending: answer on a new line
            // (what comes back from work does so in `found`).
            Reply::Say(text) => Reply::Say(format!("\n{text}")),
            other => other,
        }
    }

    pub(super) fn take_secret(&mut self, line: &str) -> Reply {
        match self.asking.take().map(|asking| *asking) {
            None => Reply::Say(String::new()),
            Some(Asking::Password { name, account }) => Reply::Work(Work::LogIn {
                name,
                account,
                password: line.to_string(),
            }),
            Some(Asking::NewPassword) => {
                let length = line.chars().count();
                if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&length) {
                    return Reply::Say(format!(
                        "A password is {MIN_PASSWORD} to {MAX_PASSWORD} characters: nothing was registered.\n"
                    ));
                }
                self.asking = Some(Box::new(Asking::Repeat {
                    first: line.to_string(),
                }));
                Reply::Say(String::new())
            }
            Some(Asking::Repeat { first }) if first == line => Reply::Work(Work::Register {
                name: self.name.clone(),
                password: first,
                settings: self.settings,
            }),
            Some(Asking::Repeat { .. }) => Reply::Say(String::from(
                "The two passwords differ: nothing was registered.\n",
            )),
        }
    }

    /// Take what the work found; the text to say. What answers a secret line starts on
    /// a new line: the client echoed neither the line nor its ending.
    pub fn found(&mut self, found: Found) -> String {
        let after_secret = matches!(
            found,
            Found::LoggedIn { .. } | Found::LoginRefused(_) | Found::Registered(_)
        );
        let text = self.take(found);
        if after_secret {
            format!("\n{text}")
        } else {
            text
        }
    }

    pub(super) fn take(&mut self, found: Found) -> String {
        match found {
            Found::LookedUp { name, account } => match account {
                Err(error) => format!("Cannot change your name now: {error}.\n"),
                Ok(Some(account)) => {
                    self.asking = Some(Box::new(Asking::Password { name, account }));
                    String::new()
                }
                // An admin name without a password yet is nobody's to take.
                Ok(None) if self.services.names_admin(name.as_str()) => format!(
                    "{name} is kept for this server's admin, whose password is not set yet\n(arcade admin set-password {name}): choose another name.\n"
                ),
                Ok(None) => match self.services.registry.rename(self.id, &name) {
                    Ok(()) => {
                        self.name = name;
                        self.registered = false;
                        format!("You are now {}.\n", self.name)
                    }
                    Err(taken) => format!("{taken}\n"),
                },
            },
            Found::LoginRefused(why) => format!("{why}\n"),
            Found::LoggedIn { account: None, .. } => String::from("Wrong password.\n"),
            Found::LoggedIn {
                account: Some(account),
                unfinished,
                ..
            } => {
                // The name as registered, not as typed this time.
                let name = PlayerName::parse(&account.name).unwrap_or_else(|_| self.name.clone());
                // Kicked for a while (`kick NAME for TIME`): refused before the name is
                // taken, and before another session of it is closed.
                if let Some(kicked) = self.services.registry.bans().refuse_name(&name) {
                    return format!("{kicked}\n");
                }
                let why = taken_over(&name);
                if let Some(old) = self.services.registry.take_over(self.id, &name, &why) {
                    tracing::info!(name = %name, old = %old, new = %self.id, "name taken over by its owner");
                }
                self.name = name;
                self.registered = true;
                self.settings = Settings::from_stored(&account.settings);
                if self.reader_detected {
                    self.settings.reader = true;
                    self.settings.color = false;
                }
                self.services.registry.set_chat(self.id, self.settings.chat);
                let mut text = format!("You are now {}.\n", self.name);
                if let Some(game) = &unfinished {
                    text.push_str(&format!(
                        "You have an unfinished {game} game. Type resume to continue it.\n"
                    ));
                }
                self.unfinished = unfinished.map(|game| {
                    Box::new(Unfinished {
                        game,
                        discard_armed: false,
                    })
                });
                text
            }
            Found::Registered(Ok(Registered::Created)) => {
                self.registered = true;
                tracing::info!(name = %self.name, "name registered");
                format!(
                    "{} is registered: from now on, name {} asks for this password.\n",
                    self.name, self.name
                )
            }
            Found::Registered(Ok(Registered::Taken)) => format!(
                "{} was registered by someone else just now: choose another name.\n",
                self.name
            ),
            Found::Registered(Err(RegisterFailed::Refused(why))) => format!("{why}\n"),
            Found::Registered(Err(RegisterFailed::Store(error))) => {
                format!("Cannot register now: {error}.\n")
            }
            Found::SettingsSaved { text } => text,
            Found::Bot { name, login } => self.take_bot(name, login),
            Found::Unregistered { name, deleted } => match deleted {
                Ok(true) => {
                    tracing::info!(admin = %self.name, unregistered = %name, "unregister");
                    format!("{}\n", crate::players::accounts::unregistered(&name))
                }
                Ok(false) => format!("{name} is not registered.\n"),
                Err(error) => format!("Cannot unregister now: {error}.\n"),
            },
        }
    }

    /// A login the transport made before the first line (SSH, SPEC section 11): the
    /// name taken as `name` and a right password would take it (a name online already,
    /// a kicked name: the same answers). What to say.
    pub fn arrive(&mut self, found: Found) -> String {
        self.take(found)
    }

    /// A terminal that needs no negotiation (an SSH pty): keys and colour on for this
    /// session (not kept: `set` keeps them).
    pub fn terminal_given(&mut self) {
        self.settings.keys = true;
        self.settings.color = true;
    }

    /// `play` with an unfinished game waiting: the first time, what to say instead of
    /// starting; the second, the unfinished game is given up and `None` lets it start.
    pub fn confirm_discard(&mut self) -> Option<String> {
        let unfinished = self.unfinished.as_mut()?;
        if !unfinished.discard_armed {
            unfinished.discard_armed = true;
            return Some(format!(
                "You have an unfinished {} game: type resume to continue it,\nor play again to give it up.\n",
                unfinished.game
            ));
        }
        self.services.recorder.discard(self.name.key());
        self.unfinished = None;
        None
    }

    /// The unfinished game is being played again.
    pub fn resumed(&mut self) {
        self.unfinished = None;
    }
}
