//! What a load-test session types: the lobby line that starts a game, then a cycle of
//! real game commands that never ends it; with `--restart-every K`, also the game's
//! own exit line after every K commands and the lobby line again ([`Steps`]).
//!
//! The scripts are rows of the table of games ([`arcade::catalog::table::LoadScript`]), where
//! the tests that prove each one never ends its game live too; or a script of the
//! command line (`--lobby-line` and `--commands`, [`Script::custom`]) for a game and
//! level of the caller's, such as bench/run.sh's push script on its own level, which
//! the tests below play. The exit line is not in the table: it is asked of the game
//! itself ([`Script::exit_line`]), the same answer the server's `/leave` uses, so the
//! two cannot disagree.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Arc;

use clap::builder::TypedValueParser as _;
use serde::{Serialize, Serializer};

use arcade::catalog::levels::Levels;
use arcade::catalog::table::{Context, GameKind, GAMES};

/// The most commands a script of the command line may have (it is held by every
/// session's plan, once; the table's scripts have five).
pub const MAX_COMMANDS: usize = 1000;

/// The longest line of a script of the command line, in bytes: far below the server's
/// line limit, so that a line is never cut.
pub const MAX_LINE: usize = 200;

/// The game a load test plays and what its sessions type: a game of the table with
/// its load script, or a script of the command line ([`Script::custom`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    kind: &'static GameKind,
    lobby_line: Arc<str>,
    commands: Arc<[String]>,
}

/// Why `--lobby-line` and `--commands` make no script.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError {
    /// The lobby line does not start a game of the table.
    #[error("--lobby-line must be `play GAME [ARGS]` with GAME one of {games} (got {line:?})")]
    NotPlay {
        /// The line given.
        line: String,
        /// The games, comma-separated.
        games: String,
    },
    /// No commands, or one that is empty.
    #[error(
        "--commands must be a comma-separated list of game commands, none empty (e.g. d,s,a,w)"
    )]
    NoCommands,
    /// More commands than [`MAX_COMMANDS`].
    #[error("--commands has {0} commands: at most {MAX_COMMANDS}")]
    TooManyCommands(usize),
    /// A line with a control character (a line ending would make two lines), or longer
    /// than [`MAX_LINE`].
    #[error("{0:?} is not one line of at most {MAX_LINE} bytes without control characters")]
    BadLine(String),
}

impl Script {
    /// The script of the game called `name`, if it has one.
    pub fn from_name(name: &str) -> Option<Script> {
        let kind = GameKind::from_name(name)?;
        let script = kind.load_script?;
        Some(Script {
            kind,
            lobby_line: Arc::from(script.lobby_line),
            commands: script
                .commands
                .iter()
                .map(|&command| command.to_string())
                .collect(),
        })
    }

    /// A script of the command line: `lobby_line` (`play GAME [ARGS]`, GAME a game of
    /// the table) starts the game, and `commands` are sent in turn, from the first
    /// again after the last. Nothing here can tell whether they ever end the game: a
    /// session whose game ends fails, waiting for the game's prompt.
    ///
    /// # Errors
    /// The lobby line names no game of the table, there are no commands (or an empty
    /// one, or too many), or a line is not one line.
    pub fn custom(lobby_line: &str, commands: &[String]) -> Result<Script, ScriptError> {
        for line in std::iter::once(lobby_line).chain(commands.iter().map(String::as_str)) {
            if line.len() > MAX_LINE || line.chars().any(char::is_control) {
                return Err(ScriptError::BadLine(line.chars().take(MAX_LINE).collect()));
            }
        }
        let mut words = lobby_line.split_whitespace();
        let kind = match (words.next(), words.next()) {
            (Some(play), Some(name)) if play.eq_ignore_ascii_case("play") => {
                GameKind::from_name(name)
            }
            _ => None,
        };
        let Some(kind) = kind else {
            let games: Vec<&str> = GAMES.iter().map(|kind| kind.name).collect();
            return Err(ScriptError::NotPlay {
                line: lobby_line.to_string(),
                games: games.join(", "),
            });
        };
        if commands.is_empty() || commands.iter().any(|command| command.trim().is_empty()) {
            return Err(ScriptError::NoCommands);
        }
        if commands.len() > MAX_COMMANDS {
            return Err(ScriptError::TooManyCommands(commands.len()));
        }
        Ok(Script {
            kind,
            lobby_line: Arc::from(lobby_line.trim()),
            commands: commands
                .iter()
                .map(|command| command.trim().to_string())
                .collect(),
        })
    }

