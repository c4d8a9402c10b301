//! Sokoban's row of the table of games: `play sokoban [LEVEL]`, the built-in levels
//! by name, a level file on the command line, moves and pushes boards, `w a s d` one
//! step.

use std::path::Path;
use std::sync::Arc;

use crate::catalog::context::Context;
use crate::catalog::kind::{
    Board, GameKind, Keys, KeysHelp, LoadScript, NewGame, Usage, NO_MEMORY,
};
use crate::catalog::start::{boxed, first_or, read_level_file, unknown_level};
use crate::codec::terminal::Palette;
use crate::games::sokoban::{self, Sokoban};
use crate::games::world::Level;

pub(super) const ROW: GameKind = GameKind {
    name: "sokoban",
    usage: Usage {
        args: "sokoban [LEVEL]",
        about: "classic Sokoban (default level: classic)",
    },
    start: start_sokoban,
    level_names: |context| context.levels.sokoban.names().map(String::from).collect(),
    from_file: Some(sokoban_from_file),
    // From the start (the bottom right cell) up one and back, up two and back,
    // plus a zero-step move: the column above the player is all floor.
    load_script: Some(LoadScript {
        lobby_line: "play sokoban classic",
        commands: &["w1", "s1", "w2", "s2", "d0"],
    }),
    recorded_args: |args| args,
    level_key: |args| first_or(args, sokoban::DEFAULT_LEVEL),
    memory: NO_MEMORY,
    from_state: None,
    boards: &[Board::Moves, Board::Pushes],
    race_args: |args| args,
    keys: Keys {
        instant: |key| match key {
            'w' => Some("w1"),
            'a' => Some("a1"),
            's' => Some("s1"),
            'd' => Some("d1"),
            _ => None,
        },
        arrows: ["w1", "s1", "d1", "a1"],
        help: Some(KeysHelp {
            typed:
                "  wN aN sN dN   walk N steps up, left, down or right, pushing boxes (d3, w10)\n",
            keys:
                "  w a s d       one step up, left, down or right at once (and the arrow keys)\n  \
                   WN AN SN DN   walk N steps, typed in capitals with Enter (D3, W10, S0)\n",
        }),
    },
    palette: Some(Palette::Squares(&sokoban::GLYPHS)),
};

/// `sokoban [LEVEL]`.
fn start_sokoban(args: &[&str], context: &Context) -> Result<NewGame, String> {
    let name = match args {
        [] => sokoban::DEFAULT_LEVEL,
        [name] => name,
        _ => return Err(String::from("Usage: play sokoban [LEVEL]")),
    };
    let level = context.levels.sokoban.get(name).ok_or_else(|| {
        unknown_level(
            "sokoban",
            name,
            context.levels.sokoban.names().map(String::from),
        )
    })?;
    Ok(boxed(Sokoban::new(level)))
}

/// `arcade play sokoban FILE`.
fn sokoban_from_file(path: &Path, args: &[&str], _: &Context) -> Result<NewGame, String> {
    if !args.is_empty() {
        return Err(String::from("Usage: arcade play sokoban FILE"));
    }
    let level = read_level_file::<Level>(path)?;
    Ok(boxed(Sokoban::new(Arc::new(level))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::start::testing::{never_ends, start};

    #[test]
    fn sokoban_arguments() {
        assert_eq!(
            start(&ROW, &["nowhere"]).err().as_deref(),
            Some("Unknown level: nowhere. Choose one of: classic.")
        );
        assert!(start(&ROW, &["CLASSIC"]).is_ok());
    }

    #[test]
    fn sokoban_script_never_ends_the_game() {
        never_ends(&ROW, &["Invalid", "Win!"]);
    }
}
