//! The Sokoban solver (issue 33): solutions, hints and deadlock warnings for the two
//! box-pushing games, under either [`WinRule`].
//!
//! Pure like `games/` (no I/O; the clock only for a deadline). A level is analysed once
//! ([`Analysis`]: its area, dead squares, push distances), shared behind an `Arc` by
//! every search and check on it. [`solve`] searches pushes over normalised positions
//! (A* with a matching lower bound for the fewest pushes, or a greedy order for any
//! solution fast, forwards and then backwards from the goals), within a [`Budget`] of
//! nodes, time and memory and a stop flag.
//! [`deadlock`] is the cheap check after a push (dead squares, frozen boxes, boxes
//! that cannot all reach goals); [`corral_deadlock`] proves a corral dead with a small
//! search. A warning is never wrong: every check only reports what it proved.
//!
//! Files: `board.rs` (the compact board and its tables), `bound.rs` (the matching),
//! `freeze.rs`, `table.rs` (the transposition table), `search.rs`, `moves.rs` (walks
//! between pushes), `dead.rs` (the cheap checks), `corral.rs`, `pi.rs` (PI-corral
//! pruning), `open.rs` (the open list and its cells), `regions.rs` (the player's
//! regions) and `packing.rs` (the goals' packing order), the quick search's cells,
//! `recent.rs` (recent matchings, so that an expansion need not solve its own),
//! `backward.rs` (the pull search).

mod backward;
mod board;
mod bound;
mod corral;
mod dead;
mod freeze;
mod moves;
mod open;
mod packing;
mod pi;
mod recent;
mod regions;
mod search;
mod table;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::games::world::{Direction, Ground, Level, Step, WinRule, World};

use board::{Board, DIRECTIONS, NONE};
use search::{Limits, Order, Outcome, Problem, Stop};

pub use corral::{corral_deadlock, has_corral};
pub use dead::deadlock;

/// What one search may spend.
#[derive(Debug, Clone)]
pub struct Budget {
    /// Positions generated at most.
    pub nodes: u64,
    /// When to give up, if ever.
    pub deadline: Option<Instant>,
    /// Bytes of all the tables of one search (positions, open list, scratch).
    pub memory: usize,
}

impl Budget {
    /// A budget of `nodes` positions and `memory` bytes, with no deadline.
    pub fn new(nodes: u64, memory: usize) -> Budget {
        Budget {
            nodes,
            deadline: None,
            memory,
        }
    }
}

/// What a search looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Any solution, fast: best-first on the lower bound, positions grouped by how
    /// many regions the boxes part the floor into, the groups taking turns; forwards
    /// with a third of the budget, then backwards from the goals twice (by regions,
    /// then greedy), each with a share of what is left.
    Quick,
    /// A solution with the fewest pushes: A* with an admissible bound.
    FewestPushes,
}

/// The answer of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A solution from the given position.
    Solved(Solution),
    /// Proven: no sequence of moves solves the position.
    NoSolution,
    /// The budget ran out first.
    GaveUp(Limit),
}

/// Which part of a [`Budget`] ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`Budget::nodes`].
    Nodes,
    /// [`Budget::deadline`].
    Time,
    /// [`Budget::memory`] (or a board too large for the solver's tables).
    Memory,
    /// The stop flag was raised.
    Stopped,
}

impl From<Stop> for Limit {
    fn from(stop: Stop) -> Limit {
        match stop {
            Stop::Nodes => Limit::Nodes,
            Stop::Time => Limit::Time,
            Stop::Memory => Limit::Memory,
            Stop::Stopped => Limit::Stopped,
        }
    }
}

/// One push of a solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Push {
    /// 0-based row of the box before the push.
    pub row: usize,
    /// 0-based column of the box before the push.
    pub column: usize,
    /// Where it is pushed.
    pub direction: Direction,
}

/// A solution: its pushes and every move from the given position, walks included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    pushes: Vec<Push>,
    steps: Vec<Step>,
}

impl Solution {
    /// The pushes, in order.
    pub fn pushes(&self) -> &[Push] {
        &self.pushes
    }

    /// Every move, in order, walks included.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Pushes.
    pub fn push_count(&self) -> usize {
        self.pushes.len()
    }

    /// Moves, pushes included.
    pub fn move_count(&self) -> usize {
        self.steps.len()
    }
}

/// Why a box on a dead square can never reach a goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadWhy {
    /// Walls on two sides at a right angle.
    Corner,
    /// Against a wall whose whole stretch, corner to corner, has no goal.
    AgainstWallWithoutGoal,
    /// No sequence of pushes leads from it to a goal, for another reason.
    NoPushReachesGoal,
}

