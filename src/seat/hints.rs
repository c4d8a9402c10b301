//! What a new player is told once, and what shows that a player is past the basics
//! (issue 30): a player who has typed any command of SPEC section 7 on is no script
//! bound to sections 1-6, so the console may add a line on entering a game or after a
//! guest's result; and a watched game's frame that follows a prompt starts on a line
//! of its own.

use super::state::Seat;

impl Seat {
    /// A command beyond sections 1-6 was used: the player may get the hints.
    pub fn used_extension(&mut self) {
        self.hints.uses_extensions = true;
    }

    /// Whether a command beyond sections 1-6 was ever used in this session.
    pub fn uses_extensions(&self) -> bool {
        self.hints.uses_extensions
    }

    /// Whether to tell this player how to get help and out on entering a game, the
    /// `index`th of the table: once per game a session, to a player past the basics.
    pub fn take_game_hint(&mut self, index: usize) -> bool {
        let bit = u8::try_from(index)
            .ok()
            .and_then(|index| 1u8.checked_shl(u32::from(index)))
            .unwrap_or(0);
        // A game past the bits (none today) gets no hint rather than one every time.
        let due = bit != 0 && self.hints.uses_extensions && self.hints.games_told & bit == 0;
        // Set only when told: a game played before the player used section 7 is told
        // the next time.
        if due {
            self.hints.games_told |= bit;
        }
        due
    }

    /// Whether to tell this player, now, that the result just reached was not kept:
    /// a guest who uses section 7's commands, told once per session.
    pub fn take_guest_note(&mut self) -> bool {
        let due = self.hints.uses_extensions && !self.hints.told_guest && self.name.is_guest();
        self.hints.told_guest |= due;
        due
    }

    /// Whether a frame of a watched game must start on a new line: the one before it
    /// ended at the watched player's prompt. Remembers how `frame` ends.
    pub fn frame_after_prompt(&mut self, frame: &str) -> bool {
        if self.watching.is_none() {
            return false;
        }
        let after_prompt = self.hints.frame_open && !frame.starts_with('\n');
        self.hints.frame_open = !frame.is_empty() && !frame.ends_with('\n');
        after_prompt
    }

    /// Whether to warn about a deadlock in the game of boxes now (`dead`: the position
    /// is one): on the first dead position only, again only after one that is not.
    /// Off unless the player `set warnings on`.
    pub fn take_warning(&mut self, dead: bool) -> bool {
        let due = dead && !self.hints.warned;
        self.hints.warned = dead;
        due
    }

    /// Whether the player wants warnings (`set warnings on`).
    pub fn wants_warnings(&self) -> bool {
        self.settings.warnings
    }

    /// Something other than a frame was shown: it ended its line.
    pub fn frame_closed(&mut self) {
        self.hints.frame_open = false;
    }
}