    /// What `--bots` plays: `kind`, started by `lobby_line` (the first seed's), with no
    /// commands of a script (the bots choose their actions).
    pub(crate) fn of_bots(kind: &'static GameKind, lobby_line: &str) -> Script {
        Script {
            kind,
            lobby_line: Arc::from(lobby_line),
            commands: Arc::from(Vec::new()),
        }
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
    pub fn name(&self) -> &'static str {
        self.kind.name
    }

    /// The lobby line that starts the game.
    pub fn lobby_line(&self) -> &str {
        &self.lobby_line
    }

    /// The commands sent in turn, from the first again after the last.
    pub fn commands(&self) -> &[String] {
        &self.commands
    }

    /// The line that ends this game the game's own way (`e` for Sokoban, `q` for
    /// 2048, `quit` for wumpus): asked of a game built from the lobby line, with the
    /// built-in levels, as the server would build it.
    ///
    /// # Errors
    /// The game does not start from the script's lobby line with the built-in levels
    /// (the table's tests prove that theirs do; a level of `--levels` is not among
    /// them), with the game's reason.
    pub fn exit_line(&self) -> Result<&'static str, String> {
        let mut words = self.lobby_line().split_whitespace();
        // The lobby line is `play NAME ARGS...` (a test checks the table's, and
        // [`Script::custom`] checks the others).
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
    pub(crate) fn steps(&self, restart: Option<Restart>, first_game: usize) -> Steps<'_> {
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
pub(crate) struct Step<'a> {
    /// The line, without its line ending.
    pub(crate) line: &'a str,
    /// What it is.
    pub(crate) kind: StepKind,
}

/// The endless lines of [`Script::steps`].
#[derive(Debug, Clone)]
pub(crate) struct Steps<'a> {
    script: &'a Script,
    restart: Option<Restart>,
    /// Commands sent in the current game: the index of the next one in the script's
    /// cycle.
    next: usize,
    /// With restarts: commands in the current game before its exit line.
    quota: usize,
    /// The exit line was sent: the lobby line comes next.
    exited: bool,
}

impl<'a> Iterator for Steps<'a> {
    type Item = Step<'a>;

