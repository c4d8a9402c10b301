//! The lobby: the commands a player types before and between games (SPEC section 1),
//! and the table of games that `play` can start.
//!
//! Parsing is separate from acting so that both the network session and `arcade play`
//! share it; nothing here touches a socket.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::games::sokoban::{self, Sokoban};
use crate::games::starpusher::StarPusher;
use crate::games::twenty48::{self, Twenty48};
use crate::games::wumpus::{self, Cave, Wumpus};
use crate::games::{Game, Memory, Reply};
use crate::levels::{self, LevelFile, Levels};
use crate::saves::{self, SaveName};

/// The lobby prompt (no line ending).
pub const PROMPT: &str = "> ";

/// Sent when a player leaves with `quit`.
pub const GOODBYE: &str = "Goodbye.\n";

/// What starting a game needs: the level store and where saved games live.
#[derive(Debug)]
pub struct Context {
    /// Built-in levels plus those of `--levels`.
    pub levels: Levels,
    /// Where `save NAME` writes and `play wumpus NAME` looks for saved worlds.
    pub data_dir: PathBuf,
}

/// How to start a game, for `help`: the words to type and what the game is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// `play` arguments, starting with the game's name.
    pub args: &'static str,
    /// One line about the game and its defaults.
    pub about: &'static str,
}

/// The games of the arcade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameKind {
    /// Classic console Sokoban (SPEC section 3).
    Sokoban,
    /// Level collections in the standard format (SPEC section 4).
    StarPusher,
    /// The sliding-tile game (SPEC section 5).
    Twenty48,
    /// The wumpus world (SPEC section 6).
    Wumpus,
}

impl GameKind {
    /// Every game, in the order the banner lists them.
    pub const ALL: &'static [GameKind] = &[
        GameKind::Sokoban,
        GameKind::StarPusher,
        GameKind::Twenty48,
        GameKind::Wumpus,
    ];

    /// The name a player types.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Sokoban => "sokoban",
            GameKind::StarPusher => "starpusher",
            GameKind::Twenty48 => "2048",
            GameKind::Wumpus => "wumpus",
        }
    }

    /// The arguments `play` takes, for `help`.
    pub fn usage(self) -> Usage {
        let (args, about) = match self {
            GameKind::Sokoban => (
                "sokoban [LEVEL]",
                "classic Sokoban (default level: classic)",
            ),
            GameKind::StarPusher => (
                "starpusher [COLLECTION] [LEVEL-NUMBER]",
                "level collections (default: the first, level 1)",
            ),
            GameKind::Twenty48 => (
                "2048 [size=N] [win=N] [seed=N] [style=box|ascii]",
                "slide and merge tiles (default: size=4 win=2048 box)",
            ),
            GameKind::Wumpus => (
                "wumpus [WORLD]",
                "the wumpus cave (default: classic; also a saved name)",
            ),
        };
        Usage { args, about }
    }

    /// The game called `word` (any case).
    pub fn from_name(word: &str) -> Option<GameKind> {
        GameKind::ALL
            .iter()
            .copied()
            .find(|kind| kind.name().eq_ignore_ascii_case(word))
    }

    /// The names `levels GAME` lists for this game.
    pub fn level_names(self, context: &Context) -> Vec<String> {
        match self {
            GameKind::Sokoban => context.levels.sokoban.names().map(String::from).collect(),
            GameKind::StarPusher => collection_names(context),
            GameKind::Twenty48 => Vec::new(),
            GameKind::Wumpus => {
                let mut names: BTreeSet<String> =
                    context.levels.wumpus.names().map(String::from).collect();
                names.extend(saved_names(&context.data_dir.join(self.name())));
                names.into_iter().collect()
            }
        }
    }

    /// Start this game with the player's arguments.
    ///
    /// # Errors
    /// A one-line message (no line ending) when an argument names nothing that exists;
    /// it lists the choices.
    pub fn start(self, args: &[&str], context: &Context) -> Result<RunningGame, String> {
        match self {
            GameKind::Sokoban => {
                let name = match args {
                    [] => sokoban::DEFAULT_LEVEL,
                    [name] => name,
                    _ => return Err(String::from("Usage: play sokoban [LEVEL]")),
                };
                let level = context
                    .levels
                    .sokoban
                    .get(name)
                    .ok_or_else(|| unknown_level(name, self.level_names(context)))?;
                Ok(RunningGame::Sokoban(Sokoban::new(level)))
            }
            GameKind::StarPusher => start_star_pusher(args, context).map(RunningGame::StarPusher),
            GameKind::Twenty48 => twenty48::from_args(args)
                .map(|game| RunningGame::Twenty48(Box::new(game)))
                .map_err(|error| error.to_string()),
            GameKind::Wumpus => start_wumpus(args, context).map(RunningGame::Wumpus),
        }
    }
}

