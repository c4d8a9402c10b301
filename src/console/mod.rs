//! What a line does: the lobby's commands, the running game's, and the player
//! commands that work everywhere, for one player.
//!
//! The console is the player's side of the rules, with no I/O: a line goes in, an
//! [`Outcome`] comes out (text to send, the last text before closing, or a [`Job`] that
//! needs the disk, the store or a slow hash). The network session and `arcade play`
//! both drive it, so the rules of "what a line does" exist once and are tested here
//! without sockets. Messages from other players come in through
//! [`Console::on_message`] and come out the same way.
//!
//! On the server a console has a [`Seat`] among the other players: then `who`, `say`,
//! `tell`, `watch`, `name`, `register`, `set` and `quiet` work in the lobby, and in a
//! game with a `/` first (a `/` line never reaches the game). `arcade play` has no
//! seat: its one game gets every line, exactly as before.
//!
//! Anything that may block (starting a game, which can read a saved world; `levels`,
//! which lists the saves; `save NAME`; the store; a password's hash) comes back as a
//! [`Job`]: the caller runs it (`job.run(context).await`) and hands what it gave to
//! [`Console::finish`].

pub mod lobby;

use std::net::IpAddr;
use std::sync::Arc;

use std::borrow::Cow;
use std::time::Duration;

use crate::catalog::saves;
use crate::catalog::table::{Context, GameKind, NewGame};
use crate::codec::terminal;
use crate::games::{self, Memory, Progress, Reply, SaveName, Status};
use crate::players::accounts::PlayerName;
use crate::players::inbox::{InboxSender, Message};
use crate::players::registry::Place;
use crate::races::desk::{Answer, Pending};
use crate::races::rules::{RaceGame, RaceId};
use crate::records::recorder::{Player, Tape};
use crate::records::recording::{self, Recording, Replay};
use crate::records::scores;
use crate::seat::RaceReply;
use crate::seat::{self, Seat, Services};
use crate::store::{Listed, RecordingState};
use lobby::Command;

/// The longest and shortest `time=` of a race.
const RACE_TIMES: std::ops::RangeInclusive<Duration> =
    Duration::from_secs(10)..=Duration::from_secs(24 * 60 * 60);

/// One player's place in the arcade: the lobby, or a game.
pub struct Console {
    game: Option<Playing>,
    /// What the player's games remember between games (2048's best score).
    memory: Memory,
    /// `arcade play`: the console ends when its one game does, with no lobby.
    single: bool,
    /// New saves made by this session, for its quota.
    new_saves: usize,
    /// On a server: the player among the others.
    seat: Option<Seat>,
}

/// A game in progress, and which one it is.
struct Playing {
    kind: &'static GameKind,
    game: NewGame,
    /// Its recording (on a server). Boxed: a session's future holds the console.
    tape: Option<Box<Tape>>,
    /// The race it is played in, until the racer is done or has left.
    race: Option<RaceId>,
}

impl Playing {
    /// Leave the game its own way, as `/leave` does, recorded like a typed line.
    fn exit(&mut self, memory: &mut Memory) -> Reply {
        let exit = self.game.exit_command();
        if let Some(tape) = &mut self.tape {
            tape.input(exit);
        }
        let reply = self.game.handle(exit, memory);
        if let Some(finish) = self.game.take_finish() {
            if let Some(tape) = &mut self.tape {
                tape.finish(finish);
            }
        }
        reply
    }
}

impl Drop for Playing {
    /// A game dropped while it runs lost its connection (or the server stops): a
    /// registered player's waits for `resume`.
    fn drop(&mut self) {
        if let Some(tape) = self.tape.take() {
            tape.interrupted();
        }
    }
}

/// The fastest `replay ID SPEED`.
pub const MAX_SPEED: u32 = 100;

/// The longest pause a replay keeps (before SPEED): a player who went for coffee is
/// not waited for.
pub const MAX_PAUSE: Duration = Duration::from_secs(5);

/// How long `resume` waits for the recording to be written.
const RESUME_WAIT: Duration = Duration::from_secs(5);

/// What a line leads to.
#[must_use]
pub enum Outcome {
    /// Send this text (nothing, if empty); the session goes on.
    Send(String),
    /// Send this text, then close.
    Close(String),
    /// Run this job, then give what it returns to [`Console::finish`].
    Wait(Job),
}

/// Work a line needs that may block or wait; [`Job::run`] does it. Boxed: jobs are
/// rare, and an [`Outcome`] is held in every session's future.
#[must_use]
pub struct Job(Box<Work>);

enum Work {
    /// Reads or writes files: runs on a blocking thread.
    Files(FileWork),
    /// The store or a password hash: async (hashing goes to a blocking thread inside).
    Social {
        work: seat::Work,
        services: Services,
        address: IpAddr,
    },
    /// Results and recordings.
    Store { work: StoreWork, services: Services },
    /// A racer's command for a race on another instance (`--bus`).
    Race {
        pending: Pending,
        /// The race a `join` asked for, and its instance.
        join: Option<(RaceId, Option<u64>)>,
    },
}

enum StoreWork {
    Query(scores::Query),
    /// Play recording `id` to `inbox`.
    Replay {
        id: i64,
        speed: u32,
        inbox: InboxSender,
    },
    /// Rebuild the player's unfinished game.
    Resume {
        player: Player,
    },
}

enum FileWork {
    Start {
        kind: &'static GameKind,
        args: Vec<String>,
        /// The player's saves, under the data directory.
        saves: Option<String>,
        /// A race's world, to start from instead of the arguments.
        world: Option<String>,
        /// The race the game is played in.
        race: Option<RaceId>,
    },
    /// Check that a race's game starts, and fix its world.
    OpenRace {
        kind: &'static GameKind,
        args: Vec<String>,
        saves: Option<String>,
        limit: Option<Duration>,
        all: bool,
    },
    /// Read the levels again.
    Reload(crate::catalog::table::Contexts),
    Levels {
        kind: Option<&'static GameKind>,
        saves: Option<String>,
    },
    Save {
        saves: Option<String>,
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
        args: Vec<String>,
        game: Result<NewGame, String>,
        race: Option<RaceId>,
    },
    RaceReady {
        game: Result<RaceGame, String>,
        limit: Option<Duration>,
        all: bool,
    },
    Replaying(Result<(i64, tokio::task::AbortHandle), String>),
    Resumed(Result<Box<Resumed>, String>),
    Listed(String),
    Saved {
        text: String,
        created: bool,
    },
    Social(seat::Found),
    /// What the instance with the race answered (`--bus`).
    Raced {
        /// The race a `join` asked for, and its instance.
        join: Option<(RaceId, Option<u64>)>,
        answer: Answer,
    },
    /// The job's thread failed (a bug): say so.
    Failed,
}

/// An unfinished game rebuilt from its recording.
struct Resumed {
    kind: &'static GameKind,
    game: NewGame,
    memory: Memory,
    tape: Tape,
}

/// Sent when a job failed unexpectedly.
const JOB_FAILED: &str = "Sorry, the server could not do that. Try again.\n";

impl Job {
    fn new(work: Work) -> Job {
        Job(Box::new(work))
    }

    /// Do the work. What blocks (files, hashing) runs on a blocking thread, so this may
    /// be awaited on the event loop.
    pub async fn run(self, context: Arc<Context>) -> Done {
        match *self.0 {
            Work::Social {
                work,
                services,
                address,
            } => Done(Finished::Social(work.run(services, address).await)),
            Work::Store { work, services } => Done(work.run(services, context).await),
            Work::Race { pending, join } => Done(Finished::Raced {
                join,
                answer: pending.await,
            }),
            Work::Files(work) => {
                match tokio::task::spawn_blocking(move || Job::run_blocking(work, &context)).await {
                    Ok(done) => done,
                    Err(error) => {
                        tracing::error!(%error, "a console job failed");
                        Done(Finished::Failed)
                    }
                }
            }
        }
    }

