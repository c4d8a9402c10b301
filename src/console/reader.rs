//! The console's side of reader mode (SPEC section 10): the running game told whether
//! its player reads through a screen reader, `/look` and `/where`, and the words a
//! watcher who reads so is shown instead of the player's board.
//!
//! The games describe themselves ([`crate::games::Game::describe`]); the console only
//! says which form a player gets.

use super::{Console, Outcome};

/// `look` in the lobby.
const LOBBY_LOOK: &str =
    "You are in the lobby. Type help for the commands, or play GAME to start one.\n";

/// `where` in the lobby.
const LOBBY_WHERE: &str = "You are in the lobby.\n";

impl Console {
    /// Tell the running game, if any, whether its player reads through a screen
    /// reader (after `set reader on|off`, and when a game begins).
    pub(super) fn sync_reader(&mut self) {
        let on = self.settings().reader;
        if let Some(playing) = &mut self.game {
            playing.game.set_reader(on);
        }
    }

    /// `look` (`/look` in a game): the whole game in words.
    pub(super) fn look(&mut self) -> Outcome {
        match &self.game {
            Some(playing) => Outcome::Send(playing.game.describe(&self.memory)),
            None => self.say(String::from(LOBBY_LOOK)),
        }
    }

    /// `where` (`/where` in a game): the player's position only.
    pub(super) fn where_am_i(&mut self) -> Outcome {
        let text = match &self.game {
            Some(playing) => match playing.game.where_is() {
                Some(position) => format!("{position}\n"),
                None => format!("You are playing {}.\n", playing.kind.name),
            },
            None => String::from(LOBBY_WHERE),
        };
        self.say(text)
    }

    /// What the watchers of this game see after `text`: the text itself, and the game
    /// described for those who read through a screen reader.
    pub(super) fn show_watchers(&mut self, text: &str) {
        let Some(seat) = &mut self.seat else {
            return;
        };
        let described = match &self.game {
            Some(playing) if seat.has_reader_watchers() => {
                Some(playing.game.describe(&self.memory))
            }
            _ => None,
        };
        seat.show_watchers(text, described.as_deref());
    }

    /// What a new watcher is shown first: the game as it stands, described for a
    /// watcher who reads through a screen reader.
    pub(super) fn first_view(&self, reader: bool) -> Option<String> {
        let playing = self.game.as_ref()?;
        Some(if reader {
            playing.game.describe(&self.memory)
        } else {
            playing.game.view(&self.memory)
        })
    }
}
