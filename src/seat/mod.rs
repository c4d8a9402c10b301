//! A player among others (SPEC section 7): the name, who is online, chat, watching and
//! settings, for one session.
//!
//! A [`Seat`] is a session's place at the table: its number in the registry, its
//! name, its settings, whom it watches and who watches it. The console hands it the
//! player commands (`who`, `say`, `tell`, `watch`, `name`, `register`, `set`,
//! `quiet`) and the messages that arrive for the player. Nothing here writes to a
//! socket: a message to another player goes to that player's inbox, and what needs the
//! store or a slow hash comes back as [`Work`] for the console to hand out as a job.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

use crate::catalog::saves;
use crate::catalog::table::{Contexts, GameKind};
use crate::cluster::bus::{Bus, RaceAnswer, RaceOp, RaceRow};
use crate::games::Progress;
use crate::metrics::Metrics;
use crate::players::accounts::{
    self, clean_text, on_off, parse_on_off, LoginThrottle, PlayerName, Setting, Settings, MAX_CHAT,
    MAX_PASSWORD, MIN_PASSWORD,
};
use crate::players::inbox::{InboxSender, Message};
use crate::players::registry::{Place, Registry, SessionId};
use crate::races::rules::{self, JoinError, Member, RaceGame, RaceId};
use crate::records::recorder::{Player, Recorder};
use crate::store::{Account, Registered, Store, StoreError};

/// What the old connection of a name taken over is told.
pub fn taken_over(name: &PlayerName) -> String {
    format!("Someone logged in as {name} from elsewhere.")
}

/// Sent when chat comes faster than the limit.
pub const TOO_FAST: &str = "You are sending too fast.";

/// Lines of chat allowed at once before the limit starts.
const CHAT_BURST: u32 = 5;

/// What every seat of a server shares.
#[derive(Debug, Clone)]
pub struct Services {
    /// Who is online.
    pub registry: Registry,
    /// Accounts.
    pub store: Store,
    /// Slows down password guessing.
    pub throttle: Arc<LoginThrottle>,
    /// Records every game.
    pub recorder: Recorder,
    /// The levels and data directory new games start with (`reload` replaces them).
    pub contexts: Contexts,
    /// The registered names with admin rights (`--admin`), as keys.
    pub admins: Arc<HashSet<String>>,
    /// What `/metrics` reports.
    pub metrics: Arc<Metrics>,
    /// The web page is on: sessions note what only it shows (each game's progress for
    /// the live table, each command's latency for /metrics). Off, no command pays for
    /// them.
    pub web: bool,
    /// The bus to the other instances (`--bus`), if any.
    pub bus: Option<Bus>,
}

impl Services {
    /// What the seats of a server on `store` share, its recorder started (which
    /// checks results against `context`'s levels and keeps recordings for `keep`).
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub async fn start(
        registry: Registry,
        store: Store,
        contexts: Contexts,
        keep: Duration,
        throttle: LoginThrottle,
    ) -> Result<Services, StoreError> {
        let metrics = Arc::new(Metrics::new());
        let recorder =
            Recorder::start(store.clone(), contexts.clone(), keep, Arc::clone(&metrics)).await?;
        Ok(Services {
            registry,
            store,
            throttle: Arc::new(throttle),
            recorder,
            contexts,
            admins: Arc::new(HashSet::new()),
            metrics,
            web: false,
            bus: None,
        })
    }

    /// `broadcast`, by `admin` (checked by the caller), of `text` (cleaned and no
    /// longer than a line of chat): what to tell the admin.
    pub fn broadcast(&self, admin: &PlayerName, text: &str) -> String {
        let line = Message::Line(Arc::from(format!("[{admin} to everyone] {text}")));
        let reached = self.registry.broadcast(&line);
        tracing::info!(%admin, reached, "broadcast");
        format!("Sent to {reached} players.")
    }

    /// `kick`, by `admin` (checked by the caller), of the player called `name`, told
    /// `why`: what to tell the admin.
    pub fn kick(&self, admin: &PlayerName, name: &str, why: &str) -> String {
        let Some((_, name, inbox)) = self.registry.find(name) else {
            return format!("No player called {}.", shown_name(name));
        };
        let why = match clean_text(why) {
            Ok(why) if !why.is_empty() => format!(": {why}"),
            _ => String::new(),
        };
        let _ = inbox.send(Message::Close(format!(
            "You were disconnected by {admin}{why}."
        )));
        tracing::info!(%admin, kicked = %name, "kick");
        format!("{name} is disconnected.")
    }

    /// Whether `name` (any case) was given with `--admin`. Being an admin also takes
    /// the name's password: a guest can take any unregistered name.
    pub fn names_admin(&self, name: &str) -> bool {
        self.admins.contains(&name.to_ascii_lowercase())
    }

    /// The same services, for a server whose web page is on or off.
    pub fn with_bus(mut self, bus: Option<Bus>) -> Services {
        self.bus = bus;
        self
    }

    /// These services with the web page on or off.
    pub fn with_web(mut self, on: bool) -> Services {
        self.web = on;
        self
    }

    /// The same services, with these names (as typed, any case) as admins.
    pub fn with_admins<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Services {
        self.admins = Arc::new(names.into_iter().map(str::to_ascii_lowercase).collect());
        self
    }
}

/// Asking the player for a secret; the line that comes next is not echoed.
#[derive(Debug)]
enum Asking {
    /// The password of the registered `name`.
    Password { name: PlayerName, account: Account },
    /// A password for `register`.
    NewPassword,
    /// The same password again.
    Repeat { first: String },
}

