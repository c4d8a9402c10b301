//! How far a game has got, in its own words and in points (SPEC section 9), so that
//! whatever shows or ranks a [`Progress`] (a race's standings and news, the web page)
//! never needs to know boxes, tiles or gold.
//!
//! A progress is a plain value (it crosses the bus between instances, and the web page
//! reads it off the registry), so the wording hangs on it rather than on a running
//! [`super::Game`]: the part a game filled says which game it is, and that game's own
//! module words it (Sokoban's for both games of boxes, 2048's, the wumpus's).

use super::{sokoban, twenty48, wumpus, Progress, Tiles};

/// The part of a [`Progress`] its game filled.
enum Part {
    /// Boxes on goals, and how many the level needs there (Sokoban, Star Pusher).
    Boxes((usize, usize)),
    /// 2048's tiles.
    Tiles(Tiles),
    /// The gold, or nothing at all (wumpus).
    Gold,
}

impl Progress {
    fn part(&self) -> Part {
        match (self.placed, self.tiles) {
            (Some(placed), _) => Part::Boxes(placed),
            (None, Some(tiles)) => Part::Tiles(tiles),
            (None, None) => Part::Gold,
        }
    }

    /// How far the game has got, in its own words (`2/4 boxes, 12 moves`, `score
    /// 1024, tile 128, 40 moves`, `has the gold, 8 actions`): the standings' and the
    /// web page's table.
    pub fn how_far(&self) -> String {
        match self.part() {
            Part::Boxes(placed) => sokoban::how_far(self, placed),
            Part::Tiles(tiles) => twenty48::how_far(self, tiles),
            Part::Gold => wumpus::how_far(self),
        }
    }

    /// What the others in a race hear when a racer's progress goes from `before` to
    /// this: a box placed, a tile reached, the gold grabbed, or the end of the game.
    /// `time` words how long the racer took, asked only for an ending that says it.
    pub fn news(&self, before: &Progress, time: impl FnOnce() -> String) -> Option<String> {
        match self.part() {
            Part::Boxes(placed) => sokoban::news(before, self, placed, time),
            Part::Tiles(tiles) => twenty48::news(before, self, tiles, time),
            Part::Gold => wumpus::news(before, self, time),
        }
    }

    /// How far towards the goal the game got, for ranking those who did not reach it:
    /// the more, the better (boxes on goals; the score; 1 with the gold).
    pub fn points(&self) -> u64 {
        match self.part() {
            Part::Boxes((placed, _)) => placed as u64,
            Part::Tiles(tiles) => tiles.score,
            Part::Gold => u64::from(self.gold == Some(true)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Outcome;

    #[test]
    fn each_game_says_how_far_it_got() {
        let sokoban = Progress {
            moves: 12,
            placed: Some((2, 4)),
            ..Progress::default()
        };
        assert_eq!(sokoban.how_far(), "2/4 boxes, 12 moves");
        assert_eq!(sokoban.points(), 2);
        let tiles = Progress {
            moves: 40,
            tiles: Some(Tiles {
                score: 1024,
                largest: 128,
                win: 2048,
            }),
            ..Progress::default()
        };
        assert_eq!(tiles.points(), 1024);
        let no_move = Progress {
            ended: Some(Outcome::Stopped),
            ..tiles
        };
        assert_eq!(
            no_move.how_far(),
            "no move left, score 1024, tile 128, 40 moves"
        );
        assert_eq!(
            no_move.news(&tiles, || unreachable!("no time in it")),
            Some(String::from("has no move left: score 1024, tile 128."))
        );
        let out = Progress {
            moves: 9,
            gold: Some(true),
            ended: Some(Outcome::Won),
            ..Progress::default()
        };
        assert_eq!(out.how_far(), "out with the gold, 9 actions");
        assert_eq!(out.points(), 1);
        assert_eq!(
            out.news(&Progress::default(), || String::from("7s")),
            Some(String::from("came out with the gold in 7s: 9 actions."))
        );
        let dead = Progress {
            ended: Some(Outcome::Died),
            ..out
        };
        assert_eq!(dead.how_far(), "died, 9 actions");
        assert_eq!(Progress::default().how_far(), "0 actions");
    }
}
