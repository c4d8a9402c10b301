//! The packing order: in which order the goals are best filled (FESS's packing
//! feature, Shoham and Schaeffer).
//!
//! Found backwards from the solved position: with a box on every goal, the boxes that
//! the player can pull off the goals (out to a square that is not a goal, the other
//! boxes standing still) are the outer layer, filled last; without them, the next
//! boxes that can be pulled out are the next layer, and so on. Boxes that no pull frees
//! form the innermost layer. A position's packing count is the goals filled layer by
//! layer from the innermost: a layer's filled goals count only when every layer inside
//! it is full. The quick search groups positions by it, so that a position that
//! packs a goal room in a workable order is explored even when its bound is no better
//! than that of one that blocks the room. It orders the search and never prunes it.

use super::board::{Board, Reach, NONE};

/// The goals' layers of one board.
#[derive(Debug, Clone)]
pub(crate) struct Packing {
    /// The goal squares, innermost layer first.
    goals: Vec<u32>,
    /// Where each layer ends in `goals`.
    ends: Vec<usize>,
}

impl Packing {
    /// The layers of `board`'s goals.
    pub(crate) fn new(board: &Board) -> Packing {
        let squares = board.squares();
        let mut box_at = vec![0u16; squares];
        for &goal in &board.goals {
            box_at[goal as usize] = 1;
        }
        let mut pulls = Pulls::new(squares);
        let mut left: Vec<u32> = board.goals.clone();
        let mut outer_first: Vec<Vec<u32>> = Vec::new();
        while !left.is_empty() {
            let layer: Vec<u32> = left
                .iter()
                .copied()
                .filter(|&goal| pulls.frees(board, &mut box_at, goal))
                .collect();
            if layer.is_empty() {
                break;
            }
            for &goal in &layer {
                box_at[goal as usize] = 0;
            }
            left.retain(|goal| !layer.contains(goal));
            outer_first.push(layer);
        }
        // What no pull frees is packed first, then the layers from the inside out.
        let mut goals = Vec::with_capacity(board.goals.len());
        let mut ends = Vec::new();
        if !left.is_empty() {
            goals.extend_from_slice(&left);
            ends.push(goals.len());
        }
        for layer in outer_first.iter().rev() {
            goals.extend_from_slice(layer);
            ends.push(goals.len());
        }
        Packing { goals, ends }
    }

    /// The goals packed in order in a position (`box_at[s] != 0` for a box on `s`).
    pub(crate) fn count(&self, box_at: &[u16]) -> u32 {
        let mut count = 0;
        let mut start = 0;
        for &end in &self.ends {
            let filled = self.goals[start..end]
                .iter()
                .filter(|&&goal| box_at[goal as usize] != 0)
                .count();
            count += filled;
            if filled < end - start {
                break;
            }
            start = end;
        }
        count as u32
    }

    /// How many layers there are.
    #[cfg(test)]
    fn layers(&self) -> usize {
        self.ends.len()
    }
}

/// Scratch for the pulls of one box.
struct Pulls {
    reach: Reach,
    queue: Vec<u32>,
    /// Pull states (box square, side of the player) seen, marked per search.
    seen: Vec<u32>,
    mark: u32,
    states: Vec<(u32, usize)>,
}

impl Pulls {
    fn new(squares: usize) -> Pulls {
        Pulls {
            reach: Reach::new(squares),
            queue: Vec::with_capacity(squares),
            seen: vec![0; squares * 4],
            mark: 0,
            states: Vec::new(),
        }
    }

    /// Whether the player can pull the box on `goal` out to a square that is not a
    /// goal, the other boxes (`box_at`) standing still. The player starts on any free
    /// square next to it: where it stands in the end is the solution's choice, so the
    /// goals may part the floor. `box_at` is as before on return.
    fn frees(&mut self, board: &Board, box_at: &mut [u16], goal: u32) -> bool {
        self.mark = self.mark.wrapping_add(1);
        if self.mark == 0 {
            self.seen.fill(0);
            self.mark = 1;
        }
        self.states.clear();
        for (side, &next) in board.next[goal as usize].iter().enumerate() {
            if next != NONE && box_at[next as usize] == 0 {
                self.seen[goal as usize * 4 + side] = self.mark;
                self.states.push((goal, side));
            }
        }
        box_at[goal as usize] = 0;
        let mut freed = false;
        let mut at = 0;
        while at < self.states.len() && !freed {
            let (square, side) = self.states[at];
            at += 1;
            // The player on the box's `side` steps back, and the box follows.
            let to = board.next[square as usize][side];
            let back = board.next[to as usize][side];
            if back == NONE || box_at[back as usize] != 0 {
                continue;
            }
            if !board.goal[to as usize] {
                freed = true;
                continue;
            }
            box_at[to as usize] = 1;
            self.reach.fill(board, box_at, &mut self.queue, back);
            box_at[to as usize] = 0;
            self.enter(board, to);
        }
        box_at[goal as usize] = 1;
        freed
    }

    /// Queue the states of a box on `square` with the player on each side it reaches.
    fn enter(&mut self, board: &Board, square: u32) {
        for (side, &next) in board.next[square as usize].iter().enumerate() {
            if next == NONE || !self.reach.has(next) {
                continue;
            }
            let state = square as usize * 4 + side;
            if self.seen[state] != self.mark {
                self.seen[state] = self.mark;
                self.states.push((square, side));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::world::WinRule;
    use crate::solver::board::tests::level;

    fn packing(text: &str) -> (Board, Packing) {
        let level = level(text, WinRule::EveryBox);
        let board = Board::new(&level, level.start_square()).expect("a small board");
        let packing = Packing::new(&board);
        (board, packing)
    }

    #[test]
    fn a_dead_end_corridor_of_goals_is_packed_from_its_end() {
        // Three goals in a dead end: the one at the end first, the mouth last.
        let (board, packing) = packing(
            "#######\n\
             #...  #\n\
             ####$ #\n\
             #@ $$ #\n\
             #######\n",
        );
        assert_eq!(packing.layers(), 3);
        let end = board.square_at(1, 1).expect("a square");
        let middle = board.square_at(1, 2).expect("a square");
        let mouth = board.square_at(1, 3).expect("a square");
        let mut box_at = vec![0u16; board.squares()];
        box_at[mouth as usize] = 1;
        assert_eq!(packing.count(&box_at), 0, "the mouth first blocks the rest");
        box_at[mouth as usize] = 0;
        box_at[end as usize] = 1;
        assert_eq!(packing.count(&box_at), 1);
        box_at[middle as usize] = 1;
        assert_eq!(packing.count(&box_at), 2);
        box_at[mouth as usize] = 1;
        assert_eq!(packing.count(&box_at), 3);
    }

    #[test]
    fn goals_in_the_open_are_one_layer_counted_as_filled() {
        let (board, packing) = packing(
            "#######\n\
             #     #\n\
             # .$. #\n\
             # $@$ #\n\
             #  .  #\n\
             #######\n",
        );
        assert_eq!(packing.layers(), 1);
        let mut box_at = vec![0u16; board.squares()];
        box_at[board.goals[0] as usize] = 1;
        box_at[board.goals[2] as usize] = 1;
        assert_eq!(packing.count(&box_at), 2);
    }
}