/// Why a position can no longer be solved (only ever reported when proven).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deadlock {
    /// A box that must reach a goal stands where no push brings it to one.
    DeadSquare {
        /// 0-based row of the box.
        row: usize,
        /// 0-based column of the box.
        column: usize,
        /// Why the square is dead.
        why: DeadWhy,
    },
    /// A group of boxes that can never move again, not all on goals.
    Frozen {
        /// The group's squares, 0-based (row, column).
        boxes: Vec<(usize, usize)>,
    },
    /// Some boxes can only ever reach fewer goals than they are.
    ClosedArea {
        /// The boxes shut in.
        boxes: usize,
        /// The goals they can reach.
        goals: usize,
    },
    /// Under `EveryGoal`: some goals can only ever be reached by fewer boxes than
    /// they are (too many boxes are stuck elsewhere).
    GoalsOutOfReach {
        /// The goals.
        goals: usize,
        /// The boxes that can still reach any of them.
        boxes: usize,
    },
    /// A corral (an area the player cannot enter) that a search proved cannot be
    /// cleared.
    Corral {
        /// The boxes around it, 0-based (row, column).
        boxes: Vec<(usize, usize)>,
    },
}

/// What is known of a level before any search: made once per level and shared
/// (`Arc`) by every search and check on it.
#[derive(Debug)]
pub struct Analysis {
    level: Level,
    board: Option<Board>,
}

impl Analysis {
    /// Analyse `level`: its area, dead squares and push distances.
    pub fn new(level: &Level) -> Analysis {
        Analysis {
            level: level.clone(),
            board: Board::new(level, level.start_square()),
        }
    }

    /// Bytes of the precomputed tables.
    pub fn bytes(&self) -> usize {
        self.board.as_ref().map_or(0, Board::bytes)
    }
}

/// A position as the solver sees it: the boxes inside the player's area, and whether
/// the boxes outside it (which never move) already break the win rule.
pub(crate) struct Position<'a> {
    pub(crate) board: &'a Board,
    pub(crate) boxes: Vec<u16>,
    pub(crate) player: u32,
    /// Every box inside must end on a goal.
    pub(crate) strict: bool,
    /// The boxes outside the area leave the level unsolvable.
    pub(crate) outside_broken: bool,
}

impl Position<'_> {
    /// The (row, column) of a square.
    pub(crate) fn at(&self, square: u16) -> (usize, usize) {
        self.board.row_column(u32::from(square))
    }
}

/// The solver's view of `world`, or `None` when `analysis` is of another level or
/// the board is too large for the solver.
pub(crate) fn position<'a>(analysis: &'a Analysis, world: &World) -> Option<Position<'a>> {
    let board = analysis.board.as_ref()?;
    if **world.level() != analysis.level {
        return None;
    }
    let level = world.level();
    let player = board.square_of[world.player_square()];
    if player == NONE {
        return None;
    }
    let mut boxes = Vec::new();
    let mut outside_off_goal = false;
    let mut outside_on_goal = 0;
    for index in world.box_squares() {
        match board.square_of[index] {
            NONE if level.ground(index) == Ground::Goal => outside_on_goal += 1,
            NONE => outside_off_goal = true,
            square => boxes.push(square as u16),
        }
    }
    let inside_goals = board.goals.len();
    let (strict, outside_broken) = match level.rule() {
        WinRule::EveryBox => (true, outside_off_goal || boxes.len() > inside_goals),
        WinRule::EveryGoal => (
            boxes.len() == inside_goals,
            outside_on_goal < board.outside_goals.len() || boxes.len() < inside_goals,
        ),
    };
    Some(Position {
        board,
        boxes,
        player,
        strict,
        outside_broken,
    })
}

/// Search for a solution from `world` within `budget`, stopping early when `stop` is
/// raised. Never panics; a `Solved` answer has been played through with the game's own
/// rules.
pub fn solve(
    analysis: &Analysis,
    world: &World,
    strategy: Strategy,
    budget: &Budget,
    stop: &AtomicBool,
) -> Verdict {
    solve_with(
        analysis,
        world,
        budget,
        stop,
        |problem, limits| match strategy {
            Strategy::Quick => quick(problem, limits),
            Strategy::FewestPushes => search::search(problem, Order::Optimal, limits),
        },
    )
}

