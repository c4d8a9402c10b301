//! A 4x4 board of 2048 in one `u64`, and its moves by table, for the expectimax search.
//!
//! Cell (`row`, `column`) is the nibble at bit `4 * (4 * row + column)` and holds the
//! tile's exponent (`0` for empty, `1` for a 2, ... `15` for 32768). A row is 16 bits
//! with column 0 in the low nibble, so a move left is one lookup per row in a table of
//! 65,536 rows; right has its own table; up and down are left and right on the
//! transposed board. The heuristic is a table of the same size, summed over the four
//! rows and the four columns.
//!
//! The tables are made once per process ([`Tables::get`]) from [`merge_row`], which
//! follows [`crate::games::twenty48::board::merge_line`]'s rule (the pair nearest the
//! wall merges first, a merged tile does not merge again); the tests check every move
//! against the game's own [`Board::slide`].
//!
//! A nibble cannot hold 65536: two 32768 tiles merge into a 32768 here (the gain is
//! still counted right). The game's board can only make 65536 after 32768 twice,
//! far past what the search plays for; [`from_board`] refuses tiles above 32768.

use std::sync::OnceLock;

use crate::games::twenty48::board::{Board, Direction, Tile};

/// The largest exponent a nibble holds: 32768.
pub const MAX_NIBBLE: u8 = 15;

/// The four cells of column 0, one per row: the mask of a column after transposing.
const ROW_MASK: u64 = 0xFFFF;

/// The board of `board` as nibbles, if it is 4x4 with no tile above 32768.
pub fn from_board(board: &Board) -> Option<u64> {
    if board.size() != 4 {
        return None;
    }
    let mut bits = 0u64;
    for row in 0..4 {
        for column in 0..4 {
            let exponent = board.get(row, column).map_or(0, Tile::exponent);
            if exponent > MAX_NIBBLE {
                return None;
            }
            bits |= u64::from(exponent) << (4 * (4 * row + column));
        }
    }
    Some(bits)
}

/// The game's board for `bits`; for tests and checks.
pub fn to_board(bits: u64) -> Board {
    let mut board = match Board::empty(4) {
        Ok(board) => board,
        // 4 is within the game's sizes.
        Err(_) => unreachable!("a 4x4 board is always allowed"),
    };
    for row in 0..4 {
        for column in 0..4 {
            let exponent = cell(bits, row, column);
            board.set(row, column, Tile::from_exponent(exponent));
        }
    }
    board
}

/// The exponent at (`row`, `column`), 0 when empty.
pub fn cell(bits: u64, row: usize, column: usize) -> u8 {
    // A nibble: the cast keeps 4 bits.
    ((bits >> (4 * (4 * row + column))) & 0xF) as u8
}

/// The board mirrored on its main diagonal: rows become columns.
pub fn transpose(x: u64) -> u64 {
    let a1 = x & 0xF0F0_0F0F_F0F0_0F0F;
    let a2 = x & 0x0000_F0F0_0000_F0F0;
    let a3 = x & 0x0F0F_0000_0F0F_0000;
    let a = a1 | (a2 << 12) | (a3 >> 12);
    let b1 = a & 0xFF00_FF00_00FF_00FF;
    let b2 = a & 0x00FF_00FF_0000_0000;
    let b3 = a & 0x0000_0000_FF00_FF00;
    b1 | (b2 >> 24) | (b3 << 24)
}

/// How many cells are empty.
pub fn empty_cells(x: u64) -> u32 {
    // A nibble's bits folded into its lowest bit: set when the cell holds a tile.
    let mut x = x;
    x |= (x >> 2) & 0x3333_3333_3333_3333;
    x |= x >> 1;
    (!x & 0x1111_1111_1111_1111).count_ones()
}

/// How many different tiles the board holds.
pub fn distinct_tiles(x: u64) -> u32 {
    let mut seen = 0u32;
    let mut x = x;
    while x != 0 {
        seen |= 1 << (x & 0xF);
        x >>= 4;
    }
    (seen >> 1).count_ones()
}

/// The largest exponent on the board.
pub fn max_exponent(x: u64) -> u8 {
    (0..16)
        .map(|i| ((x >> (4 * i)) & 0xF) as u8)
        .max()
        .unwrap_or(0)
}

/// Slide and merge one row of four exponents toward index 0 as the game does; the
/// row after and the score gained. Merging two 15s gives 15 (see the module
/// documentation) with the gain of 65536.
pub fn merge_row(line: [u8; 4]) -> ([u8; 4], u32) {
    let mut out = [0u8; 4];
    let mut write = 0;
    let mut pending = 0u8;
    let mut gained = 0u32;
    for &tile in &line {
        if tile == 0 {
            continue;
        }
        if pending == 0 {
            pending = tile;
        } else if pending == tile {
            let merged = tile + 1;
            gained += 1 << merged;
            out[write] = merged.min(MAX_NIBBLE);
            write += 1;
            pending = 0;
        } else {
            out[write] = pending;
            write += 1;
            pending = tile;
        }
    }
    if pending != 0 {
        out[write] = pending;
    }
    (out, gained)
}