/// One session among the others.
#[derive(Debug)]
pub struct Seat {
    services: Services,
    id: SessionId,
    address: IpAddr,
    /// This session's own inbox, for those it watches to send frames to.
    inbox: InboxSender,
    name: PlayerName,
    /// The name is registered and its password was given.
    registered: bool,
    settings: Settings,
    /// Boxed: rarely there, and a seat lives in every session.
    asking: Option<Box<Asking>>,
    /// Whom this session watches, and the game they play (for this session's colours).
    watching: Option<(SessionId, PlayerName, Option<&'static GameKind>)>,
    /// Who watches this session's game.
    watchers: Vec<(SessionId, InboxSender)>,
    /// The recording being played back to this session, and its task.
    /// Boxed: rare.
    replaying: Option<Box<(i64, tokio::task::AbortHandle)>>,
    /// This registered player's unfinished game, told at login. Boxed: rare.
    unfinished: Option<Box<Unfinished>>,
    /// The race whose standings this session watches.
    watching_race: Option<RaceId>,
    /// The race of another instance this session races in, and that instance
    /// (`--bus`). Boxed: rare.
    away_race: Option<Box<(RaceId, u64)>>,
    chat_limit: DefaultDirectRateLimiter,
}

/// A registered player's game that waits for `resume`.
#[derive(Debug)]
struct Unfinished {
    /// Which game.
    game: String,
    /// `play` was typed once: the next `play` gives the game up.
    discard_armed: bool,
}

/// Work a player command needs from the store or a slow hash.
#[derive(Debug)]
pub enum Work {
    /// Is `name` registered?
    LookUp {
        /// The name asked for.
        name: PlayerName,
    },
    /// Check `password` against `account`.
    LogIn {
        /// The name, as typed.
        name: PlayerName,
        /// Its account.
        account: Account,
        /// What the player typed.
        password: String,
    },
    /// Register the seat's name with `password`.
    Register {
        /// The name.
        name: PlayerName,
        /// The password.
        password: String,
        /// The settings to keep.
        settings: Settings,
    },
    /// Keep a registered player's settings, then say `text`.
    SaveSettings {
        /// The name.
        name: PlayerName,
        /// The settings.
        settings: Settings,
        /// What to say once kept.
        text: String,
    },
}

/// What [`Work`] found.
#[derive(Debug)]
pub enum Found {
    /// Whether the name is registered.
    LookedUp {
        /// The name asked for.
        name: PlayerName,
        /// Its account, if registered.
        account: Result<Option<Account>, String>,
    },
    /// Whether the password was right.
    LoggedIn {
        /// The name, as typed.
        name: PlayerName,
        /// The account, if the password matched.
        account: Option<Account>,
        /// The game of the player's unfinished game, if one waits (or is being played
        /// on the connection about to be taken over).
        unfinished: Option<String>,
    },
    /// How registering went.
    Registered(Result<Registered, String>),
    /// The settings are kept (or could not be).
    SettingsSaved {
        /// What to say.
        text: String,
    },
}

impl Work {
    /// Do the work: the store's queries are async, hashing runs on a blocking thread.
    pub async fn run(self, services: Services, address: IpAddr) -> Found {
        match self {
            Work::LookUp { name } => Found::LookedUp {
                account: services
                    .store
                    .account(&name.key())
                    .await
                    .map_err(|error| store_failed(&error)),
                name,
            },
            Work::LogIn {
                name,
                account,
                password,
            } => {
                let wait = services.throttle.delay(&name.key(), address);
                if !wait.is_zero() {
                    tracing::warn!(name = %name, %address, ?wait, "login slowed down after repeated attempts");
                    tokio::time::sleep(wait).await;
                }
                let hash = account.password_hash.clone();
                let matches = tokio::task::spawn_blocking(move || {
                    accounts::verify_password(&password, &hash)
                })
                .await
                .unwrap_or(false);
                if !matches {
                    tracing::warn!(name = %name, %address, "wrong password");
                }
                let unfinished = if matches {
                    // The game may have started a moment ago: its recording first.
                    services.recorder.flush(Duration::from_secs(2)).await;
                    services
                        .store
                        .waiting_game(&name.key())
                        .await
                        .unwrap_or_else(|error| {
                            store_failed(&error);
                            None
                        })
                        .map(|(_, game, _)| game)
                } else {
                    None
                };
                Found::LoggedIn {
                    name,
                    account: matches.then_some(account),
                    unfinished,
                }
            }
            Work::Register {
                name,
                password,
                settings,
            } => {
                let hashed =
                    tokio::task::spawn_blocking(move || accounts::hash_password(&password)).await;
                let hash = match hashed {
                    Ok(Ok(hash)) => hash,
                    Ok(Err(error)) => return Found::Registered(Err(error.to_string())),
                    Err(error) => return Found::Registered(Err(error.to_string())),
                };
                let result = services
                    .store
                    .register(&name.key(), name.as_str(), &hash, &settings.to_stored())
                    .await
                    .map_err(|error| store_failed(&error));
                Found::Registered(result)
            }
            Work::SaveSettings {
                name,
                settings,
                text,
            } => {
                let text = match services
                    .store
                    .save_settings(&name.key(), &settings.to_stored())
                    .await
                {
                    Ok(()) => text,
                    Err(error) => format!(
                        "{text}(It could not be kept for next time: {}.)\n",
                        store_failed(&error)
                    ),
                };
                Found::SettingsSaved { text }
            }
        }
    }
}

/// A store error as players see it; the details go to the log.
pub fn store_failed(error: &StoreError) -> String {
    tracing::error!(%error, "the store failed");
    String::from("the server's database is not available right now, try again later")
}

/// What a player command does.
#[derive(Debug)]
pub enum Reply {
    /// Say this; the prompt follows.
    Say(String),
    /// Do this work first.
    Work(Work),
    /// Say this and wait: frames of the watched game follow, with their prompts.
    Watching(String),
}

impl Seat {
    /// A new session's seat, as the guest the registry named it.
    pub fn new(services: Services, id: SessionId, address: IpAddr) -> Option<Seat> {
        let name = services.registry.name_of(id)?;
        let inbox = services.registry.sender(id)?;
        let burst = NonZeroU32::new(CHAT_BURST).unwrap_or(NonZeroU32::MIN);
        let per_second = NonZeroU32::MIN;
        let chat_limit = RateLimiter::direct(Quota::per_second(per_second).allow_burst(burst));
        Some(Seat {
            services,
            id,
            address,
            inbox,
            name,
            registered: false,
            settings: Settings::default(),
            asking: None,
            watching: None,
            watchers: Vec::new(),
            replaying: None,
            unfinished: None,
            watching_race: None,
            away_race: None,
            chat_limit,
        })
    }

