//! The lobby's commands, one file each, and the one table that lists them.
//!
//! A command is data: its word, where it works (the lobby, a game with `/`, admins
//! only), its lines in `help`, and the function that parses its words and acts. A new
//! command is a file beside this one and a line in [`COMMANDS`]; where it works is
//! checked here, once, so a command typed where it does not work is always answered.
//!
//! A line's first word is found by a scan of the table that ignores case: a few dozen
//! short comparisons, with no allocation (lowercasing the word to match or hash it
//! would allocate on every line, and the lobby is on the hot path of a load test).
//! A game's name alone plays it (`sokoban` is `play sokoban`).

use std::str::SplitWhitespace;

use super::{lobby, Console, Outcome};
use crate::catalog::table::GameKind;
use crate::seat;

mod bot;
mod bot_play;
pub mod bottoken;
mod broadcast;
pub mod help;
mod hint;
mod join;
mod kick;
pub mod ladder;
mod ladders;
mod leave;
pub mod levels;
mod look;
mod name;
pub mod play;
mod quiet;
mod quit;
mod race;
mod races;

pub use race::for_everyone as race_for_everyone;
mod recordings;
mod register;
mod reload;
mod replay;
mod resume;
mod say;
mod set;
mod solve;
pub mod sshkey;
mod standings;
mod start;
mod stats;
mod tell;
mod top;
mod unregister;
mod upgrade;
mod watch;
mod where_am_i;
mod who;

/// Every command, in the order `help` lists them.
pub const COMMANDS: &[CommandSpec] = &[
    play::COMMAND,
    levels::COMMAND,
    resume::COMMAND,
    replay::COMMAND,
    race::COMMAND,
    races::COMMAND,
    join::COMMAND,
    start::COMMAND,
    bot::COMMAND,
    bot_play::COMMAND,
    ladders::COMMAND,
    ladder::COMMAND,
    who::COMMAND,
    say::COMMAND,
    tell::COMMAND,
    watch::COMMAND,
    name::COMMAND,
    register::COMMAND,
    sshkey::COMMAND,
    bottoken::COMMAND,
    set::COMMAND,
    quiet::COMMAND,
    top::COMMAND,
    stats::COMMAND,
    recordings::COMMAND,
    standings::COMMAND,
    hint::COMMAND,
    solve::COMMAND,
    look::COMMAND,
    where_am_i::COMMAND,
    leave::COMMAND,
    broadcast::COMMAND,
    kick::COMMAND,
    unregister::COMMAND,
    reload::COMMAND,
    upgrade::COMMAND,
    help::COMMAND,
    quit::COMMAND,
];

/// One command: what calls it, where it works, how `help` lists it, what it does.
pub struct CommandSpec {
    /// The word that calls it, in any case.
    pub name: &'static str,
    /// Where it works.
    pub place: Place,
    /// Only admins may use it: anyone else is told so ([`seat::ONLY_ADMINS`]).
    pub admins_only: bool,
    /// Its lines in `help`.
    pub help: Help,
    /// What it does, given the words after its own. It may assume it is allowed here.
    pub run: fn(&mut Console, Args<'_>) -> Outcome,
}

/// Where a command works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In the lobby, and in a game with a `/` first.
    Everywhere,
    /// In the lobby only; typed in a game (with `/`), this is the answer.
    Lobby {
        /// The answer in a game, a whole line.
        in_game: &'static str,
    },
}

impl Place {
    /// In the lobby only, with the answer most such commands give in a game.
    pub const LOBBY: Place = Place::Lobby {
        in_game: LEAVE_FIRST,
    };
}

/// The answer to a lobby-only command typed in a game.
pub const LEAVE_FIRST: &str = "You are in a game: /leave it first.\n";

