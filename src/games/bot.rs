//! What a program playing a game is told, and what it may do (SPEC section 12,
//! docs/bots.md): each game's observation as JSON, the actions legal now, the score,
//! and the game line each action stands for.
//!
//! A bot's action is played as the line a person would type ([`super::Game::action_line`]),
//! so recordings, replays, watchers and races see a bot's game exactly as a person's:
//! bot mode changes the words on the wire, never the play.

use serde_json::{json, Value};

use super::world::{Cell, Direction, World};

/// What a bot is told about a game as it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The game's own observation (docs/bots.md gives each game's JSON Schema).
    pub observation: Value,
    /// The actions that are legal now, in a fixed order.
    pub legal: Vec<&'static str>,
    /// The score, as the game counts it (docs/bots.md says how, for each game).
    pub score: i64,
}

/// The four moves of a board game, in the order `legal` lists them, each with the
/// direction it walks or slides.
pub const MOVES: [(&str, Direction); 4] = [
    ("up", Direction::Up),
    ("down", Direction::Down),
    ("left", Direction::Left),
    ("right", Direction::Right),
];

/// The direction a move action names (`up`, `down`, `left`, `right`).
pub fn direction(action: &str) -> Option<Direction> {
    MOVES
        .iter()
        .find(|(name, _)| *name == action)
        .map(|&(_, direction)| direction)
}

/// The standard notation's glyph of a square (XSB: `#`, space, `.`, `$`, `*`, `@`,
/// `+`), whatever style the player's board is drawn in.
fn glyph(cell: Cell) -> char {
    match cell {
        Cell::Wall => '#',
        Cell::Floor => ' ',
        Cell::Goal => '.',
        Cell::Box => '$',
        Cell::BoxOnGoal => '*',
        Cell::Player => '@',
        Cell::PlayerOnGoal => '+',
    }
}

/// A board's rows in the standard notation, every row as wide as the level.
pub fn board_rows(world: &World) -> Vec<String> {
    let level = world.level();
    (0..level.height())
        .map(|row| {
            (0..level.width())
                .map(|column| glyph(world.cell(row, column)))
                .collect()
        })
        .collect()
}

/// A board of boxes for a program: its rows in the standard notation (every row as
/// wide as the level), the player's `[row, column]` from 0, the boxes on goals and the
/// goals, the moves and pushes so far; and the moves that are possible now (a step
/// onto floor, or a push of a box onto free floor).
pub fn boxes(world: &World, moves: u64, pushes: u64) -> (Value, Vec<&'static str>) {
    let rows = board_rows(world);
    let (row, column) = world.player();
    let (on_goals, goals) = world.placed();
    let legal = MOVES
        .iter()
        .filter(|&&(_, direction)| world.clone().step(direction).is_ok())
        .map(|&(name, _)| name)
        .collect();
    let observation = json!({
        "rows": rows,
        "player": [row, column],
        "boxes_on_goals": on_goals,
        "goals": goals,
        "moves": moves,
        "pushes": pushes,
    });
    (observation, legal)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::games::sokoban::parse_level;

    #[test]
    fn a_board_is_its_rows_in_the_standard_notation_and_the_steps_that_move() {
        let level = parse_level("#####\n#P+-#\n#####\n").unwrap();
        let world = World::new(Arc::new(level));
        let (observation, legal) = boxes(&world, 3, 1);
        assert_eq!(observation["rows"], json!(["#####", "#@$.#", "#####"]));
        assert_eq!(observation["player"], json!([1, 1]));
        assert_eq!(observation["boxes_on_goals"], json!(0));
        assert_eq!(observation["goals"], json!(1));
        assert_eq!(observation["moves"], json!(3));
        assert_eq!(observation["pushes"], json!(1));
        // Walls above, below and behind; the box ahead can go onto the goal.
        assert_eq!(legal, vec!["right"]);
    }

    #[test]
    fn a_box_against_a_wall_cannot_be_pushed() {
        let level = parse_level("#####\n#P-+#\n#####\n").unwrap();
        let mut world = World::new(Arc::new(level));
        world.step(Direction::Right).unwrap();
        let (observation, legal) = boxes(&world, 1, 0);
        assert_eq!(observation["rows"], json!(["#####", "# +$#", "#####"]));
        assert_eq!(legal, vec!["left"]);
    }

    #[test]
    fn move_names_give_their_directions() {
        for (name, direction) in MOVES {
            assert_eq!(super::direction(name), Some(direction));
        }
        assert_eq!(super::direction("UP"), None);
        assert_eq!(super::direction("forward"), None);
    }
}
