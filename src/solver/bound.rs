//! The lower bound on the pushes still needed: a minimum-cost matching of boxes to
//! goals, each box's cost to a goal being its push distance on an empty board.
//!
//! Every box needs its own goal (or, under `EveryGoal` with surplus boxes, every goal
//! its own box: the surplus boxes are matched to dummy goals at no cost), and a push
//! moves one box one square, so the matching's cost never exceeds the real number of
//! pushes (admissible) and drops by at most one per push (consistent). A matching that
//! cannot avoid an impossible pair proves the position dead.
//!
//! The Hungarian method (shortest augmenting paths with potentials) solves a parent's
//! matching once, in O(n^3); each child moved one box, so its matching is repaired by
//! one augmenting path from that box's row, in O(n^2).

use super::board::{Board, FAR};

/// The cost of an impossible box-goal pair; any matching using one is infeasible.
const IMPOSSIBLE: i64 = 1 << 24;

/// A bound meaning "no matching exists": the position is dead.
pub(crate) const DEAD: u32 = u32::MAX;

/// The matching's working state: rows are boxes, columns goals then dummies.
#[derive(Debug, Clone)]
pub(crate) struct Matching {
    rows: usize,
    columns: usize,
    /// Real goals among the columns (the first ones).
    goals: usize,
    cost: Vec<i64>,
    row_potential: Vec<i64>,
    column_potential: Vec<i64>,
    /// The 1-based row matched to each 1-based column (0: none; index 0 is scratch).
    owner: Vec<usize>,
    least: Vec<i64>,
    way: Vec<usize>,
    used: Vec<bool>,
}

impl Matching {
    /// A matching for `rows` boxes on `board`: every box needs a goal when `strict`,
    /// else the surplus boxes may stay anywhere. `None` when there are more boxes than
    /// goals under `strict`: no matching at all.
    pub(crate) fn new(board: &Board, rows: usize, strict: bool) -> Option<Matching> {
        let goals = board.goals.len();
        let columns = if strict {
            if rows > goals {
                return None;
            }
            goals
        } else {
            goals.max(rows)
        };
        Some(Matching::shaped(rows, columns, goals))
    }

    /// A matching of `rows` rows and `columns` columns, the first `goals` of them
    /// real goals, its costs all 0.
    fn shaped(rows: usize, columns: usize, goals: usize) -> Matching {
        Matching {
            rows,
            columns,
            goals,
            cost: vec![0; rows * columns],
            row_potential: vec![0; rows + 1],
            column_potential: vec![0; columns + 1],
            owner: vec![0; columns + 1],
            least: vec![0; columns + 1],
            way: vec![0; columns + 1],
            used: vec![false; columns + 1],
        }
    }

    /// Set row `row`'s costs for a box on `square`.
    fn set_row(&mut self, board: &Board, row: usize, square: u16) {
        let start = row * self.columns;
        for goal in 0..self.columns {
            self.cost[start + goal] = if goal < self.goals {
                match board.distance(goal, u32::from(square)) {
                    FAR => IMPOSSIBLE,
                    distance => i64::from(distance),
                }
            } else {
                0
            };
        }
    }

    /// The cost of a full matching of boxes on `squares` (one per row), from scratch.
    pub(crate) fn solve(&mut self, board: &Board, squares: &[u16]) -> u32 {
        debug_assert_eq!(squares.len(), self.rows);
        for (row, &square) in squares.iter().enumerate() {
            self.set_row(board, row, square);
        }
        self.solve_costs();
        self.total()
    }

    /// Solve the matching of the costs set, from scratch. Each row's potential starts
    /// at its least cost, and a row whose least cost is on a column still free takes
    /// it: the potentials are feasible and every pair taken is tight, as augmenting
    /// needs. Most boxes have a goal of their own nearest, so few rows are left for
    /// the augmenting paths, which are most of the cost of a matching.
    fn solve_costs(&mut self) {
        self.column_potential.fill(0);
        self.owner.fill(0);
        let mut left = Vec::new();
        for row in 0..self.rows {
            let start = row * self.columns;
            let costs = &self.cost[start..start + self.columns];
            let least = costs.iter().copied().min().unwrap_or(0);
            self.row_potential[row + 1] = least;
            let free = costs
                .iter()
                .enumerate()
                .position(|(column, &cost)| cost == least && self.owner[column + 1] == 0);
            match free {
                Some(column) => self.owner[column + 1] = row + 1,
                None => left.push(row + 1),
            }
        }
        for row in left {
            self.augment(row);
        }
    }

