//! Drawing a 2048 board as text, in the box-drawing style of SPEC section 5 or in
//! plain ASCII for terminals without line-drawing characters.
//!
//! Each cell is the tile's value right-aligned in 4 columns and a space; empty cells
//! are blank. When a value needs more than 4 digits every cell widens with it, so the
//! grid stays straight.

use std::fmt::Write as _;
use std::str::FromStr;

use super::board::Board;

/// How the grid lines are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// Unicode box drawing (`┌─┬┐│├┼┤└┴┘`), as in the seed program.
    #[default]
    Box,
    /// `+`, `-` and `|`, for clients that cannot show box drawing.
    Ascii,
}

/// A style name that is neither `box` nor `ascii`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("style must be box or ascii")]
pub struct StyleError;

impl FromStr for Style {
    type Err = StyleError;

    /// `box` or `ascii`, in any case.
    fn from_str(name: &str) -> Result<Style, StyleError> {
        if name.eq_ignore_ascii_case("box") {
            Ok(Style::Box)
        } else if name.eq_ignore_ascii_case("ascii") {
            Ok(Style::Ascii)
        } else {
            Err(StyleError)
        }
    }
}

/// The characters of one style.
struct Glyphs {
    horizontal: char,
    vertical: char,
    /// Left end, junction, right end of the top, middle and bottom rules.
    top: [char; 3],
    middle: [char; 3],
    bottom: [char; 3],
}

const BOX: Glyphs = Glyphs {
    horizontal: '─',
    vertical: '│',
    top: ['┌', '┬', '┐'],
    middle: ['├', '┼', '┤'],
    bottom: ['└', '┴', '┘'],
};

const ASCII: Glyphs = Glyphs {
    horizontal: '-',
    vertical: '|',
    top: ['+', '+', '+'],
    middle: ['+', '+', '+'],
    bottom: ['+', '+', '+'],
};

/// The narrowest a cell's number column gets.
const MIN_WIDTH: usize = 4;

/// Append the board, one `\n`-terminated line per rule and row, to `out`. Numbers are
/// written straight into `out`, padded there: nothing is allocated but `out`'s growth,
/// reserved once.
pub fn render_into(board: &Board, style: Style, out: &mut String) {
    let glyphs = match style {
        Style::Box => &BOX,
        Style::Ascii => &ASCII,
    };
    let width = board
        .max_tile()
        .map_or(0, |tile| digits(tile.value()))
        .max(MIN_WIDTH);
    let size = board.size();
    let line_glyph = glyphs.horizontal.len_utf8();
    let rule_bytes = line_glyph * (size * (width + 2) + 1) + 1;
    let row_bytes = size * (width + 1) + glyphs.vertical.len_utf8() * (size + 1) + 1;
    out.reserve((size + 1) * rule_bytes + size * row_bytes);
    let rule = |out: &mut String, [left, junction, right]: [char; 3]| {
        out.push(left);
        for column in 0..size {
            if column > 0 {
                out.push(junction);
            }
            out.extend(std::iter::repeat_n(glyphs.horizontal, width + 1));
        }
        out.push(right);
        out.push('\n');
    };
    for (index, row) in board.rows().enumerate() {
        rule(
            out,
            if index == 0 {
                glyphs.top
            } else {
                glyphs.middle
            },
        );
        out.push(glyphs.vertical);
        for cell in row {
            match cell {
                Some(tile) => {
                    let _ = write!(out, "{:>width$}", tile.value());
                }
                None => out.extend(std::iter::repeat_n(' ', width)),
            }
            out.push(' ');
            out.push(glyphs.vertical);
        }
        out.push('\n');
    }
    rule(out, glyphs.bottom);
}

/// The board as text (see [`render_into`]).
pub fn render(board: &Board, style: Style) -> String {
    let mut out = String::new();
    render_into(board, style, &mut out);
    out
}

/// Decimal digits of `value`.
fn digits(value: u128) -> usize {
    value.checked_ilog10().map_or(1, |log| log as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::twenty48::board::Tile;

    #[test]
    fn box_style_matches_the_spec() {
        let board =
            Board::from_values(&[&[2, 0, 0, 4], &[0, 0, 16, 0], &[0, 0, 0, 0], &[0, 2, 0, 0]])
                .unwrap();
        let expected = "\
┌─────┬─────┬─────┬─────┐
│   2 │     │     │   4 │
├─────┼─────┼─────┼─────┤
│     │     │  16 │     │
├─────┼─────┼─────┼─────┤
│     │     │     │     │
├─────┼─────┼─────┼─────┤
│     │   2 │     │     │
└─────┴─────┴─────┴─────┘
";
        assert_eq!(render(&board, Style::Box), expected);
    }

    #[test]
    fn ascii_style_has_the_same_geometry() {
        let board = Board::from_values(&[&[2048, 0, 0], &[0, 4, 0], &[0, 0, 0]]).unwrap();
        let expected = "\
+-----+-----+-----+
|2048 |     |     |
+-----+-----+-----+
|     |   4 |     |
+-----+-----+-----+
|     |     |     |
+-----+-----+-----+
";
        assert_eq!(render(&board, Style::Ascii), expected);
        let boxed = render(&board, Style::Box);
        let mapped: String = boxed
            .chars()
            .map(|c| match c {
                '─' => '-',
                '│' => '|',
                '┌' | '┬' | '┐' | '├' | '┼' | '┤' | '└' | '┴' | '┘' => '+',
                other => other,
            })
            .collect();
        assert_eq!(mapped, expected);
    }

    #[test]
    fn cells_widen_together_for_big_values() {
        let board = Board::from_values(&[&[131_072, 2, 0], &[0, 0, 0], &[0, 0, 4]]).unwrap();
        let text = render(&board, Style::Ascii);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "+-------+-------+-------+");
        assert_eq!(lines[1], "|131072 |     2 |       |");
        assert_eq!(lines[5], "|       |       |     4 |");
        assert!(lines.iter().all(|line| line.len() == lines[0].len()));
    }

    #[test]
    fn the_largest_tile_of_an_eight_by_eight_board_fits() {
        let mut board = Board::empty(8).unwrap();
        board.set(7, 7, Tile::from_exponent(65));
        let text = render(&board, Style::Box);
        assert!(text.contains("│36893488147419103232 │\n"), "{text}");
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(u128::MAX), 39);
    }

    #[test]
    fn style_names() {
        assert_eq!("BOX".parse(), Ok(Style::Box));
        assert_eq!("ascii".parse(), Ok(Style::Ascii));
        assert_eq!("fancy".parse::<Style>(), Err(StyleError));
        assert_eq!(StyleError.to_string(), "style must be box or ascii");
    }
}
