//! The solver's compact board: the squares the player can ever reach, numbered
//! densely, with their neighbours, goals, dead squares and push distances to each goal,
//! computed once per level.
//!
//! Only the connected area of open squares around the player's start matters: a box
//! outside it never touches a square the player can reach, so it never moves (the
//! caller checks such boxes once against the win rule). Numbering just that area keeps
//! every per-square table small and lets a position's boxes be stored as `u16`s.

use crate::games::world::{Direction, Ground, Level};

/// No square (a wall, or off the grid).
pub(crate) const NONE: u32 = u32::MAX;

/// A push distance meaning "never".
pub(crate) const FAR: u16 = u16::MAX;

/// The most squares a board may have: a square is stored as a `u16`.
pub(crate) const MAX_SQUARES: usize = u16::MAX as usize;

/// The most entries of the per-goal distance tables (2 bytes each); beyond it the
/// lower bound falls back to the Manhattan distance.
const MAX_DISTANCE_ENTRIES: usize = 8 << 20;

/// The directions in the order of the neighbour tables ([`Direction::ALL`]).
pub(crate) const DIRECTIONS: [Direction; 4] = Direction::ALL;

/// The opposite of a direction index.
pub(crate) fn reverse(direction: usize) -> usize {
    (direction + 2) % 4
}

/// One level's area, numbered densely.
#[derive(Debug)]
pub(crate) struct Board {
    /// Grid columns, to turn a grid index into (row, column).
    pub(crate) width: usize,
    /// Grid rows.
    pub(crate) height: usize,
    /// The grid index of each square.
    pub(crate) grid_of: Vec<u32>,
    /// The square of each grid index, or [`NONE`] outside the area.
    pub(crate) square_of: Vec<u32>,
    /// The neighbours of each square in [`DIRECTIONS`] order, [`NONE`] for a wall.
    pub(crate) next: Vec<[u32; 4]>,
    /// Whether each square is a goal.
    pub(crate) goal: Vec<bool>,
    /// The goal squares, in increasing order.
    pub(crate) goals: Vec<u32>,
    /// Goals of the level outside the area (their grid indices): only a box that
    /// starts on one can ever fill it.
    pub(crate) outside_goals: Vec<usize>,
    /// Squares from which no sequence of pushes brings a box to any goal, even on an
    /// otherwise empty board.
    pub(crate) dead: Vec<bool>,
    /// Push distances, `distance[goal * squares + square]`, on an empty board; `None`
    /// when the tables would be too big (Manhattan distances are used instead).
    distance: Option<Vec<u16>>,
    /// Random keys of a box on each square, for Zobrist hashing.
    pub(crate) box_key: Vec<u64>,
}

impl Board {
    /// The board of `level`; `None` when its area has more squares than a `u16` holds.
    pub(crate) fn new(level: &Level, player: usize) -> Option<Board> {
        let (width, height) = (level.width(), level.height());
        let cells = width * height;
        let open = |index: usize| level.ground(index) != Ground::Wall;
        let grid_next = |index: usize, direction: usize| -> Option<usize> {
            let (row, column) = (index / width, index % width);
            match direction {
                0 => (column > 0).then(|| index - 1),
                1 => (row > 0).then(|| index - width),
                2 => (column + 1 < width).then(|| index + 1),
                _ => (row + 1 < height).then(|| index + width),
            }
            .filter(|&next| open(next))
        };
        let mut square_of = vec![NONE; cells];
        let mut grid_of = Vec::new();
        if player < cells && open(player) {
            square_of[player] = 0;
            grid_of.push(player as u32);
            let mut at = 0;
            while at < grid_of.len() {
                let index = grid_of[at] as usize;
                at += 1;
                for direction in 0..4 {
                    if let Some(next) = grid_next(index, direction) {
                        if square_of[next] == NONE {
                            if grid_of.len() >= MAX_SQUARES {
                                return None;
                            }
                            square_of[next] = grid_of.len() as u32;
                            grid_of.push(next as u32);
                        }
                    }
                }
            }
        }
        // Dense numbering in grid order, so that "the smallest square" is the
        // top-left-most one (a stable normal form for the player).
        grid_of.sort_unstable();
        for (square, &index) in grid_of.iter().enumerate() {
            square_of[index as usize] = square as u32;
        }
        let next: Vec<[u32; 4]> = grid_of
            .iter()
            .map(|&index| {
                let mut around = [NONE; 4];
                for (direction, slot) in around.iter_mut().enumerate() {
                    if let Some(next) = grid_next(index as usize, direction) {
                        *slot = square_of[next];
                    }
                }
                around
            })
            .collect();
        let goal: Vec<bool> = grid_of
            .iter()
            .map(|&index| level.ground(index as usize) == Ground::Goal)
            .collect();
        let goals: Vec<u32> = (0..goal.len() as u32)
            .filter(|&square| goal[square as usize])
            .collect();
        let outside_goals = (0..cells)
            .filter(|&index| level.ground(index) == Ground::Goal && square_of[index] == NONE)
            .collect();
        let mut board = Board {
            width,
            height,
            grid_of,
            square_of,
            next,
            goal,
            goals,
            outside_goals,
            dead: Vec::new(),
            distance: None,
            box_key: Vec::new(),
        };
        let all_goals = board.goals.clone();
        let reach = board.pull_distances(&all_goals);
        board.dead = reach.iter().map(|&d| d == FAR).collect();
        let squares = board.squares();
        if board.goals.len().saturating_mul(squares) <= MAX_DISTANCE_ENTRIES {
            let mut table = Vec::with_capacity(board.goals.len() * squares);
            for &goal in &board.goals.clone() {
                table.extend(board.pull_distances(&[goal]));
            }
            board.distance = Some(table);
        }
        let mut seed = 0x5eed_0b0c_5a11_u64 ^ (width as u64) << 32 ^ height as u64;
        board.box_key = (0..squares).map(|_| splitmix(&mut seed)).collect();
        Some(board)
    }

