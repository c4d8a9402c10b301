//! Freeze deadlocks: boxes that can never move again, and so must already stand on
//! goals.
//!
//! A box is blocked along an axis when a wall is on either side of it, when both
//! squares along the axis are dead squares (only where pushing a box onto a dead square
//! is itself a deadlock), or when a box on either side is itself frozen. While one box
//! is examined it counts as a wall for the boxes it depends on, which settles groups
//! that hold each other (the sokobano.de wiki's freeze test). A group is frozen for
//! good: no box of it can move first.

use super::board::{Board, NONE};

/// The most recursive steps of one test; beyond it a box counts as movable, which is
/// always safe (a deadlock is only missed).
const MAX_STEPS: usize = 4096;

/// A freeze test's scratch: the boxes counted as walls on the current path, and the
/// boxes found frozen.
#[derive(Debug, Default)]
pub(crate) struct Freeze {
    walls: Vec<u32>,
    /// The boxes found frozen by the last [`Freeze::frozen`] that returned `true`.
    pub(crate) group: Vec<u32>,
    steps: usize,
}

impl Freeze {
    /// Whether the box on `square` can never move again, given `is_box` for every
    /// square. `dead_blocks`: a box with dead squares on both sides along an axis is
    /// blocked along it (sound only when a box on a dead square is a deadlock).
    pub(crate) fn frozen(
        &mut self,
        board: &Board,
        is_box: &dyn Fn(u32) -> bool,
        square: u32,
        dead_blocks: bool,
    ) -> bool {
        self.walls.clear();
        self.group.clear();
        self.steps = 0;
        self.check(board, is_box, square, dead_blocks)
    }

    fn check(
        &mut self,
        board: &Board,
        is_box: &dyn Fn(u32) -> bool,
        square: u32,
        dead: bool,
    ) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return false;
        }
        self.walls.push(square);
        let frozen = self.blocked(board, is_box, square, 0, dead)
            && self.blocked(board, is_box, square, 1, dead);
        self.walls.pop();
        if frozen {
            self.group.push(square);
        }
        frozen
    }

    /// Whether the box on `square` is blocked along the axis of `direction` (0:
    /// horizontal, 1: vertical).
    fn blocked(
        &mut self,
        board: &Board,
        is_box: &dyn Fn(u32) -> bool,
        square: u32,
        direction: usize,
        dead: bool,
    ) -> bool {
        let around = board.next[square as usize];
        let (first, second) = (around[direction], around[direction + 2]);
        if first == NONE || second == NONE {
            return true;
        }
        if self.walls.contains(&first) || self.walls.contains(&second) {
            return true;
        }
        if dead && board.dead[first as usize] && board.dead[second as usize] {
            return true;
        }
        let mark = self.group.len();
        for side in [first, second] {
            if is_box(side) && self.check(board, is_box, side, dead) {
                return true;
            }
            // A failed branch's findings were made under its own assumptions.
            self.group.truncate(mark);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::world::{WinRule, World};
    use crate::solver::board::tests::level;
    use std::sync::Arc;

    fn check(text: &str, row: usize, column: usize) -> (bool, usize) {
        let level = level(text, WinRule::EveryBox);
        let world = World::new(Arc::clone(&level));
        let board = Board::new(&level, world.player_square()).unwrap();
        let is_box = |square: u32| {
            let (r, c) = board.row_column(square);
            world.has_box(r, c)
        };
        let mut freeze = Freeze::default();
        let square = board.square_at(row, column).unwrap();
        let frozen = freeze.frozen(&board, &is_box, square, true);
        (frozen, freeze.group.len())
    }

    #[test]
    fn two_boxes_side_by_side_against_a_wall_are_frozen() {
        assert_eq!(
            check("######\n#.$$.#\n#    #\n# @  #\n######", 1, 2),
            (true, 2)
        );
    }

    #[test]
    fn a_square_of_four_boxes_is_frozen_anywhere() {
        let text = "########\n#      #\n# $$   #\n# $$ @ #\n#  .. ..\n########";
        assert!(check(text, 2, 2).0);
    }

    #[test]
    fn a_box_with_room_on_one_axis_is_not_frozen() {
        assert!(!check("######\n#    #\n# $$ #\n#  ..#\n# @  #\n######", 2, 2).0);
        // Against a wall but free to slide along it.
        assert!(!check("#######\n# $ . #\n#    .#\n#@    #\n#######", 1, 2).0);
    }
}
