//! What a load-test session types: the lobby line that starts a game, then a cycle of
//! real game commands that never ends it; with `--restart-every K`, also the game's
//! own exit line after every K commands and the lobby line again ([`Steps`]).
//!
//! The scripts are rows of the table of games ([`arcade::catalog::table::LoadScript`]), where
//! the tests that prove each one never ends its game live too. The exit line is not in
//! the table: it is asked of the game itself ([`Script::exit_line`]), the same answer
//! the server's `/leave` uses, so the two cannot disagree.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::builder::TypedValueParser as _;
use serde::{Serialize, Serializer};

use arcade::catalog::levels::Levels;
use arcade::catalog::table::{Context, GameKind, LoadScript, GAMES};

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

    /// The line that ends this game the game's own way (`e` for Sokoban, `q` for
    /// 2048, `quit` for wumpus): asked of a game built from the lobby line, with the
    /// built-in levels, as the server would build it.
    ///
    /// # Errors
    /// The game does not start from the script's lobby line (the table's tests prove
    /// that it does), with the game's reason.
    pub fn exit_line(self) -> Result<&'static str, String> {
        let mut words = self.lobby_line().split_whitespace();
        // The lobby line is `play NAME ARGS...` (a test checks it).
        let args: Vec<&str> = words.by_ref().skip(2).collect();
        let context = Context {
            levels: Levels::built_in().0,
            // The scripts start built-in levels only: no saved game is looked for.
            data_dir: PathBuf::new(),
        };
        let game = (self.kind.start)(&args, &context)?;
        Ok(game.exit_command())
    }

    /// The lines a session sends once in its game, without end: the script's
    /// commands in turn, or with `restart` a game of `restart.every` commands from the
    /// script's first, the exit line, the lobby line, and again. The first game is
    /// cut after `first_game` commands (at most `restart.every`): sessions that start
    /// together are given different lengths, so that they do not all end their games
    /// together.
    pub(crate) fn steps(self, restart: Option<Restart>, first_game: usize) -> Steps {
        let quota = restart.map_or(0, |restart| first_game.clamp(1, restart.every.get()));
        Steps {
            script: self,
            restart,
            next: 0,
            quota,
            exited: false,
        }
    }
}

/// `--restart-every`: how a session ends its game and starts another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Restart {
    /// Game commands per game.
    pub(crate) every: NonZeroUsize,
    /// The game's exit line ([`Script::exit_line`]).
    pub(crate) exit: &'static str,
}

/// What one line a session sends in its game is, which decides the reply it waits
/// for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepKind {
    /// A command of the game: the game answers and prompts again.
    Command,
    /// The game's exit line: the game ends and the lobby prompts.
    Exit,
    /// The lobby line again: a new game starts and prompts.
    Restart,
}

/// One line a session sends in its game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    /// The line, without its line ending.
    pub(crate) line: &'static str,
    /// What it is.
    pub(crate) kind: StepKind,
}

/// The endless lines of [`Script::steps`].
#[derive(Debug, Clone)]
pub(crate) struct Steps {
    script: Script,
    restart: Option<Restart>,
    /// Commands sent in the current game: the index of the next one in the script's
    /// cycle.
    next: usize,
    /// With restarts: commands in the current game before its exit line.
    quota: usize,
    /// The exit line was sent: the lobby line comes next.
    exited: bool,
}

impl Iterator for Steps {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let commands = self.script.commands();
        if let Some(restart) = self.restart {
            if self.exited {
                self.exited = false;
                self.next = 0;
                self.quota = restart.every.get();
                return Some(Step {
                    line: self.script.lobby_line(),
                    kind: StepKind::Restart,
                });
            }
            if self.next >= self.quota {
                self.exited = true;
                return Some(Step {
                    line: restart.exit,
                    kind: StepKind::Exit,
                });
            }
        }
        // Every script has commands (the table's tests play them); an empty one would
        // send nothing rather than fail.
        let line = commands.get(self.next % commands.len().max(1))?;
        self.next += 1;
        Some(Step {
            line,
            kind: StepKind::Command,
        })
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

    #[test]
    fn exit_lines_are_the_games_own() {
        let exits: Vec<(&str, &str)> = GAMES
            .iter()
            .filter_map(|kind| Script::from_name(kind.name))
            .map(|script| (script.name(), script.exit_line().unwrap()))
            .collect();
        assert_eq!(
            exits,
            vec![("sokoban", "e"), ("2048", "q"), ("wumpus", "quit")]
        );
    }

    #[test]
    fn the_exit_line_ends_the_game_after_any_number_of_commands() {
        use arcade::games::{Memory, Status, PROMPT};
        for kind in GAMES {
            let Some(script) = Script::from_name(kind.name) else {
                continue;
            };
            let exit = script.exit_line().unwrap();
            for played in 0..=2 * script.commands().len() {
                let args: Vec<&str> = script.lobby_line().split_whitespace().skip(2).collect();
                let context = Context {
                    levels: Levels::built_in().0,
                    data_dir: PathBuf::new(),
                };
                let mut game = (kind.start)(&args, &context).unwrap();
                let mut memory = Memory::default();
                game.start(&mut memory);
                for command in script.commands().iter().cycle().take(played) {
                    game.handle(command, &mut memory);
                }
                let reply = game.handle(exit, &mut memory);
                assert_eq!(reply.status, Status::Ended, "{}: {}", kind.name, reply.text);
                assert!(!reply.text.ends_with(PROMPT), "{}", kind.name);
            }
        }
    }

    fn lines(steps: Steps, count: usize) -> Vec<&'static str> {
        steps.take(count).map(|step| step.line).collect()
    }

    #[test]
    fn without_restarts_the_commands_cycle() {
        let script = Script::from_name("sokoban").unwrap();
        let steps = script.steps(None, 3);
        assert!(steps
            .clone()
            .take(20)
            .all(|step| step.kind == StepKind::Command));
        assert_eq!(lines(steps, 7), ["w1", "s1", "w2", "s2", "d0", "w1", "s1"]);
    }

    #[test]
    fn restarts_play_every_game_from_the_first_command() {
        let script = Script::from_name("2048").unwrap();
        let restart = Restart {
            every: NonZeroUsize::new(3).unwrap(),
            exit: "q",
        };
        // The first game is cut short; every game after it has three commands, the
        // script's first three.
        let steps = script.steps(Some(restart), 2);
        assert_eq!(
            lines(steps.clone(), 12),
            [
                "a",
                "b",
                "q",
                "play 2048 seed=1",
                "a",
                "b",
                "w",
                "q",
                "play 2048 seed=1",
                "a",
                "b",
                "w"
            ]
        );
        let kinds: Vec<StepKind> = steps.skip(2).take(2).map(|step| step.kind).collect();
        assert_eq!(kinds, [StepKind::Exit, StepKind::Restart]);
        // A first game longer than the others, or empty, is held to 1..=every.
        assert_eq!(
            lines(script.steps(Some(restart), 9), 4),
            ["a", "b", "w", "q"]
        );
        assert_eq!(lines(script.steps(Some(restart), 0), 2), ["a", "q"]);
    }

    #[test]
    fn games_longer_than_the_script_go_round_it() {
        let script = Script::from_name("sokoban").unwrap();
        let restart = Restart {
            every: NonZeroUsize::new(7).unwrap(),
            exit: "e",
        };
        assert_eq!(
            lines(script.steps(Some(restart), 7), 9),
            [
                "w1",
                "s1",
                "w2",
                "s2",
                "d0",
                "w1",
                "s1",
                "e",
                "play sokoban classic"
            ]
        );
    }
}