    /// This session's number in the registry.
    pub fn id(&self) -> SessionId {
        self.id
    }

    /// The player's name.
    pub fn name(&self) -> &PlayerName {
        &self.name
    }

    /// What the seats of this server share.
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// The client's address.
    pub fn address(&self) -> IpAddr {
        self.address
    }

    /// Whether the next line is a secret (a password): the client must not echo it.
    pub fn asks_secret(&self) -> bool {
        self.asking.is_some()
    }

    /// The prompt while asking for a secret.
    pub fn secret_prompt(&self) -> Option<&'static str> {
        Some(match self.asking.as_deref()? {
            Asking::Password { .. } => "Password: ",
            Asking::NewPassword => "Choose a password: ",
            Asking::Repeat { .. } => "Type it again: ",
        })
    }

    /// The game this session watches being played.
    pub fn watched_game(&self) -> Option<&'static GameKind> {
        self.watching.as_ref().and_then(|(_, _, game)| *game)
    }

    /// Whether this session watches someone's game or a race (its prompt comes with
    /// what it watches).
    pub fn is_watching(&self) -> bool {
        self.watching.is_some() || self.watching_race.is_some()
    }

    /// Where the player is now, for `who`.
    pub fn set_place(&self, place: Place) {
        self.services.registry.set_place(self.id, place);
    }

    /// `who`.
    pub fn who(&self) -> String {
        let lines = self.services.registry.who();
        let mut text = format!("{} players online:\n", lines.len());
        for line in lines {
            let _ = write!(
                text,
                "  {:<16}  {:<28}  idle {}",
                line.name.as_str(),
                line.place.to_string(),
                idle(line.idle)
            );
            if line.watchers > 0 {
                let _ = write!(text, "  {} watching", line.watchers);
            }
            text.push('\n');
        }
        text
    }

    /// `say TEXT`.
    pub fn say(&self, text: &str) -> String {
        const USAGE: &str = "Usage: say TEXT\n";
        if text.is_empty() {
            return String::from(USAGE);
        }
        let text = match self.chat_line(text, USAGE) {
            Ok(text) => text,
            Err(refusal) => return refusal,
        };
        let line: Arc<str> = Arc::from(format!("[{}] {text}", self.name));
        self.services.metrics.chat_lines.inc();
        crate::players::inbox::send_all(
            &self.services.registry.hearers(self.id),
            &Message::Line(Arc::clone(&line)),
        );
        format!("{line}\n")
    }

    /// `tell NAME TEXT`.
    pub fn tell(&self, name: Option<&str>, text: &str) -> String {
        const USAGE: &str = "Usage: tell NAME TEXT\n";
        let (Some(name), false) = (name, text.is_empty()) else {
            return String::from(USAGE);
        };
        let Some((id, name, inbox)) = self.services.registry.find(name) else {
            return format!("No player called {}.\n", shown_name(name));
        };
        if id == self.id {
            return String::from("You cannot tell yourself.\n");
        }
        let text = match self.chat_line(text, USAGE) {
            Ok(text) => text,
            Err(refusal) => return refusal,
        };
        let line = format!("[{} tells you] {text}", self.name);
        self.services.metrics.chat_lines.inc();
        let _ = inbox.send(Message::Line(Arc::from(line)));
        format!("[you tell {name}] {text}\n")
    }

    /// A line of chat, cleaned, if the rate and the length allow it; else the refusal.
    fn chat_line(&self, text: &str, usage: &str) -> Result<String, String> {
        if self.chat_limit.check().is_err() {
            return Err(format!("{TOO_FAST}\n"));
        }
        match clean_text(text) {
            // Nothing left once the control characters are gone.
            Ok(text) if text.is_empty() => Err(usage.to_string()),
            Ok(text) => Ok(text),
            Err(length) => Err(format!(
                "That line has {length} characters: chat lines are at most {MAX_CHAT}.\n"
            )),
        }
    }

    /// `set`, `set OPTION on|off`, and `quiet`.
    pub fn set(&mut self, option: Option<&str>, value: Option<&str>, extra: bool) -> Reply {
        let names: Vec<&str> = Setting::ALL.iter().map(|setting| setting.name()).collect();
        let Some(option) = option else {
            let mut text = String::from("Settings:\n");
            for setting in Setting::ALL {
                let _ = writeln!(
                    text,
                    "  {} {}",
                    setting.name(),
                    on_off(self.settings.get(*setting))
                );
            }
            return Reply::Say(text);
        };
        let Some(setting) = Setting::from_name(option) else {
            return Reply::Say(format!(
                "Unknown setting: {}. Settings: {}.\n",
                shown_name(option),
                names.join(", ")
            ));
        };
        let (Some(on), false) = (value.and_then(parse_on_off), extra) else {
            return Reply::Say(format!(
                "Usage: set {} on|off (it is {}).\n",
                setting.name(),
                on_off(self.settings.get(setting))
            ));
        };
        let text = match setting {
            Setting::Chat if !on => {
                String::from("Chat is off: type set chat on to hear others again.\n")
            }
            Setting::Chat => String::from("Chat is on.\n"),
            Setting::Keys if on => {
                String::from("Keys are on: asking your client to send each key as you type it.\n")
            }
            Setting::Keys => String::from("Keys are off: type lines and press Enter.\n"),
            Setting::Color if on => {
                String::from("Colour is on: boards are drawn in colour, in place.\n")
            }
            Setting::Color => String::from("Colour is off.\n"),
        };
        self.settings.set(setting, on);
        self.services.registry.set_chat(self.id, self.settings.chat);
        if self.registered {
            Reply::Work(Work::SaveSettings {
                name: self.name.clone(),
                settings: self.settings,
                text,
            })
        } else {
            Reply::Say(text)
        }
    }

    /// `name` or `name NAME`.
    pub fn name_command(&mut self, name: Option<&str>) -> Reply {
        let Some(name) = name else {
            return Reply::Say(format!("You are {}.\n", self.name));
        };
        let name = match PlayerName::parse(name) {
            Ok(name) => name,
            Err(error) => return Reply::Say(format!("{error}\n")),
        };
        if name == self.name {
            return Reply::Say(format!("You are {}.\n", self.name));
        }
        // A race's lines and places name its racers as they joined.
        if let Some(race) = self.race() {
            return Reply::Say(format!(
                "You are in race {race}: leave it first to change your name.\n"
            ));
        }
        Reply::Work(Work::LookUp { name })
    }

    /// `register`.
    pub fn register(&mut self) -> Reply {
        if self.name.is_guest() {
            return Reply::Say(String::from(
                "Choose a name first (name NAME), then register it.\n",
            ));
        }
        if self.registered {
            return Reply::Say(format!("{} is registered already.\n", self.name));
        }
        self.asking = Some(Box::new(Asking::NewPassword));
        Reply::Say(String::new())
    }

    /// The line typed while a secret was asked for.
    pub fn secret(&mut self, line: &str) -> Reply {
        match self.take_secret(line) {
            // The client echoed neither the line nor its ending: answer on a new line
            // (what comes back from work does so in `found`).
            Reply::Say(text) => Reply::Say(format!("\n{text}")),
            other => other,
        }
    }

    fn take_secret(&mut self, line: &str) -> Reply {
        match self.asking.take().map(|asking| *asking) {
            None => Reply::Say(String::new()),
            Some(Asking::Password { name, account }) => Reply::Work(Work::LogIn {
                name,
                account,
                password: line.to_string(),
            }),
            Some(Asking::NewPassword) => {
                let length = line.chars().count();
                if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&length) {
                    return Reply::Say(format!(
                        "A password is {MIN_PASSWORD} to {MAX_PASSWORD} characters: nothing was registered.\n"
                    ));
                }
                self.asking = Some(Box::new(Asking::Repeat {
                    first: line.to_string(),
                }));
                Reply::Say(String::new())
            }
            Some(Asking::Repeat { first }) if first == line => Reply::Work(Work::Register {
                name: self.name.clone(),
                password: first,
                settings: self.settings,
            }),
            Some(Asking::Repeat { .. }) => Reply::Say(String::from(
                "The two passwords differ: nothing was registered.\n",
            )),
        }
    }

    /// Take what the work found; the text to say. What answers a secret line starts on
    /// a new line: the client echoed neither the line nor its ending.
    pub fn found(&mut self, found: Found) -> String {
        let after_secret = matches!(found, Found::LoggedIn { .. } | Found::Registered(_));
        let text = self.take(found);
        if after_secret {
            format!("\n{text}")
        } else {
            text
        }
    }

    fn take(&mut self, found: Found) -> String {
        match found {
            Found::LookedUp { name, account } => match account {
                Err(error) => format!("Cannot change your name now: {error}.\n"),
                Ok(Some(account)) => {
                    self.asking = Some(Box::new(Asking::Password { name, account }));
                    String::new()
                }
                Ok(None) => match self.services.registry.rename(self.id, &name) {
                    Ok(()) => {
                        self.name = name;
                        self.registered = false;
                        format!("You are now {}.\n", self.name)
                    }
                    Err(taken) => format!("{taken}\n"),
                },
            },
            Found::LoggedIn { account: None, .. } => String::from("Wrong password.\n"),
            Found::LoggedIn {
                account: Some(account),
                unfinished,
                ..
            } => {
                // The name as registered, not as typed this time.
                let name = PlayerName::parse(&account.name).unwrap_or_else(|_| self.name.clone());
                let why = taken_over(&name);
                if let Some(old) = self.services.registry.take_over(self.id, &name, &why) {
                    tracing::info!(name = %name, old = %old, new = %self.id, "name taken over by its owner");
                }
                self.name = name;
                self.registered = true;
                self.settings = Settings::from_stored(&account.settings);
                self.services.registry.set_chat(self.id, self.settings.chat);
                let mut text = format!("You are now {}.\n", self.name);
                if let Some(game) = &unfinished {
                    text.push_str(&format!(
                        "You have an unfinished {game} game. Type resume to continue it.\n"
                    ));
                }
                self.unfinished = unfinished.map(|game| {
                    Box::new(Unfinished {
                        game,
                        discard_armed: false,
                    })
                });
                text
            }
            Found::Registered(Ok(Registered::Created)) => {
                self.registered = true;
                tracing::info!(name = %self.name, "name registered");
                format!(
                    "{} is registered: from now on, name {} asks for this password.\n",
                    self.name, self.name
                )
            }
            Found::Registered(Ok(Registered::Taken)) => format!(
                "{} was registered by someone else just now: choose another name.\n",
                self.name
            ),
            Found::Registered(Err(error)) => format!("Cannot register now: {error}.\n"),
            Found::SettingsSaved { text } => text,
        }
    }

    /// The player's settings.
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The client did not agree to single keys: off for this session (a registered
    /// player's kept setting stays, for the next telnet login).
    pub fn keys_refused(&mut self) {
        self.settings.keys = false;
    }

    /// Whether the name is registered (and its password was given).
    pub fn is_registered(&self) -> bool {
        self.registered
    }

    /// The player, as recordings and results name them.
    pub fn player(&self) -> Player {
        Player {
            name: self.name.to_string(),
            key: self.name.key(),
            registered: self.registered,
            guest: self.name.is_guest(),
        }
    }

    /// This session's own inbox, for a replay to send to.
    pub fn own_inbox(&self) -> InboxSender {
        self.inbox.clone()
    }

    /// Where this player's saved games live, under the data directory: a registered
    /// name keeps its own; anyone else's last as long as the session.
    pub fn saves_folder(&self) -> String {
        if self.registered {
            saves::player_folder(&self.name.key())
        } else {
            saves::session_folder(&self.id.to_string())
        }
    }

    /// `play` with an unfinished game waiting: the first time, what to say instead of
    /// starting; the second, the unfinished game is given up and `None` lets it start.
    pub fn confirm_discard(&mut self) -> Option<String> {
        let unfinished = self.unfinished.as_mut()?;
        if !unfinished.discard_armed {
            unfinished.discard_armed = true;
            return Some(format!(
                "You have an unfinished {} game: type resume to continue it, or play again to give it up.\n",
                unfinished.game
            ));
        }
        self.services.recorder.discard(self.name.key());
        self.unfinished = None;
        None
    }

    /// The unfinished game is being played again.
    pub fn resumed(&mut self) {
        self.unfinished = None;
    }

    /// Whether this session shows someone else's frames: a game it watches, or a
    /// recording played back.
    pub fn is_viewing(&self) -> bool {
        self.watching.is_some() || self.replaying.is_some() || self.watching_race.is_some()
    }

    /// A recording is being played back to this session.
    pub fn start_replay(&mut self, id: i64, handle: tokio::task::AbortHandle) {
        if let Some(old) = self.replaying.replace(Box::new((id, handle))) {
            old.1.abort();
        }
    }

    /// The replay of `id` came to its end: the text to show, if it was the one shown.
    pub fn replay_ended(&mut self, id: i64) -> Option<String> {
        match self.replaying.as_deref() {
            Some((playing, _)) if *playing == id => {
                self.replaying = None;
                Some(format!("End of recording {id}.\n"))
            }
            _ => None,
        }
    }

    /// `watch NAME` or `watch race N`: the text to show, and whether watching began.
    pub fn watch(&mut self, name: Option<&str>, race: Option<&str>) -> Reply {
        let Some(name) = name else {
            return Reply::Say(String::from("Usage: watch NAME, or watch race N\n"));
        };
        if let (true, Some(race)) = (name.eq_ignore_ascii_case("race"), race) {
            return self.watch_race(race);
        }
        let Some((id, name, inbox)) = self.services.registry.find(name) else {
            return Reply::Say(format!("No player called {}.\n", shown_name(name)));
        };
        if id == self.id {
            return Reply::Say(String::from("You cannot watch yourself.\n"));
        }
        if !self.services.registry.is_playing(id) {
            return Reply::Say(format!("{name} is not playing a game.\n"));
        }
        let asked = inbox.send(Message::Watch {
            watcher: self.id,
            inbox: self.inbox.clone(),
        });
        if asked.is_err() {
            return Reply::Say(format!("No player called {name}.\n"));
        }
        self.set_place(Place::Watching {
            id,
            name: name.clone(),
        });
        let text = format!("You are watching {name}. Type anything to stop.\n");
        let game = match self.services.registry.place_of(id) {
            Some(Place::Game { game, .. }) => GameKind::from_name(game),
            Some(Place::Race { race, .. }) => self
                .services
                .registry
                .with_races(|races| races.game(race))
                .map(|game| game.kind),
            _ => None,
        };
        self.watching = Some((id, name, game));
        Reply::Watching(text)
    }

    /// Stop watching; the text to show, if this session watched anyone.
    pub fn stop_watching(&mut self) -> Option<String> {
        if let Some(race) = self.watching_race.take() {
            let id = self.id;
            self.services.registry.with_races(|races| races.unwatch(id));
            self.set_place(Place::Lobby);
            return Some(format!("You stop watching race {race}.\n"));
        }
        if let Some(replaying) = self.replaying.take() {
            let (id, handle) = *replaying;
            handle.abort();
            return Some(format!("Replay of recording {id} stopped.\n"));
        }
        let (id, name, _) = self.watching.take()?;
        self.services.registry.send(id, Message::Unwatch(self.id));
        self.set_place(Place::Lobby);
        Some(format!("You stop watching {name}.\n"))
    }

    /// The watched game ended: the text to show, if it was the one watched.
    pub fn watch_ended(&mut self, name: &PlayerName) -> Option<String> {
        if self.watching.as_ref().map(|(_, watched, _)| watched) != Some(name) {
            return None;
        }
        self.watching = None;
        self.set_place(Place::Lobby);
        Some(format!("{name} left the game.\n"))
    }

    /// Someone wants to watch this session's game: they get `view` at once and every
    /// frame from now on. The player is not interrupted (a script being watched must
    /// not get lines it never asked for); `who` shows how many watch.
    pub fn add_watcher(&mut self, watcher: SessionId, inbox: InboxSender, view: Option<String>) {
        let Some(view) = view else {
            // Not in a game after all (it ended while the request was on its way).
            let _ = inbox.send(Message::WatchEnded {
                name: self.name.clone(),
            });
            return;
        };
        if inbox.send(Message::Frame(Arc::from(view))).is_err() {
            return;
        }
        self.watchers.retain(|(id, _)| *id != watcher);
        self.watchers.push((watcher, inbox));
        self.services
            .registry
            .set_watchers(self.id, self.watchers.len());
    }

    /// A watcher stopped.
    pub fn remove_watcher(&mut self, watcher: SessionId) {
        self.watchers.retain(|(id, _)| *id != watcher);
        self.services
            .registry
            .set_watchers(self.id, self.watchers.len());
    }

    /// Whether anyone watches.
    pub fn is_watched(&self) -> bool {
        !self.watchers.is_empty()
    }

    /// Send the game's output to every watcher; those gone are forgotten.
    pub fn show_watchers(&mut self, text: &str) {
        if self.watchers.is_empty() || text.is_empty() {
            return;
        }
        let frame: Arc<str> = Arc::from(text);
        let before = self.watchers.len();
        self.watchers
            .retain(|(_, inbox)| inbox.send(Message::Frame(Arc::clone(&frame))).is_ok());
        if self.watchers.len() != before {
            self.services
                .registry
                .set_watchers(self.id, self.watchers.len());
        }
    }

    /// The game is over: every watcher goes back to the lobby.
    pub fn end_watching(&mut self) {
        for (_, inbox) in self.watchers.drain(..) {
            let _ = inbox.send(Message::WatchEnded {
                name: self.name.clone(),
            });
        }
        self.services.registry.set_watchers(self.id, 0);
    }
}

