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
//! On the server a console has a [`Seat`] among the other players: then the player
//! commands (`who`, `say`, `tell`, `set`, ...) work in the lobby, and in a game with a
//! `/` first (a `/` line never reaches the game). `arcade play` has no seat: its one
//! game gets every line, exactly as before.
//!
//! Which commands there are, where each works and what each does is the business of
//! [`commands`], one file a command; the game a player is in, of `game`; races, of
//! `race`; `replay` and `resume`, of their own files.
//!
//! Anything that may block (starting a game, which can read a saved world; `levels`,
//! which lists the saves; `save NAME`; the store; a password's hash) comes back as a
//! [`Job`]: the caller runs it (`job.run(context).await`) and hands what it gave to
//! [`Console::finish`].

mod agent;
mod bot;
mod coach;
pub mod commands;
mod game;
mod jobs;
mod ladder;
pub mod lobby;
mod moving;
mod race;
mod reader;
mod replay;
mod resume;

use crate::catalog::table::{GameKind, NewGame};
use crate::codec::terminal;
use crate::games::{self, Memory, Progress};
use crate::players::inbox::Message;
use crate::seat::{self, Seat};
use game::Playing;
use jobs::{Finished, StoreWork, Work};

pub use jobs::{race_game, Done, Job};
pub use moving::ConsoleState;
pub use replay::{MAX_PAUSE, MAX_SPEED};

/// One player's place in the arcade: the lobby, or a game.
pub struct Console {
    game: Option<Playing>,
    /// What the player's games remember between games (2048's best score).
    memory: Memory,
    /// `arcade play`: the console ends when its one game does, with no lobby.
    single: bool,
    /// New saves made by this session, for its quota (a `u32`: it packs with the
    /// flags beside it, and the session's future stays within its size).
    new_saves: u32,
    /// A game of this session ended since its last `top`, `stats` or `recordings`:
    /// the next one waits for the writer ([`jobs::StoreWork::Query`]).
    ended_unlisted: bool,
    /// On a server: the player among the others.
    seat: Option<Seat>,
    /// Bot mode and a ladder's run: rare, so boxed together, and there only once
    /// one of them is (8 bytes in every session's future).
    rare: Option<Box<Rare>>,
}

/// What few sessions have.
#[derive(Debug, Default)]
struct Rare {
    /// Bot mode (`bot NAME`, SPEC section 12): JSON lines both ways.
    bot: Option<bot::BotMode>,
    /// The ladder being played through (`ladder enter N`).
    ladder: Option<ladder::LadderRun>,
}

/// The bot mode in `rare`, borrowing that field only.
fn bot_of(rare: &mut Option<Box<Rare>>) -> Option<&mut bot::BotMode> {
    rare.as_deref_mut()?.bot.as_mut()
}

/// The ladder's run in `rare`, borrowing that field only.
fn ladder_of(rare: &mut Option<Box<Rare>>) -> Option<&mut ladder::LadderRun> {
    rare.as_deref_mut()?.ladder.as_mut()
}

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

/// Sent when a job failed unexpectedly.
const JOB_FAILED: &str = "Sorry, the server could not do that. Try again.\n";

impl Console {
    /// A player in the lobby of a server: what a session starts with.
    pub fn lobby(seat: Seat) -> Console {
        Console {
            game: None,
            memory: Memory::default(),
            single: false,
            new_saves: 0,
            ended_unlisted: false,
            seat: Some(seat),
            rare: None,
        }
    }

    /// Bot mode, if on.
    fn bot(&self) -> Option<&bot::BotMode> {
        self.rare.as_deref()?.bot.as_ref()
    }

    /// The ladder's run, if one is played through.
    fn ladder(&self) -> Option<&ladder::LadderRun> {
        self.rare.as_deref()?.ladder.as_ref()
    }

