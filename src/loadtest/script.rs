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
}

impl Script {
    /// The game's name as the lobby knows it.
    pub fn name(self) -> &'static str {
        match self {
            Script::Sokoban => "sokoban",
        }
    }

    /// The lobby line that starts the game.
    pub fn lobby_line(self) -> &'static str {
        match self {
            Script::Sokoban => "play sokoban classic",
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Memory, Status, PROMPT};
    use crate::levels::Levels;
    use crate::lobby::{Command, Context};

    /// Plays `script` for many cycles against the real game and checks that every
    /// command is a valid move and the game never ends.
    fn never_ends(script: Script) {
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
            assert!(!reply.text.contains("Invalid"), "{command}: {}", reply.text);
            boards.insert(reply.text);
        }
        assert!(boards.len() > 1, "the script should really move");
    }

    #[test]
    fn sokoban_script_never_ends_the_game() {
        never_ends(Script::Sokoban);
    }
}