/// What admins' commands answer to everyone else (SPEC section 11).
pub const ONLY_ADMINS: &str = "Only admins can do that.";

/// Races (SPEC section 9) and the admins' commands: the registry keeps the races; a
/// seat asks it under its lock and sends what it says after.
impl Seat {
    /// Whether this player has admin rights: a registered name given with `--admin`,
    /// logged in with its password.
    pub fn is_admin(&self) -> bool {
        self.registered && self.services.admins.contains(&self.name.key())
    }

    fn member(&self) -> Member {
        Member {
            id: self.id,
            name: self.name.clone(),
            inbox: self.inbox.clone(),
        }
    }

    /// The race this player races in and waits for the start of.
    pub fn race_waiting(&self) -> Option<RaceId> {
        let id = self.id;
        if let Some(race) = self.away_race() {
            return matches!(self.place(), Some(Place::Race { playing: false, .. }))
                .then_some(race.0);
        }
        self.services.registry.with_races(|races| races.waiting(id))
    }

    /// The race of another instance this session races in, and that instance, while
    /// that instance still has it.
    fn away_race(&self) -> Option<(RaceId, u64)> {
        let (race, home) = **self.away_race.as_ref()?;
        let bus = self.services.bus.as_ref()?;
        (bus.home_of(race) == Some(home)).then_some((race, home))
    }

