//! The open list: the positions waiting to be expanded, by priority, in cells.
//!
//! Within a cell, a bucket per priority, last in first out within one (cheap, and
//! deep first among equals). A search that keeps one cell is plain best-first. With
//! several (FESS's feature space, Shoham and Schaeffer: positions grouped by features
//! such as goals packed and the player's regions), each pop takes the best position
//! of the next cell in turn, so that no one measure of progress steers the search
//! alone: a level where the bound leads astray is still explored along the others.

use std::collections::HashMap;

/// One cell's positions, a bucket per priority.
#[derive(Debug, Default)]
struct Buckets {
    buckets: Vec<Vec<u32>>,
    least: usize,
}

impl Buckets {
    /// Add `node`; returns the bytes newly taken.
    fn push(&mut self, priority: usize, node: u32) -> usize {
        let mut bytes = 0;
        if priority >= self.buckets.len() {
            bytes += (priority + 1 - self.buckets.len()) * std::mem::size_of::<Vec<u32>>();
            self.buckets.resize_with(priority + 1, Vec::new);
        }
        let bucket = &mut self.buckets[priority];
        let before = bucket.capacity();
        bucket.push(node);
        self.least = self.least.min(priority);
        bytes + (bucket.capacity() - before) * 4
    }

    fn pop(&mut self) -> Option<u32> {
        while self.least < self.buckets.len() {
            if let Some(node) = self.buckets[self.least].pop() {
                return Some(node);
            }
            self.least += 1;
        }
        None
    }
}

/// The open list of one search.
#[derive(Debug, Default)]
pub(crate) struct Open {
    cells: Vec<Buckets>,
    /// The index in `cells` of each cell's key.
    index: HashMap<u32, usize>,
    /// The cell to pop from next.
    turn: usize,
    /// Bytes taken by the buckets and cells.
    pub(crate) bytes: usize,
}

impl Open {
    /// Add `node` with `priority` (lower first) to the cell `cell`.
    pub(crate) fn push(&mut self, cell: u32, priority: usize, node: u32) {
        let at = match self.index.get(&cell) {
            Some(&at) => at,
            None => {
                self.cells.push(Buckets::default());
                self.index.insert(cell, self.cells.len() - 1);
                // The cell, and its key and index in the map (rounded up).
                self.bytes += std::mem::size_of::<Buckets>() + 16;
                self.cells.len() - 1
            }
        };
        self.bytes += self.cells[at].push(priority, node);
    }

    /// The best position of the next cell in turn that has one.
    pub(crate) fn pop(&mut self) -> Option<u32> {
        for _ in 0..self.cells.len() {
            let at = self.turn % self.cells.len();
            self.turn = self.turn.wrapping_add(1);
            if let Some(node) = self.cells[at].pop() {
                return Some(node);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cell_pops_the_lowest_priority_last_in_first() {
        let mut open = Open::default();
        open.push(0, 5, 1);
        open.push(0, 2, 2);
        open.push(0, 2, 3);
        open.push(0, 9, 4);
        let order: Vec<u32> = std::iter::from_fn(|| open.pop()).collect();
        assert_eq!(order, vec![3, 2, 1, 4]);
        assert_eq!(open.pop(), None);
    }

    #[test]
    fn cells_take_turns_whatever_their_priorities() {
        let mut open = Open::default();
        open.push(7, 1, 10);
        open.push(7, 2, 11);
        open.push(3, 50, 20);
        open.push(3, 60, 21);
        let order: Vec<u32> = std::iter::from_fn(|| open.pop()).collect();
        assert_eq!(order, vec![10, 20, 11, 21]);
    }
}