/// A game in progress, of whichever kind: what a session holds while its player plays.
///
/// An enum rather than a `Box<dyn Game>`, so that the game lives inside its session's
/// task. With thousands of mostly idle players every command finds its session cold in
/// the cache, and a separately allocated game cost one more miss per command (perf
/// put most of a Sokoban move's time on such a server there). 2048 stays boxed: its
/// random generator alone takes about 300 bytes, which every session, in the lobby or
/// in any game, would otherwise carry.
pub enum RunningGame {
    /// Classic Sokoban.
    Sokoban(Sokoban),
    /// A level of a Star Pusher collection.
    StarPusher(StarPusher),
    /// 2048.
    Twenty48(Box<Twenty48>),
    /// The wumpus cave.
    Wumpus(Wumpus),
}

impl RunningGame {
    /// Which game this is.
    pub fn kind(&self) -> GameKind {
        match self {
            RunningGame::Sokoban(_) => GameKind::Sokoban,
            RunningGame::StarPusher(_) => GameKind::StarPusher,
            RunningGame::Twenty48(_) => GameKind::Twenty48,
            RunningGame::Wumpus(_) => GameKind::Wumpus,
        }
    }

    fn game(&mut self) -> &mut dyn Game {
        match self {
            RunningGame::Sokoban(game) => game,
            RunningGame::StarPusher(game) => game,
            RunningGame::Twenty48(game) => game.as_mut(),
            RunningGame::Wumpus(game) => game,
        }
    }
}

impl Game for RunningGame {
    fn start(&mut self, memory: &mut Memory) -> Reply {
        self.game().start(memory)
    }

    fn handle(&mut self, line: &str, memory: &mut Memory) -> Reply {
        self.game().handle(line, memory)
    }

    fn end_of_input(&mut self) -> String {
        self.game().end_of_input()
    }
}

