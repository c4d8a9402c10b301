//! The lobby: the commands a player types before and between games (SPEC section 1),
//! parsed, and the texts they answer with.
//!
//! Parsing is separate from acting so that both the network session and `arcade play`
//! share it; nothing here touches a socket or the disk. What a line then does is the
//! console's business ([`crate::console`]); which games exist is the table's
//! ([`crate::catalog::table`]).

use std::fmt::Write as _;

use crate::catalog::table::{Context, GameKind, GAMES};

/// The lobby prompt (no line ending).
pub const PROMPT: &str = "> ";

/// Sent when a player leaves with `quit`.
pub const GOODBYE: &str = "Goodbye.\n";

/// One lobby line, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command<'a> {
    /// Nothing typed: show the prompt again.
    Empty,
    /// `play GAME [ARGS]` or `GAME [ARGS]`.
    Play {
        /// The game.
        kind: &'static GameKind,
        /// The rest of the words, as typed.
        args: Vec<&'a str>,
    },
    /// `play` naming no game, or a game that does not exist.
    UnknownGame(Option<&'a str>),
    /// `levels [GAME]`.
    Levels(Option<&'static GameKind>),
    /// `help`.
    Help,
    /// `quit`.
    Quit,
    /// `who`.
    Who,
    /// `say TEXT` (the text as typed, trimmed; may be empty).
    Say(&'a str),
    /// `tell NAME TEXT`.
    Tell {
        /// To whom, as typed.
        name: Option<&'a str>,
        /// The text as typed, trimmed.
        text: &'a str,
    },
    /// `watch NAME`, or `watch race N` (the second word).
    Watch(Option<&'a str>, Option<&'a str>),
    /// `set`, `set OPTION`, `set OPTION on|off`.
    Set {
        /// The option, as typed.
        option: Option<&'a str>,
        /// The value, as typed.
        value: Option<&'a str>,
        /// Anything after the value (a mistake).
        extra: bool,
    },
    /// `quiet`: `set chat off`.
    Quiet,
    /// `name` or `name NAME`.
    Name(Option<&'a str>),
    /// `register`.
    Register,
    /// `leave` (in a game, `/leave`).
    Leave,
    /// `top [GAME [LEVEL]]`: the words after `top`.
    Top(Vec<&'a str>),
    /// `stats [NAME]`.
    Stats(Option<&'a str>),
    /// `recordings [NAME]`.
    Recordings(Option<&'a str>),
    /// `replay ID [SPEED]`.
    Replay {
        /// The recording's id, as typed.
        id: Option<&'a str>,
        /// How much faster than it was played, as typed.
        speed: Option<&'a str>,
        /// More words than that (a mistake).
        extra: bool,
    },
    /// `resume`.
    Resume,
    /// `race GAME [ARGS] [time=DURATION] [all]`: the words after `race`.
    Race(Vec<&'a str>),
    /// `races`.
    Races,
    /// `join N`.
    Join(Option<&'a str>),
    /// `start`.
    Start,
    /// `standings`.
    Standings,
    /// `broadcast TEXT` (admins).
    Broadcast(&'a str),
    /// `kick NAME [WHY]` (admins).
    Kick {
        /// Whom, as typed.
        name: Option<&'a str>,
        /// Why, as typed (may be empty).
        why: &'a str,
    },
    /// `reload` (admins).
    Reload,
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
        // The text after the first word, and after the second, as typed.
        let after_first = text_after(line);
        match lower.as_str() {
            "who" => Command::Who,
            "say" => Command::Say(after_first),
            "tell" => Command::Tell {
                name: rest.first().copied(),
                text: text_after(after_first),
            },
            "watch" => Command::Watch(rest.first().copied(), rest.get(1).copied()),
            "race" => Command::Race(rest),
            "races" => Command::Races,
            "join" => Command::Join(rest.first().copied()),
            "start" => Command::Start,
            "standings" => Command::Standings,
            "broadcast" => Command::Broadcast(after_first),
            "kick" => Command::Kick {
                name: rest.first().copied(),
                why: text_after(after_first),
            },
            "reload" => Command::Reload,
            "set" => Command::Set {
                option: rest.first().copied(),
                value: rest.get(1).copied(),
                extra: rest.len() > 2,
            },
            "quiet" => Command::Quiet,
            "name" => Command::Name(rest.first().copied()),
            "register" => Command::Register,
            "leave" => Command::Leave,
            "top" => Command::Top(rest),
            "stats" => Command::Stats(rest.first().copied()),
            "recordings" => Command::Recordings(rest.first().copied()),
            "replay" => Command::Replay {
                id: rest.first().copied(),
                speed: rest.get(1).copied(),
                extra: rest.len() > 2,
            },
            "resume" => Command::Resume,
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

/// The words of `line` after its first one, as typed (inner spacing kept), trimmed.
fn text_after(line: &str) -> &str {
    let line = line.trim_start();
    match line.split_once(char::is_whitespace) {
        Some((_, rest)) => rest.trim(),
        None => "",
    }
}

/// The greeting sent on connect, ending with the lobby prompt.
pub fn banner() -> String {
    format!(
        "Welcome to arcade!\nGames: {}\nCommands: play GAME [ARGS], levels [GAME], who, say TEXT, tell NAME TEXT, watch NAME, name NAME, help, quit\n{PROMPT}",
        GameKind::names()
    )
}

/// The commands for players, the same in the lobby and (after a `/`) in a game.
pub const PLAYER_COMMANDS: &str = "\
  who                who is online, where, idle for how long, watched by how many
  say TEXT           to everyone in the same place (the lobby, or a game and its watchers)
  tell NAME TEXT     to one player
  watch NAME         see NAME's game as it happens; any line stops watching
  watch race N       the standings of race N as they change
  name NAME          take a name (a registered one asks for its password)
  register           protect your name with a password
  set [OPTION on|off]  your settings: chat, keys (single keys, for telnet: a
                     game's keys act at once on an empty line; type d3 as D3),
                     color (boards in colour, drawn in place); quiet is set chat off
  top [GAME [LEVEL]] the leaderboards
  stats [NAME]       a player's results
  recordings [NAME]  recent games, with an id to replay
  standings          the standings of your race
";

/// The text of `help`, without the prompt.
pub fn help() -> String {
    let mut text = String::from(
        "Commands:\n  play GAME [ARGS]   start a game (or just: GAME [ARGS])\n  levels [GAME]      list what a game can load\n  resume             go on with your unfinished game (registered names)\n  replay ID [SPEED]  watch a recorded game again; any line stops it\n\
  race GAME [ARGS] [time=5m]  open a race of GAME: the same game for everyone who joins\n\
  races              the open races\n\
  join N             join race N (leave leaves it)\n\
  start              start the race you host\n",
    );
    text.push_str(PLAYER_COMMANDS);
    text.push_str("  broadcast TEXT, kick NAME [WHY], reload, race ... all   for admins\n  help               this list\n  quit               leave\nIn a game, type these with a / first (/who, /say hi); /help and /leave work in every game.\nGames:\n");
    // Two lines a game, so that help fits an 80-column telnet window.
    for usage in GAMES.iter().map(|kind| kind.usage) {
        let _ = writeln!(text, "  {}\n      {}", usage.args, usage.about);
    }
    text
}

/// The text of `levels [GAME]`, without the prompt. It may read the disk (the saved
/// worlds): run it off the event loop.
pub fn levels(kind: Option<&'static GameKind>, context: &Context) -> String {
    let kinds = match kind {
        Some(kind) => std::slice::from_ref(kind),
        None => GAMES,
    };
    let mut text = String::new();
    for kind in kinds {
        let names = (kind.level_names)(context);
        if names.is_empty() {
            let _ = writeln!(text, "{}: (no levels to choose: just play it)", kind.name);
        } else {
            let _ = writeln!(text, "{}: {}", kind.name, names.join(", "));
        }
    }
    text
}

/// The one-line error for `play` without a known game.
pub fn unknown_game(word: Option<&str>) -> String {
    match word {
        Some(word) => format!(
            "Unknown game: {word}. Choose one of: {}.",
            GameKind::names()
        ),
        None => format!("Play what? Choose one of: {}.", GameKind::names()),
    }
}

/// The one-line error for an unknown lobby command.
pub fn unknown_command(word: &str) -> String {
    format!("Unknown command: {word}. Type help.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::levels::Levels;

    fn context() -> Context {
        let (levels, problems) = Levels::built_in();
        assert!(problems.is_empty(), "{problems:?}");
        Context {
            levels,
            data_dir: std::env::temp_dir().join("arcade-lobby-tests-unused"),
        }
    }

    fn game(name: &str) -> &'static GameKind {
        GameKind::from_name(name).unwrap()
    }

    #[test]
    fn parses_every_lobby_form() {
        assert_eq!(Command::parse(""), Command::Empty);
        assert_eq!(Command::parse("   "), Command::Empty);
        assert_eq!(
            Command::parse("PLAY  Sokoban classic"),
            Command::Play {
                kind: game("sokoban"),
                args: vec!["classic"]
            }
        );
        assert_eq!(
            Command::parse("sokoban"),
            Command::Play {
                kind: game("sokoban"),
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
            Command::Levels(Some(game("sokoban")))
        );
        assert_eq!(Command::parse("HELP"), Command::Help);
        assert_eq!(Command::parse("Quit"), Command::Quit);
        assert_eq!(Command::parse("dance now"), Command::Unknown("dance"));
        assert_eq!(Command::parse("WHO"), Command::Who);
        assert_eq!(
            Command::parse("say   hello   there "),
            Command::Say("hello   there")
        );
        assert_eq!(Command::parse("say"), Command::Say(""));
        assert_eq!(
            Command::parse("tell Ann  are you there?"),
            Command::Tell {
                name: Some("Ann"),
                text: "are you there?"
            }
        );
        assert_eq!(
            Command::parse("tell"),
            Command::Tell {
                name: None,
                text: ""
            }
        );
        assert_eq!(
            Command::parse("watch bob"),
            Command::Watch(Some("bob"), None)
        );
        assert_eq!(
            Command::parse("watch race 3"),
            Command::Watch(Some("race"), Some("3"))
        );
        assert_eq!(
            Command::parse("race 2048 seed=1 time=5m"),
            Command::Race(vec!["2048", "seed=1", "time=5m"])
        );
        assert_eq!(Command::parse("JOIN 2"), Command::Join(Some("2")));
        assert_eq!(
            Command::parse("kick bob  stop  that "),
            Command::Kick {
                name: Some("bob"),
                why: "stop  that"
            }
        );
        assert_eq!(
            Command::parse("broadcast  hello class"),
            Command::Broadcast("hello class")
        );
        assert_eq!(
            Command::parse("set chat OFF"),
            Command::Set {
                option: Some("chat"),
                value: Some("OFF"),
                extra: false
            }
        );
        assert_eq!(Command::parse("name"), Command::Name(None));
        assert_eq!(Command::parse("Register"), Command::Register);
        assert_eq!(Command::parse("quiet"), Command::Quiet);
        assert_eq!(
            Command::parse("StarPusher arcade 2"),
            Command::Play {
                kind: game("starpusher"),
                args: vec!["arcade", "2"]
            }
        );
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
        assert_eq!(
            unknown_game(None),
            "Play what? Choose one of: sokoban, starpusher, 2048, wumpus."
        );
    }

    #[test]
    fn levels_of_each_game() {
        let context = context();
        assert_eq!(
            levels(Some(game("starpusher")), &context),
            "starpusher: arcade (25 levels)\n"
        );
        assert!(levels(Some(game("2048")), &context).contains("2048: (no levels"));
        let all = levels(None, &context);
        assert!(all.contains("sokoban: classic"), "{all}");
        assert!(all.contains("wumpus: big, classic, maze"), "{all}");
    }

    #[test]
    fn banner_names_games_and_commands_and_ends_with_prompt() {
        let text = banner();
        assert!(text.contains("sokoban, starpusher, 2048, wumpus"));
        assert!(text.contains("help") && text.contains("quit"));
        assert!(text.ends_with("\n> "));
    }

    #[test]
    fn help_names_every_game() {
        let text = help();
        for kind in GAMES {
            assert!(text.contains(kind.usage.args), "{}", kind.name);
        }
        assert!(text.contains("2048 [size=N] [win=N] [seed=N] [style=box|ascii]"));
    }

    #[test]
    fn twenty48_is_in_the_lobby() {
        assert_eq!(
            Command::parse("play 2048 size=5 seed=1"),
            Command::Play {
                kind: game("2048"),
                args: vec!["size=5", "seed=1"]
            }
        );
        assert_eq!(
            Command::parse("2048"),
            Command::Play {
                kind: game("2048"),
                args: vec![]
            }
        );
    }
}
