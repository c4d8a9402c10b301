//! A world of boxes in words (Sokoban and Star Pusher in reader mode, SPEC section
//! 10): where the player is, each row as runs of squares (`row 3: wall, 2 floor, box,
//! goal, wall`), how many boxes are on goals, and after each move only what changed
//! (`You push the box onto a goal. 2 of 4 boxes on goals.`).
//!
//! Both games play by [`World`]'s rules and differ only in glyphs and commands, so
//! they share these words, as they share the rules; each game decides when to say
//! which. Rows and columns are 1-based, as people count.
//!
//! Choices: countable things are said in the plural after a number (`3 walls`,
//! `2 boxes`), floor as SPEC's example says it (`2 floor`); trailing floor is left out
//! of a row, as Star Pusher draws it, and a row of floor only is `empty`. A walk that
//! stops early says why, which the drawn games leave to the eye.

use super::{at, push_line, push_list};
use crate::games::world::{Blocked, Cell, Direction, Ground, Step, Walk, World};

/// `n` squares holding `cell` in a row: the name alone for one, else the count and
/// the plural.
fn run(cell: Cell, n: usize) -> String {
    let (one, many) = match cell {
        Cell::Wall => ("wall", "walls"),
        Cell::Floor => ("floor", "floor"),
        Cell::Goal => ("goal", "goals"),
        Cell::Box => ("box", "boxes"),
        Cell::BoxOnGoal => ("box on goal", "boxes on goals"),
        // One player: never a run of more.
        Cell::Player => ("player", "player"),
        Cell::PlayerOnGoal => ("player on goal", "player on goal"),
    };
    if n == 1 {
        one.to_string()
    } else {
        format!("{n} {many}")
    }
}

/// The ground at (row, column); the world keeps it row-major.
fn ground(world: &World, row: usize, column: usize) -> Ground {
    world.level().ground(row * world.level().width() + column)
}

/// The word for a direction of the keys.
pub fn direction_word(direction: Direction) -> &'static str {
    match direction {
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Left => "left",
        Direction::Right => "right",
    }
}

/// `/where`: `You are at row 5, column 6.`
pub fn where_is(world: &World) -> String {
    let (row, column) = world.player();
    format!("You are at {}.", at(row, column))
}

/// One line per row of the board, its squares as runs, trailing floor left out.
pub fn push_rows(world: &World, out: &mut String) {
    let level = world.level();
    for row in 0..level.height() {
        let squares: Vec<Cell> = (0..level.width())
            .map(|column| world.cell(row, column))
            .collect();
        let kept = squares
            .iter()
            .rposition(|&square| square != Cell::Floor)
            .map_or(0, |last| last + 1);
        let mut runs: Vec<String> = Vec::new();
        let mut squares = squares[..kept].iter().peekable();
        while let Some(&kind) = squares.next() {
            let mut n = 1;
            while squares.next_if(|&&next| next == kind).is_some() {
                n += 1;
            }
            runs.push(run(kind, n));
        }
        if runs.is_empty() {
            runs.push(String::from("empty"));
        }
        push_list(out, &format!("row {}: ", row + 1), &runs);
    }
}

/// `2 of 4 boxes on goals.`: the boxes on goals and how many the level needs there.
pub fn push_placed(world: &World, out: &mut String) {
    let (placed, needed) = world.placed();
    let boxes = if needed == 1 {
        "box on a goal"
    } else {
        "boxes on goals"
    };
    push_line(out, &format!("{placed} of {needed} {boxes}."));
}

/// The whole board in words: where the player is, the rows, the boxes on goals.
pub fn push_description(world: &World, out: &mut String) {
    out.push_str(&where_is(world));
    out.push('\n');
    push_rows(world, out);
    push_placed(world, out);
}

/// `1 step`, `3 steps`.
fn steps(n: usize) -> String {
    crate::games::words::count(n as u64, "step", "steps")
}

/// Where a box ended after `pushes` pushes towards `direction` from where it stood:
/// onto a goal, off one, or the square it stands on.
fn box_went(world: &World, direction: Direction, pushes: usize) -> String {
    let (row, column) = world.player();
    let (box_row, box_column) = ahead(world, (row, column), direction, 1);
    let started = behind(world, (box_row, box_column), direction, pushes);
    let was_on_goal = ground(world, started.0, started.1) == Ground::Goal;
    let is_on_goal = ground(world, box_row, box_column) == Ground::Goal;
    match (was_on_goal, is_on_goal) {
        (false, true) => String::from("onto a goal"),
        (true, true) => String::from("onto another goal"),
        (true, false) => format!("off a goal, to {}", at(box_row, box_column)),
        (false, false) => format!("to {}", at(box_row, box_column)),
    }
}