fn unpack(row: u16) -> [u8; 4] {
    [0, 1, 2, 3].map(|i| ((row >> (4 * i)) & 0xF) as u8)
}

fn pack(line: [u8; 4]) -> u16 {
    line.iter()
        .enumerate()
        .fold(0, |row, (i, &tile)| row | (u16::from(tile) << (4 * i)))
}

/// The weights of the heuristic, after nneonneo's 2048-AI (MIT): a large constant so
/// that a living board beats a lost one, rewards for empty cells and for equal
/// neighbours, and penalties for rows and columns that go up and down and for the
/// tiles' size (so that merging, which shrinks the sum of powers, pays).
mod weights {
    pub const ALIVE: f32 = 200_000.0;
    pub const MONOTONICITY_POWER: f32 = 4.0;
    pub const MONOTONICITY: f32 = 47.0;
    pub const SUM_POWER: f32 = 3.5;
    pub const SUM: f32 = 11.0;
    pub const MERGES: f32 = 700.0;
    pub const EMPTY: f32 = 270.0;
}

/// One row's (or column's) part of the heuristic.
fn row_heuristic(line: [u8; 4]) -> f32 {
    let mut sum = 0.0f32;
    let mut empty = 0u32;
    let mut merges = 0u32;
    let mut previous = 0u8;
    let mut run = 0u32;
    for &rank in &line {
        sum += f32::from(rank).powf(weights::SUM_POWER);
        if rank == 0 {
            empty += 1;
        } else {
            if previous == rank {
                run += 1;
            } else if run > 0 {
                merges += 1 + run;
                run = 0;
            }
            previous = rank;
        }
    }
    if run > 0 {
        merges += 1 + run;
    }
    let (mut down, mut up) = (0.0f32, 0.0f32);
    for pair in line.windows(2) {
        let a = f32::from(pair[0]).powf(weights::MONOTONICITY_POWER);
        let b = f32::from(pair[1]).powf(weights::MONOTONICITY_POWER);
        if pair[0] > pair[1] {
            down += a - b;
        } else {
            up += b - a;
        }
    }
    // Small counts (at most 4): exact as f32.
    weights::ALIVE + weights::EMPTY * empty as f32 + weights::MERGES * merges as f32
        - weights::MONOTONICITY * down.min(up)
        - weights::SUM * sum
}

/// The move and heuristic tables, one entry per possible row.
pub struct Tables {
    left: Vec<u16>,
    right: Vec<u16>,
    gain_left: Vec<u32>,
    gain_right: Vec<u32>,
    heuristic: Vec<f32>,
}

impl Tables {
    fn build() -> Tables {
        let mut tables = Tables {
            left: vec![0; 1 << 16],
            right: vec![0; 1 << 16],
            gain_left: vec![0; 1 << 16],
            gain_right: vec![0; 1 << 16],
            heuristic: vec![0.0; 1 << 16],
        };
        for row in 0..=u16::MAX {
            let line = unpack(row);
            let (left, gain_left) = merge_row(line);
            let mut reversed = line;
            reversed.reverse();
            let (mut right, gain_right) = merge_row(reversed);
            right.reverse();
            let index = usize::from(row);
            tables.left[index] = pack(left);
            tables.right[index] = pack(right);
            tables.gain_left[index] = gain_left;
            tables.gain_right[index] = gain_right;
            tables.heuristic[index] = row_heuristic(line);
        }
        tables
    }

