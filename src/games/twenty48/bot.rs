//! A 2048 game as a bot sees it (SPEC section 12, docs/bots.md): the grid as numbers,
//! the slides that change it, the score.

use serde_json::json;

use super::board::Tile;
use super::Twenty48;
use crate::games::bot::{self, Observation, MOVES};
use crate::games::world::Direction;

/// A tile's value as a JSON number: 2048's tiles and score are `u128` inside, and a
/// value past `u64::MAX` (a tile beyond 2^63, never reached in play) is given as
/// `u64::MAX`.
fn number(value: u128) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

impl Twenty48 {
    /// The observation, the legal slides and the score.
    pub(super) fn observation(&self) -> Observation {
        let grid: Vec<Vec<u64>> = self
            .board
            .rows()
            .map(|row| {
                row.iter()
                    .map(|tile| tile.map_or(0, |t| number(t.value())))
                    .collect()
            })
            .collect();
        let largest = self.board.max_tile().map_or(0, Tile::value);
        let legal = MOVES
            .iter()
            .filter(|&&(_, direction)| self.board.slide(direction).is_ok())
            .map(|&(name, _)| name)
            .collect();
        Observation {
            observation: json!({
                "grid": grid,
                "size": self.settings.size,
                "win": number(self.settings.win.value()),
                "largest": number(largest),
                "won": self.won,
                "moves": self.step,
            }),
            legal,
            score: i64::try_from(self.score).unwrap_or(i64::MAX),
        }
    }
}

/// The key a slide is typed as.
pub(super) fn action_line(action: &str) -> Option<&'static str> {
    Some(match bot::direction(action)? {
        Direction::Up => "w",
        Direction::Down => "s",
        Direction::Left => "a",
        Direction::Right => "d",
    })
}
