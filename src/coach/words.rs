//! What the help for stuck players says (SPEC section 13), in words: warnings, hints,
//! and how to go back. Pure text, so that every sentence is tested without a solver.
//!
//! Squares are counted from 1 here, as a player reads the board (the solver counts
//! from 0).

use crate::games::boxes::Undo;
use crate::games::world::Direction;
use crate::solver::{DeadWhy, Deadlock, Push};
use crate::text;

/// `row R, column C` of a 0-based square.
pub fn square((row, column): (usize, usize)) -> String {
    format!("row {}, column {}", row + 1, column + 1)
}

/// How the player goes back, as the end of a warning.
pub fn way_back(undo: Undo) -> &'static str {
    match undo {
        Undo::Command(_) => "Undo with u.",
        Undo::Restart => {
            "This game has no undo: e leaves it, and playing the level again starts over."
        }
    }
}

/// The warning after a push that left the level unsolvable: a line that says so and
/// why, and one that says how to go back (the two do not fit one line of 80 columns). `pushed`: where the last push put its box, to call it
/// "that box".
pub fn warning(deadlock: &Deadlock, pushed: Option<(usize, usize)>, undo: Undo) -> String {
    let what = match deadlock {
        Deadlock::DeadSquare { row, column, why } => {
            let which = if pushed == Some((*row, *column)) {
                String::from("That box")
            } else {
                format!("The box at {}", square((*row, *column)))
            };
            let why = match why {
                DeadWhy::Corner => "it is in a corner",
                DeadWhy::AgainstWallWithoutGoal => "it is against a wall with no goal",
                DeadWhy::NoPushReachesGoal => "no push from there leads to one",
            };
            format!("{which} can no longer reach a goal: {why}.")
        }
        Deadlock::Frozen { boxes } => format!(
            "Boxes that can never move again are not all on goals: {}.",
            squares(boxes)
        ),
        Deadlock::ClosedArea { boxes, goals } => format!(
            "{} shut in an area with no way out, and only {} there.",
            text::count(*boxes as u64, "box is", "boxes are"),
            text::count(*goals as u64, "goal", "goals"),
        ),
        Deadlock::GoalsOutOfReach { goals, boxes } => format!(
            "Only {} can still reach the {} that need boxes.",
            text::count(*boxes as u64, "box", "boxes"),
            text::count(*goals as u64, "goal", "goals"),
        ),
        Deadlock::Corral { boxes } => format!(
            "The boxes around {} are shut in and cannot all reach goals.",
            boxes
                .first()
                .map_or_else(String::new, |first| square(*first))
        ),
    };
    format!("{what}\n{}\n", way_back(undo))
}

/// A list of squares: `row 3, column 4 and row 3, column 5`.
fn squares(boxes: &[(usize, usize)]) -> String {
    let named: Vec<String> = boxes.iter().map(|b| square(*b)).collect();
    match named.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join("; ")),
        None => String::new(),
    }
}

/// `/hint`'s answer: the next push of a solution.
pub fn hint(push: &Push) -> String {
    let towards = match push.direction {
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Left => "to the left",
        Direction::Right => "to the right",
    };
    format!(
        "Push the box at {} {towards}.\n",
        square((push.row, push.column))
    )
}

/// No solution from the current position: how far back the last position is that can
/// still be solved (SPEC section 13's words), and how to get there in a game without
/// undo.
pub fn stuck(moves_back: usize, undo: Undo) -> String {
    let mut text = format!(
        "No solution from here: undo to the last safe position ({} back).\n",
        text::count(moves_back as u64, "move", "moves")
    );
    if undo == Undo::Restart {
        text.push_str(way_back(undo));
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_say_what_why_and_how_back() {
        let corner = Deadlock::DeadSquare {
            row: 2,
            column: 4,
            why: DeadWhy::AgainstWallWithoutGoal,
        };
        // SPEC section 13's words, then the way back.
        assert_eq!(
            warning(&corner, Some((2, 4)), Undo::Command("u")),
            "That box can no longer reach a goal: it is against a wall with no goal.\nUndo with u.\n"
        );
        let elsewhere = Deadlock::DeadSquare {
            row: 0,
            column: 0,
            why: DeadWhy::Corner,
        };
        assert_eq!(
            warning(&elsewhere, Some((2, 4)), Undo::Restart),
            "The box at row 1, column 1 can no longer reach a goal: it is in a corner.\n\
             This game has no undo: e leaves it, and playing the level again starts over.\n"
        );
        let frozen = Deadlock::Frozen {
            boxes: vec![(2, 3), (2, 4), (3, 4)],
        };
        assert_eq!(
            warning(&frozen, None, Undo::Command("u")),
            "Boxes that can never move again are not all on goals: row 3, column 4; row 3, \
             column 5 and row 4, column 5.\nUndo with u.\n"
        );
        let shut = Deadlock::ClosedArea { boxes: 3, goals: 1 };
        assert_eq!(
            warning(&shut, None, Undo::Command("u")),
            "3 boxes are shut in an area with no way out, and only 1 goal there.\nUndo with u.\n"
        );
    }

    #[test]
    fn hints_name_the_box_and_the_way() {
        let push = |direction| Push {
            row: 3,
            column: 5,
            direction,
        };
        assert_eq!(
            hint(&push(Direction::Left)),
            "Push the box at row 4, column 6 to the left.\n"
        );
        assert_eq!(
            hint(&push(Direction::Up)),
            "Push the box at row 4, column 6 up.\n"
        );
    }

    #[test]
    fn stuck_is_the_specs_line_and_classic_says_how_back() {
        assert_eq!(
            stuck(3, Undo::Command("u")),
            "No solution from here: undo to the last safe position (3 moves back).\n"
        );
        assert_eq!(
            stuck(1, Undo::Restart),
            "No solution from here: undo to the last safe position (1 move back).\n\
             This game has no undo: e leaves it, and playing the level again starts over.\n"
        );
    }
}
