//! What the help for stuck Sokoban players (SPEC section 13) may see of a game of
//! boxes: the position, the moves that led to it, and how the player goes back.
//!
//! `sokoban` and `starpusher` hand this out ([`super::Game::boxes`]); the other games
//! have no boxes. The help lives above the games and reads only this, so that the
//! games stay pure state machines that know nothing of a solver.

use std::collections::VecDeque;

use super::world::{Direction, Step, World};

/// The most moves a game of boxes keeps to look back over: the reach of Star Pusher's
/// undo, and of the help's search for the last position that could still be solved.
pub const MAX_HISTORY: usize = 10_000;

/// A game of boxes as the help sees it.
#[derive(Debug, Clone, Copy)]
pub struct Boxes<'a> {
    /// Where the player and the boxes are.
    pub world: &'a World,
    /// The latest moves on this level, oldest first (at most [`MAX_HISTORY`]).
    pub history: &'a VecDeque<Step>,
    /// Moves made on this level, dropped ones included.
    pub moves: u64,
    /// Moves that pushed a box on this level, dropped ones included.
    pub pushes: u64,
    /// How the player takes a move back, if the game can.
    pub undo: Undo,
}

/// How a game of boxes goes back (what a warning tells the player).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undo {
    /// A command takes back one move (Star Pusher's `u`).
    Command(&'static str),
    /// The game has no undo (classic `sokoban`): leaving and playing again is the
    /// way back.
    Restart,
}

/// The game's own lines that play `steps` from the current position: `dN` and the
/// like, one line per run of steps in one direction. Both games of boxes walk and push
/// the same way with a counted direction, so the lines are the same for both.
pub fn walk_lines(steps: &[Step]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut run: Option<(Direction, u64)> = None;
    for step in steps {
        run = match run {
            Some((direction, count)) if direction == step.direction => Some((direction, count + 1)),
            Some((direction, count)) => {
                lines.push(walk_line(direction, count));
                Some((step.direction, 1))
            }
            None => Some((step.direction, 1)),
        };
    }
    if let Some((direction, count)) = run {
        lines.push(walk_line(direction, count));
    }
    lines
}

fn walk_line(direction: Direction, count: u64) -> String {
    let key = match direction {
        Direction::Up => 'w',
        Direction::Left => 'a',
        Direction::Down => 's',
        Direction::Right => 'd',
    };
    format!("{key}{count}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_one_direction_are_one_line() {
        let step = |letter| Direction::from_lurd(letter).unwrap();
        let steps: Vec<Step> = "rrRuulLd".chars().map(step).collect();
        assert_eq!(walk_lines(&steps), ["d3", "w2", "a2", "s1"]);
        assert!(walk_lines(&[]).is_empty());
    }
}
