//! Star Pusher's row of the table of games: `play starpusher [COLLECTION]
//! [LEVEL-NUMBER]`, the collections and their sizes, a collection file on the command
//! line, one level only for a race, `w a s d` one step.

use std::path::Path;
use std::sync::Arc;

use crate::catalog::context::Context;
use crate::catalog::kind::{Board, GameKind, Keys, KeysHelp, NewGame, Usage, NO_MEMORY};
use crate::catalog::levels::{self, LevelFile};
use crate::catalog::start::{boxed, read_level_file};
use crate::codec::terminal::Palette;
use crate::games::starpusher::xsb::Collection;
use crate::games::starpusher::{self, StarPusher};

pub(super) const ROW: GameKind = GameKind {
    name: "starpusher",
    usage: Usage {
        args: "starpusher [COLLECTION] [LEVEL-NUMBER]",
        about: "level collections (default: the first, level 1)",
    },
    start: |args, context| start_star_pusher(args, context).map(boxed),
    level_names: collection_names,
    from_file: Some(star_pusher_from_file),
    load_script: None,
    recorded_args: |args| args,
    // A Star Pusher finish names its level (`COLLECTION N`); there is no default.
    level_key: |args| {
        let words: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .filter(|word| !word.eq_ignore_ascii_case(ONE_LEVEL))
            .collect();
        words.join(" ").to_ascii_lowercase()
    },
    memory: NO_MEMORY,
    from_state: None,
    boards: &[Board::Moves, Board::Pushes],
    race_args: |mut args| {
        args.push(ONE_LEVEL.to_string());
        args
    },
    keys: Keys {
        instant: |key| match key {
            'w' => Some("w"),
            'a' => Some("a"),
            's' => Some("s"),
            'd' => Some("d"),
            _ => None,
        },
        arrows: ["w", "s", "d", "a"],
        help: Some(KeysHelp {
            typed: "  w a s d [N]   walk or push up, left, down, right; d3 walks three steps\n",
            keys: "  w a s d       walk or push one step at once (and the arrow keys)\n  \
                   W A S D N     walk N steps, typed in capitals with Enter: D3 walks three\n",
        }),
    },
    palette: Some(Palette::Squares(&starpusher::GLYPHS)),
};

/// The word after a Star Pusher level that makes the game that level only, as a race
/// plays it (`starpusher arcade 3 only`).
pub const ONE_LEVEL: &str = "only";

/// `starpusher [COLLECTION] [LEVEL-NUMBER] [only]`. A lone number that names no
/// collection is a level of the first collection (`starpusher 5`).
fn start_star_pusher(args: &[&str], context: &Context) -> Result<StarPusher, String> {
    match args.split_last() {
        Some((last, level)) if last.eq_ignore_ascii_case(ONE_LEVEL) => {
            start_star_pusher_at(level, context).map(StarPusher::one_level)
        }
        _ => start_star_pusher_at(args, context),
    }
}

fn start_star_pusher_at(args: &[&str], context: &Context) -> Result<StarPusher, String> {
    let catalog = &context.levels.starpusher;
    let first = || {
        catalog.first().ok_or_else(|| {
            String::from("No Star Pusher collections are loaded: add files to levels/starpusher/.")
        })
    };
    let (name, collection, number) = match args {
        [] => {
            let (name, collection) = first()?;
            (name.to_string(), collection, "1")
        }
        [word] => match catalog.get(word) {
            Some(collection) => (word.to_ascii_lowercase(), collection, "1"),
            None if word.bytes().all(|b| b.is_ascii_digit()) => {
                let (name, collection) = first()?;
                (name.to_string(), collection, *word)
            }
            None => return Err(unknown_collection(word, context)),
        },
        [word, number] => match catalog.get(word) {
            Some(collection) => (word.to_ascii_lowercase(), collection, *number),
            None => return Err(unknown_collection(word, context)),
        },
        _ => {
            return Err(String::from(
                "Usage: play starpusher [COLLECTION] [LEVEL-NUMBER]",
            ))
        }
    };
    star_pusher_level(&name, collection, number)
}

/// Level `number` (as typed) of `collection`.
fn star_pusher_level(
    name: &str,
    collection: Arc<Collection>,
    number: &str,
) -> Result<StarPusher, String> {
    let count = collection.levels.len();
    let level = number
        .parse::<usize>()
        .map_err(|_| format!("No level {number} in {name}: choose a number from 1 to {count}."))?;
    StarPusher::new(name, collection, level).map_err(|error| error.to_string())
}

/// `arcade play starpusher FILE [LEVEL-NUMBER]`.
fn star_pusher_from_file(path: &Path, args: &[&str], _: &Context) -> Result<NewGame, String> {
    let number = match args {
        [] => "1",
        [number] => number,
        _ => {
            return Err(String::from(
                "Usage: arcade play starpusher FILE [LEVEL-NUMBER]",
            ))
        }
    };
    let collection = read_level_file::<Collection>(path)?;
    let name = levels::level_name(path, Collection::EXTENSIONS)
        .unwrap_or_else(|| path.display().to_string());
    star_pusher_level(&name, Arc::new(collection), number).map(boxed)
}

/// The collections with their sizes, as `levels starpusher` lists them.
fn collection_names(context: &Context) -> Vec<String> {
    let catalog = &context.levels.starpusher;
    catalog
        .names()
        .filter_map(|name| {
            let count = catalog.get(name)?.levels.len();
            let plural = if count == 1 { "level" } else { "levels" };
            Some(format!("{name} ({count} {plural})"))
        })
        .collect()
}

/// The one-line error for a collection name that does not exist.
fn unknown_collection(name: &str, context: &Context) -> String {
    let names: Vec<&str> = context.levels.starpusher.names().collect();
    format!(
        "Unknown collection: {name}. Choose one of: {}.",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::start::testing::{context, start};

    #[test]
    fn starpusher_arguments() {
        let first = start(&ROW, &[]).unwrap();
        assert!(first.contains("Collection arcade: 25 levels"), "{first}");
        assert!(first.contains("Level 1/25  Moves: 0"), "{first}");
        assert!(start(&ROW, &["ARCADE", "3"])
            .unwrap()
            .contains("Level 3/25  Moves: 0"));
        assert!(start(&ROW, &["7"])
            .unwrap()
            .contains("Level 7/25  Moves: 0"));
        assert_eq!(
            start(&ROW, &["nowhere"]).err().as_deref(),
            Some("Unknown collection: nowhere. Choose one of: arcade.")
        );
        for (args, number) in [
            (&["arcade", "26"][..], "26"),
            (&["arcade", "x"], "x"),
            (&["0"], "0"),
        ] {
            assert_eq!(
                start(&ROW, args).err(),
                Some(format!(
                    "No level {number} in arcade: choose a number from 1 to 25."
                ))
            );
        }
        assert!(start(&ROW, &["arcade", "1", "2"])
            .err()
            .unwrap()
            .starts_with("Usage:"));
        assert_eq!(
            collection_names(&context()),
            vec![String::from("arcade (25 levels)")]
        );
    }
}
