//! The table of games: one row per game, holding everything the rest of the server
//! knows about it.
//!
//! The lobby, `help`, `levels`, `arcade play` and `arcade loadtest` all read this
//! table and nothing else, so every game behaves alike and adding one means a module
//! under `src/games/` and one row in [`GAMES`] (README, "Adding a game").
//!
//! A row's functions may read the disk (a saved wumpus world, the list of saves): the
//! console hands them to its caller as a job to run off the event loop
//! ([`crate::console::Job`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::levels::{self, LevelFile, Levels};
use crate::catalog::saves;
use crate::codec::terminal::{Arrow, Colour, Palette};
use crate::games::sokoban::{self, Sokoban};
use crate::games::starpusher::xsb::Collection;
use crate::games::starpusher::{self, StarPusher};
use crate::games::twenty48;
use crate::games::world::{Glyphs, Level};
use crate::games::wumpus::{self, Cave, Wumpus};
use crate::games::{Finish, Game, Memory, Outcome, SaveName};

/// What starting a game needs: the level store and where saved games live.
#[derive(Debug, Clone)]
pub struct Context {
    /// Built-in levels plus those of `--levels`.
    pub levels: Levels,
    /// Where `save NAME` writes and `play wumpus NAME` looks for saved worlds.
    pub data_dir: PathBuf,
}

impl Context {
    /// The same levels, with saved games read from and written to `saves_dir`: each
    /// player's saves are their own (README, "Saved games").
    pub fn with_saves_in(&self, saves_dir: PathBuf) -> Context {
        Context {
            levels: self.levels.clone(),
            data_dir: saves_dir,
        }
    }
}

/// The context new games start in, which `reload` and SIGHUP replace: a game in
/// progress keeps the levels it started with (it holds them), new games get the new
/// files. Clone it freely: every clone is the same.
#[derive(Debug, Clone)]
pub struct Contexts(Arc<ContextsInner>);

#[derive(Debug)]
struct ContextsInner {
    current: std::sync::RwLock<Arc<Context>>,
    /// `--levels`, read again on a reload.
    levels_dir: Option<PathBuf>,
}

impl Contexts {
    /// Start with `context`, whose levels came from `levels_dir` (`--levels`).
    pub fn new(context: Arc<Context>, levels_dir: Option<PathBuf>) -> Contexts {
        Contexts(Arc::new(ContextsInner {
            current: std::sync::RwLock::new(context),
            levels_dir,
        }))
    }

    /// The context for a game starting now.
    pub fn current(&self) -> Arc<Context> {
        let current = self
            .0
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(&current)
    }

    /// Read the levels again (built-in, then `--levels`) and start new games with
    /// them; what was loaded and every problem, in words, one per line, as the log
    /// says them too. It reads the disk: call it on a blocking thread.
    pub fn reload(&self) -> String {
        if let Some(dir) = &self.0.levels_dir {
            if let Err(error) = levels::check_layout(dir) {
                tracing::warn!(%error, "levels not reloaded");
                return format!("Levels not reloaded: --levels {error}. The levels in use stay.\n");
            }
        }
        let (levels, problems) = Levels::load(self.0.levels_dir.as_deref());
        let data_dir = self.current().data_dir.clone();
        let mut text = String::from("Levels reloaded:");
        let counts = [
            ("sokoban levels", levels.sokoban.names().count()),
            ("starpusher collections", levels.starpusher.names().count()),
            ("wumpus worlds", levels.wumpus.names().count()),
        ];
        for (index, (what, count)) in counts.iter().enumerate() {
            let separator = if index == 0 { " " } else { ", " };
            text.push_str(&format!("{separator}{count} {what}"));
        }
        match problems.len() {
            0 => text.push_str("; no problems.\n"),
            1 => text.push_str("; 1 problem (skipped):\n"),
            n => text.push_str(&format!("; {n} problems (skipped):\n")),
        }
        for problem in &problems {
            tracing::warn!(%problem, "level skipped");
            text.push_str(&format!("  {problem}\n"));
        }
        tracing::info!(
            sokoban = counts[0].1,
            starpusher = counts[1].1,
            wumpus = counts[2].1,
            problems = problems.len(),
            "levels reloaded"
        );
        let context = Arc::new(Context { levels, data_dir });
        *self
            .0
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = context;
        text
    }
}

/// A game just built, not yet started.
pub type NewGame = Box<dyn Game>;

/// What of a session's [`Memory`] a game shows, written as text for a recording and
/// read back for its replay (2048's best score), so that a replay is byte for byte
/// what the player saw.
#[derive(Debug, Clone, Copy)]
pub struct MemoryCodec {
    /// The part this game reads, as text (empty: nothing).
    pub remember: fn(&Memory) -> String,
    /// Put the part back into a fresh memory.
    pub recall: fn(&str, &mut Memory),
}