/// Where a command's lines go in `help` (each a whole line, or lines, as printed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Help {
    /// Among the lobby's own commands.
    Lobby(&'static str),
    /// Among the player commands: in `help`, and in a game's `/help`.
    Player(&'static str),
    /// In a game's `/help` only.
    InGame(&'static str),
    /// On the admins' line of `help`: the command's usage alone.
    Admin(&'static str),
    /// At the end of the commands in `help`.
    Last(&'static str),
    /// Not listed: another command's line tells of it.
    Unlisted,
}

/// The words after a command's own, as typed: trimmed, inner spacing kept. Parsing
/// them is each command's business.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Args<'a>(&'a str);

impl<'a> Args<'a> {
    /// `text` as a command's words (trimmed).
    pub fn new(text: &'a str) -> Args<'a> {
        Args(text.trim())
    }

    /// All of it, as typed.
    pub fn text(self) -> &'a str {
        self.0
    }

    /// The words, one by one.
    pub fn words(self) -> SplitWhitespace<'a> {
        self.0.split_whitespace()
    }

    /// Word `n` (from 0), if there is one.
    pub fn word(self, n: usize) -> Option<&'a str> {
        self.words().nth(n)
    }

    /// Whether there are more than `n` words.
    pub fn more_than(self, n: usize) -> bool {
        self.word(n).is_some()
    }

    /// The text after the first word, as typed, trimmed (`tell NAME TEXT`'s TEXT).
    pub fn after_first(self) -> &'a str {
        split(self.0).map_or("", |(_, rest)| rest.0)
    }
}

/// A line's first word and the words after it; `None` for a line of white space.
pub fn split(line: &str) -> Option<(&str, Args<'_>)> {
    let line = line.trim_start();
    if line.is_empty() {
        return None;
    }
    Some(match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, Args(rest.trim())),
        None => (line, Args("")),
    })
}

