//! The random agents: a move drawn uniformly among those that do something, from a
//! generator the caller seeds, so that a seeded run replays. The baseline every other
//! agent must beat.
//!
//! The draw goes through the game's own [`below`] (a rejection sampler written out in
//! arcade) on ChaCha8, as 2048's spawns do, so that a seed picks the same moves after
//! a dependency's upgrade.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::games::twenty48::board::{below, Board, Direction};

/// A random player, seeded by the caller.
#[derive(Debug, Clone)]
pub struct Random {
    rng: ChaCha8Rng,
}

impl Random {
    /// A random player whose draws come from `seed`.
    pub fn new(seed: u64) -> Random {
        Random {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// One of `options`, each as likely; `None` when there are none.
    pub fn pick<T: Copy>(&mut self, options: &[T]) -> Option<T> {
        let count = u32::try_from(options.len()).ok()?;
        if count == 0 {
            return None;
        }
        let index = usize::try_from(below(&mut self.rng, count)).ok()?;
        options.get(index).copied()
    }

    /// A 2048 move drawn among those that change `board` (in [`Direction::ALL`]'s
    /// order); `None` when none does: the game is over.
    pub fn twenty48(&mut self, board: &Board) -> Option<Direction> {
        let mut moves = [Direction::Left; 4];
        let mut count = 0;
        for direction in Direction::ALL {
            if board.slide(direction).is_ok() {
                moves[count] = direction;
                count += 1;
            }
        }
        self.pick(&moves[..count])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::twenty48::board::Tile;

    #[test]
    fn only_moves_with_an_effect_are_drawn_and_all_of_them() {
        // Left does nothing here; the other three do.
        let board = Board::from_values(&[&[2, 0, 0, 0], &[4, 0, 0, 0], &[8, 2, 0, 0], &[0; 4]])
            .expect("a board");
        let mut agent = Random::new(7);
        let mut seen = [0u32; 4];
        for _ in 0..3_000 {
            let direction = agent.twenty48(&board).expect("a move");
            assert!(board.slide(direction).is_ok(), "{direction:?}");
            let index = Direction::ALL
                .iter()
                .position(|&d| d == direction)
                .expect("one of ALL");
            seen[index] += 1;
        }
        // Three moves, about 1000 each (standard deviation about 26).
        assert_eq!(seen[0], 0, "{seen:?}");
        assert!(
            seen[1..].iter().all(|&n| (850..1150).contains(&n)),
            "{seen:?}"
        );
    }

    #[test]
    fn the_same_seed_draws_the_same_moves() {
        let mut board = Board::empty(4).expect("4x4");
        board.set(1, 1, Tile::from_exponent(1));
        let draws = |seed| {
            let mut agent = Random::new(seed);
            (0..32).map(|_| agent.twenty48(&board)).collect::<Vec<_>>()
        };
        assert_eq!(draws(5), draws(5));
        assert_ne!(draws(5), draws(6));
    }

    #[test]
    fn a_lost_board_and_no_options_give_none() {
        let stuck = Board::from_values(&[&[2, 4, 2], &[4, 2, 4], &[2, 4, 2]]).expect("a board");
        let mut agent = Random::new(1);
        assert_eq!(agent.twenty48(&stuck), None);
        assert_eq!(agent.pick::<u8>(&[]), None);
        assert_eq!(agent.pick(&[9]), Some(9));
    }
}
