//! The wumpus's row of the table of games: `play wumpus [WORLD]`, the built-in worlds
//! and those saved with `save NAME`, seeded random worlds (`play wumpus random
//! [seed=N] [size=N] [pits=P]`, a drawn seed kept so that a recording or a race
//! replays), a world file on the command line, a recording that keeps its world;
//! commands are words, the arrows walk and turn.

use std::path::Path;

use crate::catalog::context::Context;
use crate::catalog::kind::{Board, GameKind, Keys, LoadScript, NewGame, Usage, NO_MEMORY};
use crate::catalog::levels::LevelFile;
use crate::catalog::saves;
use crate::catalog::start::{boxed, first_or, read_level_file, unknown_level};
use crate::games::wumpus::random::{self, RandomWorld};
use crate::games::wumpus::{self, Cave, Wumpus};
use crate::games::SaveName;

pub(super) const ROW: GameKind = GameKind {
    name: "wumpus",
    usage: Usage {
        args: "wumpus [WORLD | random [seed=N] [size=N] [pits=P]]",
        about: "the wumpus cave (default: classic; also a saved name, or a random world)",
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
    recorded_args: wumpus_seeded,
    level_key: wumpus_level,
    memory: NO_MEMORY,
    from_state: Some(|text, context| {
        let cave = wumpus::parse_cave(text).map_err(|error| error.to_string())?;
        Ok(boxed(wumpus_game(cave, context)))
    }),
    boards: &[Board::Gold],
    race_args: wumpus_seeded,
    // No single key acts at once (every command is words); the arrows walk and turn.
    keys: Keys {
        instant: |_| None,
        arrows: ["move forward", "", "turn right", "turn left"],
        help: None,
    },
    palette: None,
};

/// Whether the words after `play wumpus` ask for a random world: the rest of them
/// if so.
fn random_words<T: AsRef<str>>(args: &[T]) -> Option<&[T]> {
    match args.split_first() {
        Some((first, rest)) if first.as_ref().eq_ignore_ascii_case(random::WORD) => Some(rest),
        _ => None,
    }
}

/// The arguments with a drawn `seed=` when a random world was asked for without one:
/// the world is then the one that seed makes, so that a race's racers share it and
/// the leaderboard names it. Arguments that would not start are left as typed, so the
/// player reads the same error.
fn wumpus_seeded(mut args: Vec<String>) -> Vec<String> {
    if let Some(rest) = random_words(&args) {
        let words: Vec<&str> = rest.iter().map(String::as_str).collect();
        if let Ok((_, None)) = random::parse_args(&words) {
            args.push(format!("seed={}", rand::random::<u64>()));
        }
    }
    args
}

/// The leaderboard's world: its name, or a random world's key (`random seed=7`).
fn wumpus_level(args: &[String]) -> String {
    let Some(rest) = random_words(args) else {
        return first_or(args, wumpus::DEFAULT_WORLD);
    };
    let words: Vec<&str> = rest.iter().map(String::as_str).collect();
    match random::parse_args(&words) {
        Ok((shape, Some(seed))) => RandomWorld { shape, seed }.key(),
        _ => String::from(random::WORD),
    }
}

/// `wumpus [WORLD]`: a world of the catalog, else one saved with `save NAME`;
/// `wumpus random [seed=N] [size=N] [pits=P]`: a seeded random world.
fn start_wumpus(args: &[&str], context: &Context) -> Result<Wumpus, String> {
    if let Some(rest) = random_words(args) {
        let (shape, seed) = random::parse_args(rest).map_err(|error| error.to_string())?;
        // `arcade play` starts without the lobby's drawn seed.
        let seed = seed.unwrap_or_else(rand::random);
        return Ok(wumpus_game(RandomWorld { shape, seed }.cave(), context));
    }
    let name = match args {
        [] => wumpus::DEFAULT_WORLD,
        [name] => name,
        _ => {
            return Err(String::from(
                "Usage: play wumpus [WORLD] or play wumpus random [seed=N] [size=N] [pits=P]",
            ))
        }
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

/// A wumpus game in `cave` that refuses to `save` under a built-in world's name or
/// `random`: the catalog and random worlds come first, so such a save could never be
/// loaded.
fn wumpus_game(cave: Cave, context: &Context) -> Wumpus {
    let built_in = context
        .levels
        .wumpus
        .names()
        .map(String::from)
        .chain(std::iter::once(String::from(random::WORD)))
        .collect();
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
    use crate::catalog::start::testing::{self, never_ends};
    use crate::games::Game;

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
    fn random_worlds_start_from_their_seed() {
        let context = testing::context();
        let game = start_wumpus(&["random", "seed=7"], &context).unwrap();
        let shape = random::Shape::default();
        assert_eq!(game.cave(), &random::generate(7, shape));
        let other = start_wumpus(&["RANDOM", "size=6", "pits=0.3", "seed=7"], &context).unwrap();
        assert_eq!(other.cave().dim().width, 6);
        assert_ne!(other.cave(), game.cave());
        // Without a seed (`arcade play`), one is drawn: still a world of the shape.
        let drawn = start_wumpus(&["random"], &context).unwrap();
        assert_eq!(drawn.cave().dim().width, 4);
        for (args, error) in [
            (&["random", "size=11"][..], "size must be 2 to 10."),
            (
                &["random", "pits=0.7"],
                "pits must be a chance from 0 to 0.5, such as 0.2 (at most 6 decimals).",
            ),
            (
                &["random", "seed=x"],
                "seed must be a whole number from 0 to 18446744073709551615.",
            ),
            (
                &["random", "classic"],
                "Unknown argument: classic. Use seed=N, size=N, pits=P.",
            ),
            (
                &["classic", "seed=1"],
                "Usage: play wumpus [WORLD] or play wumpus random [seed=N] [size=N] [pits=P]",
            ),
        ] {
            assert_eq!(start_wumpus(args, &context).err().as_deref(), Some(error));
        }
    }

    #[test]
    fn a_random_world_is_recorded_with_its_seed_and_ranked_per_world() {
        let words = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let recorded = (ROW.recorded_args)(words(&["random", "size=5"]));
        assert_eq!(recorded.len(), 3);
        let seed: u64 = recorded[2].strip_prefix("seed=").unwrap().parse().unwrap();
        assert_eq!(
            (ROW.level_key)(&recorded),
            format!("random seed={seed} size=5")
        );
        // The recorded words start the same world again.
        let context = testing::context();
        let again: Vec<&str> = recorded.iter().map(String::as_str).collect();
        let cave = start_wumpus(&again, &context).unwrap().cave().clone();
        let shape = random::Shape {
            size: 5,
            ..random::Shape::default()
        };
        assert_eq!(cave, random::generate(seed, shape));
        // A seed typed, a world by name, or words that do not start, stay as typed.
        for typed in [
            &["random", "seed=3"][..],
            &["classic"],
            &[],
            &["random", "size=1"],
        ] {
            assert_eq!((ROW.recorded_args)(words(typed)), words(typed));
            assert_eq!((ROW.race_args)(words(typed)), words(typed));
        }
        assert_eq!(
            (ROW.level_key)(&words(&["Random", "seed=3"])),
            "random seed=3"
        );
        assert_eq!((ROW.level_key)(&words(&["Classic"])), "classic");
        assert_eq!((ROW.level_key)(&[]), "classic");
        // `top wumpus random seed=3 pits=0.2` is the same board.
        assert_eq!(
            (ROW.level_key)(&words(&["random", "pits=0.2", "seed=3"])),
            "random seed=3"
        );
    }

    #[test]
    fn a_save_named_random_is_refused() {
        let context = testing::context();
        let mut game = start_wumpus(&["random", "seed=1"], &context).unwrap();
        let mut memory = crate::games::Memory::default();
        game.start(&mut memory);
        let reply = crate::games::Game::handle(&mut game, "save random", &mut memory);
        assert!(
            reply.text.contains("a built-in world has that name"),
            "{}",
            reply.text
        );
    }

    #[test]
    fn wumpus_script_never_ends_the_game() {
        never_ends(&ROW, &["no effect", "bumped", "fell", "killed", "out with"]);
    }
}
