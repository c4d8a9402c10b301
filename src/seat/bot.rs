//! A program's name and login (SPEC section 12): `bot NAME [TOKEN]` takes NAME as a
//! guest's name takes it, or, for a registered name, logs in with one of the account's
//! bot tokens instead of a password; from then on the session is a bot (`[bot]` in
//! `who` and on the web page, no chat unless it asks).

use crate::players::accounts::PlayerName;

use super::state::Seat;
use super::work::{BotLogin, Found, Reply, Work};

impl Seat {
    /// `bot NAME [TOKEN]`: the work that takes the name.
    pub fn bot_command(&mut self, name: &str, token: Option<&str>) -> Reply {
        if self.bot {
            return Reply::Say(format!("You are the bot {} already.\n", self.name));
        }
        let name = match PlayerName::parse(name) {
            Ok(name) => name,
            Err(error) => return Reply::Say(format!("{error}\n")),
        };
        if let Some(race) = self.race() {
            return Reply::Say(format!(
                "You are in race {race}: leave it first to become a bot.\n"
            ));
        }
        Reply::Work(Work::Bot {
            name,
            token: token.map(str::to_string),
        })
    }

    /// Whether this session is a bot.
    pub fn is_bot(&self) -> bool {
        self.bot
    }

    /// Take what `bot NAME [TOKEN]` found; what to say.
    pub(super) fn take_bot(&mut self, name: PlayerName, login: BotLogin) -> String {
        let text = match login {
            BotLogin::Refused(why) => return format!("{why}\n"),
            BotLogin::Guest if name == self.name => format!("You are now {}.\n", self.name),
            BotLogin::Guest => match self.services.registry.rename(self.id, &name) {
                Ok(()) => {
                    self.name = name;
                    self.registered = false;
                    format!("You are now {}.\n", self.name)
                }
                Err(taken) => return format!("{taken}\n"),
            },
            BotLogin::Account {
                account,
                unfinished,
            } => {
                let key = name.key();
                let text = self.take(Found::LoggedIn {
                    name,
                    account: Some(account),
                    unfinished,
                });
                // Refused after all (a kicked name): still who it was.
                if !self.registered || self.name.key() != key {
                    return text;
                }
                text
            }
        };
        self.bot = true;
        // A program does not read chat: it gets it once it asks (`set chat on`), for
        // this session only, whatever the account keeps.
        self.settings.chat = false;
        self.services.registry.set_chat(self.id, false);
        self.services.registry.set_bot(self.id);
        tracing::info!(name = %self.name, registered = self.registered, "bot");
        text
    }
}