    /// Whether this session races in race `race` (here or on another instance).
    pub fn races_in(&self, race: RaceId) -> bool {
        self.race() == Some(race)
    }

    /// The racer's command that goes to another instance, which has the race (`--bus`):
    /// `join N` of a race there, and `start` and `/standings` in a race there.
    pub fn away_request(&self, op: RaceOp) -> Option<(Bus, u64, RaceOp)> {
        let bus = self.services.bus.clone()?;
        let home = match op {
            RaceOp::Join(race) => {
                if self.services.registry.with_races(|races| races.has(race)) {
                    return None;
                }
                bus.home_of(race)?
            }
            RaceOp::Start | RaceOp::Standings => self.away_race()?.1,
            RaceOp::Leave | RaceOp::Progress(_) => return None,
        };
        Some((bus, home, op))
    }

    /// What instance `home` answered this racer's command: the text to show.
    pub fn away_answer(&mut self, home: u64, race: Option<RaceId>, answer: RaceAnswer) -> String {
        if let (true, Some(race)) = (answer.joined, race) {
            self.away_race = Some(Box::new((race, home)));
            self.set_place(Place::Race {
                race,
                playing: false,
            });
        }
        answer.text
    }

    /// The race this session raced in is over.
    pub fn race_over(&mut self, race: RaceId) {
        if self.away_race.as_ref().is_some_and(|away| away.0 == race) {
            self.away_race = None;
        }
    }

