//! A seat's part of an upgrade (SPEC section 11): what of the player moves to the new
//! server process (the name and its login, settings, what the player was told, a
//! question being asked, whom it watches), as plain data, and the seat made again
//! from it there. Whom the session watches is asked again once every moved session is
//! registered ([`Seat::watch_again`]): watchers reconnect by themselves.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::catalog::table::GameKind;
use crate::players::accounts::{PlayerName, Settings};
use crate::players::inbox::Message;
use crate::players::registry::{Place, SessionId};
use crate::races::rules::RaceId;

use super::state::{Asking, Hints, Seat, Unfinished};
use super::Services;

/// What moves of a seat.
#[derive(Debug, Serialize, Deserialize)]
pub struct SeatState {
    name: PlayerName,
    registered: bool,
    settings: Settings,
    asking: Option<Asking>,
    /// Whom it watches: the session's number, its name, and the game's.
    watching: Option<(u64, PlayerName, Option<String>)>,
    /// The recording being played back to it (stopped by the upgrade).
    replaying: Option<i64>,
    unfinished: Option<Unfinished>,
    hints: Hints,
    reader_detected: bool,
    bot: bool,
    /// The race whose standings it watches.
    watching_race: Option<RaceId>,
    /// Where the registry has it (who, the web page and watchers see it).
    place: PlaceState,
}

/// A [`Place`], as it moves: a session named by its number, a game by its name.
#[derive(Debug, Serialize, Deserialize)]
enum PlaceState {
    Lobby,
    Game { game: String, label: String },
    Watching { number: u64, name: PlayerName },
    Race { race: RaceId, playing: bool },
    WatchingRace(RaceId),
}

impl Seat {
    /// This seat as it moves, or why it cannot move now.
    ///
    /// # Errors
    /// The reason, in words for the admin: a race on another instance.
    pub fn pack(&self) -> Result<SeatState, String> {
        if let Some(away) = &self.away_race {
            return Err(format!(
                "{} races in race {} on another instance",
                self.name, away.0
            ));
        }
        Ok(SeatState {
            name: self.name.clone(),
            registered: self.registered,
            settings: self.settings,
            asking: self.asking.as_deref().map(|asking| match asking {
                Asking::Password { name, account } => Asking::Password {
                    name: name.clone(),
                    account: account.clone(),
                },
                Asking::NewPassword => Asking::NewPassword,
                Asking::Repeat { first } => Asking::Repeat {
                    first: first.clone(),
                },
            }),
            watching: self.watching.as_deref().map(|(id, name, game)| {
                (
                    id.number(),
                    name.clone(),
                    game.map(|kind| kind.name.to_string()),
                )
            }),
            replaying: self.replaying.as_ref().map(|replaying| replaying.0),
            unfinished: self.unfinished.as_deref().map(|unfinished| Unfinished {
                game: unfinished.game.clone(),
                discard_armed: unfinished.discard_armed,
            }),
            hints: self.hints,
            reader_detected: self.reader_detected,
            bot: self.bot,
            watching_race: self.watching_race,
            place: match self.place() {
                None | Some(Place::Lobby) => PlaceState::Lobby,
                Some(Place::Game { game, label }) => PlaceState::Game {
                    game: game.to_string(),
                    label,
                },
                Some(Place::Watching { id, name }) => PlaceState::Watching {
                    number: id.number(),
                    name,
                },
                Some(Place::Race { race, playing }) => PlaceState::Race { race, playing },
                Some(Place::WatchingRace(race)) => PlaceState::WatchingRace(race),
            },
        })
    }

    /// The name a moved seat registers under.
    pub fn moved_name(state: &SeatState) -> &PlayerName {
        &state.name
    }

    /// The seat of a session moved here as `id`, registered under its name: as it
    /// was, but for a replay being played back, which stopped, and watching a player
    /// who did not move (an SSH session): what to tell the player of those.
    pub fn unpack(
        services: Services,
        id: SessionId,
        address: IpAddr,
        state: SeatState,
    ) -> Option<(Seat, String)> {
        let mut seat = Seat::new(services, id, address)?;
        seat.registered = state.registered;
        seat.settings = state.settings;
        seat.asking = state.asking.map(Box::new);
        seat.unfinished = state.unfinished.map(Box::new);
        seat.hints = state.hints;
        seat.reader_detected = state.reader_detected;
        seat.bot = state.bot;
        seat.watching_race = state.watching_race;
        let registry = &seat.services.registry;
        registry.set_chat(id, seat.settings.chat);
        if seat.bot {
            registry.set_bot(id);
        }
        let mut said = String::new();
        if let Some((number, name, game)) = state.watching {
            if let Some(watched) = registry.numbered(number) {
                let game = game.as_deref().and_then(GameKind::from_name);
                seat.watching = Some(Box::new((watched, name, game)));
            } else {
                said.push_str(&format!(
                    "You stop watching {name}: their connection could not move to the new server.\n"
                ));
            }
        }
        if let Some(replay) = state.replaying {
            said.push_str(&format!(
                "Replay of recording {replay} stopped: type replay {replay} to watch it again.\n"
            ));
        }
        let place = match state.place {
            PlaceState::Lobby => Place::Lobby,
            PlaceState::Game { game, label } => match GameKind::from_name(&game) {
                Some(kind) => Place::Game {
                    game: kind.name,
                    label,
                },
                None => Place::Lobby,
            },
            PlaceState::Watching { number, name } => match registry.numbered(number) {
                Some(id) => Place::Watching { id, name },
                None => Place::Lobby,
            },
            PlaceState::Race { race, playing } => Place::Race { race, playing },
            PlaceState::WatchingRace(race) => Place::WatchingRace(race),
        };
        seat.set_place(place);
        Some((seat, said))
    }

    /// Ask the watched session again for its frames, once every moved session is
    /// registered: it answers with its board, then every frame as before.
    pub fn watch_again(&self) {
        let Some((watched, _, _)) = self.watching.as_deref() else {
            return;
        };
        self.services.registry.send(
            *watched,
            Message::Watch {
                watcher: self.id,
                inbox: self.inbox.clone(),
                reader: self.settings.reader,
            },
        );
    }
}