/// For games that remember nothing between games.
const NO_MEMORY: MemoryCodec = MemoryCodec {
    remember: |_| String::new(),
    recall: |_, _| {},
};

/// `arcade play NAME FILE [ARGS]`: a game on a level file named on the command line,
/// with the arguments after it.
pub type FromFile = fn(&Path, &[&str], &Context) -> Result<NewGame, String>;

/// Build a game from the state it wrote ([`Game::state`]).
pub type FromState = fn(&str, &Context) -> Result<NewGame, String>;

/// How to start a game, for `help`: the words to type and what the game is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// `play` arguments, starting with the game's name.
    pub args: &'static str,
    /// One line about the game and its defaults.
    pub about: &'static str,
}

/// How one of a game's leaderboards ranks results (SPEC section 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    /// Solved, fewest moves, then fewest pushes.
    Moves,
    /// Solved, fewest pushes, then fewest moves.
    Pushes,
    /// Highest score.
    Score,
    /// Most wins with the gold, then fewest actions.
    Gold,
}

impl Board {
    /// Where `finish` stands on this board against another of the same level: the
    /// smaller, the better (a player's best result, for `stats`).
    pub fn rank(self, finish: &Finish) -> (bool, u64, u64) {
        let unsolved = finish.outcome != Outcome::Solved;
        match self {
            Board::Moves => (unsolved, finish.moves, finish.pushes),
            Board::Pushes => (unsolved, finish.pushes, finish.moves),
            Board::Score => (false, u64::MAX - finish.score, 0),
            Board::Gold => (!finish.gold, finish.moves, 0),
        }
    }

    /// A result as this board counts it, in words.
    pub fn describe(self, finish: &Finish) -> String {
        match self {
            Board::Moves | Board::Pushes => {
                format!("{} moves, {} pushes", finish.moves, finish.pushes)
            }
            Board::Score => format!("score {}, tile {}", finish.score, finish.largest_tile),
            Board::Gold if finish.gold => {
                format!("out with the gold in {} actions", finish.moves)
            }
            Board::Gold => format!("{} after {} actions", finish.outcome.as_str(), finish.moves),
        }
    }
}

/// What a load-test session types in this game: the lobby line that starts it, then
/// a cycle of real moves that never ends it (the tests below prove it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadScript {
    /// The lobby line that starts the game.
    pub lobby_line: &'static str,
    /// The commands sent in turn, from the first again after the last.
    pub commands: &'static [&'static str],
}

/// One game of the arcade: one row of [`GAMES`].
pub struct GameKind {
    /// The name a player types (any case), and the folder of its levels and saves.
    pub name: &'static str,
    /// For `help`.
    pub usage: Usage,
    /// Build the game from the words after `play NAME`.
    ///
    /// Errors are one line (no line ending) naming the choices.
    pub start: fn(&[&str], &Context) -> Result<NewGame, String>,
    /// What `levels NAME` lists; empty for a game that loads nothing.
    pub level_names: fn(&Context) -> Vec<String>,
    /// `arcade play NAME FILE [ARGS]`: the game on a level file given on the command
    /// line, for games that load files.
    pub from_file: Option<FromFile>,
    /// What `arcade loadtest --game NAME` plays, for games that have a script.
    pub load_script: Option<LoadScript>,
    /// The arguments to record, from those typed: a game that draws randomness adds
    /// the seed it drew, so that its recording replays (an unseeded 2048).
    pub recorded_args: fn(Vec<String>) -> Vec<String>,
    /// The leaderboard's level of a game started with these arguments (`classic`,
    /// the 2048 size); a game that moves between levels names them in its finishes.
    pub level_key: fn(&[String]) -> String,
    /// What the game shows of the session's memory.
    pub memory: MemoryCodec,
    /// Build the game from a state it wrote ([`Game::state`]), for a recording whose
    /// start keeps one (a wumpus world, saved or built in).
    pub from_state: Option<FromState>,
    /// Its leaderboards, per level (`top GAME LEVEL`), the first the main one.
    pub boards: &'static [Board],
    /// The arguments of a race from those typed after `race GAME`: every racer plays
    /// the same (2048 draws one seed for all; Star Pusher plays the one level only).
    pub race_args: fn(Vec<String>) -> Vec<String>,
    /// What single keys and arrow keys do in the game (`set keys on`).
    pub keys: Keys,
    /// How its boards are coloured (`set color on`); `None`: it draws no board.
    pub palette: Option<Palette>,
}

