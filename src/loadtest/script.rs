//! What a load-test session types: the lobby line that starts a game, then a cycle of
//! real game commands that never ends it.
//!
//! A script must keep the game running forever, whatever the number of cycles: a
//! session whose game ended would be back in the lobby and every later command would
//! be an error, not a game move. The unit tests play each script against the real game
//! to prove it.

use serde::Serialize;

/// The game a load test plays. One variant per game; to add one, give it a lobby line
/// and a command cycle below and a test that plays the cycle against the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Script {
    /// Classic Sokoban: the player walks up and down the column it starts in, which
    /// holds no box, so no move ever pushes one and the level is never solved.
    Sokoban,
    /// 2048 with a fixed seed: each move is taken back at once with `b`, so the board
    /// never fills and the game is never over, yet every move slides, spawns a tile
    /// and draws the board.
    #[value(name = "2048")]
    #[serde(rename = "2048")]
    Twenty48,
    /// The classic wumpus world: one room south of the start and back, turning on
    /// the spot, never near a pit or the wumpus, never climbing out.
    Wumpus,
}

impl Script {
    /// The game's name as the lobby knows it.
    pub fn name(self) -> &'static str {
        match self {
            Script::Sokoban => "sokoban",
            Script::Twenty48 => "2048",
            Script::Wumpus => "wumpus",
        }
    }

    /// The lobby line that starts the game.
    pub fn lobby_line(self) -> &'static str {
        match self {
            Script::Sokoban => "play sokoban classic",
            Script::Twenty48 => "play 2048 seed=1",
            Script::Wumpus => "play wumpus classic",
        }
    }

    /// The commands sent in turn, from the first again after the last. Each one is a
    /// real move (it walks, and the board is rendered again), never one that ends the
    /// game.
    pub fn commands(self) -> &'static [&'static str] {
        match self {
            // From the start (the bottom right cell) up one and back, up two and back,
            // plus a zero-step move: the column above the player is all floor.
            Script::Sokoban => &["w1", "s1", "w2", "s2", "d0"],
            // A move that finds nothing to slide is refused and leaves nothing to
            // take back; `b` then says so, and the board is still the opening one.
            Script::Twenty48 => &["a", "b", "w", "b", "d", "b", "s", "b"],
            // From (0,0) facing south: to (0,1), turn round, back to (0,0), turn round.
            Script::Wumpus => &[
                "move forward",
                "turn left",
                "turn left",
                "move forward",
                "turn left",
                "turn left",
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Game, Memory, Status, PROMPT};
    use crate::levels::Levels;
    use crate::lobby::{Command, Context};

    /// Plays `script` for many cycles against the real game and checks that every
    /// command is a valid move and the game never ends; `refusals` are replies that
    /// would mean a command did not do what the script means it to.
    fn never_ends(script: Script, refusals: &[&str]) {
        let (levels, _) = Levels::built_in();
        let context = Context {
            levels,
            data_dir: std::env::temp_dir(),
        };
        let Command::Play { kind, args } = Command::parse(script.lobby_line()) else {
            panic!("{:?} is not a play command", script.lobby_line());
        };
        let mut game = kind
            .start(&args, &context)
            .expect("the script's game starts");
        let mut memory = Memory::default();
        let reply = game.start(&mut memory);
        assert_eq!(reply.status, Status::Playing);
        assert!(reply.text.ends_with(PROMPT));
        let mut boards = std::collections::HashSet::new();
        for command in script.commands().iter().cycle().take(1000) {
            let reply = game.handle(command, &mut memory);
            assert_eq!(reply.status, Status::Playing, "{command}: {}", reply.text);
            assert!(reply.text.ends_with(PROMPT), "{command}: {}", reply.text);
            for refusal in refusals {
                assert!(!reply.text.contains(refusal), "{command}: {}", reply.text);
            }
            boards.insert(reply.text);
        }
        assert!(boards.len() > 1, "the script should really move");
    }

    #[test]
    fn sokoban_script_never_ends_the_game() {
        never_ends(Script::Sokoban, &["Invalid", "Win!"]);
    }

    #[test]
    fn twenty48_script_never_ends_the_game() {
        never_ends(Script::Twenty48, &["Illegal", "Game over", "You win"]);
    }

    #[test]
    fn wumpus_script_never_ends_the_game() {
        never_ends(
            Script::Wumpus,
            &["no effect", "bumped", "fell", "killed", "out with"],
        );
    }

    #[test]
    fn script_names_are_the_lobby_names() {
        use clap::ValueEnum;
        for script in Script::value_variants() {
            let value = script.to_possible_value().expect("every script has a name");
            assert_eq!(value.get_name(), script.name());
            assert!(script
                .lobby_line()
                .starts_with(&format!("play {} ", script.name())));
        }
    }
}