    /// The tables, made on first use (about 1.2 MB).
    pub fn get() -> &'static Tables {
        static TABLES: OnceLock<Tables> = OnceLock::new();
        TABLES.get_or_init(Tables::build)
    }

    /// Each row of `x` through `table`, with the gains from `gains`.
    fn rows(x: u64, table: &[u16], gains: &[u32]) -> (u64, u32) {
        let mut out = 0u64;
        let mut gained = 0u32;
        for r in 0..4 {
            let row = usize::from(((x >> (16 * r)) & ROW_MASK) as u16);
            out |= u64::from(table[row]) << (16 * r);
            gained += gains[row];
        }
        (out, gained)
    }

    /// The board after sliding toward `direction`, before any spawn, and the score
    /// gained; the board is unchanged when the move has no effect.
    pub fn slide(&self, x: u64, direction: Direction) -> (u64, u32) {
        match direction {
            Direction::Left => Tables::rows(x, &self.left, &self.gain_left),
            Direction::Right => Tables::rows(x, &self.right, &self.gain_right),
            Direction::Up => {
                let (t, gained) = Tables::rows(transpose(x), &self.left, &self.gain_left);
                (transpose(t), gained)
            }
            Direction::Down => {
                let (t, gained) = Tables::rows(transpose(x), &self.right, &self.gain_right);
                (transpose(t), gained)
            }
        }
    }

    /// The heuristic value of a board: its rows' and its columns' parts.
    pub fn heuristic(&self, x: u64) -> f32 {
        let rows = |x: u64| -> f32 {
            (0..4)
                .map(|r| self.heuristic[usize::from(((x >> (16 * r)) & ROW_MASK) as u16)])
                .sum()
        };
        rows(x) + rows(transpose(x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_bits(top: u8) -> impl Strategy<Value = u64> {
        prop::collection::vec(prop_oneof![2 => Just(0u8), 3 => 1u8..=top], 16).prop_map(|cells| {
            cells
                .iter()
                .enumerate()
                .fold(0u64, |x, (i, &e)| x | (u64::from(e) << (4 * i)))
        })
    }

    #[test]
    fn the_rows_of_the_games_tests_merge_alike() {
        // (row, after a left move, gain) in values, as in the game's own tests.
        let cases: &[([u8; 4], [u8; 4], u32)] = &[
            ([1, 1, 1, 0], [2, 1, 0, 0], 4),
            ([1, 1, 1, 1], [2, 2, 0, 0], 8),
            ([2, 2, 3, 3], [3, 4, 0, 0], 24),
            ([1, 0, 0, 1], [2, 0, 0, 0], 4),
            ([1, 2, 3, 4], [1, 2, 3, 4], 0),
            ([15, 15, 0, 0], [15, 0, 0, 0], 65536),
        ];
        for &(line, after, gain) in cases {
            assert_eq!(merge_row(line), (after, gain), "{line:?}");
        }
    }

    #[test]
    fn transpose_swaps_rows_and_columns() {
        let x = 0xFEDC_BA98_7654_3210u64;
        let t = transpose(x);
        for row in 0..4 {
            for column in 0..4 {
                assert_eq!(cell(t, row, column), cell(x, column, row));
            }
        }
        assert_eq!(transpose(t), x);
    }

    #[test]
    fn counts_of_cells_and_tiles() {
        let board = Board::from_values(&[
            &[2, 0, 0, 4],
            &[0, 0, 0, 0],
            &[8, 8, 0, 2],
            &[0, 0, 0, 1024],
        ])
        .unwrap();
        let x = from_board(&board).unwrap();
        assert_eq!(empty_cells(x), 10);
        assert_eq!(distinct_tiles(x), 4);
        assert_eq!(max_exponent(x), 10);
        assert_eq!(to_board(x), board);
        assert_eq!(from_board(&Board::empty(5).unwrap()), None);
        let mut big = Board::empty(4).unwrap();
        big.set(0, 0, Tile::from_exponent(16));
        assert_eq!(from_board(&big), None, "65536 does not fit a nibble");
    }

    proptest! {
        /// Every move of the bitboard is the game's own move: the same board, the same
        /// score, and no effect exactly when the game refuses the move. Tiles up to
        /// 16384, so that no merge leaves what a nibble holds.
        #[test]
        fn moves_agree_with_the_games_slide(x in arb_bits(MAX_NIBBLE - 1)) {
            let tables = Tables::get();
            let board = to_board(x);
            prop_assert_eq!(from_board(&board), Some(x));
            for direction in Direction::ALL {
                let (after, gained) = tables.slide(x, direction);
                match board.slide(direction) {
                    Ok(slid) => {
                        prop_assert_eq!(to_board(after), slid.board, "{:?}", direction);
                        prop_assert_eq!(u128::from(gained), slid.gained, "{:?}", direction);
                    }
                    Err(_) => {
                        prop_assert_eq!(after, x, "{:?} had an effect", direction);
                        prop_assert_eq!(gained, 0);
                    }
                }
            }
        }

        #[test]
        fn counts_agree_with_the_game(x in arb_bits(MAX_NIBBLE)) {
            let board = to_board(x);
            prop_assert_eq!(empty_cells(x) as usize, board.empty_cells());
            prop_assert_eq!(max_exponent(x), board.max_tile().map_or(0, Tile::exponent));
        }

        /// The heuristic does not depend on how the board is turned or mirrored
        /// (it is made of rows and columns alike, each read either way).
        #[test]
        fn heuristic_is_symmetric(x in arb_bits(MAX_NIBBLE)) {
            let tables = Tables::get();
            let h = tables.heuristic(x);
            let t = tables.heuristic(transpose(x));
            prop_assert!((h - t).abs() <= h.abs() * 1e-5, "{} {}", h, t);
        }
    }
}