    /// The board of the pull search (`backward.rs`): the same area, with `targets`
    /// (the boxes' squares of the position to reach) as its goals, dead squares those
    /// from which no pulls bring a box to a target, and distances counted in pulls.
    pub(crate) fn reversed(&self, targets: &[u16]) -> Board {
        let squares = self.squares();
        let mut goal = vec![false; squares];
        for &target in targets {
            goal[target as usize] = true;
        }
        let goals: Vec<u32> = (0..squares as u32)
            .filter(|&square| goal[square as usize])
            .collect();
        // Pulls from a square to a target are pushes from the target to the square.
        let reach = self.push_distances(&goals);
        let distance = (goals.len().saturating_mul(squares) <= MAX_DISTANCE_ENTRIES).then(|| {
            goals
                .iter()
                .flat_map(|&target| self.push_distances(&[target]))
                .collect()
        });
        Board {
            width: self.width,
            height: self.height,
            grid_of: self.grid_of.clone(),
            square_of: self.square_of.clone(),
            next: self.next.clone(),
            goal,
            goals,
            outside_goals: Vec::new(),
            dead: reach.iter().map(|&d| d == FAR).collect(),
            distance,
            box_key: self.box_key.clone(),
        }
    }

    /// Mark with `mark` every square reached from `from` without crossing a box
    /// (`box_at[s] != 0`) or a square marked already, and return the smallest one
    /// reached (`from` itself is marked too).
    pub(crate) fn fill(
        &self,
        box_at: &[u16],
        seen: &mut [u32],
        mark: u32,
        queue: &mut Vec<u32>,
        from: u32,
    ) -> u32 {
        queue.clear();
        queue.push(from);
        seen[from as usize] = mark;
        let mut least = from;
        let mut at = 0;
        while at < queue.len() {
            let square = queue[at];
            at += 1;
            least = least.min(square);
            for &next in &self.next[square as usize] {
                if next != NONE && seen[next as usize] != mark && box_at[next as usize] == 0 {
                    seen[next as usize] = mark;
                    queue.push(next);
                }
            }
        }
        least
    }

    /// Squares in the area.
    pub(crate) fn squares(&self) -> usize {
        self.grid_of.len()
    }

    /// The (row, column) of a square.
    pub(crate) fn row_column(&self, square: u32) -> (usize, usize) {
        let index = self.grid_of[square as usize] as usize;
        (index / self.width, index % self.width)
    }

    /// The square at (row, column), if it is in the area.
    pub(crate) fn square_at(&self, row: usize, column: usize) -> Option<u32> {
        if row >= self.height || column >= self.width {
            return None;
        }
        let square = self.square_of[row * self.width + column];
        (square != NONE).then_some(square)
    }

    /// The fewest pushes that bring a box from `square` to the `goal`-th goal on an
    /// empty board ([`FAR`] for never); a lower bound on any real number of pushes.
    pub(crate) fn distance(&self, goal: usize, square: u32) -> u16 {
        match &self.distance {
            Some(table) => table[goal * self.squares() + square as usize],
            None if self.dead[square as usize] => FAR,
            None => {
                let (row, column) = self.row_column(square);
                let (goal_row, goal_column) = self.row_column(self.goals[goal]);
                (row.abs_diff(goal_row) + column.abs_diff(goal_column)).min(FAR as usize - 1) as u16
            }
        }
    }

    /// Bytes held by the tables, for the memory budget's report.
    pub(crate) fn bytes(&self) -> usize {
        self.squares() * (4 + 16 + 1 + 1 + 16)
            + self.square_of.len() * 4
            + self.distance.as_ref().map_or(0, |table| table.len() * 2)
    }

    /// The fewest pushes from each square to any of `targets` on an empty board:
    /// a breadth-first search of pulls from the targets. A box at `s` is pushed in
    /// direction `d` to `s + d` with the player at `s - d`: both must be open. So a
    /// box at `t` is pulled in direction `d` to `t + d` with the player at `t + 2d`.
    fn pull_distances(&self, targets: &[u32]) -> Vec<u16> {
        self.distances(targets, |at, direction| {
            let to = self.next[at as usize][direction];
            (to != NONE && self.next[to as usize][direction] != NONE).then_some(to)
        })
    }

