//! The wumpus cave in words (reader mode, SPEC section 10): the room in SPEC section
//! 6's coordinates and, at the cave's sides, in words (`You are in room (0, 0), the
//! north-west corner, facing south.`), the ways out (`You can move forward south to
//! room (0, 1).`, `Ahead: a wall.`), and what the explorer carries.
//!
//! The game draws no map, with or without reader mode: the percepts are words
//! already, and the state printed at the end is the world file of SPEC section 6.
//! What is said here is what the explorer knows without seeing: where it stands,
//! which way it faces, and where the cave's walls are. A blocked room is a wall, as
//! the bump that meets it says (`You bumped into a wall.`); pits, the wumpus and the
//! gold are never named beyond the percepts.

use std::fmt::Write as _;

use super::cave::{Cave, Orientation, Pos, Thing};

/// The word for a way the explorer can face.
pub fn orientation_word(facing: Orientation) -> &'static str {
    match facing {
        Orientation::East => "east",
        Orientation::South => "south",
        Orientation::West => "west",
        Orientation::North => "north",
    }
}

/// Where a room lies at the cave's sides: `, the north-west corner`, `, on the west
/// side`, or nothing inside the cave (or along a side the cave is one room thick).
fn side(cave: &Cave, pos: Pos) -> String {
    let dim = cave.dim();
    let north_south = match (pos.y == 0, pos.y + 1 == dim.height) {
        (true, false) => Some("north"),
        (false, true) => Some("south"),
        _ => None,
    };
    let west_east = match (pos.x == 0, pos.x + 1 == dim.width) {
        (true, false) => Some("west"),
        (false, true) => Some("east"),
        _ => None,
    };
    match (north_south, west_east) {
        (Some(north_south), Some(west_east)) => format!(", the {north_south}-{west_east} corner"),
        (Some(side), None) | (None, Some(side)) => format!(", on the {side} side"),
        (None, None) => String::new(),
    }
}

/// `/where`: `You are in room (2, 1), facing east.`, with the corner or side.
pub fn where_is(cave: &Cave) -> String {
    let player = cave.player();
    format!(
        "You are in room {}{}, facing {}.",
        player.pos,
        side(cave, player.pos),
        orientation_word(player.facing)
    )
}

/// The room one step towards `facing`, if the explorer can walk into it.
fn open_room(cave: &Cave, facing: Orientation) -> Option<Pos> {
    cave.dim()
        .neighbour(cave.player().pos, facing)
        .filter(|&pos| cave.thing_at(pos) != Some(Thing::Blocked))
}

/// `You face east.` after a turn.
pub fn push_facing(cave: &Cave, out: &mut String) {
    let _ = writeln!(out, "You face {}.", orientation_word(cave.player().facing));
}

/// The way ahead: `You can move forward south to room (0, 1).` or `Ahead: a wall.`
pub fn push_ahead(cave: &Cave, out: &mut String) {
    let facing = cave.player().facing;
    match open_room(cave, facing) {
        Some(pos) => {
            let _ = writeln!(
                out,
                "You can move forward {} to room {pos}.",
                orientation_word(facing)
            );
        }
        None => out.push_str("Ahead: a wall.\n"),
    }
}

/// The way ahead, then the other three, each as a turn away: `Left, east: room (1,
/// 0).`, `Right, west: a wall.`, `Behind, north: a wall.`
pub fn push_ways(cave: &Cave, out: &mut String) {
    push_ahead(cave, out);
    let facing = cave.player().facing;
    for (turn, way) in [
        ("Left", facing.left()),
        ("Right", facing.right()),
        ("Behind", facing.left().left()),
    ] {
        let word = orientation_word(way);
        match open_room(cave, way) {
            Some(pos) => {
                let _ = writeln!(out, "{turn}, {word}: room {pos}.");
            }
            None => {
                let _ = writeln!(out, "{turn}, {word}: a wall.");
            }
        }
    }
}

/// What the explorer carries: the gold, the arrow.
pub fn push_carrying(cave: &Cave, out: &mut String) {
    let player = cave.player();
    out.push_str(match (player.has_gold, player.has_arrow) {
        (true, true) => "You carry the gold and your arrow.\n",
        (true, false) => "You carry the gold; your arrow is spent.\n",
        (false, true) => "You carry your arrow and no gold.\n",
        (false, false) => "You carry no gold, and your arrow is spent.\n",
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::wumpus::parse_cave;

    fn cave(text: &str) -> Cave {
        parse_cave(text).unwrap()
    }

    #[test]
    fn rooms_at_the_sides_in_words() {
        let world = |x: usize, y: usize, o: u8| {
            cave(&format!("dim 4 3\nplayer {x} {y} {o} 0 1\nexit 0 0\n"))
        };
        assert_eq!(
            where_is(&world(0, 0, 1)),
            "You are in room (0, 0), the north-west corner, facing south."
        );
        assert_eq!(
            where_is(&world(3, 2, 0)),
            "You are in room (3, 2), the south-east corner, facing east."
        );
        assert_eq!(
            where_is(&world(2, 1, 3)),
            "You are in room (2, 1), facing north."
        );
        assert_eq!(
            where_is(&world(0, 1, 2)),
            "You are in room (0, 1), on the west side, facing west."
        );
        assert_eq!(
            where_is(&world(1, 0, 2)),
            "You are in room (1, 0), on the north side, facing west."
        );
        // A cave one room wide has no west or east side to name.
        let narrow = cave("dim 1 3\nplayer 0 0 1 0 1\nexit 0 0\n");
        assert_eq!(
            where_is(&narrow),
            "You are in room (0, 0), on the north side, facing south."
        );
    }

    #[test]
    fn ways_name_walls_and_rooms_but_never_what_is_in_them() {
        // A pit to the east and the wumpus to the south: both are only rooms.
        let cave = cave("dim 3 3\nplayer 1 1 0 1 0\nwumpus 1 2\npit 2 1\nexit 0 0\nblocked 1 0\n");
        let mut out = String::new();
        push_ways(&cave, &mut out);
        push_carrying(&cave, &mut out);
        assert_eq!(
            out,
            "You can move forward east to room (2, 1).\n\
             Left, north: a wall.\n\
             Right, south: room (1, 2).\n\
             Behind, west: room (0, 1).\n\
             You carry the gold; your arrow is spent.\n"
        );
        let corner = super::tests::cave("dim 2 2\nplayer 0 0 3 0 1\nexit 0 0\n");
        let mut out = String::new();
        push_ahead(&corner, &mut out);
        push_facing(&corner, &mut out);
        push_carrying(&corner, &mut out);
        assert_eq!(
            out,
            "Ahead: a wall.\nYou face north.\nYou carry your arrow and no gold.\n"
        );
    }
}