    /// [`Console::single`] in bot mode (`arcade play --bot`, SPEC section 12): JSON
    /// lines both ways, actions only (there is no lobby for commands).
    pub fn single_bot(
        kind: &'static GameKind,
        args: Vec<String>,
        game: NewGame,
    ) -> (Console, Outcome) {
        let mut console = Console::single_console();
        console.rare = Some(Box::new(Rare {
            bot: Some(bot::BotMode::default()),
            ladder: None,
        }));
        let outcome = console.begin(kind, args, game, None);
        let outcome = console.for_bot(outcome);
        (console, outcome)
    }

    fn single_console() -> Console {
        Console {
            game: None,
            memory: Memory::default(),
            single: true,
            new_saves: 0,
            ended_unlisted: false,
            seat: None,
            rare: None,
        }
    }

    /// A console for one game only (`arcade play`), and what the game says first. When
    /// the game ends, the console closes.
    pub fn single(kind: &'static GameKind, game: NewGame) -> (Console, Outcome) {
        let mut console = Console::single_console();
        let outcome = console.begin(kind, Vec::new(), game, None);
        (console, outcome)
    }

    /// The prompt of wherever the player is: a secret's, none while watching (the
    /// watched game's frames bring theirs), a game's or the lobby's.
    pub fn prompt(&self) -> &'static str {
        if let Some(seat) = &self.seat {
            if self.bot().is_some() && !seat.asks_secret() {
                return "";
            }
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

    /// The banner (SPEC section 1), with a line on reader mode when the client's
    /// terminal type said a screen reader is in use.
    pub fn banner(&self) -> String {
        let banner = lobby::banner();
        if !self.settings().reader {
            return banner;
        }
        let at = banner.len() - lobby::PROMPT.len();
        format!("{}{}{}", &banner[..at], lobby::READER_ON, lobby::PROMPT)
    }

    /// The client's terminal type says a screen reader is in use: reader mode on.
    pub fn reader_detected(&mut self) {
        if let Some(seat) = &mut self.seat {
            seat.reader_detected();
        }
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
        if self.bot().is_some() {
            if self.hides_input() {
                let outcome = self.handle_typed(line);
                return self.for_bot(outcome);
            }
            return self.bot_line(line);
        }
        self.handle_typed(line)
    }

    /// A line as a person types it.
    fn handle_typed(&mut self, line: &str) -> Outcome {
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
            // What reaches a game reaches its watchers, replays and `.cast` files:
            // no control character (C1 and bidirectional ones included) gets there.
            if crate::text::has_removed(line, crate::text::Keep::Nothing) {
                return match terminal::clean_line(line) {
                    Some(clean) => self.command_line(crate::text::one_line(&clean).trim()),
                    // Ctrl-C: the line is abandoned.
                    None => self.say(String::new()),
                };
            }
        }
        self.command_line(line)
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

    /// A login the stream made before the first line (SSH, SPEC section 11): what the
    /// seat says of it; with a pty (`terminal`), keys and colour are on for the session.
    pub fn arrive(&mut self, found: seat::Found, terminal: bool) -> String {
        let Some(seat) = &mut self.seat else {
            return String::new();
        };
        let text = seat.arrive(found);
        if terminal {
            seat.terminal_given();
        }
        text
    }

    /// Whether the player is at the lobby's prompt with nothing under way: no game,
    /// no password asked, nobody watched (an SSH exec request's command is then done).
    pub fn at_rest(&self) -> bool {
        self.game.is_none()
            && self
                .seat
                .as_ref()
                .is_none_or(|seat| !seat.asks_secret() && !seat.is_watching())
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
                return commands::in_game_line(self, command);
            }
            if commands::is_players_help(self, line) {
                return commands::in_game_line(self, line);
            }
            return self.play_line(line);
        }
        let line = match &self.seat {
            // In the lobby a `/` is allowed too: fingers used to games type it.
            Some(_) => line.strip_prefix('/').unwrap_or(line),
            None => line,
        };
        commands::lobby_line(self, line)
    }

    /// `top`, `stats` or `recordings`, for a player with a seat.
    fn query_job(&mut self, query: crate::records::scores::Query) -> Outcome {
        let flush = std::mem::take(&mut self.ended_unlisted);
        self.store_job(StoreWork::Query { query, flush })
    }

    /// A job on the store, for a player with a seat.
    fn store_job(&mut self, work: StoreWork) -> Outcome {
        match &self.seat {
            Some(seat) => Outcome::Wait(Job::new(Work::Store {
                work,
                services: seat.services().clone(),
            })),
            None => self.say(String::new()),
        }
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
    /// What a player command on the seat answers (nothing for a console without
    /// one: `arcade play`).
    fn seat_reply(&mut self, ask: impl FnOnce(&mut Seat) -> seat::Reply) -> Outcome {
        let Some(seat) = &mut self.seat else {
            return self.say(String::new());
        };
        let reply = ask(seat);
        self.social_reply(reply)
    }

    /// What a player command on the seat says.
    fn seat_says(&mut self, ask: impl FnOnce(&mut Seat) -> String) -> Outcome {
        self.seat_reply(|seat| seat::Reply::Say(ask(seat)))
    }

    fn say(&self, mut text: String) -> Outcome {
        text.push_str(self.prompt());
        Outcome::Send(text)
    }

    /// A message for the player from elsewhere in the server.
    pub fn on_message(&mut self, message: Message, skipped: u64) -> Outcome {
        let outcome = self.message(message, skipped);
        if self.bot().is_some() {
            return self.bot_message(outcome);
        }
        outcome
    }

    fn message(&mut self, message: Message, skipped: u64) -> Outcome {
        let Some(seat) = &mut self.seat else {
            return Outcome::Send(String::new());
        };
        match message {
            Message::Line(line) => {
                seat.frame_closed();
                // A line of chat or news fits 80 columns, its continuations indented.
                let line = crate::text::wrap(&line, crate::text::COLUMNS, "  ");
                Outcome::Send(format!("\n{line}\n{}", self.prompt()))
            }
            Message::Frame(frame) if seat.is_viewing() => {
                let mut text = String::new();
                if skipped > 0 {
                    text.push_str(&format!(
                        "\n({skipped} screens skipped: you fell behind.)\n"
                    ));
                }
                // A frame after the watched player's prompt starts a line of its own
                // (the prompt is theirs: nothing follows it on a watcher's screen).
                if seat.frame_after_prompt(&frame) && skipped == 0 {
                    text.push('\n');
                }
                text.push_str(&frame);
                Outcome::Send(text)
            }
            // A frame that came after watching stopped.
            Message::Frame(_) => Outcome::Send(String::new()),
            Message::Close(last) => Outcome::Close(format!("\n{last}\n")),
            Message::Watch {
                watcher,
                inbox,
                reader,
            } => {
                let view = self.first_view(reader);
                if let Some(seat) = &mut self.seat {
                    seat.add_watcher(watcher, inbox, view, reader);
                }
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
            Message::Deadlock { position, text } => self.late_warning(position, &text),
            Message::WatchEnded { name } => match seat.watch_ended(&name) {
                Some(text) => Outcome::Send(format!("\n{text}{}", self.prompt())),
                None => Outcome::Send(String::new()),
            },
        }
    }

    /// Take what a job gave.
    pub fn finish(&mut self, done: Done) -> Outcome {
        // The job that made this session a bot answers with its `welcome`, as is.
        let was_bot = self.bot().is_some();
        let outcome = self.finished(done);
        if was_bot {
            return self.for_bot(outcome);
        }
        outcome
    }

    fn finished(&mut self, done: Done) -> Outcome {
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
            Finished::RaceReady { game, limit, all } => self.race_ready(game, limit, all),
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
            Finished::Resumed(Ok(resumed)) => self.resumed(*resumed),
            Finished::Listed(text) => self.say(text),
            Finished::Saved { text, created } => {
                self.new_saves += u32::from(created);
                self.show_watchers(&format!("{text}{}", games::PROMPT));
                self.say(text)
            }
            Finished::Social(found) => match &mut self.seat {
                Some(seat) => {
                    let text = seat.found(found);
                    if seat.is_bot() && self.bot().is_none() {
                        return self.bot_mode_on(&text);
                    }
                    self.say(text)
                }
                None => self.say(String::new()),
            },
            Finished::Raced { join, answer } => self.raced(join, answer),
            Finished::Coached {
                ask,
                snapshot,
                found,
            } => self.coached(ask, &snapshot, found),
            Finished::LadderSeed(done) => self.seed_done(*done),
            Finished::Failed => self.say(String::from(JOB_FAILED)),
        }
    }

    /// The client closed its sending side: what to send before closing (empty in the
    /// lobby and for most games).
    pub fn end_of_input(&mut self) -> String {
        // A bot's lines are JSON: the game's last words are not one.
        if self.bot().is_some() {
            return String::new();
        }
        match &mut self.game {
            Some(playing) => playing.game.end_of_input(),
            None => String::new(),
        }
    }

    /// The running game's whole state as a file ([`games::Game::state`]).
    pub fn game_state(&self) -> Option<String> {
        self.game.as_ref().and_then(|playing| playing.game.state())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::catalog::levels::Levels;
    use crate::catalog::saves;
    use crate::catalog::table::Context;
    use crate::players::inbox::{Delivery, Inbox};
    use crate::players::registry::{Registration, Registry};
    use crate::players::throttle::LoginThrottle;
    use crate::seat::Services;
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
                crate::records::recorder::Retention::default(),
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
            let Delivery { message, skipped } = delivery;
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
        assert!(player.send(&table, "help").await.ends_with("quit               leave\nIn a game, type these with a / first (/who, /say hi); /help and /leave\nwork in every game.\nGames:\n  sokoban [LEVEL]\n      classic Sokoban (default level: classic)\n  starpusher [COLLECTION] [LEVEL-NUMBER]\n      level collections (default: the first, level 1)\n  2048 [size=N] [win=N] [seed=N] [style=box|ascii]\n      slide and merge tiles (default: size=4 win=2048 box)\n  wumpus [WORLD | random [seed=N] [size=N] [pits=P]]\n      the wumpus cave (default: classic; also a saved name, or a random world)\n> "));
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
            Delivery { message: Message::Close(text), .. }
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
            "[ann] hello all\n> "
        );
        assert_eq!(bob.message().await, "\n[ann] hello all\n> ");
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
            "Settings:\n  chat off\n  keys off\n  color off\n  warnings off\n  reader off\n> "
        );
        ann.send(&table, "say hello").await;
        assert!(!bob.has_message());
        ann.send(&table, "tell bob psst").await;
        assert!(bob.message().await.contains("tells you] psst"));
        assert_eq!(bob.send(&table, "set chat on").await, "Chat is on.\n> ");
        assert_eq!(
            bob.send(&table, "set sound on").await,
            "Unknown setting: sound. Settings: chat, keys, color, warnings, reader.\n> "
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
    async fn a_player_past_the_basics_gets_the_hints_and_a_script_does_not() {
        let table = Table::new().await;
        // A script of sections 1-6: the games' own answers, byte for byte.
        let mut script = table.player();
        let started = script.send(&table, "play sokoban").await;
        assert!(started.starts_with("Welcome to Sokoban!\n"), "{started}");
        assert!(script
            .send(&table, "help")
            .await
            .starts_with("Invalid command\n"));
        script.send(&table, "e").await;
        // Someone who took a name: told how to get help and out, on entering; `help`
        // without its `/` is help; a guest's result is a word, once.
        let mut student = table.player();
        student.send(&table, "who").await;
        let started = student.send(&table, "play sokoban").await;
        assert!(
            started.starts_with(&format!("{}\nWelcome to Sokoban!\n", lobby::IN_GAMES)),
            "{started}"
        );
        let help = student.send(&table, "help").await;
        assert!(
            help.starts_with("Player commands, with a / first"),
            "{help}"
        );
        assert!(help.contains("  wN aN sN dN   walk N steps"), "{help}");
        // With keys on, the game's lines say what keys do.
        student.send(&table, "/set keys on").await;
        let help = student.send(&table, "/help").await;
        assert!(help.contains("  w a s d       one step"), "{help}");
        assert!(!help.contains("(d3, w10, s0)"), "{help}");
        student.send(&table, "/leave").await;
        student.send(&table, "play 2048 seed=1").await;
        let quit = student.send(&table, "q").await;
        assert!(
            quit.ends_with(&format!("{}\n> ", lobby::GUEST_RESULT)),
            "{quit}"
        );
        student.send(&table, "play 2048 seed=1").await;
        let again = student.send(&table, "q").await;
        assert!(!again.contains(lobby::GUEST_RESULT), "once: {again}");
        // A named player keeps results: no such word.
        let mut named = table.player();
        named.send(&table, "name ann").await;
        named.send(&table, "play 2048 seed=1").await;
        assert!(!named.send(&table, "q").await.contains(lobby::GUEST_RESULT));
    }

    #[tokio::test]
    async fn slash_commands_never_reach_the_game() {
        let table = Table::new().await;
        for (game, exit_reply) in [
            ("sokoban", "Bye!\n> "),
            ("starpusher", "Bye!\n> "),
            // A guest who used a command of section 7 hears once that results
            // are not kept (2048's `q` is a result).
            (
                "2048 seed=1",
                "Bye!\nGuests' results are not kept: type name NAME before your next game.\n> ",
            ),
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
    async fn a_command_typed_where_it_does_not_work_says_so() {
        let table = Table::new().await;
        let mut ann = table.player();
        ann.send(&table, "sokoban").await;
        let before = ann.console.game_state();
        for command in commands::COMMANDS {
            if let commands::Place::Lobby { in_game } = command.place {
                assert_eq!(
                    ann.send(&table, &format!("/{}", command.name.to_uppercase()))
                        .await,
                    format!("{in_game}Enter command: "),
                    "{}",
                    command.name
                );
            }
        }
        for line in [
            "/play sokoban",
            "/2048",
            "/levels",
            "/race 2048",
            "/join 1",
            "/quit",
        ] {
            assert_eq!(
                ann.send(&table, line).await,
                "You are in a game: /leave it first.\nEnter command: ",
                "{line}"
            );
        }
        assert_eq!(
            ann.send(&table, "/watch bob").await,
            "Leave the game first (/leave), then watch NAME.\nEnter command: "
        );
        assert_eq!(
            ann.send(&table, "/dance").await,
            "Unknown command: /dance. Type /help.\nEnter command: "
        );
        assert_eq!(
            ann.send(&table, "/").await,
            "Unknown command: /. Type /help.\nEnter command: "
        );
        for line in ["/broadcast hi", "/kick bob", "/reload"] {
            assert_eq!(
                ann.send(&table, line).await,
                "Only admins can do that.\nEnter command: ",
                "{line}"
            );
        }
        assert_eq!(ann.console.game_state(), before);
        assert_eq!(ann.send(&table, "/leave").await, "Bye!\n> ");
        for line in ["broadcast hi", "kick bob", "reload", "/reload"] {
            assert_eq!(
                ann.send(&table, line).await,
                "Only admins can do that.\n> ",
                "{line}"
            );
        }
        assert_eq!(
            ann.send(&table, "leave").await,
            "You are in the lobby: quit leaves the arcade.\n> "
        );
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
        // The board before ended at ann's prompt: the next starts a line of its own.
        assert_eq!(bob.message().await, format!("\n{moved}"));
        let who = ann.send(&table, "/who").await;
        assert!(
            who.contains("sokoban  ") && who.contains("1 watching"),
            "{who}"
        );
        assert!(who.contains("watching ann"), "{who}");
        assert_eq!(ann.send(&table, "e").await, "Bye!\n> ");
        assert_eq!(bob.message().await, "\nBye!\n");
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

    #[tokio::test]
    async fn a_watcher_in_reader_mode_hears_the_game_described() {
        let table = Table::new().await;
        let mut ann = table.player();
        let mut bob = table.player();
        ann.send(&table, "name ann").await;
        bob.send(&table, "name bob").await;
        bob.send(&table, "set reader on").await;
        ann.send(&table, "sokoban").await;
        bob.send(&table, "watch ann").await;
        assert_eq!(ann.message().await, "");
        // The board as it stands, in words; then after each move of ann's (who sees
        // the board drawn) the game described again.
        let first = bob.message().await;
        assert!(first.contains("row 1: 7 walls"), "{first}");
        assert_eq!(drawn(&first), None, "{first}");
        let moved = ann.send(&table, "w1").await;
        assert!(
            moved.starts_with("#######"),
            "ann's own board is drawn: {moved}"
        );
        let described = bob.message().await;
        assert!(described.contains("row "), "{described}");
        assert_eq!(drawn(&described), None, "{described}");
    }

    /// What a screen reader must never be given (SPEC section 10): the games' own
    /// check, as text, on what comes before the prompt (the lobby's `> ` is the
    /// protocol's, read once as "greater than").
    fn drawn(text: &str) -> Option<String> {
        let said = text.strip_suffix(lobby::PROMPT).unwrap_or(text);
        crate::games::reader::problem(said).map(|problem| problem.to_string())
    }

    /// Lines a player might type: every game's commands, garbage, and the players'
    /// commands with a `/`.
    const READER_WORDS: &[&str] = &[
        "w1",
        "a2",
        "s1",
        "d3",
        "w",
        "a",
        "s",
        "d",
        "h",
        "j",
        "k",
        "l",
        "b",
        "r",
        "u",
        "undo",
        "redo",
        "next",
        "prev",
        "level 3",
        "lurd rRdL",
        "move forward",
        "turn left",
        "turn right",
        "grab",
        "shoot",
        "climb",
        "",
        "nonsense",
        "/look",
        "/where",
        "/help",
        "/who",
        "/set",
        "/top",
        "/hint",
        "/standings",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// In reader mode no screen draws: every game's every reply, `/look`, and
        /// every lobby command's answer.
        #[test]
        fn reader_mode_never_draws(
            game in proptest::sample::select(&[
                "sokoban", "starpusher arcade 3", "2048 seed=7", "2048 seed=7 style=ascii",
                "wumpus",
            ][..]),
            lines in proptest::collection::vec(proptest::sample::select(READER_WORDS), 0..40),
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let table = Table::new().await;
                let mut ann = table.player();
                ann.send(&table, "name ann").await;
                ann.send(&table, "set reader on").await;
                for lobby in [
                    "help", "who", "top", "top sokoban", "stats", "recordings", "races",
                    "levels", "levels starpusher", "set", "look", "where", "standings",
                    "hint", "solve", "say hello", "tell ann hi", "tell zed hi", "watch zed",
                    "replay 99", "resume", "race sokoban", "races", "watch race 1",
                    "stop", "leave", "quiet", "set chat on", "sshkey list", "bottoken list",
                    "nonsense",
                ] {
                    let text = ann.send(&table, lobby).await;
                    assert_eq!(drawn(&text), None, "{lobby}: {text}");
                }
                let text = ann.send(&table, game).await;
                assert_eq!(drawn(&text), None, "{game}: {text}");
                for line in &lines {
                    if ann.console.game().is_none() {
                        break;
                    }
                    let text = ann.send(&table, line).await;
                    assert_eq!(drawn(&text), None, "{game}, {line}: {text}");
                }
            });
        }
    }
}
