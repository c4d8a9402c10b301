//! The matchings of recently generated positions, kept so that expanding one of them
//! need not solve its matching again from scratch.
//!
//! A search repairs each child's matching from its parent's in O(n^2), but a position
//! stores only its boxes, so expanding it meant solving its matching anew, in
//! O(n^3): most of the quick search's time on levels of twenty boxes or more. The
//! quick search dives (the best child is often the next position expanded), so a small
//! table of the last children's matchings, indexed by their node numbers, spares most
//! of those solves. A matching is kept with its rows' squares in its own row order,
//! which the expansion then uses as its box order.

use super::board::Board;
use super::bound::Matching;

/// How many matchings are kept at most (direct-mapped by node number).
const ENTRIES: usize = 1024;

/// Recent positions' matchings.
pub(crate) struct Recent {
    /// The node each entry holds, or `u32::MAX` for none.
    tags: Vec<u32>,
    /// Each entry's rows' squares, `k` per entry.
    squares: Vec<u16>,
    /// Each entry's matching state, `width` per entry.
    states: Vec<i64>,
    k: usize,
    width: usize,
    /// Entries at most: [`ENTRIES`], fewer when a search's memory is small.
    capacity: usize,
}

impl Recent {
    /// A table for matchings shaped like `matching`, of `k` rows, taking at most an
    /// eighth of `memory` bytes. It grows with the positions generated, so that a
    /// small search (a corral's, after each push) allocates little.
    pub(crate) fn new(matching: &Matching, k: usize, memory: usize) -> Recent {
        let width = matching.state_len();
        let entry = 4 + k * 2 + width * 8;
        Recent {
            tags: Vec::new(),
            squares: Vec::new(),
            states: Vec::new(),
            k,
            width,
            capacity: (memory / 8 / entry).clamp(1, ENTRIES),
        }
    }

    /// Bytes taken.
    pub(crate) fn bytes(&self) -> usize {
        self.tags.len() * (4 + self.k * 2 + self.width * 8)
    }

    /// Keep the matching of `node`, whose rows are `parent`'s boxes with the box of
    /// `slot` moved to `to`.
    pub(crate) fn keep(
        &mut self,
        node: u32,
        parent: &[u16],
        slot: usize,
        to: u16,
        matching: &Matching,
    ) {
        let entry = node as usize % self.capacity;
        if entry >= self.tags.len() {
            self.tags.resize(entry + 1, u32::MAX);
            self.squares.resize((entry + 1) * self.k, 0);
            self.states.resize((entry + 1) * self.width, 0);
        }
        self.tags[entry] = node;
        let squares = &mut self.squares[entry * self.k..(entry + 1) * self.k];
        squares.copy_from_slice(parent);
        squares[slot] = to;
        matching.save(&mut self.states[entry * self.width..(entry + 1) * self.width]);
    }

    /// Set `matching` to the kept matching of `node` and `boxes` to its rows' squares,
    /// if it is still kept; else leave both alone.
    pub(crate) fn restore(
        &self,
        node: u32,
        board: &Board,
        boxes: &mut [u16],
        matching: &mut Matching,
    ) -> bool {
        let entry = node as usize % self.capacity;
        if self.tags.get(entry) != Some(&node) {
            return false;
        }
        boxes.copy_from_slice(&self.squares[entry * self.k..(entry + 1) * self.k]);
        matching.load(
            board,
            boxes,
            &self.states[entry * self.width..(entry + 1) * self.width],
        );
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::world::WinRule;
    use crate::solver::bound::tests::{assert_repairs_match_fresh_solves, board_and_boxes};

    #[test]
    fn a_kept_matching_comes_back_in_its_row_order_and_repairs_like_a_fresh_one() {
        let (board, mut boxes) = board_and_boxes(
            "########\n#@ $ . #\n# $  . #\n#  $ . #\n#      #\n########",
            WinRule::EveryBox,
        );
        boxes.sort_unstable();
        let k = boxes.len();
        let mut parent = Matching::new(&board, k, true).expect("as many goals");
        parent.solve(&board, &boxes);
        let mut recent = Recent::new(&parent, k, 1 << 30);
        // The first box moves to a square no box is on: the child's rows are the
        // parent's with that one changed, not sorted.
        let to = (0..board.squares() as u16)
            .rev()
            .find(|square| !boxes.contains(square) && !board.dead[*square as usize])
            .expect("a free square");
        let mut child = parent.clone();
        let bound = child.moved(&board, 0, to);
        recent.keep(7, &boxes, 0, to, &child);

        let mut rows = vec![0u16; k];
        let mut restored = Matching::new(&board, k, true).expect("as many goals");
        assert!(recent.restore(7, &board, &mut rows, &mut restored));
        let mut expected = boxes.clone();
        expected[0] = to;
        assert_eq!(rows, expected);
        // Every further move repairs to what a fresh solve finds.
        assert_repairs_match_fresh_solves(&board, &rows, &restored);
        let mut again = Matching::new(&board, k, true).expect("as many goals");
        assert_eq!(again.solve(&board, &rows), bound);
        // Another node on the same entry pushes it out.
        recent.keep(7 + ENTRIES as u32, &boxes, 1, to, &child);
        assert!(!recent.restore(7, &board, &mut rows, &mut restored));
        assert_eq!(recent.bytes(), 8 * (4 + k * 2 + parent.state_len() * 8));
        // A small memory keeps fewer: node 7 and node 9 share the entry of 1 in 2.
        let mut small = Recent::new(&parent, k, 16 * (4 + k * 2 + parent.state_len() * 8));
        small.keep(7, &boxes, 0, to, &child);
        small.keep(9, &boxes, 0, to, &child);
        assert!(!small.restore(7, &board, &mut rows, &mut restored));
        assert!(small.restore(9, &board, &mut rows, &mut restored));
        assert_eq!(small.bytes(), 2 * (4 + k * 2 + parent.state_len() * 8));
    }
}
