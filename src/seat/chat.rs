//! Chat and presence (SPEC section 7): `who`, `say`, `tell`, and the admins'
//! `broadcast` and `kick`, with the chat limit and what other players' text may show.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::players::accounts::{clean_text, MAX_CHAT};
use crate::players::chat_limits::{recipient_too_busy, ADDRESS_TOO_FAST};
use crate::players::inbox::Message;
use crate::text::{fit, COLUMNS};

use super::shown::{idle, shown_name};
use super::state::Seat;

/// Sent when chat comes faster than the limit.
pub const TOO_FAST: &str = "You are sending too fast.";

impl Seat {
    /// `who`.
    pub fn who(&self) -> String {
        let lines = self.services.registry.who();
        let mut text = format!(
            "{} online:\n",
            crate::text::count(
                u64::try_from(lines.len()).unwrap_or(u64::MAX),
                "player",
                "players"
            )
        );
        for line in lines {
            let mut after = format!("  idle {}", idle(line.idle));
            if line.watchers > 0 {
                let _ = write!(after, "  {} watching", line.watchers);
            }
            // The place gives way (a 2048 seed is 20 digits): the row fits 80 columns.
            let room = COLUMNS.saturating_sub(2 + 16 + 2 + after.len());
            let width = room.min(28);
            let name = if line.bot {
                format!("{} [bot]", line.name)
            } else {
                line.name.to_string()
            };
            let _ = writeln!(
                text,
                "  {name:<16}  {:<width$}{after}",
                fit(&line.place.to_string(), room),
            );
        }
        text
    }

    /// `say TEXT`.
    pub fn say(&self, text: &str) -> String {
        const USAGE: &str = "Usage: say TEXT\n";
        if text.is_empty() {
            return String::from(USAGE);
        }
        let text = match self.chat_line(text, USAGE) {
            Ok(text) => text,
            Err(refusal) => return refusal,
        };
        let line: Arc<str> = Arc::from(format!("[{}] {text}", self.name));
        self.services.metrics.chat_lines.inc();
        crate::players::inbox::send_all(
            &self.services.registry.hearers(self.id),
            &Message::Line(Arc::clone(&line)),
        );
        format!("{line}\n")
    }

    /// `tell NAME TEXT`.
    pub fn tell(&self, name: Option<&str>, text: &str) -> String {
        const USAGE: &str = "Usage: tell NAME TEXT\n";
        let (Some(name), false) = (name, text.is_empty()) else {
            return String::from(USAGE);
        };
        let Some((id, name, inbox)) = self.services.registry.find(name) else {
            return format!("No player called {}.\n", shown_name(name));
        };
        if id == self.id {
            return String::from("You cannot tell yourself.\n");
        }
        let text = match self.chat_line(text, USAGE) {
            Ok(text) => text,
            Err(refusal) => return refusal,
        };
        if !self.is_admin() && !self.services.safeguards.chat.to_recipient(id) {
            return format!("{}\n", recipient_too_busy(name.as_str()));
        }
        let line = format!("[{} tells you] {text}", self.name);
        self.services.metrics.chat_lines.inc();
        let _ = inbox.send(Message::Line(Arc::from(line)));
        format!("[you tell {name}] {text}\n")
    }

    /// A line of chat, cleaned, if the rate and the length allow it; else the refusal.
    pub(super) fn chat_line(&self, text: &str, usage: &str) -> Result<String, String> {
        if self.chat_limit().check().is_err() {
            return Err(format!("{TOO_FAST}\n"));
        }
        // An admin's broadcast to the class is not held back by the class's chat.
        if !self.is_admin() && !self.services.safeguards.chat.from_address(self.address) {
            return Err(format!("{ADDRESS_TOO_FAST}\n"));
        }
        match clean_text(text) {
            // Nothing left once the control characters are gone.
            Ok(text) if text.is_empty() => Err(usage.to_string()),
            Ok(text) => Ok(text),
            Err(length) => Err(format!(
                "That line has {length} characters: chat lines are at most {MAX_CHAT}.\n"
            )),
        }
    }

    /// `broadcast TEXT` (admins: the command table lets no one else here).
    pub fn broadcast(&self, text: &str) -> String {
        const USAGE: &str = "Usage: broadcast TEXT\n";
        if text.is_empty() {
            return String::from(USAGE);
        }
        let text = match self.chat_line(text, USAGE) {
            Ok(text) => text,
            Err(refusal) => return refusal,
        };
        format!("{}\n", self.services.broadcast(&self.name, &text))
    }

    /// `kick NAME [WHY]` (admins: the command table lets no one else here).
    pub fn kick(&self, name: Option<&str>, why: &str) -> String {
        let Some(name) = name else {
            return String::from("Usage: kick NAME [WHY]\n");
        };
        if self
            .services
            .registry
            .find(name)
            .is_some_and(|(id, ..)| id == self.id)
        {
            return String::from("You cannot kick yourself: quit leaves.\n");
        }
        format!("{}\n", self.services.kick(&self.name, name, why))
    }
}