    /// The race this player is in (racing, done, or hosting).
    pub fn race(&self) -> Option<RaceId> {
        let id = self.id;
        if let Some((race, _)) = self.away_race() {
            return Some(race);
        }
        self.services.registry.with_races(|races| races.race_of(id))
    }

    /// Whether `race ... all` may be asked: the refusal, if not.
    pub fn may_race(&self, all: bool) -> Result<(), String> {
        if all && !self.is_admin() {
            return Err(format!("{ONLY_ADMINS}\n"));
        }
        match self.race() {
            Some(race) => Err(format!("{}\n", JoinError::InRace(race))),
            None => Ok(()),
        }
    }

    /// Open a race of `game`: the host races in it, or, with `all` (admins), invites
    /// everyone in the lobby and only hosts.
    pub fn open_race(&mut self, game: RaceGame, limit: Option<Duration>, all: bool) -> String {
        let registry = &self.services.registry;
        let invite = all.then(|| registry.in_lobby(self.id));
        let invited = invite.as_ref().map_or(0, Vec::len);
        let label = format!("{}{}", game.label(), rules::limit_words(limit));
        let member = self.member();
        let opened = registry.with_races(|races| races.open(member, game, limit, invite));
        let opened = match opened {
            Ok(opened) => opened,
            Err(error) => return format!("{error}\n"),
        };
        registry.deliver(opened.notices);
        let id = opened.id;
        tracing::info!(race = id, host = %self.name, game = %label, all, "race opened");
        if all {
            format!("Race {id} is open: {label}. {invited} players in the lobby were invited; type start when they are in, watch race {id} to follow it.\n")
        } else {
            self.set_place(Place::Race {
                race: id,
                playing: false,
            });
            format!("Race {id} is open: {label}. Others join with: join {id}. Type start when everyone is in.\n")
        }
    }