/// What a line's first word names.
#[derive(Clone, Copy)]
pub enum Found {
    /// A command.
    Command(&'static CommandSpec),
    /// A game, to play.
    Game(&'static GameKind),
    /// Nothing.
    Unknown,
}

/// What `word` names (any case): a command first, then a game.
pub fn find(word: &str) -> Found {
    if let Some(command) = COMMANDS
        .iter()
        .find(|command| command.name.eq_ignore_ascii_case(word))
    {
        return Found::Command(command);
    }
    match GameKind::from_name(word) {
        Some(kind) => Found::Game(kind),
        None => Found::Unknown,
    }
}

/// The game a lobby line starts (`play GAME [ARGS]` or `GAME [ARGS]`), if it starts one.
pub fn starts_game(line: &str) -> Option<play::Play<'_>> {
    let (word, args) = split(line)?;
    match find(word) {
        Found::Command(command) if command.name == play::COMMAND.name => {
            play::Play::parse(args).ok()
        }
        Found::Game(kind) => Some(play::Play::of(kind, args)),
        Found::Command(_) | Found::Unknown => None,
    }
}

/// A line typed in the lobby (a `/` before it already taken off).
pub(super) fn lobby_line(console: &mut Console, line: &str) -> Outcome {
    let Some((word, args)) = split(line) else {
        return console.say(String::new());
    };
    match find(word) {
        Found::Command(command) => run(console, command, args),
        Found::Game(kind) => play::start(console, play::Play::of(kind, args)),
        Found::Unknown => console.say(format!("{}\n", lobby::unknown_command(word))),
    }
}

/// A game line that is the player's `help` rather than the game's: `help` typed without
/// its `/` by a player who uses section 7's commands (three of the four games answer
/// it with an error of their own). Scripts of sections 1-6 still get the game's answer.
pub(super) fn is_players_help(console: &Console, line: &str) -> bool {
    console
        .seat
        .as_ref()
        .is_some_and(|seat| seat.uses_extensions())
        && line.trim().eq_ignore_ascii_case(help::COMMAND.name)
}

/// A line typed in a game after a `/` (the `/` taken off): a command that works in
/// games, or why not.
pub(super) fn in_game_line(console: &mut Console, line: &str) -> Outcome {
    let Some((word, args)) = split(line) else {
        return console.say(String::from("Unknown command: /. Type /help.\n"));
    };
    let command = match find(word) {
        Found::Command(command) => command,
        // A game's name is `play`.
        Found::Game(_) => &play::COMMAND,
        Found::Unknown => {
            return console.say(format!("Unknown command: /{word}. Type /help.\n"));
        }
    };
    if let Some(seat) = &mut console.seat {
        seat.used_extension();
    }
    if let Place::Lobby { in_game } = command.place {
        return console.say(String::from(in_game));
    }
    run(console, command, args)
}

/// The lobby's commands of SPEC section 1: a script that uses only these (and the
/// games) sees sections 1-6 byte for byte; any other command opens the hints.
const SECTION_ONE: [&str; 4] = ["play", "levels", "help", "quit"];

/// Run `command`, if this player may.
fn run(console: &mut Console, command: &CommandSpec, args: Args<'_>) -> Outcome {
    if !SECTION_ONE.contains(&command.name) {
        if let Some(seat) = &mut console.seat {
            seat.used_extension();
        }
    }
    // Without a seat (`arcade play`) there is no one to check: the command itself
    // answers, as it does to everything without a seat.
    if command.admins_only && console.seat.as_ref().is_some_and(|seat| !seat.is_admin()) {
        return console.say(format!("{}\n", seat::ONLY_ADMINS));
    }
    (command.run)(console, args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(word: &str) -> Option<&'static str> {
        match find(word) {
            Found::Command(command) => Some(command.name),
            Found::Game(_) | Found::Unknown => None,
        }
    }

    #[test]
    fn words_are_split_as_typed() {
        assert_eq!(split(""), None);
        assert_eq!(split("   "), None);
        assert_eq!(
            split("  say   hello   there "),
            Some(("say", Args("hello   there")))
        );
        assert_eq!(split("who"), Some(("who", Args(""))));
        let args = Args::new(" Ann  are you there? ");
        assert_eq!(args.word(0), Some("Ann"));
        assert_eq!(args.after_first(), "are you there?");
        assert!(args.more_than(3) && !args.more_than(4));
        assert_eq!(Args::new("").after_first(), "");
    }

    #[test]
    fn commands_are_found_in_any_case() {
        for (typed, name) in [
            ("WHO", "who"),
            ("HELP", "help"),
            ("Quit", "quit"),
            ("Register", "register"),
            ("Levels", "levels"),
            ("PLAY", "play"),
            ("JOIN", "join"),
            ("quiet", "quiet"),
        ] {
            assert_eq!(named(typed), Some(name), "{typed}");
        }
        assert!(matches!(find("dance"), Found::Unknown));
        assert!(matches!(find("StarPusher"), Found::Game(kind) if kind.name == "starpusher"));
    }

    #[test]
    fn every_command_is_in_the_table_once_and_no_game_is_called_alike() {
        for (index, command) in COMMANDS.iter().enumerate() {
            assert_eq!(command.name, command.name.to_ascii_lowercase());
            assert!(
                COMMANDS[index + 1..]
                    .iter()
                    .all(|other| other.name != command.name),
                "{} twice",
                command.name
            );
            assert!(
                GameKind::from_name(command.name).is_none(),
                "{}",
                command.name
            );
        }
    }

    #[test]
    fn lines_that_start_a_game() {
        let started = |line| starts_game(line).map(|play| (play.kind.name, play.args));
        assert_eq!(
            started("PLAY  Sokoban classic"),
            Some(("sokoban", vec!["classic"]))
        );
        assert_eq!(started("sokoban"), Some(("sokoban", vec![])));
        assert_eq!(
            started("StarPusher arcade 2"),
            Some(("starpusher", vec!["arcade", "2"]))
        );
        assert_eq!(
            started("play 2048 size=5 seed=1"),
            Some(("2048", vec!["size=5", "seed=1"]))
        );
        assert_eq!(started("2048"), Some(("2048", vec![])));
        assert_eq!(started("play"), None);
        assert_eq!(started("play chess"), None);
        assert_eq!(started("levels sokoban"), None);
        assert_eq!(started("dance now"), None);
    }
}