    /// The cost after the box of `row` moves to `square`, from the solved matching
    /// before the move, in O(n^2). The state is changed: copy it first to go back.
    pub(crate) fn moved(&mut self, board: &Board, row: usize, square: u16) -> u32 {
        self.set_row(board, row, square);
        let row1 = row + 1;
        if let Some(column) = self.owner.iter().skip(1).position(|&r| r == row1) {
            self.owner[column + 1] = 0;
        }
        // Only this row's costs changed: lowering its potential to its least reduced
        // cost keeps every potential feasible, the others' pairs still tight.
        let start = row * self.columns;
        self.row_potential[row1] = (0..self.columns)
            .map(|column| self.cost[start + column] - self.column_potential[column + 1])
            .min()
            .unwrap_or(0);
        self.augment(row1);
        self.total()
    }

    /// The length of the state [`Matching::save`] writes.
    pub(crate) fn state_len(&self) -> usize {
        (self.rows + 1) + 2 * (self.columns + 1)
    }

    /// Write the solved state (potentials and pairs; the costs follow from the
    /// squares) into `into`, of [`Matching::state_len`].
    pub(crate) fn save(&self, into: &mut [i64]) {
        let (rows, columns) = into.split_at_mut(self.rows + 1);
        let (potentials, owners) = columns.split_at_mut(self.columns + 1);
        rows.copy_from_slice(&self.row_potential);
        potentials.copy_from_slice(&self.column_potential);
        for (owner, &row) in owners.iter_mut().zip(&self.owner) {
            *owner = row as i64;
        }
    }

    /// The solved matching of boxes on `squares` (one per row), from its state
    /// saved by [`Matching::save`]: no solving, only the costs set.
    pub(crate) fn load(&mut self, board: &Board, squares: &[u16], from: &[i64]) {
        for (row, &square) in squares.iter().enumerate() {
            self.set_row(board, row, square);
        }
        let (rows, columns) = from.split_at(self.rows + 1);
        let (potentials, owners) = columns.split_at(self.columns + 1);
        self.row_potential.copy_from_slice(rows);
        self.column_potential.copy_from_slice(potentials);
        for (owner, &row) in self.owner.iter_mut().zip(owners) {
            *owner = row as usize;
        }
    }

    /// Copy `other`'s state (same shape) into this one, without allocating.
    pub(crate) fn copy_from(&mut self, other: &Matching) {
        self.cost.copy_from_slice(&other.cost);
        self.row_potential.copy_from_slice(&other.row_potential);
        self.column_potential
            .copy_from_slice(&other.column_potential);
        self.owner.copy_from_slice(&other.owner);
    }

    /// One shortest augmenting path from the unmatched 1-based `row`.
    fn augment(&mut self, row: usize) {
        let columns = self.columns;
        self.owner[0] = row;
        let mut column0 = 0;
        self.least.fill(i64::MAX);
        self.used.fill(false);
        loop {
            self.used[column0] = true;
            let row0 = self.owner[column0];
            let mut delta = i64::MAX;
            let mut column1 = 0;
            let start = (row0 - 1) * columns;
            for column in 1..=columns {
                if self.used[column] {
                    continue;
                }
                let reduced = self.cost[start + column - 1]
                    - self.row_potential[row0]
                    - self.column_potential[column];
                if reduced < self.least[column] {
                    self.least[column] = reduced;
                    self.way[column] = column0;
                }
                if self.least[column] < delta {
                    delta = self.least[column];
                    column1 = column;
                }
            }
            if column1 == 0 {
                // No free column at all (cannot happen with rows <= columns).
                return;
            }
            for column in 0..=columns {
                if self.used[column] {
                    self.row_potential[self.owner[column]] += delta;
                    self.column_potential[column] -= delta;
                } else {
                    self.least[column] -= delta;
                }
            }
            column0 = column1;
            if self.owner[column0] == 0 {
                break;
            }
        }
        loop {
            let previous = self.way[column0];
            self.owner[column0] = self.owner[previous];
            column0 = previous;
            if column0 == 0 {
                break;
            }
        }
    }

    /// The matched pairs' cost, or [`DEAD`] if one is impossible.
    fn total(&self) -> u32 {
        let mut sum = 0i64;
        for column in 1..=self.columns {
            let row = self.owner[column];
            if row != 0 {
                sum += self.cost[(row - 1) * self.columns + column - 1];
            }
        }
        if sum >= IMPOSSIBLE {
            DEAD
        } else {
            sum as u32
        }
    }