    /// The jobs that read or write files.
    fn run_blocking(work: FileWork, context: &Context) -> Done {
        Done(match work {
            FileWork::Start {
                kind,
                args,
                saves,
                world,
                race,
            } => {
                let context = owned_by(context, saves.as_deref());
                let game = match (world, kind.from_state) {
                    (Some(world), Some(from_state)) => from_state(&world, &context),
                    _ => {
                        let words: Vec<&str> = args.iter().map(String::as_str).collect();
                        (kind.start)(&words, &context)
                    }
                };
                Finished::Started {
                    kind,
                    args,
                    game,
                    race,
                }
            }
            FileWork::OpenRace {
                kind,
                args,
                saves,
                limit,
                all,
            } => {
                let context = owned_by(context, saves.as_deref());
                let words: Vec<&str> = args.iter().map(String::as_str).collect();
                // Built once, here, to check it starts and to keep the world it starts
                // in: racers start from that, whatever their own saves hold.
                let game = (kind.start)(&words, &context).map(|game| RaceGame {
                    kind,
                    world: kind.from_state.and_then(|_| game.state()),
                    args,
                });
                Finished::RaceReady { game, limit, all }
            }
            FileWork::Reload(contexts) => Finished::Listed(contexts.reload()),
            FileWork::Levels { kind, saves } => {
                Finished::Listed(lobby::levels(kind, &owned_by(context, saves.as_deref())))
            }
            FileWork::Save {
                saves: owner,
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
                let context = owned_by(context, owner.as_deref());
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

/// The context with a player's own saves, when the player has a folder of them.
fn owned_by<'c>(context: &'c Context, saves: Option<&str>) -> Cow<'c, Context> {
    match saves {
        Some(folder) => Cow::Owned(context.with_saves_in(context.data_dir.join(folder))),
        None => Cow::Borrowed(context),
    }
}

impl StoreWork {
    async fn run(self, services: Services, context: Arc<Context>) -> Finished {
        match self {
            StoreWork::Query(query) => match query.run(&services.store).await {
                Ok(text) => Finished::Listed(text),
                Err(error) => Finished::Listed(format!("{}.\n", seat::store_failed(&error))),
            },
            StoreWork::Replay { id, speed, inbox } => {
                let found = match recording::load(&services.store, id).await {
                    Ok(Some(found)) => found,
                    Ok(None) => return Finished::Replaying(Err(format!("No recording {id}."))),
                    Err(error) => {
                        return Finished::Replaying(Err(format!(
                            "Cannot replay {id}: {}.",
                            seat::store_failed(&error)
                        )))
                    }
                };
                let task = tokio::spawn(play_back(found, speed, inbox, context));
                Finished::Replaying(Ok((id, task.abort_handle())))
            }
            StoreWork::Resume { player } => {
                Finished::Resumed(resume(player, services, context).await)
            }
        }
    }
}

/// Send recording `found` to `inbox` at its own pace times `speed`, then say it ended.
async fn play_back(
    found: (Listed, Recording),
    speed: u32,
    inbox: InboxSender,
    context: Arc<Context>,
) {
    let (listed, recording) = found;
    let id = listed.id;
    let first = Replay::begin(&recording.start, &context);
    let (mut replay, first) = match first {
        Ok(begun) => begun,
        Err(error) => {
            let _ = inbox.send(Message::Frame(Arc::from(format!("{error}.\n"))));
            let _ = inbox.send(Message::ReplayEnded(id));
            return;
        }
    };
    let what = format!("{} {}", listed.game, listed.args);
    let header = format!(
        "Recording {id}: {} playing {}. Type anything to stop.\n",
        listed.player,
        what.trim_end()
    );
    if inbox
        .send(Message::Frame(Arc::from(header + &first.text)))
        .is_err()
    {
        return;
    }
    let mut previous = 0;
    for input in &recording.inputs {
        if replay.is_over() {
            break;
        }
        let pause = Duration::from_millis(input.at_ms.saturating_sub(previous)).min(MAX_PAUSE);
        previous = input.at_ms;
        tokio::time::sleep(pause / speed).await;
        let step = replay.step(&input.line);
        // The line as the player's terminal showed it, then the game's answer.
        let frame = format!("{}\n{}", input.line, step.text);
        if inbox.send(Message::Frame(Arc::from(frame))).is_err() {
            return;
        }
    }
    let _ = inbox.send(Message::ReplayEnded(id));
}

/// Rebuild `player`'s unfinished game from its recording, exactly: every input is
/// played again, so board, counters and undo history are as they were.
async fn resume(
    player: Player,
    services: Services,
    context: Arc<Context>,
) -> Result<Box<Resumed>, String> {
    let failed = |error: &crate::store::StoreError| {
        format!("Cannot resume now: {}.", seat::store_failed(error))
    };
    // The game may have lost its connection a moment ago (a takeover): wait for its
    // last lines to be written. Or its instance may have stopped (several instances):
    // the store reports it unfinished once that instance's heartbeat is stale, so
    // look for a little longer than that.
    let mut found = None;
    let looks = 20 + crate::store::STALE_AFTER_MS / 100;
    for _ in 0..looks {
        if !services.recorder.flush(RESUME_WAIT).await {
            return Err(String::from(
                "Cannot resume now: the server's database is not available right now, try again later.",
            ));
        }
        match services
            .store
            .waiting_game(&player.key)
            .await
            .map_err(|e| failed(&e))?
        {
            // Still open: the connection that played it is closing; look again.
            Some((_, _, RecordingState::Open)) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            waiting => {
                found = waiting.map(|(id, _, _)| id);
                break;
            }
        }
    }
    let Some(id) = found else {
        return Err(String::from("You have no unfinished game."));
    };
    let Some((listed, recording)) = recording::load(&services.store, id)
        .await
        .map_err(|e| failed(&e))?
    else {
        return Err(String::from("You have no unfinished game."));
    };
    let kind = GameKind::from_name(&listed.game)
        .ok_or_else(|| format!("Cannot resume: this server has no game {}.", listed.game))?;
    let rebuilt = tokio::task::spawn_blocking(move || {
        let (mut replay, _) = Replay::begin(&recording.start, &context)?;
        for input in &recording.inputs {
            replay.step(&input.line);
        }
        let over = replay.is_over();
        Ok::<_, recording::ReplayError>((replay.into_game(), over, recording))
    })
    .await
    .map_err(|_| String::from(JOB_FAILED.trim_end()))?
    .map_err(|error| format!("Cannot resume: {error}."))?;
    let ((game, memory), over, recording) = rebuilt;
    if over {
        return Err(String::from("You have no unfinished game."));
    }
    let level = (kind.level_key)(&recording.start.args);
    let tape = services.recorder.reopen(player, &listed, &recording, level);
    Ok(Box::new(Resumed {
        kind,
        game,
        memory,
        tape,
    }))
}

impl Console {
    /// A player in the lobby of a server: what a session starts with.
    pub fn lobby(seat: Seat) -> Console {
        Console {
            game: None,
            memory: Memory::default(),
            single: false,
            new_saves: 0,
            seat: Some(seat),
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
            seat: None,
        };
        let outcome = console.begin(kind, Vec::new(), game, None);
        (console, outcome)
    }

    /// The prompt of wherever the player is: a secret's, none while watching (the
    /// watched game's frames bring theirs), a game's or the lobby's.
    pub fn prompt(&self) -> &'static str {
        if let Some(seat) = &self.seat {
            if let Some(prompt) = seat.secret_prompt() {
                return prompt;
            }
            if seat.is_watching() {
                return "";
            }
        }
        if self.game.is_some() {
            games::PROMPT
        } else {
            lobby::PROMPT
        }
    }

    /// Whether the next line is a secret (a password): the client must not echo it.
    pub fn hides_input(&self) -> bool {
        self.seat.as_ref().is_some_and(Seat::asks_secret)
    }

    /// The game being played, if any.
    pub fn game(&self) -> Option<&'static GameKind> {
        self.game.as_ref().map(|playing| playing.kind)
    }

    /// The player's seat among the others, on a server.
    pub fn seat(&self) -> Option<&Seat> {
        self.seat.as_ref()
    }

    /// Handle one line, already trimmed.
    pub fn handle_line(&mut self, line: &str) -> Outcome {
        if let Some(seat) = &mut self.seat {
            if seat.asks_secret() {
                let reply = seat.secret(line);
                return self.social_reply(reply);
            }
            if let Some(text) = seat.stop_watching() {
                return self.say(text);
            }
            // What a terminal sends beside the typed text (SPEC section 10): a line
            // of arrow keys moves; escape sequences and control keys are not text.
            let arrows = terminal::arrows_only(line);
            if !arrows.is_empty() {
                return self.arrows(&arrows);
            }
            if line.bytes().any(|b| b < 0x20 || b == 0x7f) {
                return match terminal::clean_line(line) {
                    Some(clean) => self.command_line(clean.trim()),
                    // Ctrl-C: the line is abandoned.
                    None => self.say(String::new()),
                };
            }
        }
        self.command_line(line)
    }

    /// Arrow keys typed as a line: each one the game's line for it, in order; in the
    /// lobby, nothing.
    fn arrows(&mut self, arrows: &[terminal::Arrow]) -> Outcome {
        let mut text = String::new();
        for arrow in arrows {
            let Some(line) = self.arrow(*arrow) else {
                break;
            };
            match self.play_line(line) {
                Outcome::Send(reply) => text.push_str(&reply),
                other => return other,
            }
        }
        if text.is_empty() {
            return self.say(text);
        }
        Outcome::Send(text)
    }

    /// The line a key pressed on an empty line stands for, when it acts at once (keys
    /// on, in a game whose key it is).
    pub fn instant(&self, key: char) -> Option<&'static str> {
        if self.hides_input() {
            return None;
        }
        (self.game.as_ref()?.kind.keys.instant)(key)
    }