    fn next(&mut self) -> Option<Step<'a>> {
        let script = self.script;
        let commands = script.commands();
        if let Some(restart) = self.restart {
            if self.exited {
                self.exited = false;
                self.next = 0;
                self.quota = restart.every.get();
                return Some(Step {
                    line: script.lobby_line(),
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
        // Every script has commands (the table's tests play them, and
        // [`Script::custom`] refuses none); an empty one would send nothing rather
        // than fail.
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

    fn lines(steps: Steps<'_>, count: usize) -> Vec<&str> {
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

    #[test]
    fn custom_scripts_start_a_game_of_the_table() {
        let commands = |list: &str| -> Vec<String> { list.split(',').map(String::from).collect() };
        let script = Script::custom("play starpusher pushes", &commands("d, s ,a")).unwrap();
        assert_eq!(script.name(), "starpusher");
        assert_eq!(script.lobby_line(), "play starpusher pushes");
        assert_eq!(script.commands(), ["d", "s", "a"]);
        assert_eq!(
            lines(script.steps(None, 0), 4),
            ["d", "s", "a", "d"],
            "the commands cycle"
        );
        // The same script as the table's row is the same script.
        let sokoban = Script::from_name("sokoban").unwrap();
        let again = Script::custom(sokoban.lobby_line(), sokoban.commands()).unwrap();
        assert_eq!(again, sokoban);
        assert_eq!(again.exit_line(), Ok("e"));
        for line in ["", "play", "play chess", "join 3", "say play sokoban"] {
            assert!(
                matches!(
                    Script::custom(line, &commands("d")),
                    Err(ScriptError::NotPlay { .. })
                ),
                "{line:?}"
            );
        }
        assert_eq!(
            Script::custom("play sokoban", &[]),
            Err(ScriptError::NoCommands)
        );
        assert_eq!(
            Script::custom("play sokoban", &commands("w1,,s1")),
            Err(ScriptError::NoCommands)
        );
        assert!(matches!(
            Script::custom("play sokoban", &commands("w1\r\nquit")),
            Err(ScriptError::BadLine(_))
        ));
        assert!(matches!(
            Script::custom(
                &format!("play sokoban {}", "x".repeat(MAX_LINE)),
                &commands("w1")
            ),
            Err(ScriptError::BadLine(_))
        ));
        let many = vec![String::from("w1"); MAX_COMMANDS + 1];
        assert_eq!(
            Script::custom("play sokoban", &many),
            Err(ScriptError::TooManyCommands(MAX_COMMANDS + 1))
        );
        // A level of --levels is not built in: no exit line to ask for.
        assert!(script.exit_line().is_err());
    }

    /// The value of `NAME=${NAME:-VALUE}` in bench/run.sh: row 13's script, read from
    /// where the benchmark takes it, so that the test plays what the benchmark sends.
    fn bench_setting(name: &str) -> String {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench/run.sh");
        let text = std::fs::read_to_string(path).unwrap();
        let prefix = format!("{name}=${{{name}:-");
        let line = text
            .lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("bench/run.sh sets no {name}"));
        line.strip_suffix('}').unwrap().to_string()
    }

    /// Row 13's push script on its level (bench/levels/starpusher/pushes.txt), played
    /// with the real game for many cycles: every command a valid move, the game never
    /// ends nor is solved, the box pushed twice a cycle, and no position along the way
    /// a deadlock, by the solver's cheap checks, its corral search and a solution
    /// found from it (so that a warning is never due and the server's warnings do
    /// their whole work after every push).
    #[test]
    fn the_benchmarks_push_script_pushes_forever_without_a_deadlock() {
        use arcade::games::{Memory, Status, PROMPT};
        use arcade::solver::{self, Analysis, Budget, Strategy, Verdict};
        use std::collections::HashMap;
        use std::sync::atomic::AtomicBool;

        let commands: Vec<String> = bench_setting("PUSH_COMMANDS")
            .split(',')
            .map(String::from)
            .collect();
        let script = Script::custom(&bench_setting("PUSH_LOBBY"), &commands).unwrap();
        let levels_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench/levels");
        let (levels, problems) = Levels::load(Some(std::path::Path::new(levels_dir)));
        assert!(problems.is_empty(), "{problems:?}");
        let context = Context {
            levels,
            data_dir: PathBuf::new(),
        };
        let args: Vec<&str> = script.lobby_line().split_whitespace().skip(2).collect();
        let mut game = (script.kind.start)(&args, &context).unwrap();
        let mut memory = Memory::default();
        let reply = game.start(&mut memory);
        assert_eq!(reply.status, Status::Playing, "{}", reply.text);
        let start = game.boxes().unwrap().world.clone();
        let analysis = Analysis::new(start.level());
        let stop = AtomicBool::new(false);
        // Each position's verdict, once: the cycle goes through a few of them.
        let mut solvable: HashMap<u64, bool> = HashMap::new();
        let cycles = 100;
        for (sent, command) in script.commands().iter().cycle().enumerate() {
            if sent == cycles * script.commands().len() {
                break;
            }
            let pushes_before = game.boxes().unwrap().pushes;
            let reply = game.handle(command, &mut memory);
            assert_eq!(reply.status, Status::Playing, "{command}: {}", reply.text);
            assert!(reply.text.ends_with(PROMPT), "{command}: {}", reply.text);
            for refusal in ["You cannot", "Unknown", "Usage"] {
                assert!(!reply.text.contains(refusal), "{command}: {}", reply.text);
            }
            let boxes = game.boxes().unwrap();
            assert!(!boxes.world.is_solved());
            let pushed = boxes.pushes - pushes_before;
            assert!(pushed <= 1, "{command}: {pushed} pushes");
            assert_eq!(solver::deadlock(&analysis, boxes.world, None), None);
            let budget = Budget::new(100_000, 64 << 20);
            assert_eq!(
                solver::corral_deadlock(&analysis, boxes.world, &budget, &stop),
                None
            );
            let key = solver::position_key(boxes.world);
            let found = *solvable.entry(key).or_insert_with(|| {
                let verdict =
                    solver::solve(&analysis, boxes.world, Strategy::Quick, &budget, &stop);
                matches!(verdict, Verdict::Solved(_))
            });
            assert!(found, "{command}: no solution found from here");
        }
        let boxes = game.boxes().unwrap();
        assert_eq!(boxes.pushes, 2 * cycles as u64, "two pushes a cycle");
        // Back where it started after whole cycles; the box really moved between.
        assert_eq!(*boxes.world, start);
        assert!(solvable.len() >= 2, "{} positions", solvable.len());
    }
}
