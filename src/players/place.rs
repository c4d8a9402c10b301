//! Where a player is (`who`, whom `say` reaches), and a session as another instance
//! sees it (`--bus`): places and sessions named by instance and number.

use crate::players::accounts::PlayerName;
use crate::players::ids::SessionId;
use crate::races::rules::RaceId;

/// Where a player is, for `who` and for whom `say` reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// In the lobby.
    Lobby,
    /// Playing a game.
    Game {
        /// The game's name.
        game: &'static str,
        /// What it was started with (level, collection, size...), as typed.
        label: String,
    },
    /// Watching another player's game.
    Watching {
        /// Whom.
        id: SessionId,
        /// Their name when watching began.
        name: PlayerName,
    },
    /// In a race: waiting for its start (in the lobby), or playing its game.
    Race {
        /// Which race.
        race: RaceId,
        /// Playing its game (watchable), not waiting.
        playing: bool,
    },
    /// Watching a race's standings.
    WatchingRace(RaceId),
}

impl Place {
    /// The player this place watches, if it is watching one.
    pub fn watched(&self) -> Option<SessionId> {
        match self {
            Place::Watching { id, .. } => Some(*id),
            _ => None,
        }
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Lobby => f.write_str("lobby"),
            Place::Game { game, label } if label.is_empty() => f.write_str(game),
            Place::Game { game, label } => write!(f, "{game} {label}"),
            Place::Watching { name, .. } => write!(f, "watching {name}"),
            Place::Race { race, .. } => write!(f, "race {race}"),
            Place::WatchingRace(race) => write!(f, "watching race {race}"),
        }
    }
}

/// A place as another instance understands it: sessions named by instance and number.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PlaceView {
    /// In the lobby.
    Lobby,
    /// Playing `game` with `label`.
    Game {
        /// The game's name.
        game: String,
        /// Its arguments as typed.
        label: String,
    },
    /// Watching a player.
    Watching {
        /// The player's instance.
        instance: u64,
        /// The player's session there.
        session: u64,
        /// The player's name.
        name: String,
    },
    /// In race `race`.
    Race {
        /// The race.
        race: RaceId,
        /// Playing its game.
        playing: bool,
    },
    /// Watching race `race`.
    WatchingRace(RaceId),
}

/// What other instances are told of a local session (and keep of a remote one).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionView {
    /// The name.
    pub name: String,
    /// Where.
    pub place: PlaceView,
    /// Seconds since the last input.
    pub idle: u32,
    /// How many watch.
    pub watchers: usize,
    /// Hears `say`.
    pub chat: bool,
    /// A bot (SPEC section 12). Absent in what instances before bots sent.
    #[serde(default)]
    pub bot: bool,
}

impl SessionView {
    /// A player called `name` who has just come, in the lobby: how a session is known
    /// before its instance says more.
    pub fn arrived(name: &str) -> SessionView {
        SessionView {
            name: name.to_string(),
            place: PlaceView::Lobby,
            idle: 0,
            watchers: 0,
            chat: true,
            bot: false,
        }
    }
}
