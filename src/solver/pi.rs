//! PI-corral pruning (Junghanns; the sokobano.de wiki's "PI-Corral pruning"): the
//! quick search's strongest cut.
//!
//! A corral is an area the player cannot reach, fenced by boxes (walls aside). If it
//! still needs work (a fence box off a goal that must reach one, or an empty goal
//! inside that must be filled), every solution pushes a fence box at some point. Until
//! that first fence push the fence stands, the player stays outside and only other
//! boxes move, outside the corral. It is a PI-corral when every fence push that could
//! come first goes into the corral (I) and can be made now (P): then the first fence
//! push of any solution can be made first instead, with the same pushes after it (it
//! only frees a square outside the corral). So only the fence boxes' pushes need to
//! be tried, and a PI-corral without any push is dead.

use super::board::{Board, NONE};

/// Scratch for finding corrals, sized for one board.
#[derive(Debug)]
pub(crate) struct Corrals {
    /// The corral number (1-based) of each square, 0 for none.
    area: Vec<u32>,
    squares: Vec<u32>,
    fence: Vec<u16>,
}

/// What the corrals of a position say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cut {
    /// No PI-corral that needs work: try every push.
    None,
    /// Only the pushes of the boxes on these slots.
    Only(Vec<u16>),
    /// A PI-corral needs work and no push can give it: the position is dead.
    Dead,
}

impl Corrals {
    pub(crate) fn new(squares: usize) -> Corrals {
        Corrals {
            area: vec![0; squares],
            squares: Vec::new(),
            fence: Vec::new(),
        }
    }

    /// The cut for a position: `box_at` holds 1 + each box's slot (0: none),
    /// `reached` the player's area. `land`: every box must end on a goal; `fill`:
    /// every goal must end with a box.
    pub(crate) fn cut(
        &mut self,
        board: &Board,
        box_at: &[u16],
        reached: &dyn Fn(u32) -> bool,
        land: bool,
        fill: bool,
    ) -> Cut {
        self.area.fill(0);
        let mut best: Option<(usize, Vec<u16>)> = None;
        let mut corral = 0u32;
        for start in 0..board.squares() as u32 {
            if reached(start) || box_at[start as usize] != 0 || self.area[start as usize] != 0 {
                continue;
            }
            corral += 1;
            // The corral's squares, and whether it holds a goal.
            self.squares.clear();
            self.squares.push(start);
            self.area[start as usize] = corral;
            let mut has_goal = false;
            let mut at = 0;
            self.fence.clear();
            while at < self.squares.len() {
                let square = self.squares[at];
                at += 1;
                has_goal |= board.goal[square as usize];
                for &next in &board.next[square as usize] {
                    if next == NONE {
                        continue;
                    }
                    if box_at[next as usize] != 0 {
                        self.fence.push(next as u16);
                    } else if self.area[next as usize] == 0 {
                        self.area[next as usize] = corral;
                        self.squares.push(next);
                    }
                }
            }
            self.fence.sort_unstable();
            self.fence.dedup();
            let off_goal = self.fence.iter().any(|&b| !board.goal[b as usize]);
            if !(land && off_goal || fill && has_goal) {
                continue;
            }
            let Some(pushes) = self.pi_pushes(board, box_at, reached, corral) else {
                continue;
            };
            if pushes == 0 {
                return Cut::Dead;
            }
            if best.as_ref().is_none_or(|(least, _)| pushes < *least) {
                let slots = self.fence.iter().map(|&b| box_at[b as usize] - 1).collect();
                best = Some((pushes, slots));
            }
        }
        match best {
            Some((_, slots)) => Cut::Only(slots),
            None => Cut::None,
        }
    }

    /// The pushes of the fence into corral `corral` if it is a PI-corral, else `None`.
    fn pi_pushes(
        &self,
        board: &Board,
        box_at: &[u16],
        reached: &dyn Fn(u32) -> bool,
        corral: u32,
    ) -> Option<usize> {
        // Until the first push of a fence box, the fence stands and the player stays
        // out of the corral; every other box may have moved anywhere outside it. So
        // any push of a fence box that could come first must go into the corral (I)
        // and be possible now (P).
        let mut pushes = 0;
        for &fence in &self.fence {
            let around = board.next[fence as usize];
            for direction in 0..4 {
                let (to, behind) = (around[direction], around[(direction + 2) % 4]);
                if to == NONE || behind == NONE {
                    continue;
                }
                let is_fence = |square: u32| self.fence.binary_search(&(square as u16)).is_ok();
                if is_fence(to) || is_fence(behind) || self.area[behind as usize] == corral {
                    continue;
                }
                if self.area[to as usize] != corral {
                    return None;
                }
                if !reached(behind) || box_at[behind as usize] != 0 {
                    return None;
                }
                pushes += 1;
            }
        }
        Some(pushes)
    }
}