/// How a game reads single keys (SPEC section 10).
#[derive(Debug, Clone, Copy)]
pub struct Keys {
    /// The line a key stands for when pressed on an empty line with keys on, if it
    /// acts at once; every other key starts a typed line.
    pub instant: fn(char) -> Option<&'static str>,
    /// The line each arrow key stands for, in both modes: up, down, right, left (empty:
    /// the arrow does nothing here).
    pub arrows: [&'static str; 4],
}

impl Keys {
    /// The line `arrow` stands for, if any.
    pub fn arrow(&self, arrow: Arrow) -> Option<&'static str> {
        let line = match arrow {
            Arrow::Up => self.arrows[0],
            Arrow::Down => self.arrows[1],
            Arrow::Right => self.arrows[2],
            Arrow::Left => self.arrows[3],
        };
        (!line.is_empty()).then_some(line)
    }
}

/// Whether `line` is a row of a board drawn with `glyphs` (the game's own table).
fn board_row(glyphs: &Glyphs, line: &str) -> bool {
    line.contains(char::from(glyphs.wall)) && line.bytes().all(|b| glyphs.contains(b))
}

/// The colour of a board glyph of `glyphs`, if it has one.
fn glyph_colour(glyphs: &Glyphs, c: char) -> Option<Colour> {
    let glyph = u8::try_from(c).ok()?;
    if glyph == glyphs.wall {
        Some(WALL)
    } else if glyph == glyphs.box_on_floor {
        Some(BOX)
    } else if glyph == glyphs.goal {
        Some(GOAL)
    } else if glyph == glyphs.box_on_goal {
        Some(BOX_ON_GOAL)
    } else if glyph == glyphs.player || glyph == glyphs.player_on_goal {
        Some(PLAYER)
    } else {
        None
    }
}

/// Walls blue, boxes yellow, goals red, boxes on goals green, the player cyan.
const WALL: Colour = Colour("34");
const BOX: Colour = Colour("1;33");
const GOAL: Colour = Colour("31");
const BOX_ON_GOAL: Colour = Colour("1;32");
const PLAYER: Colour = Colour("1;36");

impl std::fmt::Debug for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for GameKind {
    fn eq(&self, other: &GameKind) -> bool {
        self.name == other.name
    }
}

impl Eq for GameKind {}

/// Every game, in the order the banner and `help` list them.
pub static GAMES: &[GameKind] = &[
    GameKind {
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
        },
        palette: Some(Palette {
            board_row: |line| board_row(&sokoban::GLYPHS, line),
            glyph: |c| glyph_colour(&sokoban::GLYPHS, c),
            tiles: false,
        }),
    },
    GameKind {
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
        },
        palette: Some(Palette {
            board_row: |line| board_row(&starpusher::GLYPHS, line),
            glyph: |c| glyph_colour(&starpusher::GLYPHS, c),
            tiles: false,
        }),
    },
    GameKind {
        name: "2048",
        usage: Usage {
            args: "2048 [size=N] [win=N] [seed=N] [style=box|ascii]",
            about: "slide and merge tiles (default: size=4 win=2048 box)",
        },
        start: |args, _| {
            twenty48::from_args(args)
                .map(boxed)
                .map_err(|error| error.to_string())
        },
        level_names: |_| Vec::new(),
        from_file: None,
        // A move that finds nothing to slide is refused and leaves nothing to take
        // back; `b` then says so, and the board is still the opening one.
        load_script: Some(LoadScript {
            lobby_line: "play 2048 seed=1",
            commands: &["a", "b", "w", "b", "d", "b", "s", "b"],
        }),
        recorded_args: twenty48_seeded,
        level_key: |args| {
            let words: Vec<&str> = args.iter().map(String::as_str).collect();
            twenty48::parse_args(&words)
                .map(|(settings, _)| format!("size={}", settings.size))
                .unwrap_or_default()
        },
        memory: MemoryCodec {
            remember: |memory| {
                memory
                    .get::<twenty48::Best>()
                    .map(|best| best.0.to_string())
                    .unwrap_or_default()
            },
            recall: |text, memory| {
                if let Ok(best) = text.parse() {
                    memory.part::<twenty48::Best>().0 = best;
                }
            },
        },
        from_state: None,
        boards: &[Board::Score],
        race_args: twenty48_seeded,
        // The 2048 seed's improved version reads single keys: every key acts at once.
        keys: Keys {
            instant: |key| {
                const KEYS: [&str; 11] = ["w", "a", "s", "d", "h", "j", "k", "l", "b", "r", "q"];
                KEYS.iter().copied().find(|k| k.starts_with(key))
            },
            arrows: ["w", "s", "d", "a"],
        },
        palette: Some(Palette {
            board_row: |line| line.starts_with(['┌', '│', '├', '└', '+', '|']),
            glyph: |_| None,
            tiles: true,
        }),
    },
    GameKind {
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
        },
        palette: None,
    },
];

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

/// The first argument in lower case (level names are), or `default`.
fn first_or(args: &[String], default: &str) -> String {
    args.first()
        .map_or_else(|| default.to_string(), |name| name.to_ascii_lowercase())
}

