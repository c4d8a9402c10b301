//! What every seat of a server shares: one cheap handle on the registry, the store,
//! the recorder, the bus and the settings of the server, cloned into each session.

use std::collections::HashSet;
use std::sync::Arc;

use crate::catalog::table::Contexts;
use crate::cluster::bus::Bus;
use crate::coach::Coach;
use crate::metrics::Metrics;
use crate::players::accounts::{clean_text, PlayerName};
use crate::players::chat_limits::ChatLimits;
use crate::players::hashing::Hasher;
use crate::players::inbox::Message;
use crate::players::registry::Registry;
use crate::players::throttle::LoginThrottle;
use crate::records::ladder_cache::Tables;
use crate::records::places::Places;
use crate::records::recorder::{Recorder, Retention};
use crate::store::{Store, StoreError};

use super::shown::shown_name;

/// What the old connection of a name taken over is told.
pub fn taken_over(name: &PlayerName) -> String {
    format!("Someone logged in as {name} from elsewhere.")
}

/// Replays (`replay ID`) running at once on this server: each reads its recording a
/// page at a time and replays the game as it goes, so what they cost is CPU.
pub const MAX_REPLAYS: usize = 100;

/// Replays running at once from one address (a class behind one NAT shares it).
pub const REPLAYS_PER_ADDRESS: usize = 10;

/// What limits what one client can make the server spend, behind one handle (a
/// session's future carries every field of [`Services`]).
#[derive(Debug)]
pub struct Safeguards {
    /// Limits password guessing and registrations.
    pub throttle: LoginThrottle,
    /// Hashes and checks passwords, a bounded few at a time.
    pub hasher: Hasher,
    /// Chat per address and tells per recipient.
    pub chat: ChatLimits,
    /// Replays running ([`MAX_REPLAYS`], [`REPLAYS_PER_ADDRESS`]).
    pub replays: Places,
}

/// What every seat of a server shares: one pointer, cheap to clone, so that each
/// session's future holds 8 bytes of it rather than a copy of every field.
#[derive(Debug, Clone)]
pub struct Services(Arc<Shared>);

/// The fields behind [`Services`] (read through it).
#[derive(Debug, Clone)]
pub struct Shared {
    /// Who is online.
    pub registry: Registry,
    /// Accounts.
    pub store: Store,
    /// What limits what one client can make the server spend: logins, hashes, chat.
    pub safeguards: Arc<Safeguards>,
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
    /// Help for stuck Sokoban players (SPEC section 13).
    pub coach: Coach,
    /// `--detect-readers`: every connection is asked for its terminal type before the
    /// banner, and a screen reader's gets reader mode (SPEC section 10).
    pub detect_readers: bool,
    /// The addresses of the players whose built-in agents play as sessions now
    /// (`bot-play`), one entry an agent, for their caps (a few: a short list).
    pub agents: Arc<std::sync::Mutex<Vec<std::net::IpAddr>>>,
    /// The ladders' tables, read one at a time and shared for a moment by everyone
    /// who asks (`ladder N`, the web page).
    pub ladder_tables: Arc<Tables>,
    /// One permit: the built-in agents play one ladder's baselines at a time, however
    /// many ladders are opened, so that they take one blocking thread at most.
    pub baselines: Arc<tokio::sync::Semaphore>,
    /// Where the admin's `upgrade` asks for an upgrade (SPEC section 11).
    pub upgrades: Option<crate::upgrade::control::Requests>,
    /// An upgrade's roll call, where each session hands in its state (SPEC section 11).
    pub roll_call: Arc<crate::players::moves::RollCall>,
}

impl std::ops::Deref for Services {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl Services {
    /// What the seats of a server on `store` share, its recorder started (which
    /// checks results against `context`'s levels and keeps recordings as `keep` says).
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub async fn start(
        registry: Registry,
        store: Store,
        contexts: Contexts,
        keep: Retention,
        throttle: LoginThrottle,
    ) -> Result<Services, StoreError> {
        let metrics = Arc::new(Metrics::new());
        let recorder =
            Recorder::start(store.clone(), contexts.clone(), keep, Arc::clone(&metrics)).await?;
        Ok(Services(Arc::new(Shared {
            registry,
            store,
            safeguards: Arc::new(Safeguards {
                throttle,
                hasher: Hasher::new(
                    crate::players::hashing::HASH_WORKERS,
                    crate::players::hashing::HASH_QUEUE,
                    metrics.password_checks.clone(),
                ),
                chat: ChatLimits::new(),
                replays: Places::new(MAX_REPLAYS, REPLAYS_PER_ADDRESS),
            }),
            recorder,
            contexts,
            admins: Arc::new(HashSet::new()),
            metrics,
            web: false,
            bus: None,
            coach: Coach::default(),
            detect_readers: false,
            agents: Arc::default(),
            ladder_tables: Arc::default(),
            baselines: Arc::new(tokio::sync::Semaphore::new(1)),
            upgrades: None,
            roll_call: Arc::default(),
        })))
    }

    /// `broadcast`, by `admin` (checked by the caller), of `text` (cleaned and no
    /// longer than a line of chat): what to tell the admin.
    pub fn broadcast(&self, admin: &PlayerName, text: &str) -> String {
        let line = Message::Line(Arc::from(format!("[{admin} to everyone] {text}")));
        let reached = self.registry.broadcast(&line);
        tracing::info!(%admin, reached, "broadcast");
        format!(
            "Sent to {}.",
            crate::text::count(
                u64::try_from(reached).unwrap_or(u64::MAX),
                "player",
                "players"
            )
        )
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
        Arc::make_mut(&mut self.0).bus = bus;
        self
    }

    /// These services with the server's upgrade requests.
    pub fn with_upgrades(mut self, requests: crate::upgrade::control::Requests) -> Services {
        Arc::make_mut(&mut self.0).upgrades = Some(requests);
        self
    }

    /// These services with this help for stuck players (`--allow-solutions`).
    pub fn with_coach(mut self, coach: Coach) -> Services {
        Arc::make_mut(&mut self.0).coach = coach;
        self
    }

    /// These services asking every client for its terminal type before the banner
    /// (`--detect-readers`), or not.
    pub fn with_detect_readers(mut self, on: bool) -> Services {
        Arc::make_mut(&mut self.0).detect_readers = on;
        self
    }

    /// These services with the web page on or off.
    pub fn with_web(mut self, on: bool) -> Services {
        Arc::make_mut(&mut self.0).web = on;
        self
    }

    /// The same services, with these names (as typed, any case) as admins.
    pub fn with_admins<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Services {
        Arc::make_mut(&mut self.0).admins =
            Arc::new(names.into_iter().map(str::to_ascii_lowercase).collect());
        self
    }
}
