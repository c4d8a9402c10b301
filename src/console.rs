//! What a line does: the lobby's commands, or the running game's, for one player.
//!
//! The console is the player's side of the rules, with no I/O: a line goes in, an
//! [`Outcome`] comes out (text to send, the last text before closing, or a [`Job`] that
//! needs the disk). The network session and `arcade play` both drive it, so the rules
//! of "what a line does" exist once and are tested here without sockets.
//!
//! Anything that may block (starting a game, which can read a saved world; `levels`,
//! which lists the saves; `save NAME`) comes back as a [`Job`]: the caller runs it
//! where blocking is allowed (a blocking thread on the server, in place in `arcade
//! play`) and hands what it gave to [`Console::finish`].

use crate::games::{self, Memory, Reply, SaveName, Status};
use crate::lobby::{self, Command};
use crate::saves;
use crate::table::{Context, GameKind, NewGame};

/// One player's place in the arcade: the lobby, or a game.
pub struct Console {
    game: Option<Playing>,
    /// What the player's games remember between games (2048's best score).
    memory: Memory,
    /// `arcade play`: the console ends when its one game does, with no lobby.
    single: bool,
    /// New saves made by this session, for its quota.
    new_saves: usize,
}

/// A game in progress, and which one it is.
struct Playing {
    kind: &'static GameKind,
    game: NewGame,
}

/// What a line leads to.
#[must_use]
pub enum Outcome {
    /// Send this text; the session goes on.
    Send(String),
    /// Send this text, then close.
    Close(String),
    /// Run this job off the event loop, then give what it returns to
    /// [`Console::finish`].
    Wait(Job),
}

/// Work a line needs that may block on the disk; [`Job::run`] does it.
#[must_use]
pub struct Job(Work);

enum Work {
    Start {
        kind: &'static GameKind,
        args: Vec<String>,
    },
    Levels(Option<&'static GameKind>),
    Save {
        game: &'static str,
        name: SaveName,
        state: String,
        /// The game's reply, sent before the save's outcome.
        text: String,
        /// This session may still make a new save.
        may_create: bool,
    },
}

/// What a [`Job`] gave, for [`Console::finish`].
pub struct Done(Finished);

enum Finished {
    Started {
        kind: &'static GameKind,
        game: Result<NewGame, String>,
    },
    Listed(String),
    Saved {
        text: String,
        created: bool,
    },
}

impl Job {
    /// Do the work. This may block on the disk: never call it on the event loop.
    pub fn run(self, context: &Context) -> Done {
        Done(match self.0 {
            Work::Start { kind, args } => {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                Finished::Started {
                    kind,
                    game: (kind.start)(&args, context),
                }
            }
            Work::Levels(kind) => Finished::Listed(lobby::levels(kind, context)),
            Work::Save {
                game,
                name,
                state,
                mut text,
                may_create,
            } => {
                let quota = saves::Quota {
                    may_create,
                    max_saves: saves::MAX_SAVES_PER_GAME,
                };
                let saved = saves::save(&context.data_dir, game, &name, &state, quota);
                text.push_str(&saved.message);
                Finished::Saved {
                    text,
                    created: saved.created,
                }
            }
        })
    }
}

impl Default for Console {
    fn default() -> Self {
        Console::lobby()
    }
}

impl Console {
    /// A player in the lobby: what a server's session starts with.
    pub fn lobby() -> Console {
        Console {
            game: None,
            memory: Memory::default(),
            single: false,
            new_saves: 0,
        }
    }

    /// A console for one game only (`arcade play`), and what the game says first. When
    /// the game ends, the console closes.
    pub fn single(kind: &'static GameKind, game: NewGame) -> (Console, Outcome) {
        let mut console = Console {
            game: None,
            memory: Memory::default(),
            single: true,
            new_saves: 0,
        };
        let outcome = console.begin(kind, game);
        (console, outcome)
    }

    /// The prompt of wherever the player is.
    pub fn prompt(&self) -> &'static str {
        if self.game.is_some() {
            games::PROMPT
        } else {
            lobby::PROMPT
        }
    }

