//! A 2048 board in words (reader mode, SPEC section 10), beside its drawing in
//! [`super::render`]: each row as numbers with `empty` (`row 1: 2, empty, empty, 4`),
//! and after a move what merged (`Merged: two 2s into 4, two 8s into 16.`) and where
//! the new tile appeared (`New 2 at row 3, column 1.`). No grid is drawn, whatever
//! the style: a screen reader would spell out every line of it.

use std::fmt::Write as _;

use super::board::{Board, Direction, Spawned, Tile};
use crate::games::reader::{at, push_list};

/// One line per row, top to bottom, its cells left to right.
pub fn push_rows(board: &Board, out: &mut String) {
    for (index, row) in board.rows().enumerate() {
        let cells = row.iter().map(|cell| match cell {
            Some(tile) => tile.value().to_string(),
            None => String::from("empty"),
        });
        push_list(out, &format!("row {}: ", index + 1), cells);
    }
}

/// The tiles a slide of `board` towards `direction` makes by merging, line by line
/// from the first row or column, each line from the side the tiles move towards: the
/// same pairs as [`super::board::merge_line`] merges (the pair nearest the side
/// first, a merged tile never merging again in the move).
pub fn merges(board: &Board, direction: Direction) -> Vec<Tile> {
    let size = board.size();
    let mut made = Vec::new();
    for line in 0..size {
        let mut pending: Option<Tile> = None;
        for k in 0..size {
            let far = size - 1 - k;
            let (row, column) = match direction {
                Direction::Left => (line, k),
                Direction::Right => (line, far),
                Direction::Up => (k, line),
                Direction::Down => (far, line),
            };
            let Some(tile) = board.get(row, column) else {
                continue;
            };
            match pending.take() {
                Some(held) if held == tile => {
                    // A board never holds two of the largest tile, so this is Some.
                    let doubled = Tile::from_exponent(tile.exponent().saturating_add(1));
                    made.push(doubled.unwrap_or(tile));
                }
                _ => pending = Some(tile),
            }
        }
    }
    made
}

/// `Merged: two 2s into 4, two 8s into 16.`; nothing when nothing merged.
pub fn push_merged(made: &[Tile], out: &mut String) {
    let Some((last, rest)) = made.split_last() else {
        return;
    };
    let pair = |tile: &Tile| {
        let half = tile.value() / 2;
        format!("two {half}s into {}", tile.value())
    };
    let items = rest
        .iter()
        .map(pair)
        .chain(std::iter::once(format!("{}.", pair(last))));
    push_list(out, "Merged: ", items);
}

/// `New 2 at row 3, column 1.`
pub fn push_spawned(spawned: Spawned, out: &mut String) {
    let _ = writeln!(
        out,
        "New {} at {}.",
        spawned.tile.value(),
        at(spawned.row, spawned.column)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::reader::{problem, WIDTH};

    #[test]
    fn rows_as_numbers_and_empty() {
        let board =
            Board::from_values(&[&[2, 0, 0, 4], &[0, 0, 16, 0], &[0, 0, 0, 0], &[0, 2, 0, 0]])
                .unwrap();
        let mut out = String::new();
        push_rows(&board, &mut out);
        assert_eq!(
            out,
            "row 1: 2, empty, empty, 4\nrow 2: empty, empty, 16, empty\n\
             row 3: empty, empty, empty, empty\nrow 4: empty, 2, empty, empty\n"
        );
    }

    #[test]
    fn the_widest_board_keeps_within_the_width() {
        let mut board = Board::empty(8).unwrap();
        for row in 0..8 {
            for column in 0..8 {
                board.set(
                    row,
                    column,
                    Tile::from_exponent(120 + (row + column) as u8 % 7),
                );
            }
        }
        let mut out = String::new();
        push_rows(&board, &mut out);
        assert_eq!(problem(&out), None);
        assert!(
            out.lines().all(|line| line.chars().count() <= WIDTH),
            "{out}"
        );
        assert_eq!(out.matches("row ").count(), 8);
    }

    #[test]
    fn merges_follow_the_rules_of_the_slide() {
        let board =
            Board::from_values(&[&[2, 2, 2, 0], &[2, 2, 2, 2], &[4, 4, 8, 8], &[0, 0, 0, 0]])
                .unwrap();
        let values = |made: Vec<Tile>| -> Vec<u128> { made.into_iter().map(Tile::value).collect() };
        assert_eq!(values(merges(&board, Direction::Left)), [4, 4, 4, 8, 16]);
        assert_eq!(values(merges(&board, Direction::Right)), [4, 4, 4, 16, 8]);
        // Columns: 2 2 4 from the top, and the same with 8 in the last two.
        assert_eq!(values(merges(&board, Direction::Up)), [4, 4, 4]);
        // The merges' total is the score the slide gains.
        for direction in [
            Direction::Left,
            Direction::Right,
            Direction::Up,
            Direction::Down,
        ] {
            let gained: u128 = merges(&board, direction).iter().map(|t| t.value()).sum();
            assert_eq!(Ok(gained), board.slide(direction).map(|slid| slid.gained));
        }
        let mut out = String::new();
        push_merged(&merges(&board, Direction::Left)[3..], &mut out);
        assert_eq!(out, "Merged: two 4s into 8, two 8s into 16.\n");
        let mut out = String::new();
        push_merged(&[], &mut out);
        assert_eq!(out, "");
        push_spawned(
            Spawned {
                row: 2,
                column: 0,
                tile: Tile::TWO,
            },
            &mut out,
        );
        assert_eq!(out, "New 2 at row 3, column 1.\n");
    }
}
