//! The wumpus's row of the table of games: `play wumpus [WORLD]`, the built-in worlds
//! and those saved with `save NAME`, a world file on the command line, a recording
//! that keeps its world; commands are words, the arrows walk and turn.

use std::path::Path;

use crate::catalog::context::Context;
use crate::catalog::kind::{Board, GameKind, Keys, LoadScript, NewGame, Usage, NO_MEMORY};
use crate::catalog::levels::LevelFile;
use crate::catalog::saves;
use crate::catalog::start::{boxed, first_or, read_level_file, unknown_level};
use crate::games::wumpus::{self, Cave, Wumpus};
use crate::games::SaveName;

pub(super) const ROW: GameKind = GameKind {
    name: "wumpus",
    usage: Usage {
        args: "wumpus [WORLD]",
        about: "the wumpus cave (default: classic; also a saved name)",
    },
    start: |args, context| start_wumpus(args, context).map(boxed),
    level_names: wumpus_names,
    from_file: Some(wumpus_from_file),
    // From (0,0) facing south: to (0,1), turn round, back to (0,0), turn round.
    load_script: Some(LoadScript {
        lobby_line: "play wumpus classic",
        commands: &[
            "move forward",
            "turn left",
            "turn left",
            "move forward",
            "turn left",
            "turn left",
        ],
    }),
    recorded_args: |args| args,
    level_key: |args| first_or(args, wumpus::DEFAULT_WORLD),
    memory: NO_MEMORY,
    from_state: Some(|text, context| {
        let cave = wumpus::parse_cave(text).map_err(|error| error.to_string())?;
        Ok(boxed(wumpus_game(cave, context)))
    }),
    boards: &[Board::Gold],
    race_args: |args| args,
    // No single key acts at once (every command is words); the arrows walk and turn.
    keys: Keys {
        instant: |_| None,
        arrows: ["move forward", "", "turn right", "turn left"],
        help: None,
    },
    palette: None,
};

/// `wumpus [WORLD]`: a world of the catalog, else one saved with `save NAME`.
fn start_wumpus(args: &[&str], context: &Context) -> Result<Wumpus, String> {
    let name = match args {
        [] => wumpus::DEFAULT_WORLD,
        [name] => name,
        _ => return Err(String::from("Usage: play wumpus [WORLD]")),
    };
    let cave = match context.levels.wumpus.get(name) {
        Some(cave) => Cave::clone(&cave),
        None => saved_world(name, context)?,
    };
    Ok(wumpus_game(cave, context))
}

/// `arcade play wumpus FILE`.
fn wumpus_from_file(path: &Path, args: &[&str], context: &Context) -> Result<NewGame, String> {
    if !args.is_empty() {
        return Err(String::from("Usage: arcade play wumpus FILE"));
    }
    let cave = read_level_file::<Cave>(path)?;
    Ok(boxed(wumpus_game(cave, context)))
}

/// A wumpus game in `cave` that refuses to `save` under a built-in world's name: the
/// catalog is searched first, so such a save could never be loaded.
fn wumpus_game(cave: Cave, context: &Context) -> Wumpus {
    let built_in = context.levels.wumpus.names().map(String::from).collect();
    Wumpus::new(cave).with_reserved_names(built_in)
}

/// The worlds of the catalog and the saved ones, sorted, each once.
fn wumpus_names(context: &Context) -> Vec<String> {
    let mut names: std::collections::BTreeSet<String> =
        context.levels.wumpus.names().map(String::from).collect();
    names.extend(
        saves::names(&context.data_dir, Cave::DIR)
            .into_iter()
            .map(SaveName::into_string),
    );
    names.into_iter().collect()
}

/// The world saved as `name`.
fn saved_world(name: &str, context: &Context) -> Result<Cave, String> {
    let unknown = || unknown_level("wumpus", name, wumpus_names(context));
    // Only a valid save name comes near a path.
    let saved = SaveName::parse(name).map_err(|_| unknown())?;
    let text = match saves::read(&context.data_dir, Cave::DIR, &saved) {
        Ok(Some(text)) => text,
        Ok(None) => return Err(unknown()),
        Err(error) => return Err(format!("Cannot read the saved world {saved}: {error}.")),
    };
    wumpus::parse_cave(&text)
        .map_err(|error| format!("The saved world {saved} cannot be loaded: {error}."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::levels::Levels;
    use crate::catalog::start::testing::never_ends;

    #[test]
    fn an_unknown_name_lists_a_screenful_of_choices() {
        let dir = tempfile::tempdir().unwrap();
        let context = Context {
            levels: Levels::built_in().0,
            data_dir: dir.path().to_path_buf(),
        };
        for n in 0..100 {
            let name = SaveName::parse(&format!("save{n:03}")).unwrap();
            let quota = saves::Quota {
                may_create: true,
                max_saves: 1000,
            };
            saves::save(dir.path(), "wumpus", &name, "x", quota);
        }
        let error = start_wumpus(&["nope"], &context).err().unwrap();
        assert_eq!(error, "Unknown level: nope. Choose one of: big, classic, maze, save000, save001, save002, save003, save004, save005, save006, save007, save008, save009, save010, save011, save012, save013, save014, save015, save016 and 83 more (type levels wumpus for all).");
    }

    #[test]
    fn wumpus_script_never_ends_the_game() {
        never_ends(&ROW, &["no effect", "bumped", "fell", "killed", "out with"]);
    }
}