/// `starpusher [COLLECTION] [LEVEL-NUMBER]`. A lone number that names no collection is
/// a level of the first collection (`starpusher 5`).
fn start_star_pusher(args: &[&str], context: &Context) -> Result<StarPusher, String> {
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
    let count = collection.levels.len();
    let level = number
        .parse::<usize>()
        .map_err(|_| format!("No level {number} in {name}: choose a number from 1 to {count}."))?;
    StarPusher::new(&name, collection, level).map_err(|error| error.to_string())
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

/// `play wumpus [WORLD]`: a world of the catalog, else one saved with `save NAME`.
///
/// # Errors
/// The one-line message for a bad argument, an unknown name or a damaged save.
pub fn start_wumpus(args: &[&str], context: &Context) -> Result<Wumpus, String> {
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

/// A wumpus game in `cave` that refuses to `save` under a built-in world's name: the
/// catalog is searched first, so such a save could never be loaded.
pub fn wumpus_game(cave: Cave, context: &Context) -> Wumpus {
    let built_in = context.levels.wumpus.names().map(String::from).collect();
    Wumpus::new(cave).with_reserved_names(built_in)
}

fn saved_world(name: &str, context: &Context) -> Result<Cave, String> {
    let kind = GameKind::Wumpus;
    let unknown = || unknown_level(name, kind.level_names(context));
    // Only a valid save name comes near a path.
    let saved = SaveName::parse(name).map_err(|_| unknown())?;
    let path = saves::path(&context.data_dir, kind, saved.as_str());
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(unknown()),
        Err(error) => {
            return Err(format!(
                "Cannot read the saved world {}: {error}.",
                saved.as_str()
            ))
        }
    };
    wumpus::parse_cave(&text).map_err(|error| {
        format!(
            "The saved world {} cannot be loaded: {error}.",
            saved.as_str()
        )
    })
}

/// The names of the `.txt` files in `dir` that are valid save names, for `levels`.
fn saved_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = levels::level_name(&entry.path(), Cave::EXTENSIONS)?;
            Some(SaveName::parse(&name).ok()?.into_string())
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

/// The one-line error for a level name that does not exist.
pub fn unknown_level(name: &str, choices: Vec<String>) -> String {
    format!(
        "Unknown level: {name}. Choose one of: {}.",
        choices.join(", ")
    )
}

fn game_names() -> String {
    let names: Vec<&str> = GameKind::ALL.iter().map(|kind| kind.name()).collect();
    names.join(", ")
}

/// One lobby line, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command<'a> {
    /// Nothing typed: show the prompt again.
    Empty,
    /// `play GAME [ARGS]` or `GAME [ARGS]`.
    Play {
        /// The game.
        kind: GameKind,
        /// The rest of the words, as typed.
        args: Vec<&'a str>,
    },
    /// `play` naming no game, or a game that does not exist.
    UnknownGame(Option<&'a str>),
    /// `levels [GAME]`.
    Levels(Option<GameKind>),
    /// `help`.
    Help,
    /// `quit`.
    Quit,
    /// Anything else: the first word as typed.
    Unknown(&'a str),
}

impl<'a> Command<'a> {
    /// Parse a lobby line. Commands are case-insensitive; white space separates words.
    pub fn parse(line: &'a str) -> Command<'a> {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            return Command::Empty;
        };
        let rest: Vec<&str> = words.collect();
        let lower = first.to_ascii_lowercase();
        match lower.as_str() {
            "play" => match rest.split_first() {
                Some((game, args)) => match GameKind::from_name(game) {
                    Some(kind) => Command::Play {
                        kind,
                        args: args.to_vec(),
                    },
                    None => Command::UnknownGame(Some(game)),
                },
                None => Command::UnknownGame(None),
            },
            "levels" => match rest.first() {
                None => Command::Levels(None),
                Some(game) => match GameKind::from_name(game) {
                    Some(kind) => Command::Levels(Some(kind)),
                    None => Command::UnknownGame(Some(game)),
                },
            },
            "help" => Command::Help,
            "quit" => Command::Quit,
            _ => match GameKind::from_name(first) {
                Some(kind) => Command::Play { kind, args: rest },
                None => Command::Unknown(first),
            },
        }
    }
}

/// The greeting sent on connect, ending with the lobby prompt.
pub fn banner() -> String {
    format!(
        "Welcome to arcade!\nGames: {}\nCommands: play GAME [ARGS], levels [GAME], help, quit\n{PROMPT}",
        game_names()
    )
}

/// The text of `help`, without the prompt.
pub fn help() -> String {
    let mut text = String::from(
        "Commands:\n  play GAME [ARGS]   start a game (or just: GAME [ARGS])\n  levels [GAME]      list what a game can load\n  help               this list\n  quit               leave\nGames:\n",
    );
    // Two lines a game, so that help fits an 80-column telnet window.
    for usage in GameKind::ALL.iter().map(|kind| kind.usage()) {
        let _ = writeln!(text, "  {}\n      {}", usage.args, usage.about);
    }
    text
}

/// The text of `levels [GAME]`, without the prompt.
pub fn levels(kind: Option<GameKind>, context: &Context) -> String {
    let kinds = match kind {
        Some(kind) => vec![kind],
        None => GameKind::ALL.to_vec(),
    };
    let mut text = String::new();
    for kind in kinds {
        let names = kind.level_names(context);
        if names.is_empty() {
            let _ = writeln!(text, "{}: (no levels to choose: just play it)", kind.name());
        } else {
            let _ = writeln!(text, "{}: {}", kind.name(), names.join(", "));
        }
    }
    text
}

/// The one-line error for `play` without a known game.
pub fn unknown_game(word: Option<&str>) -> String {
    match word {
        Some(word) => format!("Unknown game: {word}. Choose one of: {}.", game_names()),
        None => format!("Play what? Choose one of: {}.", game_names()),
    }
}

/// The one-line error for an unknown lobby command.
pub fn unknown_command(word: &str) -> String {
    format!("Unknown command: {word}. Type help.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> Context {
        let (levels, problems) = Levels::built_in();
        assert!(problems.is_empty(), "{problems:?}");
        Context {
            levels,
            data_dir: PathBuf::from("unused"),
        }
    }

    #[test]
    fn parses_every_lobby_form() {
        assert_eq!(Command::parse(""), Command::Empty);
        assert_eq!(Command::parse("   "), Command::Empty);
        assert_eq!(
            Command::parse("PLAY  Sokoban classic"),
            Command::Play {
                kind: GameKind::Sokoban,
                args: vec!["classic"]
            }
        );
        assert_eq!(
            Command::parse("sokoban"),
            Command::Play {
                kind: GameKind::Sokoban,
                args: vec![]
            }
        );
        assert_eq!(Command::parse("play"), Command::UnknownGame(None));
        assert_eq!(
            Command::parse("play chess"),
            Command::UnknownGame(Some("chess"))
        );
        assert_eq!(Command::parse("Levels"), Command::Levels(None));
        assert_eq!(
            Command::parse("levels SOKOBAN"),
            Command::Levels(Some(GameKind::Sokoban))
        );
        assert_eq!(Command::parse("HELP"), Command::Help);
        assert_eq!(Command::parse("Quit"), Command::Quit);
        assert_eq!(Command::parse("dance now"), Command::Unknown("dance"));
    }

    #[test]
    fn error_strings() {
        assert_eq!(
            unknown_command("Dance"),
            "Unknown command: Dance. Type help."
        );
        assert!(
            unknown_game(Some("chess")).starts_with("Unknown game: chess. Choose one of: sokoban")
        );
        let error = GameKind::Sokoban.start(&["nowhere"], &context()).err();
        assert_eq!(
            error.as_deref(),
            Some("Unknown level: nowhere. Choose one of: classic.")
        );
    }

    #[test]
    fn starpusher_arguments() {
        let context = context();
        let start = |args: &[&str]| {
            GameKind::StarPusher
                .start(args, &context)
                .map(|mut game| game.start(&mut crate::games::Memory::default()).text)
        };
        let first = start(&[]).unwrap();
        assert!(first.contains("Collection arcade: 25 levels"), "{first}");
        assert!(first.contains("Level 1/25  Moves: 0"), "{first}");
        assert!(start(&["ARCADE", "3"])
            .unwrap()
            .contains("Level 3/25  Moves: 0"));
        assert!(start(&["7"]).unwrap().contains("Level 7/25  Moves: 0"));
        assert_eq!(
            start(&["nowhere"]).err().as_deref(),
            Some("Unknown collection: nowhere. Choose one of: arcade.")
        );
        assert_eq!(
            start(&["arcade", "26"]).err().as_deref(),
            Some("No level 26 in arcade: choose a number from 1 to 25.")
        );
        assert_eq!(
            start(&["arcade", "x"]).err().as_deref(),
            Some("No level x in arcade: choose a number from 1 to 25.")
        );
        assert_eq!(
            start(&["0"]).err().as_deref(),
            Some("No level 0 in arcade: choose a number from 1 to 25.")
        );
        assert!(start(&["arcade", "1", "2"])
            .err()
            .unwrap()
            .starts_with("Usage:"));
        assert_eq!(
            levels(Some(GameKind::StarPusher), &context),
            "starpusher: arcade (25 levels)\n"
        );
        assert_eq!(
            Command::parse("StarPusher arcade 2"),
            Command::Play {
                kind: GameKind::StarPusher,
                args: vec!["arcade", "2"]
            }
        );
    }

    #[test]
    fn banner_names_games_and_commands_and_ends_with_prompt() {
        let text = banner();
        assert!(text.contains("sokoban"));
        assert!(text.contains("help") && text.contains("quit"));
        assert!(text.ends_with("\n> "));
        assert!(levels(None, &context()).contains("sokoban: classic"));
        assert!(GameKind::Sokoban.start(&[], &context()).is_ok());
    }

    #[test]
    fn twenty48_is_in_the_lobby() {
        assert_eq!(
            Command::parse("play 2048 size=5 seed=1"),
            Command::Play {
                kind: GameKind::Twenty48,
                args: vec!["size=5", "seed=1"]
            }
        );
        assert_eq!(
            Command::parse("2048"),
            Command::Play {
                kind: GameKind::Twenty48,
                args: vec![]
            }
        );
        assert!(banner().contains("2048"));
        assert!(help().contains("2048 [size=N] [win=N] [seed=N] [style=box|ascii]"));
        assert!(levels(Some(GameKind::Twenty48), &context()).contains("2048: (no levels"));
        assert!(GameKind::Twenty48.start(&["seed=3"], &context()).is_ok());
        assert_eq!(
            GameKind::Twenty48
                .start(&["size=2"], &context())
                .err()
                .as_deref(),
            Some("size must be 3 to 8.")
        );
    }
}