    /// `races`.
    pub fn races(&self) -> String {
        let mut listed: Vec<RaceRow> = self
            .services
            .registry
            .with_races(|races| races.list(Instant::now()))
            .into_iter()
            .map(RaceRow::from)
            .collect();
        if let Some(bus) = &self.services.bus {
            // Another instance's words are shown without control characters.
            listed.extend(bus.races().into_iter().map(|race| RaceRow {
                label: safe_text(&race.label),
                host: shown_name(&race.host),
                ..race
            }));
            listed.sort_by_key(|race| race.id);
        }
        if listed.is_empty() {
            return String::from("No races are open: race GAME opens one.\n");
        }
        let mut text = String::from("Races:\n");
        for race in listed {
            let state = match race.running {
                None => String::from("waiting"),
                Some(running) => {
                    format!("running for {}", rules::clock(Duration::from_secs(running)))
                }
            };
            let limit = race.limit.map_or_else(String::new, |limit| {
                format!(", time {}", rules::clock(Duration::from_secs(limit)))
            });
            let _ = writeln!(
                text,
                "  race {:<4} {:<28} host {:<16} {} racers, {state}{limit}",
                race.id, race.label, race.host, race.racers
            );
        }
        text
    }

    /// `join N`.
    pub fn join(&mut self, race: Option<&str>) -> String {
        let Some(race_id) = race.and_then(|race| race.parse::<RaceId>().ok()) else {
            return String::from("Usage: join N (races lists them)\n");
        };
        let member = self.member();
        let registry = &self.services.registry;
        match registry.with_races(|races| races.join(race_id, member)) {
            Ok((label, count, host, notice)) => {
                registry.deliver(vec![notice]);
                self.set_place(Place::Race {
                    race: race_id,
                    playing: false,
                });
                joined_race(race_id, &label, count, &host)
            }
            Err(error) => format!("{error}\n"),
        }
    }

    /// Leave this player's race (`leave`, or its game left): what to say, if in one.
    pub fn leave_race(&mut self) -> Option<String> {
        let id = self.id;
        if let Some(away) = self.away_race.take() {
            let (race, home) = *away;
            if let Some(bus) = &self.services.bus {
                bus.race_notice(home, id, &self.name, RaceOp::Leave);
            }
            if matches!(self.place(), Some(Place::Race { .. })) {
                self.set_place(Place::Lobby);
            }
            return Some(format!("You left race {race}.\n"));
        }
        let registry = &self.services.registry;
        let (race, notices) = registry.with_races(|races| races.leave(id, Instant::now()))?;
        registry.deliver(notices);
        if matches!(self.place(), Some(Place::Race { .. })) {
            self.set_place(Place::Lobby);
        }
        Some(format!("You left race {race}.\n"))
    }

    /// `start`.
    pub fn start_race(&mut self) -> String {
        start_race(&self.services.registry, self.id, &self.name)
    }

    /// `standings`.
    pub fn standings(&self) -> String {
        let id = self.id;
        let now = Instant::now();
        let table = self.services.registry.with_races(|races| {
            let race = races.race_of(id)?;
            races.standings(race, now)
        });
        table.unwrap_or_else(|| String::from("You are not in a race: races lists them.\n"))
    }

    /// This racer's game got to `progress`: the others hear what is news; the words for
    /// the racer, if this made the racer done.
    pub fn race_progress(&self, progress: Progress) -> Option<String> {
        let id = self.id;
        if let (Some(away), Some(bus)) = (&self.away_race, &self.services.bus) {
            // The race's instance tells the racer, as a line of its own, when this
            // made the racer done.
            bus.race_notice(away.1, id, &self.name, RaceOp::progress(&progress));
            return None;
        }
        let registry = &self.services.registry;
        let (notices, own) =
            registry.with_races(|races| races.progress(id, progress, Instant::now()));
        registry.deliver(notices);
        own
    }