    /// The fewest pushes from any of `sources` to each square on an empty board: a
    /// breadth-first search of pushes (box at `s`, player at `s - d`, box to `s + d`).
    fn push_distances(&self, sources: &[u32]) -> Vec<u16> {
        self.distances(sources, |at, direction| {
            let to = self.next[at as usize][direction];
            (to != NONE && self.next[at as usize][reverse(direction)] != NONE).then_some(to)
        })
    }

    /// A breadth-first search from `sources`, where `step(square, direction)` is the
    /// square one move leads to, if the move can be made: the steps' count to each
    /// square, [`FAR`] where none leads.
    fn distances(&self, sources: &[u32], step: impl Fn(u32, usize) -> Option<u32>) -> Vec<u16> {
        let mut distance = vec![FAR; self.squares()];
        let mut queue: Vec<u32> = Vec::with_capacity(self.squares());
        for &source in sources {
            distance[source as usize] = 0;
            queue.push(source);
        }
        let mut at = 0;
        while at < queue.len() {
            let square = queue[at];
            at += 1;
            let next = distance[square as usize].saturating_add(1);
            for direction in 0..4 {
                if let Some(to) = step(square, direction) {
                    if distance[to as usize] == FAR {
                        distance[to as usize] = next;
                        queue.push(to);
                    }
                }
            }
        }
        distance
    }
}

/// The squares the player reaches in one position, marked with a number that changes
/// at each fill so that nothing needs clearing.
pub(crate) struct Reach {
    seen: Vec<u32>,
    mark: u32,
}

impl Reach {
    pub(crate) fn new(squares: usize) -> Reach {
        Reach {
            seen: vec![0; squares],
            mark: 0,
        }
    }

    /// Mark the squares reached from `from`; returns the smallest (the normal form).
    pub(crate) fn fill(
        &mut self,
        board: &Board,
        box_at: &[u16],
        queue: &mut Vec<u32>,
        from: u32,
    ) -> u32 {
        self.mark = self.mark.wrapping_add(1);
        if self.mark == 0 {
            self.seen.fill(0);
            self.mark = 1;
        }
        board.fill(box_at, &mut self.seen, self.mark, queue, from)
    }

    /// Whether the last fill reached `square`.
    pub(crate) fn has(&self, square: u32) -> bool {
        self.seen[square as usize] == self.mark
    }
}

/// SplitMix64: a fixed stream of well-mixed numbers for the Zobrist keys.
pub(crate) fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::games::world::{Cell, WinRule};
    use std::sync::Arc;

    /// A level in the standard notation, for tests.
    pub(crate) fn level(text: &str, rule: WinRule) -> Arc<Level> {
        let rows: Vec<Vec<Cell>> = text
            .lines()
            .map(|line| {
                line.chars()
                    .map(|c| match c {
                        '#' => Cell::Wall,
                        '.' => Cell::Goal,
                        '$' => Cell::Box,
                        '*' => Cell::BoxOnGoal,
                        '@' => Cell::Player,
                        '+' => Cell::PlayerOnGoal,
                        _ => Cell::Floor,
                    })
                    .collect()
            })
            .collect();
        Arc::new(Level::from_rows(&rows, rule).expect("a valid test level"))
    }

    fn board(text: &str) -> Board {
        let level = level(text, WinRule::EveryBox);
        let player = crate::games::world::World::new(Arc::clone(&level)).player_square();
        Board::new(&level, player).expect("small board")
    }

    #[test]
    fn corners_and_walls_without_goals_are_dead_and_distances_count_pushes() {
        let board = board("######\n#@   #\n# $ .#\n#    #\n######");
        let dead = |row, column| board.dead[board.square_at(row, column).unwrap() as usize];
        assert!(dead(1, 1) && dead(1, 4) && dead(3, 1) && dead(3, 4));
        // Along the top wall there is no goal; along the right wall there is one.
        assert!(dead(1, 2) && dead(1, 3));
        assert!(!dead(2, 4) && !dead(2, 2) && !dead(2, 3));
        assert!(
            dead(2, 1),
            "against the left wall, whose line holds no goal"
        );
        assert!(dead(3, 2), "the bottom wall has no goal");
        let box_square = board.square_at(2, 2).unwrap();
        assert_eq!(board.distance(0, box_square), 2);
        assert_eq!(board.distance(0, board.square_at(1, 2).unwrap()), FAR);
    }

    #[test]
    fn only_the_players_area_is_numbered() {
        let board = board("#####\n#@ .#\n#####\n#$ .#\n#####");
        assert_eq!(board.squares(), 3);
        assert_eq!(board.square_at(3, 1), None);
        assert_eq!(board.outside_goals.len(), 1);
    }
}
