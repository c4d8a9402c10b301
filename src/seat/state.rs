//! A session's seat: its number in the registry, its name, its settings, whom it
//! watches and who watches it, and what it is asked for. The other files of this
//! folder add its commands; nothing here writes to a socket.

use std::fmt::Write as _;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::OnceLock;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

use crate::catalog::saves;
use crate::catalog::table::GameKind;
use crate::players::accounts::{on_off, parse_on_off, PlayerName, Setting, Settings};
use crate::players::inbox::{InboxSender, Message};
use crate::players::registry::{Place, SessionId};
use crate::races::rules::RaceId;
use crate::records::recorder::Player;
use crate::store::Account;

use super::services::Services;
use super::shown::shown_name;
use super::work::{Reply, Work};

/// Lines of chat allowed at once before the limit starts.
const CHAT_BURST: u32 = 5;

/// What admins' commands answer to everyone else (SPEC section 11).
pub const ONLY_ADMINS: &str = "Only admins can do that.";

/// Asking the player for a secret; the line that comes next is not echoed. It moves
/// with the session in an upgrade (a question half answered is still asked there).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) enum Asking {
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
    pub(super) services: Services,
    pub(super) id: SessionId,
    pub(super) address: IpAddr,
    /// This session's own inbox, for those it watches to send frames to.
    pub(super) inbox: InboxSender,
    pub(super) name: PlayerName,
    /// The name is registered and its password was given.
    pub(super) registered: bool,
    pub(super) settings: Settings,
    /// Boxed: rarely there, and a seat lives in every session.
    pub(super) asking: Option<Box<Asking>>,
    /// Whom this session watches, and the game they play (for this session's colours).
    /// Boxed: most sessions watch nobody.
    pub(super) watching: Option<Box<(SessionId, PlayerName, Option<&'static GameKind>)>>,
    /// Who watches this session's game, and whether each reads through a screen
    /// reader (it gets descriptions, not boards). Boxed, and there only while someone
    /// watches: most games have no watcher, and a seat lives in every session (8 bytes
    /// where a `Vec` takes 24).
    #[allow(clippy::box_collection)] // see above
    pub(super) watchers: Option<Box<Vec<(SessionId, InboxSender, bool)>>>,
    /// The recording being played back to this session, and its task.
    /// Boxed: rare.
    pub(super) replaying: Option<Box<(i64, tokio::task::AbortHandle)>>,
    /// This registered player's unfinished game, told at login. Boxed: rare.
    pub(super) unfinished: Option<Box<Unfinished>>,
    /// The race whose standings this session watches.
    pub(super) watching_race: Option<RaceId>,
    /// The race of another instance this session races in, and that instance
    /// (`--bus`). Boxed: rare.
    pub(super) away_race: Option<Box<(RaceId, u64)>>,
    /// This session's own pace of chat, made at its first line: most sessions never
    /// chat, and the limiter is as large as the rest of the seat's rare fields.
    pub(super) chat_limit: OnceLock<Box<DefaultDirectRateLimiter>>,
    /// What the player has been told once, and has shown (issue 30).
    pub(super) hints: Hints,
    /// The client said it reads through a screen reader: a registered player's kept
    /// settings do not turn reader mode off at login.
    pub(super) reader_detected: bool,
    /// A program playing (`bot NAME`, SPEC section 12).
    pub(super) bot: bool,
}

/// The seat's few facts for the hints of `hints.rs`, one bit each.
#[derive(Debug, Default, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(super) struct Hints {
    /// A command of section 7 or later was used (a name, `set`, `who`, any `/` one).
    pub(super) uses_extensions: bool,
    /// A guest was told that a result was not kept.
    pub(super) told_guest: bool,
    /// The last frame shown of a watched game ended without a line ending (a prompt).
    pub(super) frame_open: bool,
    /// The games (bit `n`: the table's `n`th) whose hint on entering was given.
    pub(super) games_told: u8,
    /// The position of the game of boxes being played was said to be a deadlock; no
    /// warning again until a position that is not (SPEC section 13).
    pub(super) warned: bool,
}

/// A registered player's game that waits for `resume`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Unfinished {
    /// Which game.
    pub(super) game: String,
    /// `play` was typed once: the next `play` gives the game up.
    pub(super) discard_armed: bool,
}

