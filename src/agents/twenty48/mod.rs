//! The 2048 agent: expectimax over a 4x4 bitboard ([`bitboard`], [`search`]) with
//! nneonneo's heuristic (monotonicity, empty cells, merges, the tiles' size).
//!
//! [`Expectimax::choose`] answers the move for a [`Board`] of the game. On a 4x4 board
//! with no tile above 32768 it searches; on any other board (3x3, 5x5 to 8x8, or a
//! tile of 65536 or more, which a nibble cannot hold) it falls back to a greedy choice
//! made with the game's own [`Board::slide`]: the move that leaves the most empty
//! cells, then the most score. The search is only fast, and only strong, on 4x4.
//!
//! The depth is a number of moves, the chosen one included, with a spawn between two
//! moves: depth 1 values each move by the heuristic of the board it leaves, depth 2
//! looks one spawn and one move further, and so on. [`Depth::Adaptive`] searches
//! shallow while the board is simple (few different tiles) and deeper as it fills
//! with different tiles, as nneonneo's program does: the early game needs no depth
//! and most moves are made there.

pub mod bitboard;
pub mod search;

use crate::games::twenty48::board::{Board, Direction};

use self::search::{Counts, Search};

/// The deepest search allowed: past it one move takes minutes.
pub const MAX_DEPTH: u8 = 8;

/// How deep to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Always this many moves (1 to [`MAX_DEPTH`]).
    Fixed(u8),
    /// The number of different tiles on the board less 3, at least 2 and at most
    /// `max` moves.
    Adaptive {
        /// The deepest search.
        max: u8,
    },
}

impl Depth {
    /// The depth for the board `x`, within 1 to [`MAX_DEPTH`].
    pub fn for_board(self, x: u64) -> u8 {
        let depth = match self {
            Depth::Fixed(depth) => depth,
            Depth::Adaptive { max } => {
                // At most 15 different tiles: the cast is exact.
                let distinct = bitboard::distinct_tiles(x) as u8;
                distinct.saturating_sub(3).max(2).min(max)
            }
        };
        depth.clamp(1, MAX_DEPTH)
    }
}

/// What the last choice did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The expectimax search, to this depth, with its counts.
    Searched {
        /// Moves searched.
        depth: u8,
        /// Nodes and cache hits.
        counts: Counts,
    },
    /// The greedy fallback (not 4x4, or a tile above 32768).
    Greedy,
    /// No move changes the board: the game is over.
    Stuck,
}

/// The expectimax agent for 2048. Keeps its search tables and cache between moves, so
/// one agent should play a whole game.
pub struct Expectimax {
    depth: Depth,
    search: Search,
    last: Choice,
}

impl Expectimax {
    /// An agent that searches `depth` moves every time (clamped to 1 to
    /// [`MAX_DEPTH`]).
    pub fn new(depth: u8) -> Expectimax {
        Expectimax::with_depth(Depth::Fixed(depth))
    }

    /// An agent that chooses its depth as `depth` says.
    pub fn with_depth(depth: Depth) -> Expectimax {
        Expectimax {
            depth,
            search: Search::default(),
            last: Choice::Stuck,
        }
    }

    /// The same agent with a budget of `nodes` a move instead of
    /// [`search::NODE_BUDGET`]: past it, a deeper search is abandoned and the last
    /// whole depth decides.
    #[must_use]
    pub fn with_budget(mut self, nodes: u64) -> Expectimax {
        self.search = Search::with_budget(nodes);
        self
    }

    /// How the last [`Expectimax::choose`] chose.
    pub fn last(&self) -> Choice {
        self.last
    }

    /// The move to make on `board`: always one that changes it, `None` only when no
    /// move does (the game is over).
    pub fn choose(&mut self, board: &Board) -> Option<Direction> {
        let Some(x) = bitboard::from_board(board) else {
            let direction = greedy(board);
            self.last = match direction {
                Some(_) => Choice::Greedy,
                None => Choice::Stuck,
            };
            return direction;
        };
        let depth = self.depth.for_board(x);
        let values = self.search.values(x, depth);
        // The first of the best in Direction::ALL's order, so a choice is repeatable.
        let mut best: Option<(Direction, f32)> = None;
        for (direction, value) in values {
            if best.is_none_or(|(_, top)| value > top) {
                best = Some((direction, value));
            }
        }
        self.last = match best {
            Some(_) => Choice::Searched {
                depth,
                counts: self.search.counts(),
            },
            None => Choice::Stuck,
        };
        best.map(|(direction, _)| direction)
    }
}

/// The move that leaves the most empty cells, then gains the most, by the game's own
/// slide; the first such in [`Direction::ALL`]'s order. `None` when no move changes
/// the board.
pub fn greedy(board: &Board) -> Option<Direction> {
    let mut best: Option<(Direction, (usize, u128))> = None;
    for direction in Direction::ALL {
        if let Ok(slid) = board.slide(direction) {
            let key = (slid.board.empty_cells(), slid.gained);
            if best.is_none_or(|(_, top)| key > top) {
                best = Some((direction, key));
            }
        }
    }
    best.map(|(direction, _)| direction)
}

#[cfg(test)]
mod tests;
