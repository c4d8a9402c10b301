//! The table of games: one row per game, holding everything the rest of the server
//! knows about it.
//!
//! The lobby, `help`, `levels`, `arcade play` and `arcade loadtest` all read this
//! table and nothing else, so every game behaves alike and adding one means a module
//! under `src/games/` and one row in [`GAMES`] (docs/developing.md, "Adding a game"): a file
//! beside this one, as `sokoban.rs` is Sokoban's row.
//!
//! What a row holds is [`GameKind`]; the context games start in is [`Context`]. Both
//! are named from here as well, so that the rest of the crate reads the table in one
//! place.

pub use crate::catalog::context::{Context, Contexts};
pub use crate::catalog::kind::{
    Board, FromFile, FromState, GameKind, Keys, LoadScript, MemoryCodec, NewGame, Usage,
};
pub use crate::catalog::starpusher::ONE_LEVEL;

use crate::catalog::{sokoban, starpusher, twenty48, wumpus};

/// Every game, in the order the banner and `help` list them.
pub static GAMES: &[GameKind] = &[sokoban::ROW, starpusher::ROW, twenty48::ROW, wumpus::ROW];

impl GameKind {
    /// The game called `word` (any case).
    pub fn from_name(word: &str) -> Option<&'static GameKind> {
        GAMES
            .iter()
            .find(|kind| kind.name.eq_ignore_ascii_case(word))
    }

    /// The names of every game, as the banner lists them.
    pub fn names() -> String {
        let names: Vec<&str> = GAMES.iter().map(|kind| kind.name).collect();
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::start::testing::{context, start};
    use crate::games::{Memory, PROMPT};

    #[test]
    fn names_are_unique_and_found_in_any_case() {
        for kind in GAMES {
            assert_eq!(GameKind::from_name(&kind.name.to_uppercase()), Some(kind));
            assert!(kind.usage.args.starts_with(kind.name));
        }
        let mut names: Vec<&str> = GAMES.iter().map(|kind| kind.name).collect();
        names.dedup();
        assert_eq!(names.len(), GAMES.len());
        assert_eq!(GameKind::names(), "sokoban, starpusher, 2048, wumpus");
    }

    #[test]
    fn every_game_starts_with_no_arguments() {
        for kind in GAMES {
            let text = start(kind, &[]).unwrap();
            assert!(text.ends_with(PROMPT), "{}: {text}", kind.name);
        }
    }

    #[test]
    fn help_with_keys_on_replaces_a_line_the_game_really_has_and_fits_80_columns() {
        for kind in GAMES {
            let game = (kind.start)(&[], &context()).unwrap();
            let typed = game.help();
            let keys = kind.keys.game_help(typed, true);
            if let Some(help) = kind.keys.help {
                assert!(typed.contains(help.typed), "{}: {typed}", kind.name);
                assert!(!keys.contains(help.typed) && keys.contains(help.keys));
                // A key that acts at once cannot take a count: no `d3` is offered.
                assert!(!keys.contains("d3"), "{}: {keys}", kind.name);
            } else {
                assert_eq!(keys, typed);
            }
            assert_eq!(kind.keys.game_help(typed, false), typed);
            for line in typed.lines().chain(keys.lines()) {
                assert!(line.chars().count() <= 80, "{}: {line}", kind.name);
            }
        }
    }

    #[test]
    fn every_game_that_loads_files_takes_one_on_the_command_line() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("sokoban", "tiny.txt", "#P+-#\n", "Welcome to Sokoban!"),
            (
                "starpusher",
                "two.xsb",
                "#####\n#@$.#\n#####\n\n#####\n#@ $.#\n######\n",
                "Level 1/2",
            ),
            (
                "wumpus",
                "w.txt",
                "dim 2 2\nplayer 0 0 1 0 1\nwumpus 1 1\ngold 1 0\nexit 0 0\n",
                "Welcome to the Wumpus World!",
            ),
        ];
        for (game, file, text, expected) in files {
            let path = dir.path().join(file);
            std::fs::write(&path, text).unwrap();
            let kind = GameKind::from_name(game).unwrap();
            let from_file = kind.from_file.unwrap();
            let mut started = from_file(&path, &[], &context()).unwrap();
            let reply = started.start(&mut Memory::default());
            assert!(reply.text.contains(expected), "{game}: {}", reply.text);
        }
        let path = dir.path().join("two.xsb");
        let from_file = GameKind::from_name("starpusher")
            .unwrap()
            .from_file
            .unwrap();
        let mut second = from_file(&path, &["2"], &context()).unwrap();
        assert!(second
            .start(&mut Memory::default())
            .text
            .contains("Level 2/2"));
        let missing = from_file(&dir.path().join("bad.xsb"), &[], &context());
        assert!(missing.is_err());
    }
}