    /// The game being played, if any.
    pub fn game(&self) -> Option<&'static GameKind> {
        self.game.as_ref().map(|playing| playing.kind)
    }

    /// Handle one line, already trimmed.
    pub fn handle_line(&mut self, line: &str) -> Outcome {
        if let Some(playing) = &mut self.game {
            let reply = playing.game.handle(line, &mut self.memory);
            return self.after_reply(reply);
        }
        let text = match Command::parse(line) {
            Command::Empty => String::from(lobby::PROMPT),
            Command::Play { kind, args } => {
                return Outcome::Wait(Job(Work::Start {
                    kind,
                    args: args.into_iter().map(String::from).collect(),
                }))
            }
            Command::Levels(kind) => return Outcome::Wait(Job(Work::Levels(kind))),
            Command::UnknownGame(word) => {
                format!("{}\n{}", lobby::unknown_game(word), lobby::PROMPT)
            }
            Command::Help => format!("{}{}", lobby::help(), lobby::PROMPT),
            Command::Quit => return Outcome::Close(String::from(lobby::GOODBYE)),
            Command::Unknown(word) => {
                format!("{}\n{}", lobby::unknown_command(word), lobby::PROMPT)
            }
        };
        Outcome::Send(text)
    }

    /// Take what a job gave.
    pub fn finish(&mut self, done: Done) -> Outcome {
        match done.0 {
            Finished::Started { kind, game } => match game {
                Ok(game) => {
                    tracing::debug!(game = kind.name, "game started");
                    self.begin(kind, game)
                }
                Err(message) => Outcome::Send(format!("{message}\n{}", lobby::PROMPT)),
            },
            Finished::Listed(mut text) => {
                text.push_str(lobby::PROMPT);
                Outcome::Send(text)
            }
            Finished::Saved { mut text, created } => {
                self.new_saves += usize::from(created);
                text.push_str(self.prompt());
                Outcome::Send(text)
            }
        }
    }

    /// The client closed its sending side: what to send before closing (empty in the
    /// lobby and for most games).
    pub fn end_of_input(&mut self) -> String {
        match &mut self.game {
            Some(playing) => playing.game.end_of_input(),
            None => String::new(),
        }
    }

    /// The running game's whole state as a file ([`Game::state`]).
    pub fn game_state(&self) -> Option<String> {
        self.game.as_ref().and_then(|playing| playing.game.state())
    }

    fn begin(&mut self, kind: &'static GameKind, mut game: NewGame) -> Outcome {
        let reply = game.start(&mut self.memory);
        self.game = Some(Playing { kind, game });
        self.after_reply(reply)
    }

    /// Act on a game's reply: what to send, and whether the game is over.
    fn after_reply(&mut self, reply: Reply) -> Outcome {
        let mut text = reply.text;
        match reply.status {
            Status::Playing => Outcome::Send(text),
            Status::Ended if self.single => Outcome::Close(text),
            Status::Ended => {
                self.game = None;
                text.push_str(lobby::PROMPT);
                Outcome::Send(text)
            }
            Status::Save { name, state } => {
                let game = self.game().map_or("unknown", |kind| kind.name);
                Outcome::Wait(Job(Work::Save {
                    game,
                    name,
                    state,
                    text,
                    may_create: self.new_saves < saves::MAX_NEW_SAVES_PER_SESSION,
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::levels::Levels;

    fn context(data_dir: &std::path::Path) -> Context {
        Context {
            levels: Levels::built_in().0,
            data_dir: data_dir.to_path_buf(),
        }
    }

    /// Feed `line` and carry out any job at once, as `arcade play` does.
    fn line(console: &mut Console, context: &Context, line: &str) -> Outcome {
        match console.handle_line(line) {
            Outcome::Wait(job) => console.finish(job.run(context)),
            other => other,
        }
    }

    fn sent(outcome: Outcome) -> String {
        match outcome {
            Outcome::Send(text) => text,
            Outcome::Close(text) => panic!("closed with {text:?}"),
            Outcome::Wait(_) => panic!("a job was left waiting"),
        }
    }

    #[test]
    fn lobby_lines_answer_with_the_lobby_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let context = context(dir.path());
        let mut console = Console::lobby();
        assert_eq!(sent(line(&mut console, &context, "")), "> ");
        assert_eq!(
            sent(line(&mut console, &context, "dance")),
            "Unknown command: dance. Type help.\n> "
        );
        assert!(sent(line(&mut console, &context, "help")).ends_with("quit               leave\nGames:\n  sokoban [LEVEL]\n      classic Sokoban (default level: classic)\n  starpusher [COLLECTION] [LEVEL-NUMBER]\n      level collections (default: the first, level 1)\n  2048 [size=N] [win=N] [seed=N] [style=box|ascii]\n      slide and merge tiles (default: size=4 win=2048 box)\n  wumpus [WORLD]\n      the wumpus cave (default: classic; also a saved name)\n> "));
        assert_eq!(
            sent(line(&mut console, &context, "levels sokoban")),
            "sokoban: classic\n> "
        );
        assert_eq!(
            sent(line(&mut console, &context, "play sokoban nowhere")),
            "Unknown level: nowhere. Choose one of: classic.\n> "
        );
        assert!(matches!(
            line(&mut console, &context, "QUIT"),
            Outcome::Close(text) if text == "Goodbye.\n"
        ));
    }

    #[test]
    fn a_game_runs_and_returns_to_the_lobby() {
        let dir = tempfile::tempdir().unwrap();
        let context = context(dir.path());
        let mut console = Console::lobby();
        let start = sent(line(&mut console, &context, "sokoban"));
        assert!(
            start.starts_with("Welcome to Sokoban!\n#######\n"),
            "{start}"
        );
        assert_eq!(console.prompt(), "Enter command: ");
        assert_eq!(console.game().map(|kind| kind.name), Some("sokoban"));
        // In a game, lobby words are the game's: Sokoban calls `help` invalid.
        assert!(sent(line(&mut console, &context, "help")).starts_with("Invalid command\n"));
        assert_eq!(sent(line(&mut console, &context, "exit")), "Bye!\n> ");
        assert_eq!(console.prompt(), "> ");
        assert_eq!(console.game(), None);
    }

    #[test]
    fn memory_lasts_between_games() {
        let dir = tempfile::tempdir().unwrap();
        let context = context(dir.path());
        let mut console = Console::lobby();
        sent(line(&mut console, &context, "2048 seed=1"));
        let best_of = |text: &str| {
            text.split("Best: ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .map(String::from)
        };
        let mut best = String::from("0");
        for key in ["a", "d", "w", "s"].iter().cycle().take(100) {
            best = best_of(&sent(line(&mut console, &context, key))).unwrap_or(best);
            if best != "0" {
                break;
            }
        }
        assert_ne!(best, "0", "no move scored");
        sent(line(&mut console, &context, "q"));
        let again = sent(line(&mut console, &context, "2048 seed=1"));
        assert!(again.contains(&format!("Best: {best} ")), "{again}");
    }

    #[test]
    fn save_writes_to_the_data_directory_and_loads_again() {
        let dir = tempfile::tempdir().unwrap();
        let context = context(dir.path());
        let mut console = Console::lobby();
        sent(line(&mut console, &context, "wumpus"));
        sent(line(&mut console, &context, "turn left"));
        assert_eq!(
            sent(line(&mut console, &context, "save Here")),
            "Saved as here.\nEnter command: "
        );
        sent(line(&mut console, &context, "quit"));
        assert_eq!(
            sent(line(&mut console, &context, "levels wumpus")),
            "wumpus: big, classic, here, maze\n> "
        );
        let start = sent(line(&mut console, &context, "play wumpus HERE"));
        assert!(start.starts_with("Welcome to the Wumpus World!"), "{start}");
        assert!(console.game_state().unwrap().contains("player 0 0 0 0 1"));
    }

    #[test]
    fn one_session_makes_a_limited_number_of_new_saves() {
        let dir = tempfile::tempdir().unwrap();
        let context = context(dir.path());
        let mut console = Console::lobby();
        sent(line(&mut console, &context, "wumpus"));
        for n in 0..saves::MAX_NEW_SAVES_PER_SESSION {
            let reply = sent(line(&mut console, &context, &format!("save s{n}")));
            assert_eq!(reply, format!("Saved as s{n}.\nEnter command: "));
        }
        let refused = sent(line(&mut console, &context, "save one-more"));
        assert!(
            refused
                .starts_with("Cannot save as one-more: one session may make at most 100 new saves"),
            "{refused}"
        );
        // Saving over its own is still fine, and another session has its own quota.
        assert!(sent(line(&mut console, &context, "save s0")).starts_with("Saved as s0."));
        let mut other = Console::lobby();
        sent(line(&mut other, &context, "wumpus"));
        assert!(sent(line(&mut other, &context, "save mine")).starts_with("Saved as mine."));
    }

    #[test]
    fn a_single_game_closes_when_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let context = context(dir.path());
        let kind = GameKind::from_name("sokoban").unwrap();
        let game = (kind.start)(&[], &context).unwrap();
        let (mut console, first) = Console::single(kind, game);
        assert!(sent(first).ends_with("Enter command: "));
        assert!(matches!(
            line(&mut console, &context, "e"),
            Outcome::Close(text) if text == "Bye!\n"
        ));
    }
}