    /// The line an arrow key stands for in the game being played.
    pub fn arrow(&self, arrow: terminal::Arrow) -> Option<&'static str> {
        if self.hides_input() {
            return None;
        }
        self.game.as_ref()?.kind.keys.arrow(arrow)
    }

    /// How the boards on this player's screen are coloured: the game played, or the
    /// one watched (in the watcher's own settings).
    pub fn palette(&self) -> Option<terminal::Palette> {
        match &self.game {
            Some(playing) => playing.kind.palette,
            None => self.seat.as_ref()?.watched_game()?.palette,
        }
    }

    /// The player's settings (the defaults without a seat).
    pub fn settings(&self) -> crate::players::accounts::Settings {
        self.seat.as_ref().map(Seat::settings).unwrap_or_default()
    }

    /// The client did not agree to single keys: off for this session.
    pub fn keys_refused(&mut self) {
        if let Some(seat) = &mut self.seat {
            seat.keys_refused();
        }
    }

    /// A line, cleaned: the lobby's command, the game's line or a player command.
    fn command_line(&mut self, line: &str) -> Outcome {
        if self.game.is_some() {
            if let (Some(_), Some(command)) = (&self.seat, line.strip_prefix('/')) {
                return self.in_game(command);
            }
            return self.play_line(line);
        }
        let line = match &self.seat {
            // In the lobby a `/` is allowed too: fingers used to games type it.
            Some(_) => line.strip_prefix('/').unwrap_or(line),
            None => line,
        };
        let command = Command::parse(line);
        let text = match command {
            Command::Empty => String::new(),
            Command::Play { kind, args } => {
                if let Some(text) = self.waiting_for_race() {
                    return self.say(text);
                }
                if let Some(text) = self.seat.as_mut().and_then(Seat::confirm_discard) {
                    return self.say(text);
                }
                let args = (kind.recorded_args)(args.into_iter().map(String::from).collect());
                return Outcome::Wait(Job::new(Work::Files(FileWork::Start {
                    kind,
                    args,
                    saves: self.saves(),
                    world: None,
                    race: None,
                })));
            }
            Command::Race(words) => return self.race(&words),
            Command::Leave => match self.seat.as_mut().and_then(Seat::leave_race) {
                Some(text) => text,
                None => String::from("You are in the lobby: quit leaves the arcade.\n"),
            },
            Command::Levels(kind) => {
                return Outcome::Wait(Job::new(Work::Files(FileWork::Levels {
                    kind,
                    saves: self.saves(),
                })))
            }
            Command::Replay { id, speed, extra } => return self.replay(id, speed, extra),
            Command::Resume => {
                let Some(seat) = &self.seat else {
                    return self.say(String::new());
                };
                if !seat.is_registered() {
                    return self.say(String::from(
                        "Only a registered name's games are kept (register): nothing to resume.\n",
                    ));
                }
                if let Some(text) = self.waiting_for_race() {
                    return self.say(text);
                }
                let Some(seat) = &self.seat else {
                    return self.say(String::new());
                };
                let player = seat.player();
                return self.store_job(StoreWork::Resume { player });
            }
            Command::UnknownGame(word) => format!("{}\n", lobby::unknown_game(word)),
            Command::Help => lobby::help(),
            Command::Quit => return Outcome::Close(String::from(lobby::GOODBYE)),
            Command::Unknown(word) => format!("{}\n", lobby::unknown_command(word)),
            player => return self.player_command(player),
        };
        self.say(text)
    }

    /// A line starting with `/` in a game: a player command, `/help` or `/leave`.
    fn in_game(&mut self, line: &str) -> Outcome {
        let Some(playing) = &mut self.game else {
            return self.say(String::new());
        };
        let text = match Command::parse(line) {
            Command::Leave => {
                let exit = playing.game.exit_command();
                return self.play_line(exit);
            }
            Command::Help => format!(
                "Player commands, with a / first in a game:\n{}  /leave             leave this game\nThis game's commands:\n{}",
                lobby::PLAYER_COMMANDS,
                playing.game.help()
            ),
            Command::Watch(..) => {
                String::from("Leave the game first (/leave), then watch NAME.\n")
            }
            Command::Play { .. }
            | Command::Levels(_)
            | Command::UnknownGame(_)
            | Command::Quit
            | Command::Replay { .. }
            | Command::Resume
            | Command::Race(_)
            | Command::Join(_)
            | Command::Start => String::from("You are in a game: /leave it first.\n"),
            Command::Empty => String::from("Unknown command: /. Type /help.\n"),
            Command::Unknown(word) => format!("Unknown command: /{word}. Type /help.\n"),
            player => return self.player_command(player),
        };
        self.say(text)
    }

    /// `who`, `say`, `tell`, `watch`, `set`, `quiet`, `name`, `register`.
    fn player_command(&mut self, command: Command<'_>) -> Outcome {
        let Some(seat) = &mut self.seat else {
            return self.say(String::new());
        };
        let reply = match command {
            Command::Who => seat::Reply::Say(seat.who()),
            Command::Say(text) => seat::Reply::Say(seat.say(text)),
            Command::Tell { name, text } => seat::Reply::Say(seat.tell(name, text)),
            Command::Watch(name, race) => seat.watch(name, race),
            Command::Races => seat::Reply::Say(seat.races()),
            Command::Join(race) => return self.race_reply(|seat| seat.join(race)),
            Command::Start => return self.race_reply(Seat::start_race),
            Command::Standings => return self.race_reply(Seat::standings),
            Command::Broadcast(text) => seat::Reply::Say(seat.broadcast(text)),
            Command::Kick { name, why } => seat::Reply::Say(seat.kick(name, why)),
            Command::Reload => {
                if !seat.is_admin() {
                    return self.say(format!("{}\n", seat::ONLY_ADMINS));
                }
                let contexts = seat.services().contexts.clone();
                return Outcome::Wait(Job::new(Work::Files(FileWork::Reload(contexts))));
            }
            Command::Set {
                option,
                value,
                extra,
            } => seat.set(option, value, extra),
            Command::Quiet => seat.set(Some("chat"), Some("off"), false),
            Command::Name(name) => seat.name_command(name),
            Command::Register => seat.register(),
            Command::Top(words) => {
                return match scores::parse_top(&words) {
                    Ok(query) => self.store_job(StoreWork::Query(query)),
                    Err(error) => self.say(format!("{error}\n")),
                }
            }
            Command::Stats(name) => {
                let key = match name {
                    Some(name) => name.to_ascii_lowercase(),
                    None => seat.player().key,
                };
                if !PlayerName::has_form(&key) {
                    return self.say(String::from("Usage: stats [NAME]\n"));
                }
                return self.store_job(StoreWork::Query(scores::Query::Stats { key }));
            }
            Command::Recordings(name) => {
                let key = name.map(str::to_ascii_lowercase);
                if key.as_deref().is_some_and(|key| !PlayerName::has_form(key)) {
                    return self.say(String::from("Usage: recordings [NAME]\n"));
                }
                return self.store_job(StoreWork::Query(scores::Query::Recordings { key }));
            }
            _ => seat::Reply::Say(String::new()),
        };
        self.social_reply(reply)
    }

    /// A job on the store, for a player with a seat.
    /// A racer's command, answered by the race's desk: now, or as a job when the race
    /// is on another instance (`--bus`).
    fn race_reply(&mut self, ask: impl FnOnce(&mut Seat) -> RaceReply) -> Outcome {
        let Some(seat) = self.seat.as_mut() else {
            return Outcome::Send(String::new());
        };
        match ask(seat) {
            RaceReply::Now(text) => self.say(text),
            RaceReply::Later { pending, join } => {
                Outcome::Wait(Job::new(Work::Race { pending, join }))
            }
        }
    }

    fn store_job(&mut self, work: StoreWork) -> Outcome {
        match &self.seat {
            Some(seat) => Outcome::Wait(Job::new(Work::Store {
                work,
                services: seat.services().clone(),
            })),
            None => self.say(String::new()),
        }
    }

    /// `replay ID [SPEED]`.
    fn replay(&mut self, id: Option<&str>, speed: Option<&str>, extra: bool) -> Outcome {
        let usage = || {
            format!("Usage: replay ID [SPEED] (SPEED from 1 to {MAX_SPEED}; recordings lists the ids)\n")
        };
        let Some(id) = id.and_then(|id| id.parse::<i64>().ok()).filter(|_| !extra) else {
            return self.say(usage());
        };
        let speed = match speed.map(str::parse::<u32>) {
            None => 1,
            Some(Ok(speed)) if (1..=MAX_SPEED).contains(&speed) => speed,
            Some(_) => return self.say(usage()),
        };
        let Some(seat) = &self.seat else {
            return self.say(String::new());
        };
        let inbox = seat.own_inbox();
        self.store_job(StoreWork::Replay { id, speed, inbox })
    }

    /// Where this player's saves live under the data directory: a registered name's
    /// folder, or this session's (gone with it); `arcade play`: the data directory.
    fn saves(&self) -> Option<String> {
        self.seat.as_ref().map(Seat::saves_folder)
    }

    /// The folder of saves this session made and no one else will read again (it has
    /// no registered name), to remove when it ends.
    pub fn saves_to_forget(&self) -> Option<String> {
        let seat = self.seat.as_ref()?;
        (self.new_saves > 0 && !seat.is_registered()).then(|| seat.saves_folder())
    }

    /// How far the game being played has got (`None` outside a game), for the web
    /// page's table.
    pub fn progress(&self) -> Option<Progress> {
        self.game.as_ref().map(|playing| playing.game.progress())
    }

    /// The words the session says when the server stops under this player.
    pub fn keeps_game(&self) -> bool {
        self.game
            .as_ref()
            .and_then(|playing| playing.tape.as_ref())
            .is_some_and(|tape| tape.is_kept())
    }

    /// What a seat's answer leads to.
    fn social_reply(&mut self, reply: seat::Reply) -> Outcome {
        match reply {
            seat::Reply::Say(text) => self.say(text),
            seat::Reply::Watching(text) => Outcome::Send(text),
            seat::Reply::Work(work) => match &self.seat {
                Some(seat) => Outcome::Wait(Job::new(Work::Social {
                    work,
                    services: seat.services().clone(),
                    address: seat.address(),
                })),
                None => self.say(String::new()),
            },
        }
    }

    /// `text`, then the prompt of wherever the player is now.
    fn say(&self, mut text: String) -> Outcome {
        text.push_str(self.prompt());
        Outcome::Send(text)
    }

    /// A message for the player from elsewhere in the server.
    pub fn on_message(&mut self, message: Message, skipped: u64) -> Outcome {
        let Some(seat) = &mut self.seat else {
            return Outcome::Send(String::new());
        };
        match message {
            Message::Line(line) => Outcome::Send(format!("\n{line}\n{}", self.prompt())),
            Message::Frame(frame) if seat.is_viewing() => {
                let mut text = String::new();
                if skipped > 0 {
                    text.push_str(&format!(
                        "\n({skipped} screens skipped: you fell behind.)\n"
                    ));
                }
                text.push_str(&frame);
                Outcome::Send(text)
            }
            // A frame that came after watching stopped.
            Message::Frame(_) => Outcome::Send(String::new()),
            Message::Close(last) => Outcome::Close(format!("\n{last}\n")),
            Message::Watch { watcher, inbox } => {
                let view = self
                    .game
                    .as_ref()
                    .map(|playing| playing.game.view(&self.memory));
                seat.add_watcher(watcher, inbox, view);
                Outcome::Send(String::new())
            }
            Message::Unwatch(watcher) => {
                seat.remove_watcher(watcher);
                Outcome::Send(String::new())
            }
            Message::ReplayEnded(id) => match seat.replay_ended(id) {
                Some(text) => Outcome::Send(format!("\n{text}{}", self.prompt())),
                None => Outcome::Send(String::new()),
            },
            Message::RaceStart(race, game) => self.race_started(race, game),
            Message::RaceStop(race) => self.race_stopped(race),
            Message::WatchEnded { name } => match seat.watch_ended(&name) {
                Some(text) => Outcome::Send(format!("\n{text}{}", self.prompt())),
                None => Outcome::Send(String::new()),
            },
        }
    }

    /// The race this player is in has started: its game starts, whatever the player
    /// was doing in the lobby (watching, a replay, a password half typed).
    fn race_started(&mut self, race: RaceId, game: Arc<RaceGame>) -> Outcome {
        let Some(seat) = &mut self.seat else {
            return Outcome::Send(String::new());
        };
        if !seat.races_in(race) || self.game.is_some() {
            return Outcome::Send(String::new());
        }
        // Whatever the player was doing stops when the game begins (`begin`).
        Outcome::Wait(Job::new(Work::Files(FileWork::Start {
            kind: game.kind,
            args: game.args.clone(),
            saves: self.saves(),
            world: game.world.clone(),
            race: Some(race),
        })))
    }

    /// The race is over while this player still plays it or watches it.
    fn race_stopped(&mut self, race: RaceId) -> Outcome {
        let Console {
            seat: Some(seat),
            game,
            memory,
            ..
        } = self
        else {
            return Outcome::Send(String::new());
        };
        seat.race_over(race);
        if let Some(text) = seat.race_watch_ended(race) {
            return Outcome::Send(format!("\n{text}{}", self.prompt()));
        }
        let Some(playing) = game.as_mut().filter(|playing| playing.race == Some(race)) else {
            return Outcome::Send(String::new());
        };
        playing.race = None;
        let reply = playing.exit(memory);
        match self.after_reply(reply) {
            Outcome::Send(text) => Outcome::Send(format!("\n{text}")),
            other => other,
        }
    }

    /// Take what a job gave.
    pub fn finish(&mut self, done: Done) -> Outcome {
        match done.0 {
            Finished::Started {
                kind,
                args,
                game,
                race,
            } => match game {
                Ok(game) => {
                    tracing::debug!(game = kind.name, "game started");
                    self.begin(kind, args, game, race)
                }
                Err(message) => {
                    let mut text = format!("{message}\n");
                    if let Some(left) = race.and(self.seat.as_mut()).and_then(Seat::leave_race) {
                        text.push_str(&left);
                    }
                    self.say(text)
                }
            },
            Finished::RaceReady { game, limit, all } => match (game, &mut self.seat) {
                (Ok(game), Some(seat)) => {
                    let text = seat.open_race(game, limit, all);
                    self.say(text)
                }
                (Err(message), _) => self.say(format!("{message}\n")),
                (Ok(_), None) => self.say(String::new()),
            },
            Finished::Replaying(Err(message)) => self.say(format!("{message}\n")),
            Finished::Replaying(Ok((id, handle))) => match &mut self.seat {
                Some(seat) => {
                    seat.start_replay(id, handle);
                    Outcome::Send(String::new())
                }
                None => {
                    handle.abort();
                    self.say(String::new())
                }
            },
            Finished::Resumed(Err(message)) => self.say(format!("{message}\n")),
            Finished::Resumed(Ok(resumed)) => {
                let Resumed {
                    kind,
                    game,
                    memory,
                    tape,
                } = *resumed;
                if let Some(seat) = &mut self.seat {
                    seat.resumed();
                }
                // The recording's memory: what the game showed before is what it shows.
                self.memory = memory;
                let text = format!(
                    "Your {} game, as you left it.\n{}",
                    kind.name,
                    game.view(&self.memory)
                );
                let label = tape.args().to_string();
                self.game = Some(Playing {
                    kind,
                    game,
                    tape: Some(Box::new(tape)),
                    race: None,
                });
                if let Some(seat) = &self.seat {
                    seat.set_place(Place::Game {
                        game: kind.name,
                        label,
                    });
                }
                Outcome::Send(text)
            }
            Finished::Listed(text) => self.say(text),
            Finished::Saved { text, created } => {
                self.new_saves += usize::from(created);
                if let Some(seat) = &mut self.seat {
                    seat.show_watchers(&format!("{text}{}", games::PROMPT));
                }
                self.say(text)
            }
            Finished::Social(found) => match &mut self.seat {
                Some(seat) => {
                    let text = seat.found(found);
                    self.say(text)
                }
                None => self.say(String::new()),
            },
            Finished::Raced { join, answer } => match &mut self.seat {
                Some(seat) => {
                    let text = seat.answered(join, answer);
                    self.say(text)
                }
                None => self.say(answer.text),
            },
            Finished::Failed => self.say(String::from(JOB_FAILED)),
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

    /// The running game's whole state as a file ([`games::Game::state`]).
    pub fn game_state(&self) -> Option<String> {
        self.game.as_ref().and_then(|playing| playing.game.state())
    }

    fn begin(
        &mut self,
        kind: &'static GameKind,
        args: Vec<String>,
        mut game: NewGame,
        race: Option<RaceId>,
    ) -> Outcome {
        let tape = self.seat.as_ref().map(|seat| {
            let start = recording::Start {
                game: kind.name.to_string(),
                args: args.clone(),
                memory: (kind.memory.remember)(&self.memory),
                world: kind.from_state.and_then(|_| game.state()),
            };
            seat.services()
                .recorder
                .open(seat.player(), start, (kind.level_key)(&args))
        });
        let tape = tape.map(Box::new);
        let label = args.join(" ");
        let mut reply = game.start(&mut self.memory);
        self.game = Some(Playing {
            kind,
            game,
            tape,
            race,
        });
        self.note_finish();
        if let Some(seat) = &mut self.seat {
            match race {
                Some(race) => {
                    let mut before = String::from("\n");
                    if let Some(text) = seat.stop_watching() {
                        before.push_str(&text);
                    }
                    if seat.cancel_secret() {
                        before.push_str("(The race started: type your password again later.)\n");
                    }
                    seat.racing(race);
                    reply.text = format!("{before}Race {race}: go!\n{}", reply.text);
                }
                None => seat.set_place(Place::Game {
                    game: kind.name,
                    label,
                }),
            }
        }
        let reply = self.race_step(reply);
        self.after_reply(reply)
    }

    /// A line for the running game: recorded, then played.
    fn play_line(&mut self, line: &str) -> Outcome {
        let Some(playing) = &mut self.game else {
            return self.say(String::new());
        };
        if let Some(tape) = &mut playing.tape {
            tape.input(line);
        }
        let reply = playing.game.handle(line, &mut self.memory);
        self.note_finish();
        let reply = self.race_step(reply);
        self.after_reply(reply)
    }

    /// For a racer: the race hears how far the game got. A racer done while the game
    /// goes on (2048 at its win tile, or stuck) leaves it with the game's own exit,
    /// recorded like a typed line, so the game keeps its result by its own rules. A
    /// racer whose game ended short of done has left the race.
    fn race_step(&mut self, mut reply: Reply) -> Reply {
        let Console {
            seat: Some(seat),
            game: Some(playing),
            memory,
            ..
        } = self
        else {
            return reply;
        };
        if playing.race.is_none() {
            return reply;
        }
        match seat.race_progress(playing.game.progress()) {
            Some(words) => {
                playing.race = None;
                if reply.status == Status::Playing {
                    let last = playing.exit(memory);
                    let text = reply
                        .text
                        .strip_suffix(games::PROMPT)
                        .unwrap_or(&reply.text);
                    reply = Reply {
                        text: format!("{text}{}", last.text),
                        status: last.status,
                    };
                }
                reply.text.push_str(&words);
            }
            None if reply.status == Status::Ended => {
                playing.race = None;
                if let Some(left) = seat.leave_race() {
                    reply.text.push_str(&left);
                }
            }
            None => {}
        }
        reply
    }

    /// `race GAME [ARGS] [time=DURATION] [all]`.
    fn race(&mut self, words: &[&str]) -> Outcome {
        const USAGE: &str = "Usage: race GAME [ARGS] [time=DURATION] [all] (time from 10s to 24h, such as time=5m)\n";
        let Some((first, rest)) = words.split_first() else {
            return self.say(String::from(USAGE));
        };
        let Some(kind) = GameKind::from_name(first) else {
            return self.say(format!("{}\n", lobby::unknown_game(Some(first))));
        };
        let (mut args, mut limit, mut all) = (Vec::new(), None, false);
        for word in rest {
            let lower = word.to_ascii_lowercase();
            if lower == "all" {
                all = true;
            } else if let Some(time) = lower.strip_prefix("time=") {
                match humantime::parse_duration(time) {
                    Ok(time) if RACE_TIMES.contains(&time) => limit = Some(time),
                    _ => return self.say(String::from(USAGE)),
                }
            } else {
                args.push(word.to_string());
            }
        }
        let Some(seat) = &self.seat else {
            return self.say(String::new());
        };
        if let Err(refusal) = seat.may_race(all) {
            return self.say(refusal);
        }
        let args = (kind.race_args)(args);
        Outcome::Wait(Job::new(Work::Files(FileWork::OpenRace {
            kind,
            args,
            saves: self.saves(),
            limit,
            all,
        })))
    }

    /// Why `play` or `resume` must wait: the player waits for a race to start.
    fn waiting_for_race(&self) -> Option<String> {
        let race = self.seat.as_ref()?.race_waiting()?;
        Some(format!(
            "You are in race {race}: wait for its start, or leave it first.\n"
        ))
    }

    /// Keep what the game reached with the last reply, if anything.
    fn note_finish(&mut self) {
        let Some(playing) = &mut self.game else {
            return;
        };
        if let Some(finish) = playing.game.take_finish() {
            if let Some(tape) = &mut playing.tape {
                tape.finish(finish);
            }
        }
    }

    /// Act on a game's reply: what to send, and whether the game is over. Watchers see
    /// what the player sees.
    fn after_reply(&mut self, reply: Reply) -> Outcome {
        let mut text = reply.text;
        match reply.status {
            Status::Playing => {
                if let Some(seat) = &mut self.seat {
                    seat.show_watchers(&text);
                }
                Outcome::Send(text)
            }
            Status::Ended if self.single => Outcome::Close(text),
            Status::Ended => {
                if let Some(mut playing) = self.game.take() {
                    if let Some(tape) = playing.tape.take() {
                        tape.ended();
                    }
                }
                if let Some(seat) = &mut self.seat {
                    seat.show_watchers(&text);
                    seat.end_watching();
                    seat.set_place(Place::Lobby);
                }
                text.push_str(lobby::PROMPT);
                Outcome::Send(text)
            }
            Status::Save { name, state } => {
                let game = self.game().map_or("unknown", |kind| kind.name);
                Outcome::Wait(Job::new(Work::Files(FileWork::Save {
                    saves: self.saves(),
                    game,
                    name,
                    state,
                    text,
                    may_create: self.new_saves < saves::MAX_NEW_SAVES_PER_SESSION,
                })))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::levels::Levels;
    use crate::players::accounts::LoginThrottle;
    use crate::players::inbox::{Delivery, Inbox};
    use crate::players::registry::{Registration, Registry};
    use crate::store::{DbUrl, Store};

    /// A server's worth of services in a temporary directory.
    struct Table {
        _dir: tempfile::TempDir,
        context: Arc<Context>,
        services: Services,
    }

    /// One player at the table: the console, and what the session would hold.
    struct Player {
        console: Console,
        registration: Registration,
        inbox: Inbox,
    }

    impl Table {
        async fn new() -> Table {
            let dir = tempfile::tempdir().unwrap();
            let context = Arc::new(Context {
                levels: Levels::built_in().0,
                data_dir: dir.path().to_path_buf(),
            });
            let store = Store::open(&DbUrl::in_data_dir(dir.path())).await.unwrap();
            let services = Services::start(
                Registry::new(),
                store,
                crate::catalog::table::Contexts::new(Arc::clone(&context), None),
                crate::records::recorder::DEFAULT_KEEP,
                LoginThrottle::new(),
            )
            .await
            .unwrap();
            Table {
                _dir: dir,
                context,
                services,
            }
        }

        fn player(&self) -> Player {
            let peer = std::net::SocketAddr::from(([127, 0, 0, 1], 4000));
            let (registration, inbox) = self.services.registry.register(peer, 100).unwrap();
            let seat = Seat::new(self.services.clone(), registration.id(), peer.ip()).unwrap();
            Player {
                console: Console::lobby(seat),
                registration,
                inbox,
            }
        }
    }

    impl Player {
        /// Type `line` and carry out any job at once, as the session does.
        async fn line(&mut self, table: &Table, line: &str) -> Outcome {
            let mut outcome = self.console.handle_line(line);
            while let Outcome::Wait(job) = outcome {
                outcome = self
                    .console
                    .finish(job.run(Arc::clone(&table.context)).await);
            }
            outcome
        }

        /// Type `line`; what is sent back.
        async fn send(&mut self, table: &Table, line: &str) -> String {
            sent(self.line(table, line).await)
        }

        /// The next message from elsewhere, as the session would show it.
        async fn message(&mut self) -> String {
            let delivery =
                tokio::time::timeout(std::time::Duration::from_secs(5), self.inbox.recv())
                    .await
                    .expect("a message comes");
            let Delivery::Message { message, skipped } = delivery else {
                panic!("{delivery:?}");
            };
            match self.console.on_message(message, skipped) {
                Outcome::Send(text) | Outcome::Close(text) => text,
                Outcome::Wait(_) => panic!("a message made a job"),
            }
        }

        /// Whether a message waits.
        fn has_message(&mut self) -> bool {
            let waker = futures::task::noop_waker();
            self.inbox
                .poll_recv(&mut std::task::Context::from_waker(&waker))
                .is_ready()
        }
    }

    fn sent(outcome: Outcome) -> String {
        match outcome {
            Outcome::Send(text) => text,
            Outcome::Close(text) => panic!("closed with {text:?}"),
            Outcome::Wait(_) => panic!("a job was left waiting"),
        }
    }

    #[tokio::test]
    async fn lobby_lines_answer_with_the_lobby_prompt() {
        let table = Table::new().await;
        let mut player = table.player();
        assert_eq!(player.send(&table, "").await, "> ");
        assert_eq!(
            player.send(&table, "dance").await,
            "Unknown command: dance. Type help.\n> "
        );
        assert!(player.send(&table, "help").await.ends_with("quit               leave\nIn a game, type these with a / first (/who, /say hi); /help and /leave work in every game.\nGames:\n  sokoban [LEVEL]\n      classic Sokoban (default level: classic)\n  starpusher [COLLECTION] [LEVEL-NUMBER]\n      level collections (default: the first, level 1)\n  2048 [size=N] [win=N] [seed=N] [style=box|ascii]\n      slide and merge tiles (default: size=4 win=2048 box)\n  wumpus [WORLD]\n      the wumpus cave (default: classic; also a saved name)\n> "));
        assert_eq!(
            player.send(&table, "levels sokoban").await,
            "sokoban: classic\n> "
        );
        assert_eq!(
            player.send(&table, "play sokoban nowhere").await,
            "Unknown level: nowhere. Choose one of: classic.\n> "
        );
        assert!(matches!(
            player.line(&table, "QUIT").await,
            Outcome::Close(text) if text == "Goodbye.\n"
        ));
    }

    #[tokio::test]
    async fn a_game_runs_and_returns_to_the_lobby() {
        let table = Table::new().await;
        let mut player = table.player();
        let start = player.send(&table, "sokoban").await;
        assert!(
            start.starts_with("Welcome to Sokoban!\n#######\n"),
            "{start}"
        );
        assert_eq!(player.console.prompt(), "Enter command: ");
        assert_eq!(player.console.game().map(|kind| kind.name), Some("sokoban"));
        // In a game, lobby words are the game's: Sokoban calls `help` invalid.
        assert!(player
            .send(&table, "help")
            .await
            .starts_with("Invalid command\n"));
        assert_eq!(player.send(&table, "exit").await, "Bye!\n> ");
        assert_eq!(player.console.prompt(), "> ");
        assert_eq!(player.console.game(), None);
    }

    #[tokio::test]
    async fn memory_lasts_between_games() {
        let table = Table::new().await;
        let mut player = table.player();
        player.send(&table, "2048 seed=1").await;
        let best_of = |text: &str| {
            text.split("Best: ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .map(String::from)
        };
        let mut best = String::from("0");
        for key in ["a", "d", "w", "s"].iter().cycle().take(100) {
            best = best_of(&player.send(&table, key).await).unwrap_or(best);
            if best != "0" {
                break;
            }
        }
        assert_ne!(best, "0", "no move scored");
        player.send(&table, "q").await;
        let again = player.send(&table, "2048 seed=1").await;
        assert!(again.contains(&format!("Best: {best} ")), "{again}");
    }

    #[tokio::test]
    async fn save_writes_to_the_data_directory_and_loads_again() {
        let table = Table::new().await;
        let mut player = table.player();
        player.send(&table, "wumpus").await;
        player.send(&table, "turn left").await;
        assert_eq!(
            player.send(&table, "save Here").await,
            "Saved as here.\nEnter command: "
        );
        player.send(&table, "quit").await;
        assert_eq!(
            player.send(&table, "levels wumpus").await,
            "wumpus: big, classic, here, maze\n> "
        );
        let start = player.send(&table, "play wumpus HERE").await;
        assert!(start.starts_with("Welcome to the Wumpus World!"), "{start}");
        assert!(player
            .console
            .game_state()
            .unwrap()
            .contains("player 0 0 0 0 1"));
    }

    #[tokio::test]
    async fn one_session_makes_a_limited_number_of_new_saves() {
        let table = Table::new().await;
        let mut player = table.player();
        player.send(&table, "wumpus").await;
        for n in 0..saves::MAX_NEW_SAVES_PER_SESSION {
            let reply = player.send(&table, &format!("save s{n}")).await;
            assert_eq!(reply, format!("Saved as s{n}.\nEnter command: "));
        }
        let refused = player.send(&table, "save one-more").await;
        assert!(
            refused
                .starts_with("Cannot save as one-more: one session may make at most 100 new saves"),
            "{refused}"
        );
        // Saving over its own is still fine, and another session has its own quota.
        assert!(player
            .send(&table, "save s0")
            .await
            .starts_with("Saved as s0."));
        let mut other = table.player();
        other.send(&table, "wumpus").await;
        assert!(other
            .send(&table, "save mine")
            .await
            .starts_with("Saved as mine."));
    }

    #[tokio::test]
    async fn a_single_game_closes_when_it_ends() {
        let table = Table::new().await;
        let kind = GameKind::from_name("sokoban").unwrap();
        let game = (kind.start)(&[], &table.context).unwrap();
        let (mut console, first) = Console::single(kind, game);
        assert!(sent(first).ends_with("Enter command: "));
        // Without a seat, a `/` line is the game's, as it always was.
        assert!(sent(console.handle_line("/who")).starts_with("Invalid command\n"));
        assert!(matches!(
            console.handle_line("e"),
            Outcome::Close(text) if text == "Bye!\n"
        ));
    }

    #[tokio::test]
    async fn names_are_checked_unique_and_guests_numbered() {
        let table = Table::new().await;
        let mut ann = table.player();
        let mut bob = table.player();
        let guest = format!("guest-{}", ann.registration.id());
        assert_eq!(
            ann.send(&table, "name").await,
            format!("You are {guest}.\n> ")
        );
        assert_eq!(ann.send(&table, "name Ann").await, "You are now Ann.\n> ");
        assert_eq!(
            bob.send(&table, "name ann").await,
            "ann is already playing.\n> "
        );
        assert_eq!(
            bob.send(&table, "name x").await,
            "A name is 2 to 16 letters, digits, '-' or '_'.\n> "
        );
        assert_eq!(
            bob.send(&table, "name guest-1").await,
            "Names starting with guest- are for guests: choose another.\n> "
        );
        assert_eq!(
            bob.send(&table, "name b\u{1b}[2J").await,
            "A name is 2 to 16 letters, digits, '-' or '_'.\n> "
        );
        assert_eq!(
            bob.send(&table, "register").await,
            "Choose a name first (name NAME), then register it.\n> "
        );
    }

    #[tokio::test]
    async fn register_then_log_in_and_take_over_a_forgotten_connection() {
        let table = Table::new().await;
        let mut ann = table.player();
        ann.send(&table, "name Ann").await;
        assert_eq!(ann.send(&table, "register").await, "Choose a password: ");
        assert!(ann.console.hides_input());
        assert_eq!(ann.send(&table, "secret-1").await, "\nType it again: ");
        assert_eq!(
            ann.send(&table, "secret-1").await,
            "\nAnn is registered: from now on, name Ann asks for this password.\n> "
        );
        assert!(!ann.console.hides_input());
        // Another connection asks for the name: the password, then a takeover.
        let mut again = table.player();
        assert_eq!(again.send(&table, "name ANN").await, "Password: ");
        assert!(again.console.hides_input());
        assert_eq!(again.send(&table, "guess").await, "\nWrong password.\n> ");
        assert_eq!(again.send(&table, "name ann").await, "Password: ");
        assert_eq!(
            again.send(&table, "secret-1").await,
            "\nYou are now Ann.\n> "
        );
        assert!(matches!(
            ann.inbox.recv().await,
            Delivery::Message { message: Message::Close(text), .. }
                if text == "Someone logged in as Ann from elsewhere."
        ));
        // A registered name cannot be registered again, nor taken without it.
        assert_eq!(
            again.send(&table, "register").await,
            "Ann is registered already.\n> "
        );
        let mut third = table.player();
        assert_eq!(third.send(&table, "name Ann").await, "Password: ");
    }

    #[tokio::test]
    async fn registering_needs_a_real_password_twice() {
        let table = Table::new().await;
        let mut bob = table.player();
        bob.send(&table, "name bob").await;
        bob.send(&table, "register").await;
        assert_eq!(
            bob.send(&table, "short").await,
            "\nA password is 6 to 128 characters: nothing was registered.\n> "
        );
        bob.send(&table, "register").await;
        bob.send(&table, "first-one").await;
        assert_eq!(
            bob.send(&table, "second-one").await,
            "\nThe two passwords differ: nothing was registered.\n> "
        );
        let mut other = table.player();
        drop(bob);
        assert_eq!(other.send(&table, "name bob").await, "You are now bob.\n> ");
    }

    #[tokio::test]
    async fn say_reaches_the_same_place_and_tell_one_player() {
        let table = Table::new().await;
        let mut ann = table.player();
        let mut bob = table.player();
        let mut cy = table.player();
        ann.send(&table, "name ann").await;
        bob.send(&table, "name bob").await;
        cy.send(&table, "name cy").await;
        cy.send(&table, "sokoban").await;
        assert_eq!(
            ann.send(&table, "say  hello  all ").await,
            "[ann] hello  all\n> "
        );
        assert_eq!(bob.message().await, "\n[ann] hello  all\n> ");
        assert!(!cy.has_message(), "cy plays a game: not in the lobby");
        // In a game, `/say` reaches the game's watchers only, and never the game.
        assert_eq!(
            cy.send(&table, "/say anyone?").await,
            "[cy] anyone?\nEnter command: "
        );
        assert_eq!(
            cy.send(&table, "/tell ANN hi").await,
            "[you tell ann] hi\nEnter command: "
        );
        assert_eq!(ann.message().await, "\n[cy tells you] hi\n> ");
        assert_eq!(
            ann.send(&table, "tell nobody hi").await,
            "No player called nobody.\n> "
        );
        assert_eq!(
            ann.send(&table, "tell ann hi").await,
            "You cannot tell yourself.\n> "
        );
        assert_eq!(
            ann.send(&table, "tell bob").await,
            "Usage: tell NAME TEXT\n> "
        );
        assert_eq!(ann.send(&table, "say").await, "Usage: say TEXT\n> ");
        // Nothing left once the control characters are gone: the command's own usage.
        assert_eq!(
            ann.send(&table, "tell bob \u{1b}\u{7}").await,
            "Usage: tell NAME TEXT\n> "
        );
        // Escape sequences never reach another terminal.
        ann.send(&table, "say \u{1b}[2Jgone\u{7}").await;
        // Escape sequences are not text (SPEC section 10): gone from the line whole.
        assert_eq!(bob.message().await, "\n[ann] gone\n> ");
        let long = "x".repeat(301);
        assert_eq!(
            ann.send(&table, &format!("say {long}")).await,
            "That line has 301 characters: chat lines are at most 300.\n> "
        );
    }

    #[tokio::test]
    async fn a_flood_of_chat_is_refused() {
        let table = Table::new().await;
        let mut ann = table.player();
        let mut refused = 0;
        for _ in 0..20 {
            if ann.send(&table, "say spam").await == "You are sending too fast.\n> " {
                refused += 1;
            }
        }
        assert!(refused >= 10, "{refused} of 20 refused");
    }

    #[tokio::test]
    async fn quiet_players_hear_no_say_but_still_get_tells() {
        let table = Table::new().await;
        let mut ann = table.player();
        let mut bob = table.player();
        bob.send(&table, "name bob").await;
        assert_eq!(
            bob.send(&table, "quiet").await,
            "Chat is off: type set chat on to hear others again.\n> "
        );
        assert_eq!(
            bob.send(&table, "set").await,
            "Settings:\n  chat off\n  keys off\n  color off\n> "
        );
        ann.send(&table, "say hello").await;
        assert!(!bob.has_message());
        ann.send(&table, "tell bob psst").await;
        assert!(bob.message().await.contains("tells you] psst"));
        assert_eq!(bob.send(&table, "set chat on").await, "Chat is on.\n> ");
        assert_eq!(
            bob.send(&table, "set sound on").await,
            "Unknown setting: sound. Settings: chat, keys, color.\n> "
        );
        assert_eq!(
            bob.send(&table, "set chat maybe").await,
            "Usage: set chat on|off (it is on).\n> "
        );
    }

    #[tokio::test]
    async fn who_lists_everyone_and_where() {
        let table = Table::new().await;
        let mut ann = table.player();
        let mut bob = table.player();
        ann.send(&table, "name ann").await;
        bob.send(&table, "name bob").await;
        bob.send(&table, "play sokoban classic").await;
        let who = ann.send(&table, "who").await;
        assert_eq!(
            who,
            "2 players online:\n  ann               lobby                         idle 0s\n  bob               sokoban classic               idle 0s\n> "
        );
        let in_game = bob.send(&table, "/who").await;
        assert!(in_game.starts_with("2 players online:\n"), "{in_game}");
        assert!(in_game.ends_with("Enter command: "), "{in_game}");
    }

    #[tokio::test]
    async fn slash_commands_never_reach_the_game() {
        let table = Table::new().await;
        for (game, exit_reply) in [
            ("sokoban", "Bye!\n> "),
            ("starpusher", "Bye!\n> "),
            ("2048 seed=1", "Bye!\n> "),
            (
                "wumpus",
                "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n> ",
            ),
        ] {
            let mut player = table.player();
            player.send(&table, &format!("play {game}")).await;
            let before = player.console.game_state();
            let help = player.send(&table, "/help").await;
            assert!(
                help.starts_with("Player commands, with a / first in a game:\n"),
                "{help}"
            );
            assert!(help.contains("This game's commands:\n"), "{help}");
            assert!(help.ends_with("Enter command: "), "{help}");
            for line in [
                "/who",
                "/set",
                "/nonsense",
                "/",
                "/play sokoban",
                "/watch x",
            ] {
                let reply = player.send(&table, line).await;
                assert!(reply.ends_with("Enter command: "), "{game} {line}: {reply}");
            }
            assert_eq!(player.console.game_state(), before, "{game}");
            assert_eq!(player.send(&table, "/leave").await, exit_reply, "{game}");
            assert_eq!(player.console.game(), None);
        }
    }

    #[tokio::test]
    async fn a_watcher_sees_the_board_then_every_move_then_the_end() {
        let table = Table::new().await;
        let mut ann = table.player();
        let mut bob = table.player();
        ann.send(&table, "name ann").await;
        bob.send(&table, "name bob").await;
        assert_eq!(
            bob.send(&table, "watch ann").await,
            "ann is not playing a game.\n> "
        );
        assert_eq!(
            bob.send(&table, "watch bob").await,
            "You cannot watch yourself.\n> "
        );
        assert_eq!(
            bob.send(&table, "watch zed").await,
            "No player called zed.\n> "
        );
        ann.send(&table, "sokoban").await;
        assert_eq!(
            bob.send(&table, "watch ANN").await,
            "You are watching ann. Type anything to stop.\n"
        );
        // ann's session handles the request, without a word to ann: bob gets the
        // board as it stands.
        assert_eq!(ann.message().await, "");
        let board = "#######\n#.....#\n#...+.#\n##..+.#\n#--.#P#\n#######\nEnter command: ";
        assert_eq!(bob.message().await, board);
        let moved = ann.send(&table, "w1").await;
        assert_eq!(bob.message().await, moved);
        let who = ann.send(&table, "/who").await;
        assert!(
            who.contains("sokoban  ") && who.contains("1 watching"),
            "{who}"
        );
        assert!(who.contains("watching ann"), "{who}");
        assert_eq!(ann.send(&table, "e").await, "Bye!\n> ");
        assert_eq!(bob.message().await, "Bye!\n");
        assert_eq!(bob.message().await, "\nann left the game.\n> ");
        assert_eq!(bob.console.prompt(), "> ");
    }

    #[tokio::test]
    async fn any_line_stops_watching() {
        let table = Table::new().await;
        let mut ann = table.player();
        let mut bob = table.player();
        ann.send(&table, "name ann").await;
        ann.send(&table, "2048 seed=1").await;
        bob.send(&table, "watch ann").await;
        ann.message().await;
        bob.message().await;
        assert_eq!(bob.send(&table, "who").await, "You stop watching ann.\n> ");
        ann.message().await; // the Unwatch
        ann.send(&table, "a").await;
        assert!(!bob.has_message(), "frames stop with watching");
    }
}