    /// For each 1-based row, its goal column (0-based; `>= goals` for a dummy).
    #[cfg(test)]
    fn assignment(&self) -> Vec<usize> {
        let mut of_row = vec![0; self.rows];
        for column in 1..=self.columns {
            if self.owner[column] != 0 {
                of_row[self.owner[column] - 1] = column - 1;
            }
        }
        of_row
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::games::world::{WinRule, World};
    use crate::solver::board::tests::level;
    use std::sync::Arc;

    /// A level's board and its boxes' squares, in the level's order.
    pub(crate) fn board_and_boxes(text: &str, rule: WinRule) -> (Board, Vec<u16>) {
        let level = level(text, rule);
        let world = World::new(Arc::clone(&level));
        let board = Board::new(&level, world.player_square()).expect("a small board");
        let boxes = world
            .box_squares()
            .map(|index| board.square_of[index] as u16)
            .collect();
        (board, boxes)
    }

    /// Every assignment of rows to distinct columns, by brute force.
    fn brute(cost: &[i64], rows: usize, columns: usize) -> i64 {
        fn go(cost: &[i64], row: usize, rows: usize, columns: usize, taken: &mut Vec<bool>) -> i64 {
            if row == rows {
                return 0;
            }
            let mut best = i64::MAX;
            for column in 0..columns {
                if !taken[column] {
                    taken[column] = true;
                    let rest = go(cost, row + 1, rows, columns, taken);
                    taken[column] = false;
                    if rest != i64::MAX {
                        best = best.min(cost[row * columns + column] + rest);
                    }
                }
            }
            best
        }
        go(cost, 0, rows, columns, &mut vec![false; columns])
    }

    #[test]
    fn matching_is_the_cheapest_assignment_and_repairs_agree_with_a_full_solve() {
        let text = "########\n#@ $ . #\n# $  . #\n#  $ . #\n#      #\n########";
        let (board, boxes) = board_and_boxes(text, WinRule::EveryBox);
        let mut matching = Matching::new(&board, boxes.len(), true).unwrap();
        let cost = matching.solve(&board, &boxes);
        let expected = brute(&matching.cost, matching.rows, matching.columns);
        assert_eq!(i64::from(cost), expected);
        assert_eq!(cost, 2 + 3 + 2);
        let assigned = matching.assignment();
        let mut distinct = assigned.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), assigned.len());
        assert_repairs_match_fresh_solves(&board, &boxes, &matching);
    }

    /// Move each box of `boxes` (the rows of `solved`, a solved matching) to each
    /// square no box is on: the repair must equal a fresh solve.
    pub(crate) fn assert_repairs_match_fresh_solves(
        board: &Board,
        boxes: &[u16],
        solved: &Matching,
    ) {
        for row in 0..boxes.len() {
            for square in 0..board.squares() as u16 {
                if boxes.contains(&square) {
                    continue;
                }
                let mut repaired = solved.clone();
                let got = repaired.moved(board, row, square);
                let mut moved = boxes.to_vec();
                moved[row] = square;
                let mut fresh = Matching::new(board, boxes.len(), true).expect("as many goals");
                assert_eq!(got, fresh.solve(board, &moved), "row {row} to {square}");
            }
        }
    }

    #[test]
    fn a_solve_from_scratch_is_the_cheapest_assignment_of_random_costs() {
        let mut state = 7u64;
        for _ in 0..300 {
            let rows = 1 + (crate::solver::board::splitmix(&mut state) % 6) as usize;
            let columns = rows + (crate::solver::board::splitmix(&mut state) % 3) as usize;
            let mut matching = Matching::shaped(rows, columns, columns);
            for cost in &mut matching.cost {
                // Few values, so that rows often share their least column.
                *cost = (crate::solver::board::splitmix(&mut state) % 5) as i64;
            }
            matching.solve_costs();
            let expected = brute(&matching.cost, rows, columns);
            assert_eq!(i64::from(matching.total()), expected, "{:?}", matching.cost);
        }
    }

    #[test]
    fn two_boxes_that_can_only_reach_one_goal_are_dead() {
        // Both boxes sit in the top row, whose only goal is in it: each can reach that
        // one goal only.
        let text = "#######\n#.$ $ #\n#     #\n#.    #\n#@    #\n#######";
        let (board, boxes) = board_and_boxes(text, WinRule::EveryBox);
        let mut matching = Matching::new(&board, boxes.len(), true).unwrap();
        assert_eq!(matching.solve(&board, &boxes), DEAD);
    }

    #[test]
    fn surplus_boxes_match_dummies_under_every_goal() {
        let text = "#######\n#.$ $ #\n#     #\n#@    #\n#######";
        let (board, boxes) = board_and_boxes(text, WinRule::EveryGoal);
        assert!(Matching::new(&board, boxes.len(), true).is_none());
        let mut matching = Matching::new(&board, boxes.len(), false).unwrap();
        assert_eq!(matching.solve(&board, &boxes), 1);
    }
}
