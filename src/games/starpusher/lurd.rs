//! LURD solution strings: `l u r d` for moves, upper case when the move pushes a box.
//!
//! This is how Sokoban programs have exchanged solutions for decades. White space is
//! ignored (solutions are often wrapped), and a count before a letter repeats it
//! (`3l` is `lll`), as in run-length encoded solutions.

use std::fmt;
use std::str::FromStr;

use crate::games::world::{Direction, Step};

/// The most moves one string may expand to; a count such as `999999999l` would
/// otherwise allocate without bound.
pub const MAX_MOVES: usize = 100_000;

/// A sequence of moves, each with whether it is meant to push.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lurd {
    steps: Vec<Step>,
}

/// Why a string is not a LURD solution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LurdError {
    /// Nothing but white space.
    #[error("no moves: write them as l u r d, upper case for pushes")]
    Empty,
    /// A character that is not a move, a count or white space.
    #[error("unknown move {found:?} at position {position}: use l u r d, upper case for pushes")]
    UnknownMove {
        /// The offending character.
        found: char,
        /// Its 1-based position in the string.
        position: usize,
    },
    /// A count at the end of the string.
    #[error("the count at position {position} repeats nothing: put a move letter after it")]
    DanglingCount {
        /// 1-based position of the count's first digit.
        position: usize,
    },
    /// The string expands to more than [`MAX_MOVES`] moves.
    #[error("more than {MAX_MOVES} moves: split the solution")]
    TooLong,
}

impl Lurd {
    /// The moves, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// How many moves there are.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether there are no moves.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

impl From<Vec<Step>> for Lurd {
    fn from(steps: Vec<Step>) -> Self {
        Lurd { steps }
    }
}

impl FromStr for Lurd {
    type Err = LurdError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut steps = Vec::new();
        let mut count: Option<(usize, usize)> = None; // (value, position of first digit)
        for (offset, c) in text.chars().enumerate() {
            let position = offset + 1;
            if c.is_whitespace() {
                continue;
            }
            if let Some(digit) = c.to_digit(10) {
                let (value, first) = count.unwrap_or((0, position));
                let value = value
                    .saturating_mul(10)
                    .saturating_add(digit as usize)
                    .min(MAX_MOVES + 1);
                count = Some((value, first));
                continue;
            }
            let step =
                Direction::from_lurd(c).ok_or(LurdError::UnknownMove { found: c, position })?;
            let times = count.take().map_or(1, |(value, _)| value);
            if steps.len() + times > MAX_MOVES {
                return Err(LurdError::TooLong);
            }
            steps.extend(std::iter::repeat_n(step, times));
        }
        if let Some((_, position)) = count {
            return Err(LurdError::DanglingCount { position });
        }
        if steps.is_empty() {
            return Err(LurdError::Empty);
        }
        Ok(Lurd { steps })
    }
}

impl fmt::Display for Lurd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.steps.iter().try_for_each(|step| write!(f, "{step}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_case() {
        let lurd: Lurd = "lUrD".parse().unwrap();
        assert_eq!(
            lurd.steps(),
            [
                Step {
                    direction: Direction::Left,
                    push: false
                },
                Step {
                    direction: Direction::Up,
                    push: true
                },
                Step {
                    direction: Direction::Right,
                    push: false
                },
                Step {
                    direction: Direction::Down,
                    push: true
                },
            ]
        );
        assert_eq!(lurd.to_string(), "lUrD");
    }

    #[test]
    fn white_space_is_ignored_and_counts_repeat() {
        let lurd: Lurd = " ll\r\n 3R\tu12d ".parse().unwrap();
        assert_eq!(lurd.to_string(), format!("llRRRu{}", "d".repeat(12)));
        assert_eq!(lurd.len(), 18);
    }

    #[test]
    fn errors() {
        assert_eq!("".parse::<Lurd>(), Err(LurdError::Empty));
        assert_eq!("  ".parse::<Lurd>(), Err(LurdError::Empty));
        assert_eq!(
            "luxr".parse::<Lurd>(),
            Err(LurdError::UnknownMove {
                found: 'x',
                position: 3
            })
        );
        assert_eq!(
            "lu 12".parse::<Lurd>(),
            Err(LurdError::DanglingCount { position: 4 })
        );
        assert_eq!(
            "99999999999999999999999l".parse::<Lurd>(),
            Err(LurdError::TooLong)
        );
        assert_eq!(
            format!("{}l", MAX_MOVES).parse::<Lurd>().map(|l| l.len()),
            Ok(MAX_MOVES)
        );
    }
}