impl Seat {
    /// A new session's seat, as the guest the registry named it.
    pub fn new(services: Services, id: SessionId, address: IpAddr) -> Option<Seat> {
        let name = services.registry.name_of(id)?;
        let inbox = services.registry.sender(id)?;
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
            watchers: None,
            replaying: None,
            unfinished: None,
            watching_race: None,
            away_race: None,
            chat_limit: OnceLock::new(),
            hints: Hints::default(),
            reader_detected: false,
            bot: false,
        })
    }

    /// This session's pace of chat ([`CHAT_BURST`] lines, then one a second).
    pub(super) fn chat_limit(&self) -> &DefaultDirectRateLimiter {
        self.chat_limit.get_or_init(|| {
            let burst = NonZeroU32::new(CHAT_BURST).unwrap_or(NonZeroU32::MIN);
            let per_second = NonZeroU32::MIN;
            Box::new(RateLimiter::direct(
                Quota::per_second(per_second).allow_burst(burst),
            ))
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

    /// Where the player is now, for `who`.
    pub fn set_place(&self, place: Place) {
        self.services.registry.set_place(self.id, place);
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
        if setting == Setting::Color && on && self.settings.reader {
            return Reply::Say(String::from(
                "Colour stays off in reader mode: set reader off first.\n",
            ));
        }
        let text = match setting {
            Setting::Chat if !on => {
                String::from("Chat is off: type set chat on to hear others again.\n")
            }
            Setting::Chat => String::from("Chat is on.\n"),
            // Already on: nothing will be asked, so this is the answer.
            Setting::Keys if on && self.settings.keys => String::from("Keys are on.\n"),
            // The session asks the client now, and its answer is the one thing said
            // (`Single keys are on...` or why not): said here too, on `nc`, it read
            // as keys on, then off three seconds later.
            Setting::Keys if on => String::new(),
            Setting::Keys => String::from("Keys are off: type lines and press Enter.\n"),
            Setting::Color if on => {
                String::from("Colour is on: boards are drawn in colour, in place.\n")
            }
            Setting::Color => String::from("Colour is off.\n"),
            Setting::Warnings if on => String::from(
                "Warnings are on: a push that leaves a Sokoban level unsolvable is reported.\n",
            ),
            Setting::Warnings => String::from("Warnings are off.\n"),
            Setting::Reader if on => String::from(
                "Reader mode is on: games are described in words, never drawn.\n\
                 /look describes the game again; /where says where you are.\n",
            ),
            Setting::Reader => String::from("Reader mode is off: boards are drawn again.\n"),
        };
        // Colour and redrawing in place are noise to a screen reader (SPEC 10); and a
        // player who turns reader mode off is not given it again at login.
        if setting == Setting::Reader {
            self.settings.color &= !on;
            self.reader_detected &= on;
        }
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

    /// The player's settings.
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The client said it reads through a screen reader (MTTS, before the banner):
    /// reader mode on for this session, kept through a login (SPEC section 10).
    pub fn reader_detected(&mut self) {
        self.settings.reader = true;
        self.settings.color = false;
        self.reader_detected = true;
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
            name: self.name.shared(),
            key: self.name.shared_key(),
            registered: self.registered,
            guest: self.name.is_guest(),
            bot: self.bot,
            address: self.address,
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

    /// Whether this player has admin rights: a registered name given with `--admin`,
    /// logged in with its password.
    pub fn is_admin(&self) -> bool {
        self.registered && self.services.admins.contains(&self.name.key())
    }

    /// Where the registry has this session.
    pub(super) fn place(&self) -> Option<Place> {
        self.services.registry.place_of(self.id)
    }
}

impl Drop for Seat {
    /// However the session ends, those it watched and those who watched it are told.
    fn drop(&mut self) {
        if let Some(replaying) = self.replaying.take() {
            replaying.1.abort();
        }
        if let Some(watching) = self.watching.take() {
            let id = watching.0;
            self.services.registry.send(id, Message::Unwatch(self.id));
        }
        for (_, inbox, _) in self
            .watchers
            .take()
            .map_or_else(Vec::new, |watchers| *watchers)
        {
            let _ = inbox.send(Message::WatchEnded {
                name: self.name.clone(),
            });
        }
    }
}