/// 2048's arguments with a drawn `seed=` when none was typed: the game is then the
/// one that seed makes, exactly as an unseeded game drawn from that seed.
/// Arguments that would not start are left as typed, so the player reads the same
/// error.
fn twenty48_seeded(mut args: Vec<String>) -> Vec<String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    if let Ok((_, None)) = twenty48::parse_args(&words) {
        args.push(format!("seed={}", rand::random::<u64>()));
    }
    args
}

fn boxed(game: impl Game + 'static) -> NewGame {
    Box::new(game)
}

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

/// A level file of kind `T` named on the command line; its problems as the lines
/// `check-levels` would print.
fn read_level_file<T: LevelFile>(path: &Path) -> Result<T, String> {
    let parsed = levels::read_file::<T>(path);
    let problems: Vec<String> = parsed.problems.iter().map(ToString::to_string).collect();
    parsed.value.ok_or_else(|| problems.join("\n"))
}

/// The one-line error for a collection name that does not exist.
fn unknown_collection(name: &str, context: &Context) -> String {
    let names: Vec<&str> = context.levels.starpusher.names().collect();
    format!(
        "Unknown collection: {name}. Choose one of: {}.",
        names.join(", ")
    )
}

/// The most choices an error lists: a screenful, however many saves there are.
const MAX_CHOICES: usize = 20;

/// The one-line error for a level name of `game` that does not exist: the choices, at
/// most [`MAX_CHOICES`] of them.
fn unknown_level(game: &str, name: &str, choices: impl IntoIterator<Item = String>) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Memory, Status, PROMPT};

    pub(crate) fn context() -> Context {
        let (levels, problems) = Levels::built_in();
        assert!(problems.is_empty(), "{problems:?}");
        Context {
            levels,
            data_dir: std::env::temp_dir().join("arcade-table-tests-unused"),
        }
    }

    fn start(name: &str, args: &[&str]) -> Result<String, String> {
        let kind = GameKind::from_name(name).unwrap();
        (kind.start)(args, &context()).map(|mut game| game.start(&mut Memory::default()).text)
    }

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
            let text = start(kind.name, &[]).unwrap();
            assert!(text.ends_with(PROMPT), "{}: {text}", kind.name);
        }
    }

    #[test]
    fn sokoban_arguments() {
        assert_eq!(
            start("sokoban", &["nowhere"]).err().as_deref(),
            Some("Unknown level: nowhere. Choose one of: classic.")
        );
        assert!(start("sokoban", &["CLASSIC"]).is_ok());
    }

    #[test]
    fn starpusher_arguments() {
        let first = start("starpusher", &[]).unwrap();
        assert!(first.contains("Collection arcade: 25 levels"), "{first}");
        assert!(first.contains("Level 1/25  Moves: 0"), "{first}");
        assert!(start("starpusher", &["ARCADE", "3"])
            .unwrap()
            .contains("Level 3/25  Moves: 0"));
        assert!(start("starpusher", &["7"])
            .unwrap()
            .contains("Level 7/25  Moves: 0"));
        assert_eq!(
            start("starpusher", &["nowhere"]).err().as_deref(),
            Some("Unknown collection: nowhere. Choose one of: arcade.")
        );
        for (args, number) in [
            (&["arcade", "26"][..], "26"),
            (&["arcade", "x"], "x"),
            (&["0"], "0"),
        ] {
            assert_eq!(
                start("starpusher", args).err(),
                Some(format!(
                    "No level {number} in arcade: choose a number from 1 to 25."
                ))
            );
        }
        assert!(start("starpusher", &["arcade", "1", "2"])
            .err()
            .unwrap()
            .starts_with("Usage:"));
        assert_eq!(
            collection_names(&context()),
            vec![String::from("arcade (25 levels)")]
        );
    }

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
    fn twenty48_arguments() {
        assert!(start("2048", &["seed=3"]).is_ok());
        assert_eq!(
            start("2048", &["size=2"]).err().as_deref(),
            Some("size must be 3 to 8.")
        );
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

    /// Plays a game's load script for many cycles against the real game and checks
    /// that every command is a valid move and the game never ends; `refusals` are
    /// replies that would mean a command did not do what the script means it to.
    fn never_ends(name: &str, refusals: &[&str]) {
        let kind = GameKind::from_name(name).unwrap();
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

    #[test]
    fn sokoban_script_never_ends_the_game() {
        never_ends("sokoban", &["Invalid", "Win!"]);
    }

    #[test]
    fn twenty48_script_never_ends_the_game() {
        never_ends("2048", &["Illegal", "Game over", "You win"]);
    }

    #[test]
    fn wumpus_script_never_ends_the_game() {
        never_ends(
            "wumpus",
            &["no effect", "bumped", "fell", "killed", "out with"],
        );
    }
}