/// The square `n` steps from `from` towards `direction` (clamped to the board: only
/// called for squares a box or the player has been on).
fn ahead(world: &World, from: (usize, usize), direction: Direction, n: usize) -> (usize, usize) {
    let level = world.level();
    let (row, column) = from;
    match direction {
        Direction::Up => (row.saturating_sub(n), column),
        Direction::Down => ((row + n).min(level.height() - 1), column),
        Direction::Left => (row, column.saturating_sub(n)),
        Direction::Right => (row, (column + n).min(level.width() - 1)),
    }
}

/// The square `n` steps back from `from`, against `direction`.
fn behind(world: &World, from: (usize, usize), direction: Direction, n: usize) -> (usize, usize) {
    ahead(world, from, direction.reverse(), n)
}

/// Why a walk stopped, as a sentence: alone when no step was taken, `further` after.
fn blocked_sentence(blocked: Blocked, moved: bool) -> &'static str {
    match (blocked, moved) {
        (Blocked::Wall, _) => "A wall is in the way.",
        (Blocked::Box, false) => "The box cannot be pushed.",
        (Blocked::Box, true) => "The box cannot be pushed further.",
    }
}

/// What a counted walk towards `direction` did, said after it was taken on `world`:
/// `You walk 3 steps right, to row 4, column 6.`, `You push the box onto a goal.`
/// and the boxes on goals after a push; why it stopped short, if it did. A game that
/// already says why a walk could not take a single step passes `said_blocked`.
pub fn push_walk(
    world: &World,
    direction: Direction,
    walk: &Walk,
    said_blocked: bool,
    out: &mut String,
) {
    let way = direction_word(direction);
    // In a straight line a box, once pushed, stays ahead: the pushes come last.
    let pushed = walk.steps.iter().filter(|step| step.push).count();
    let walked = walk.steps.len() - pushed;
    let (row, column) = world.player();
    match (walked, pushed) {
        (0, 0) => {}
        (_, 0) => {
            push_line(
                out,
                &format!("You walk {} {way}, to {}.", steps(walked), at(row, column)),
            );
        }
        (0, 1) => {
            push_line(
                out,
                &format!("You push the box {}.", box_went(world, direction, 1)),
            );
        }
        (0, _) => {
            push_line(
                out,
                &format!(
                    "You push the box {} {way}, {}.",
                    steps(pushed),
                    box_went(world, direction, pushed)
                ),
            );
        }
        _ => {
            push_line(
                out,
                &format!(
                    "You walk {} {way} and push the box {}, {}.",
                    steps(walked),
                    steps(pushed),
                    box_went(world, direction, pushed)
                ),
            );
        }
    }
    let moved = !walk.steps.is_empty();
    match walk.blocked {
        Some(blocked) if moved || !said_blocked => {
            out.push_str(blocked_sentence(blocked, moved));
            out.push('\n');
        }
        Some(_) => {}
        None if !moved => {
            push_line(out, &format!("You stay at {}.", at(row, column)));
        }
        None => {}
    }
    if pushed > 0 {
        push_placed(world, out);
    }
}

/// What taking back `step` did, said after it was undone on `world`.
pub fn push_undone(world: &World, step: Step, out: &mut String) {
    let way = direction_word(step.direction);
    let (row, column) = world.player();
    if step.push {
        let (box_row, box_column) = ahead(world, (row, column), step.direction, 1);
        let on_goal = if ground(world, box_row, box_column) == Ground::Goal {
            ", on a goal"
        } else {
            ""
        };
        push_line(
            out,
            &format!(
                "You take back a push {way}: the box is back at {}{on_goal}.",
                at(box_row, box_column),
            ),
        );
        push_line(out, &format!("You are at {}.", at(row, column)));
        push_placed(world, out);
    } else {
        push_line(
            out,
            &format!(
                "You take back a step {way}: you are back at {}.",
                at(row, column)
            ),
        );
    }
}

