//! Expectimax over the bitboard: the player's moves are max nodes, the game's spawns
//! chance nodes (a 2 with 0.9, a 4 with 0.1, on each empty cell alike: the game's own
//! [`spawn`](crate::games::twenty48::board::Board::spawn)), the leaves the heuristic.
//!
//! Three things keep it within a move's time: a chance branch whose probability of being
//! reached falls below [`CUTOFF`] is valued by the heuristic instead of searched (it
//! barely moves the mean), and a transposition cache keeps each chance node's value
//! with the depth it was searched to, so that the same board reached by two orders of
//! moves is searched once. The cache holds at most [`CACHE_LIMIT`] boards and is
//! emptied before each move (its values depend on the depth left, which changes).
//! And the search deepens one move at a time up to the depth asked, within a budget
//! of nodes ([`NODE_BUDGET`] unless told): a depth that would pass it is abandoned
//! and the last whole one decides, so no board, however open, makes one move slow.
//! A count, not a clock, so that the agent stays pure and its games repeatable.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::bitboard::{empty_cells, Tables};
use crate::games::twenty48::board::Direction;

/// A chance branch reached with a lower probability than this is not searched.
pub const CUTOFF: f32 = 0.0001;

/// The most boards the cache keeps for one move (about 16 bytes each, with the map's
/// own overhead about 40 MB at most).
pub const CACHE_LIMIT: usize = 1 << 20;

/// The nodes one move may visit: 3.6 times the most a depth-4 move visited over 200
/// seeded games (280,954), about 60 ms of search at the pace measured on this
/// project's 2-core machine (docs/BENCHMARKS.md, "2048: expectimax"): inside the
/// issue's 100 ms a move even for a board that branches far more than those did.
pub const NODE_BUDGET: u64 = 1_000_000;

/// The chance of a 2 when a tile spawns; a 4 otherwise.
const TWO: f32 = 0.9;

/// A hasher for board keys: one multiply, enough for `u64`s that differ in a few bits.
#[derive(Default)]
pub struct BoardHasher(u64);

impl Hasher for BoardHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u64(&mut self, x: u64) {
        let mixed = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = mixed ^ (mixed >> 29);
    }
}

/// What one search counted: for the measurements and the tests.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Max and chance nodes visited.
    pub nodes: u64,
    /// Chance nodes answered from the cache.
    pub cache_hits: u64,
    /// The deepest search that finished within the budget, whose values decided.
    pub depth: u8,
    /// Whether a deeper search was abandoned at the budget.
    pub cut_short: bool,
}

/// The search's state between moves: the tables and the cache's memory.
pub struct Search {
    tables: &'static Tables,
    /// Chance node board -> (moves searched below it, value).
    cache: HashMap<u64, (u8, f32), BuildHasherDefault<BoardHasher>>,
    counts: Counts,
    /// The nodes a move may visit.
    budget: u64,
    /// The nodes the search under way may reach: the budget, or none for depth 1.
    limit: u64,
    /// The search under way passed its limit: its values are not to be used or kept.
    exhausted: bool,
}

impl Default for Search {
    fn default() -> Search {
        Search::with_budget(NODE_BUDGET)
    }
}

impl Search {
    /// The value of each move from `x` that changes the board, searching `depth` moves
    /// (this one included; at least 1), in [`Direction::ALL`]'s order.
    ///
    /// Deepens from 1 move to `depth`; the values are those of the deepest search that
    /// finished within the budget (depth 1 always does: at most 8 nodes a move).
    pub fn values(&mut self, x: u64, depth: u8) -> Vec<(Direction, f32)> {
        self.cache.clear();
        self.counts = Counts::default();
        self.limit = u64::MAX;
        self.exhausted = false;
        let mut values = self.values_at(x, 1);
        self.counts.depth = 1;
        self.limit = self.budget;
        for deeper in 2..=depth.max(1) {
            let found = self.values_at(x, deeper);
            if self.exhausted {
                self.counts.cut_short = true;
                break;
            }
            values = found;
            self.counts.depth = deeper;
        }
        values
    }

    /// A search with a budget of `budget` nodes a move (at least one depth always
    /// finishes).
    pub fn with_budget(budget: u64) -> Search {
        Search {
            tables: Tables::get(),
            cache: HashMap::default(),
            counts: Counts::default(),
            budget,
            limit: u64::MAX,
            exhausted: false,
        }
    }

    /// [`Search::values`] for exactly `depth` moves.
    fn values_at(&mut self, x: u64, depth: u8) -> Vec<(Direction, f32)> {
        let mut values = Vec::with_capacity(4);
        for direction in Direction::ALL {
            let (after, _) = self.tables.slide(x, direction);
            if after != x {
                let value = self.chance(after, depth.saturating_sub(1), 1.0);
                values.push((direction, value));
            }
        }
        values
    }

    /// What the last [`Search::values`] counted.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The best move's value from `x` with `moves` more moves to search; 0 (below any
    /// living board's heuristic) when no move is left: the game is lost.
    fn max(&mut self, x: u64, moves: u8, probability: f32) -> f32 {
        self.counts.nodes += 1;
        let mut best = 0.0f32;
        for direction in Direction::ALL {
            let (after, _) = self.tables.slide(x, direction);
            if after != x {
                best = best.max(self.chance(after, moves - 1, probability));
            }
        }
        best
    }

    /// The expected value of `x` (just moved, before the spawn) with `moves` more moves
    /// to search, reached with `probability`.
    fn chance(&mut self, x: u64, moves: u8, probability: f32) -> f32 {
        self.counts.nodes += 1;
        let empty = empty_cells(x);
        if moves == 0 || probability < CUTOFF || empty == 0 {
            return self.tables.heuristic(x);
        }
        if self.counts.nodes >= self.limit {
            // The value is thrown away with the whole depth: any number will do.
            self.exhausted = true;
            return 0.0;
        }
        if let Some(&(searched, value)) = self.cache.get(&x) {
            if searched >= moves {
                self.counts.cache_hits += 1;
                return value;
            }
        }
        // At most 16: exact as f32.
        let per_cell = probability / empty as f32;
        let mut sum = 0.0f32;
        let mut free = x;
        let mut tile = 1u64;
        // Walk the nibbles; `tile` is a 2 placed in the current one.
        while tile != 0 {
            if (free & 0xF) == 0 {
                sum += TWO * self.max(x | tile, moves, per_cell * TWO);
                sum += (1.0 - TWO) * self.max(x | (tile << 1), moves, per_cell * (1.0 - TWO));
            }
            free >>= 4;
            tile <<= 4;
        }
        let value = sum / empty as f32;
        if self.exhausted {
            return value;
        }
        if self.cache.len() < CACHE_LIMIT || self.cache.contains_key(&x) {
            self.cache.insert(x, (moves, value));
        }
        value
    }
}
