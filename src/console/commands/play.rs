//! `play GAME [ARGS]`, or just `GAME [ARGS]`: start a game (SPEC section 1).

use super::{Args, CommandSpec, Help, Place};
use crate::catalog::table::GameKind;
use crate::console::jobs::{FileWork, Job, Work};
use crate::console::{lobby, Console, Outcome};
use crate::seat::Seat;

/// `play`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "play",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Lobby("  play GAME [ARGS]   start a game (or just: GAME [ARGS])\n"),
    run,
};

/// A game to start, and its arguments as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Play<'a> {
    /// The game.
    pub kind: &'static GameKind,
    /// The words after the game's name.
    pub args: Vec<&'a str>,
}

impl<'a> Play<'a> {
    /// `play`'s words: the game and its arguments, or else the word that names no
    /// game (`None`: no word at all).
    pub fn parse(args: Args<'a>) -> Result<Play<'a>, Option<&'a str>> {
        let mut words = args.words();
        let Some(game) = words.next() else {
            return Err(None);
        };
        match GameKind::from_name(game) {
            Some(kind) => Ok(Play {
                kind,
                args: words.collect(),
            }),
            None => Err(Some(game)),
        }
    }

    /// `GAME [ARGS]`: a game's name typed alone, with `args` after it.
    pub fn of(kind: &'static GameKind, args: Args<'a>) -> Play<'a> {
        Play {
            kind,
            args: args.words().collect(),
        }
    }
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    match Play::parse(args) {
        Ok(play) => start(console, play),
        Err(word) => console.say(format!("{}\n", lobby::unknown_game(word))),
    }
}

/// Start `play`'s game, unless the player waits for a race or has an unfinished game
/// to give up first.
pub(super) fn start(console: &mut Console, play: Play<'_>) -> Outcome {
    if let Some(text) = console.waiting_for_race() {
        return console.say(text);
    }
    if let Some(text) = console.seat.as_mut().and_then(Seat::confirm_discard) {
        return console.say(text);
    }
    let Play { kind, args } = play;
    let args = (kind.recorded_args)(args.into_iter().map(String::from).collect());
    Outcome::Wait(Job::new(Work::Files(FileWork::Start {
        kind,
        args,
        saves: console.saves(),
        world: None,
        race: None,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(name: &str) -> &'static GameKind {
        GameKind::from_name(name).unwrap()
    }

    #[test]
    fn parses_a_game_and_its_words() {
        assert_eq!(
            Play::parse(Args::new(" Sokoban classic")),
            Ok(Play {
                kind: game("sokoban"),
                args: vec!["classic"]
            })
        );
        assert_eq!(Play::parse(Args::new("")), Err(None));
        assert_eq!(Play::parse(Args::new("chess")), Err(Some("chess")));
        assert_eq!(
            Play::of(game("2048"), Args::new("size=5 seed=1")),
            Play {
                kind: game("2048"),
                args: vec!["size=5", "seed=1"]
            }
        );
    }
}