/// [`solve`] with the search `run`: the position made a problem, the pushes found
/// played through.
fn solve_with(
    analysis: &Analysis,
    world: &World,
    budget: &Budget,
    stop: &AtomicBool,
    run: impl FnOnce(&Problem<'_>, &Limits<'_>) -> Outcome,
) -> Verdict {
    if world.is_solved() {
        return Verdict::Solved(Solution {
            pushes: Vec::new(),
            steps: Vec::new(),
        });
    }
    let own;
    let analysis = if **world.level() == analysis.level {
        analysis
    } else {
        own = Analysis::new(world.level());
        &own
    };
    let Some(position) = position(analysis, world) else {
        return Verdict::GaveUp(Limit::Memory);
    };
    if position.outside_broken {
        return Verdict::NoSolution;
    }
    let problem = Problem {
        board: position.board,
        boxes: position.boxes.clone(),
        player: position.player,
        strict: position.strict,
    };
    let limits = Limits {
        nodes: budget.nodes,
        deadline: budget.deadline,
        memory: budget.memory,
        stop,
    };
    match run(&problem, &limits) {
        Outcome::NoSolution => Verdict::NoSolution,
        Outcome::GaveUp(stop) => Verdict::GaveUp(stop.into()),
        Outcome::Solved(found) => {
            let board = position.board;
            let pushes: Vec<(usize, Direction)> = found
                .iter()
                .map(|&(square, direction)| {
                    (
                        board.grid_of[square as usize] as usize,
                        DIRECTIONS[direction as usize],
                    )
                })
                .collect();
            match moves::play(world, &pushes) {
                Some(steps) => Verdict::Solved(Solution {
                    pushes: pushes
                        .iter()
                        .map(|&(index, direction)| Push {
                            row: index / board.width,
                            column: index % board.width,
                            direction,
                        })
                        .collect(),
                    steps,
                }),
                // Cannot happen; if it did, saying nothing beats a wrong answer.
                None => Verdict::GaveUp(Limit::Stopped),
            }
        }
    }
}

/// The quick search's phases, in turn, each with an equal share of the budget left:
/// a third of the time and positions, then half of what is left, then the rest (the
/// positions a phase did not use are not handed on). Forwards first: a dead position (`/hint`'s count back to the
/// last safe one) is proven dead fastest so, and most levels are solved so. Then
/// backwards (`backward.rs`), where packing the goals in the right order is what makes
/// a level hard: once by regions, once greedy on the bound alone, whose misses differ
/// (docs/BENCHMARKS.md, runs BJ and BK).
const QUICK: [(Way, Order); 3] = [
    (Way::Forwards, Order::Regions),
    (Way::Backwards, Order::Regions),
    (Way::Backwards, Order::Greedy),
];

/// Which way a phase of the quick search goes.
#[derive(Debug, Clone, Copy)]
enum Way {
    /// Pushes from the position asked about ([`search`]).
    Forwards,
    /// Pulls from the boxes on their goals ([`backward`]).
    Backwards,
}

/// The quick search: the phases of [`QUICK`] until one has an answer.
fn quick(problem: &Problem<'_>, limits: &Limits<'_>) -> Outcome {
    if !backward::applies(problem) {
        return search::search(problem, Order::Regions, limits);
    }
    let mut nodes = limits.nodes;
    let mut last = Outcome::GaveUp(Stop::Nodes);
    for (done, &(way, order)) in QUICK.iter().enumerate() {
        let left = (QUICK.len() - done) as u32;
        let now = Instant::now();
        let share = Limits {
            nodes: nodes / u64::from(left),
            deadline: limits
                .deadline
                .map(|deadline| now + deadline.saturating_duration_since(now) / left),
            ..*limits
        };
        nodes -= share.nodes;
        last = match way {
            Way::Forwards => search::search(problem, order, &share),
            Way::Backwards => backward::search(problem, order, &share),
        };
        if !matches!(
            last,
            Outcome::GaveUp(Stop::Nodes | Stop::Time | Stop::Memory)
        ) {
            break;
        }
    }
    last
}

/// A key for a position that ignores where the player stands within the area the
/// player can reach: positions that differ only so share cached answers.
pub fn position_key(world: &World) -> u64 {
    let level = world.level();
    let (width, height) = (level.width(), level.height());
    let cells = width * height;
    let mut box_at = vec![false; cells];
    let mut key = 0x0123_4567_89ab_cdef_u64 ^ (cells as u64);
    for index in world.box_squares() {
        if index < cells {
            box_at[index] = true;
        }
        let mut state = index as u64;
        key ^= board::splitmix(&mut state);
    }
    let start = world.player_square();
    let mut seen = vec![false; cells];
    let mut stack = vec![start];
    let mut least = start;
    if start < cells {
        seen[start] = true;
    }
    while let Some(index) = stack.pop() {
        least = least.min(index);
        let (row, column) = (index / width, index % width);
        let around = [
            (column > 0).then(|| index - 1),
            (row > 0).then(|| index - width),
            (column + 1 < width).then(|| index + 1),
            (row + 1 < height).then(|| index + width),
        ];
        for next in around.into_iter().flatten() {
            if !seen[next] && !box_at[next] && level.ground(next) != Ground::Wall {
                seen[next] = true;
                stack.push(next);
            }
        }
    }
    let mut state = (least as u64) ^ 0xa5a5_a5a5_0000_0000;
    key ^ board::splitmix(&mut state).rotate_left(17)
}

#[cfg(test)]
mod tests;
