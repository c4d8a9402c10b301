//! What a load-test session types: the lobby line that starts a game, then a cycle of
//! real game commands that never ends it.
//!
//! The scripts are rows of the table of games ([`crate::table::LoadScript`]), where
//! the tests that prove each one never ends its game live too.

use clap::builder::TypedValueParser as _;
use serde::{Serialize, Serializer};

use crate::table::{GameKind, LoadScript, GAMES};

/// The game a load test plays: a game of the table that has a load script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Script {
    kind: &'static GameKind,
    script: LoadScript,
}

impl Script {
    /// The script of the game called `name`, if it has one.
    pub fn from_name(name: &str) -> Option<Script> {
        let kind = GameKind::from_name(name)?;
        Some(Script {
            kind,
            script: kind.load_script?,
        })
    }

    /// For `--game`: the names of the games with a script, listed in `--help`.
    pub fn value_parser() -> impl clap::builder::TypedValueParser<Value = Script> {
        let names = GAMES
            .iter()
            .filter(|kind| kind.load_script.is_some())
            .map(|kind| kind.name);
        clap::builder::PossibleValuesParser::new(names).try_map(|name: String| {
            Script::from_name(&name).ok_or_else(|| format!("no load script for {name}"))
        })
    }

    /// The game's name as the lobby knows it.
    pub fn name(self) -> &'static str {
        self.kind.name
    }

    /// The lobby line that starts the game.
    pub fn lobby_line(self) -> &'static str {
        self.script.lobby_line
    }

    /// The commands sent in turn, from the first again after the last.
    pub fn commands(self) -> &'static [&'static str] {
        self.script.commands
    }
}

impl Default for Script {
    fn default() -> Self {
        // The table's first row, Sokoban, has a script (a test checks it).
        match GAMES.iter().find_map(|kind| Script::from_name(kind.name)) {
            Some(script) => script,
            None => unreachable!("no game of the table has a load script"),
        }
    }
}

impl Serialize for Script {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_names_are_the_lobby_names() {
        assert_eq!(Script::default().name(), "sokoban");
        for name in ["sokoban", "2048", "wumpus"] {
            let script = Script::from_name(name).unwrap();
            assert_eq!(script.name(), name);
            assert!(script
                .lobby_line()
                .starts_with(&format!("play {} ", script.name())));
        }
        assert_eq!(Script::from_name("chess"), None);
        assert_eq!(
            serde_json::to_string(&Script::from_name("2048").unwrap()).unwrap(),
            "\"2048\""
        );
    }
}