    /// Stop asking for a secret (a race started meanwhile): whether one was asked.
    pub fn cancel_secret(&mut self) -> bool {
        self.asking.take().is_some()
    }

    /// This racer's game has begun: who shows it, and watchers may come.
    pub fn racing(&self, race: RaceId) {
        self.set_place(Place::Race {
            race,
            playing: true,
        });
    }

    /// `watch race N`.
    fn watch_race(&mut self, race: &str) -> Reply {
        let Ok(race_id) = race.parse::<RaceId>() else {
            return Reply::Say(String::from("Usage: watch race N (races lists them)\n"));
        };
        let (id, inbox) = (self.id, self.inbox.clone());
        let now = Instant::now();
        let watched = self
            .services
            .registry
            .with_races(|races| races.watch(race_id, id, inbox, now));
        match watched {
            Ok(table) => {
                self.watching_race = Some(race_id);
                self.set_place(Place::WatchingRace(race_id));
                Reply::Watching(format!(
                    "You are watching race {race_id}. Type anything to stop.\n{table}"
                ))
            }
            Err(error) => Reply::Say(format!("{error}\n")),
        }
    }

    /// The race this session watched is over: the text to show, if it watched it.
    pub fn race_watch_ended(&mut self, race: RaceId) -> Option<String> {
        if self.watching_race != Some(race) {
            return None;
        }
        self.watching_race = None;
        self.set_place(Place::Lobby);
        Some(format!("Race {race} is over.\n"))
    }

    /// `broadcast TEXT` (admins).
    pub fn broadcast(&self, text: &str) -> String {
        if !self.is_admin() {
            return format!("{ONLY_ADMINS}\n");
        }
        const USAGE: &str = "Usage: broadcast TEXT\n";
        if text.is_empty() {
            return String::from(USAGE);
        }
        let text = match self.chat_line(text, USAGE) {
            Ok(text) => text,
            Err(refusal) => return refusal,
        };
        format!("{}\n", self.services.broadcast(&self.name, &text))
    }

    /// `kick NAME [WHY]` (admins).
    pub fn kick(&self, name: Option<&str>, why: &str) -> String {
        if !self.is_admin() {
            return format!("{ONLY_ADMINS}\n");
        }
        let Some(name) = name else {
            return String::from("Usage: kick NAME [WHY]\n");
        };
        if self
            .services
            .registry
            .find(name)
            .is_some_and(|(id, ..)| id == self.id)
        {
            return String::from("You cannot kick yourself: quit leaves.\n");
        }
        format!("{}\n", self.services.kick(&self.name, name, why))
    }

    /// Where the registry has this session.
    fn place(&self) -> Option<Place> {
        self.services.registry.place_of(self.id)
    }
}

impl Drop for Seat {
    /// However the session ends, those it watched and those who watched it are told.
    fn drop(&mut self) {
        if let Some(replaying) = self.replaying.take() {
            replaying.1.abort();
        }
        if let Some((id, ..)) = self.watching.take() {
            self.services.registry.send(id, Message::Unwatch(self.id));
        }
        for (_, inbox) in self.watchers.drain(..) {
            let _ = inbox.send(Message::WatchEnded {
                name: self.name.clone(),
            });
        }
    }
}

/// A name as typed, safe to show: cut and without control characters.
/// What a player who joined race `race_id` is told (on the race's instance or not).
pub fn joined_race(race_id: RaceId, label: &str, count: usize, host: &PlayerName) -> String {
    format!(
        "You joined race {race_id}: {label} ({count} racers). {host} starts it; leave leaves it.\n"
    )
}

/// `start` by session `id`, called `name`, the host of its race: the text to show.
/// Also what a host on another instance gets (`--bus`).
pub fn start_race(registry: &Registry, id: SessionId, name: &PlayerName) -> String {
    let started = registry.with_races(|races| {
        let started = races.start(id, Instant::now())?;
        let limit = races.limit(started.0);
        Ok::<_, rules::StartError>((started, limit))
    });
    match started {
        Ok(((race_id, notices), limit)) => {
            registry.deliver(notices);
            if let Some(limit) = limit {
                let registry = registry.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(limit).await;
                    let notices = registry.with_races(|races| races.time_up(race_id));
                    registry.deliver(notices);
                });
            }
            tracing::info!(race = race_id, host = %name, "race started");
            format!("Race {race_id} starts now.\n")
        }
        Err(error) => format!("{error}\n"),
    }
}

/// A text from another instance (a race's game), without control characters.
fn safe_text(text: &str) -> String {
    crate::text::one_line(text)
}

fn shown_name(name: &str) -> String {
    crate::text::kept(name, crate::text::Keep::Nothing)
        .take(accounts::MAX_NAME + 4)
        .collect()
}

/// An idle time for `who`: `42s`, `17m`, `3h05m`.
fn idle(idle: Duration) -> String {
    crate::text::idle(idle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_times() {
        assert_eq!(idle(Duration::from_secs(0)), "0s");
        assert_eq!(idle(Duration::from_secs(59)), "59s");
        assert_eq!(idle(Duration::from_secs(61)), "1m");
        assert_eq!(idle(Duration::from_secs(3 * 3600 + 5 * 60 + 9)), "3h05m");
    }

    #[test]
    fn names_as_typed_are_shown_safely() {
        assert_eq!(shown_name("bob\u{1b}[2J"), "bob[2J");
        assert_eq!(shown_name(&"x".repeat(100)).len(), 20);
    }
}
