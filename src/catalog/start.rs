//! What the rows of the table of games share when they start a game: boxing it, the
//! level named by the first argument, a level file read from the command line, and
//! the one-line error that lists the choices.

use std::path::Path;

use crate::catalog::kind::NewGame;
use crate::catalog::levels::{self, LevelFile};
use crate::games::Game;

/// The first argument in lower case (level names are), or `default`.
pub(super) fn first_or(args: &[String], default: &str) -> String {
    args.first()
        .map_or_else(|| default.to_string(), |name| name.to_ascii_lowercase())
}

/// A game, boxed as the table hands it out.
pub(super) fn boxed(game: impl Game + 'static) -> NewGame {
    Box::new(game)
}

/// A level file of kind `T` named on the command line; its problems as the lines
/// `check-levels` would print.
pub(super) fn read_level_file<T: LevelFile>(path: &Path) -> Result<T, String> {
    let parsed = levels::read_file::<T>(path);
    let problems: Vec<String> = parsed.problems.iter().map(ToString::to_string).collect();
    parsed.value.ok_or_else(|| problems.join("\n"))
}

/// The most choices an error lists: a screenful, however many saves there are.
const MAX_CHOICES: usize = 20;

/// The one-line error for a level name of `game` that does not exist: the choices, at
/// most [`MAX_CHOICES`] of them.
pub(super) fn unknown_level(
    game: &str,
    name: &str,
    choices: impl IntoIterator<Item = String>,
) -> String {
    let mut choices = choices.into_iter();
    let shown: Vec<String> = choices.by_ref().take(MAX_CHOICES).collect();
    let more = choices.count();
    if more == 0 {
        format!(
            "Unknown level: {name}. Choose one of: {}.",
            shown.join(", ")
        )
    } else {
        format!(
            "Unknown level: {name}. Choose one of: {} and {more} more (type levels {game} for all).",
            shown.join(", ")
        )
    }
}

/// Helpers for the tests of the rows and of the table.
#[cfg(test)]
pub(super) mod testing {
    use crate::catalog::context::Context;
    use crate::catalog::kind::GameKind;
    use crate::catalog::levels::Levels;
    use crate::games::{Memory, Status, PROMPT};

    /// The built-in levels, and a data directory nothing is written to.
    pub(crate) fn context() -> Context {
        let (levels, problems) = Levels::built_in();
        assert!(problems.is_empty(), "{problems:?}");
        Context {
            levels,
            data_dir: std::env::temp_dir().join("arcade-table-tests-unused"),
        }
    }

    /// The text `kind` starts with, given `args`, or its error.
    pub(crate) fn start(kind: &GameKind, args: &[&str]) -> Result<String, String> {
        (kind.start)(args, &context()).map(|mut game| game.start(&mut Memory::default()).text)
    }

    /// Plays a game's load script for many cycles against the real game and checks
    /// that every command is a valid move and the game never ends; `refusals` are
    /// replies that would mean a command did not do what the script means it to.
    pub(crate) fn never_ends(kind: &GameKind, refusals: &[&str]) {
        let script = kind.load_script.unwrap();
        let mut words = script.lobby_line.split_whitespace();
        assert_eq!(words.next(), Some("play"));
        assert_eq!(words.next(), Some(kind.name));
        let args: Vec<&str> = words.collect();
        let mut game = (kind.start)(&args, &context()).expect("the script's game starts");
        let mut memory = Memory::default();
        let reply = game.start(&mut memory);
        assert_eq!(reply.status, Status::Playing);
        assert!(reply.text.ends_with(PROMPT));
        let mut boards = std::collections::HashSet::new();
        for command in script.commands.iter().cycle().take(1000) {
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
}
