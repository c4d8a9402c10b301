//! The player's regions: how many areas of floor the boxes part a position into.
//!
//! FESS's connectivity feature (Shoham and Schaeffer). A position whose boxes wall the
//! player off from part of the level usually needs those boxes moved back before
//! anything else, whatever the matching bound says of it; grouping positions by this
//! count and letting the groups take turns ([`super::open::Open`]) keeps the quick
//! search from spending its whole budget among walled-off positions with a good
//! bound. It orders the search and never prunes it.

use super::board::Board;

/// Scratch for counting regions, sized for one board.
#[derive(Debug)]
pub(crate) struct Regions {
    seen: Vec<u32>,
    mark: u32,
    queue: Vec<u32>,
}

impl Regions {
    pub(crate) fn new(squares: usize) -> Regions {
        Regions {
            seen: vec![0; squares],
            mark: 0,
            queue: Vec::with_capacity(squares),
        }
    }

    /// The areas of squares without a box, apart from each other (`box_at[s] != 0`
    /// for a box on `s`).
    pub(crate) fn count(&mut self, board: &Board, box_at: &[u16]) -> u32 {
        self.mark = self.mark.wrapping_add(1);
        if self.mark == 0 {
            self.seen.fill(0);
            self.mark = 1;
        }
        let mark = self.mark;
        let mut count = 0;
        for first in 0..board.squares() as u32 {
            if box_at[first as usize] != 0 || self.seen[first as usize] == mark {
                continue;
            }
            count += 1;
            board.fill(box_at, &mut self.seen, mark, &mut self.queue, first);
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::world::WinRule;
    use crate::solver::board::tests::level;

    #[test]
    fn boxes_that_close_a_corridor_part_the_floor_and_others_do_not() {
        let level = level(
            "#########\n\
             #@  $  .#\n\
             #### ####\n\
             #.   $  #\n\
             #########\n",
            WinRule::EveryBox,
        );
        let board = Board::new(&level, level.start_square()).expect("a small board");
        let mut regions = Regions::new(board.squares());
        let mut box_at = vec![0u16; board.squares()];
        assert_eq!(regions.count(&board, &box_at), 1);
        // The door between the two corridors.
        let door = board.square_at(2, 4).expect("a square") as usize;
        box_at[door] = 1;
        assert_eq!(regions.count(&board, &box_at), 2);
        // A box in the lower corridor's middle parts it too.
        let middle = board.square_at(3, 3).expect("a square") as usize;
        box_at[middle] = 1;
        assert_eq!(regions.count(&board, &box_at), 3);
        // A box against the end wall parts nothing.
        box_at[middle] = 0;
        box_at[board.square_at(1, 7).expect("a square") as usize] = 1;
        assert_eq!(regions.count(&board, &box_at), 2);
        box_at.fill(0);
        assert_eq!(regions.count(&board, &box_at), 1);
    }
}
