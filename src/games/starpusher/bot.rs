//! A Star Pusher game as a bot sees it (SPEC section 12, docs/bots.md): the board of
//! the level being played, which level of how many, and the actions that do something
//! now.

use super::StarPusher;
use crate::games::bot::{self, Observation};
use crate::games::world::Direction;

impl StarPusher {
    /// The observation, the legal actions and the score (boxes on goals).
    pub(super) fn observation(&self) -> Observation {
        let moves = u64::try_from(self.moves()).unwrap_or(u64::MAX);
        let pushes = u64::try_from(self.pushes).unwrap_or(u64::MAX);
        let (mut observation, mut legal) = bot::boxes(&self.world, moves, pushes);
        observation["level"] = self.level_number().into();
        observation["levels"] = self.count().into();
        if !self.history.is_empty() {
            legal.push("undo");
        }
        if !self.redo.is_empty() {
            legal.push("redo");
        }
        if moves > 0 {
            legal.push("reset");
        }
        if !self.only && self.index + 1 < self.count() {
            legal.push("next");
        }
        if !self.only && self.index > 0 {
            legal.push("prev");
        }
        let (on_goals, _) = self.world.placed();
        Observation {
            observation,
            legal,
            score: i64::try_from(on_goals).unwrap_or(i64::MAX),
        }
    }
}

/// The line an action is typed as: one step for a move, the command's word otherwise.
pub(super) fn action_line(action: &str) -> Option<&'static str> {
    if let Some(direction) = bot::direction(action) {
        return Some(match direction {
            Direction::Up => "w",
            Direction::Down => "s",
            Direction::Left => "a",
            Direction::Right => "d",
        });
    }
    Some(match action {
        "undo" => "undo",
        "redo" => "redo",
        "reset" => "reset",
        "next" => "next",
        "prev" => "prev",
        _ => return None,
    })
}