/// What a string of moves played at once did (`lurd`): how many and where the player
/// ended, and the boxes on goals when one was pushed.
pub fn push_moves(world: &World, moves: &[Step], out: &mut String) {
    if moves.is_empty() {
        return;
    }
    let pushes = moves.iter().filter(|step| step.push).count();
    let (row, column) = world.player();
    let played = crate::games::words::count(moves.len() as u64, "move", "moves");
    let pushed = crate::games::words::count(pushes as u64, "push", "pushes");
    push_line(
        out,
        &format!(
            "You play {played}, {pushed}, and stand at {}.",
            at(row, column)
        ),
    );
    if pushes > 0 {
        push_placed(world, out);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::games::reader::problem;
    use crate::games::sokoban::parse_level;

    fn world(text: &str) -> World {
        World::new(Arc::new(parse_level(text).unwrap()))
    }

    #[test]
    fn the_classic_level_in_words() {
        let world = world("#######\n#.....#\n#...+.#\n##..+.#\n#--.#P#\n#######\n");
        let mut out = String::new();
        push_description(&world, &mut out);
        assert_eq!(
            out,
            "You are at row 5, column 6.\n\
             row 1: 7 walls\n\
             row 2: wall, 5 floor, wall\n\
             row 3: wall, 3 floor, box, floor, wall\n\
             row 4: 2 walls, 2 floor, box, floor, wall\n\
             row 5: wall, 2 goals, floor, wall, player, wall\n\
             row 6: 7 walls\n\
             0 of 2 boxes on goals.\n"
        );
        assert_eq!(problem(&out), None);
    }

    #[test]
    fn goals_boxes_and_trailing_floor() {
        // The player on a goal, a box on a goal, a row of floor only, trailing floor.
        let world = world("#####..\n#PO+-#.\n.......\n#####..\n");
        let mut out = String::new();
        push_rows(&world, &mut out);
        assert_eq!(
            out,
            "row 1: 5 walls\nrow 2: wall, player, box on goal, box, goal, wall\n\
             row 3: empty\nrow 4: 5 walls\n"
        );
        let mut world = super::tests::world("####\n#P-#\n#O-#\n####\n");
        world.step(Direction::Right).unwrap();
        let mut out = String::new();
        push_rows(&world, &mut out);
        assert!(
            out.contains("row 2: wall, floor, player on goal, wall\n"),
            "{out}"
        );
        assert!(
            out.contains("row 3: wall, box on goal, goal, wall\n"),
            "{out}"
        );
    }

    /// Walk on `level` as `d3` would and say it.
    fn said(level: &str, direction: Direction, count: u64) -> String {
        let mut world = world(level);
        let walk = world.walk(direction, count);
        let mut out = String::new();
        push_walk(&world, direction, &walk, false, &mut out);
        out
    }

    #[test]
    fn walks_and_pushes_say_what_changed() {
        assert_eq!(
            said("#######\n#P...-#\n#+####\n", Direction::Right, 2),
            "You walk 2 steps right, to row 2, column 4.\n"
        );
        assert_eq!(
            said("#######\n#P...-#\n#+####\n", Direction::Right, 9),
            "You walk 4 steps right, to row 2, column 6.\nA wall is in the way.\n"
        );
        assert_eq!(
            said("######\n#P+-.#\n######\n", Direction::Right, 1),
            "You push the box onto a goal.\n1 of 1 box on a goal.\n"
        );
        assert_eq!(
            said("#######\n#P+..-#\n#######\n", Direction::Right, 2),
            "You push the box 2 steps right, to row 2, column 5.\n0 of 1 box on a goal.\n"
        );
        assert_eq!(
            said("#######\n#.PO..#\n#-#####\n", Direction::Right, 1),
            "You push the box off a goal, to row 2, column 5.\n0 of 1 box on a goal.\n"
        );
        assert_eq!(
            said("########\n#P.+.-.#\n########\n", Direction::Right, 9),
            "You walk 1 step right and push the box 3 steps, to row 2, column 7.\n\
             The box cannot be pushed further.\n0 of 1 box on a goal.\n"
        );
        assert_eq!(
            said("#####\n#P++-#\n#####\n", Direction::Right, 1),
            "The box cannot be pushed.\n"
        );
        assert_eq!(
            said("#####\n#P+-#\n#####\n", Direction::Up, 1),
            "A wall is in the way.\n"
        );
        assert_eq!(
            said("#####\n#P+-#\n#####\n", Direction::Up, 0),
            "You stay at row 2, column 2.\n"
        );
        // A game that already said why says nothing more.
        let mut world = world("#####\n#P+-#\n#####\n");
        let walk = world.walk(Direction::Up, 1);
        let mut out = String::new();
        push_walk(&world, Direction::Up, &walk, true, &mut out);
        assert_eq!(out, "");
    }

    #[test]
    fn undo_and_a_string_of_moves() {
        let mut world = world("######\n#P+-.#\n######\n");
        let step = world.step(Direction::Right).unwrap();
        world.undo(step);
        let mut out = String::new();
        push_undone(&world, step, &mut out);
        assert_eq!(
            out,
            "You take back a push right: the box is back at row 2, column 3.\n\
             You are at row 2, column 2.\n0 of 1 box on a goal.\n"
        );
        let moves: Vec<Step> = "rl".chars().filter_map(Direction::from_lurd).collect();
        let mut out = String::new();
        push_moves(&world, &moves, &mut out);
        assert_eq!(
            out,
            "You play 2 moves, 0 pushes, and stand at row 2, column 2.\n"
        );
        assert_eq!(where_is(&world), "You are at row 2, column 2.");
    }
}
