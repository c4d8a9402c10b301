//! A racer's commands (SPEC section 9): `race`, `races`, `join`, `start`,
//! `standings`, `leave` and the game's progress, through a race desk: this
//! instance's, or the one of the instance that has the race (`--bus`).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::cluster::race_desk::RemoteDesk;
use crate::cluster::wire::RaceRow;
use crate::games::Progress;
use crate::players::race_desk::{racer_name, LocalDesk};
use crate::players::registry::{Member, Place, Registry};
use crate::races::desk::{Answer, Pending, RaceDesk, Reply as DeskReply};
use crate::races::rules::{self, JoinError, RaceGame, RaceId};

use super::shown::{safe_text, shown_name};
use super::state::{Seat, ONLY_ADMINS};

/// A racer's command: answered now, or by the race's instance later (`--bus`).
pub enum RaceReply {
    /// The text to show now.
    Now(String),
    /// Wait for this, then hand it to [`Seat::answered`] with `join`.
    Later {
        /// The other instance's answer.
        pending: Pending,
        /// The race a `join` asked for, and its instance.
        join: Option<(RaceId, Option<u64>)>,
    },
}

impl std::fmt::Debug for RaceReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RaceReply::Now(text) => f.debug_tuple("Now").field(text).finish(),
            RaceReply::Later { join, .. } => f.debug_struct("Later").field("join", join).finish(),
        }
    }
}

/// An admin's `race ... all` (telnet's, or the web page's): race `game` opens with
/// `host` hosting it without racing, and everyone in `registry`'s lobby but the host
/// is invited. What to tell the admin.
pub fn open_race_for_everyone(
    registry: &Registry,
    host: Member,
    game: RaceGame,
    limit: Option<Duration>,
) -> String {
    let invite = registry.in_lobby(host.id);
    let invited = invite.len();
    let label = format!("{}{}", game.label(), rules::limit_words(limit));
    let name = host.name.clone();
    let opened = registry.with_races(|races| races.open(host, game, limit, Some(invite)));
    let opened = match opened {
        Ok(opened) => opened,
        Err(error) => return format!("{error}\n"),
    };
    registry.deliver(opened.notices);
    let id = opened.id;
    tracing::info!(race = id, host = %name, game = %label, all = true, "race opened");
    let invited = format!(
        "{} in the lobby {} invited",
        crate::text::count(
            u64::try_from(invited).unwrap_or(u64::MAX),
            "player",
            "players"
        ),
        if invited == 1 { "was" } else { "were" }
    );
    let text = format!(
        "Race {id} is open: {label}.\n{invited}; type start when they are in,\nwatch race {id} to follow it.\n"
    );
    crate::text::wrap(&text, crate::text::COLUMNS, "  ").into_owned()
}

impl Seat {
    pub(super) fn member(&self) -> Member {
        Member {
            id: self.id,
            name: racer_name(&self.name),
            inbox: self.inbox.clone(),
        }
    }

    /// This instance's races.
    fn local_desk(&self) -> LocalDesk {
        LocalDesk::new(self.services.registry.clone())
    }

    /// The desk of the race this session races in on another instance, while that
    /// instance still has it.
    fn away_desk(&self) -> Option<RemoteDesk> {
        let (_, home) = self.away_race()?;
        Some(RemoteDesk::new(self.services.bus.clone()?, home))
    }

    /// What a desk answered: shown now, or a job to wait for. `join` names the race
    /// joined and its instance, if it is another's.
    fn answer(&mut self, reply: DeskReply, join: Option<(RaceId, Option<u64>)>) -> RaceReply {
        match reply {
            DeskReply::Now(answer) => RaceReply::Now(self.answered(join, answer)),
            DeskReply::Later(pending) => RaceReply::Later { pending, join },
        }
    }

    /// What a race's desk answered this racer's command: the text to show. A `join`
    /// that worked puts the player in the race (remembering the race's instance, if
    /// it is another).
    pub fn answered(&mut self, join: Option<(RaceId, Option<u64>)>, answer: Answer) -> String {
        if let (true, Some((race, home))) = (answer.joined, join) {
            if let Some(home) = home {
                self.away_race = Some(Box::new((race, home)));
            }
            self.set_place(Place::Race {
                race,
                playing: false,
            });
        }
        answer.text
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
    pub(super) fn away_race(&self) -> Option<(RaceId, u64)> {
        let (race, home) = **self.away_race.as_ref()?;
        let bus = self.services.bus.as_ref()?;
        (bus.home_of(race) == Some(home)).then_some((race, home))
    }

    /// Whether this session races in race `race` (here or on another instance).
    pub fn races_in(&self, race: RaceId) -> bool {
        self.race() == Some(race)
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
        let member = self.member();
        if all {
            return open_race_for_everyone(&self.services.registry, member, game, limit);
        }
        let registry = &self.services.registry;
        let label = format!("{}{}", game.label(), rules::limit_words(limit));
        let opened = registry.with_races(|races| races.open(member, game, limit, None));
        let opened = match opened {
            Ok(opened) => opened,
            Err(error) => return format!("{error}\n"),
        };
        registry.deliver(opened.notices);
        let id = opened.id;
        tracing::info!(race = id, host = %self.name, game = %label, all, "race opened");
        self.set_place(Place::Race {
            race: id,
            playing: false,
        });
        let text = format!(
            "Race {id} is open: {label}.\nOthers join with: join {id}. Type start when everyone is in.\n"
        );
        crate::text::wrap(&text, crate::text::COLUMNS, "  ").into_owned()
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
                "  race {:<4} {:<28} host {:<16} {}, {state}{limit}",
                race.id,
                race.label,
                race.host,
                crate::races::standings::racers(race.racers)
            );
        }
        text
    }

    /// `join N`: the race may be this instance's or another's.
    pub fn join(&mut self, race: Option<&str>) -> RaceReply {
        let Some(race_id) = race.and_then(|race| race.parse::<RaceId>().ok()) else {
            return RaceReply::Now(String::from("Usage: join N (races lists them)\n"));
        };
        let member = self.member();
        let local = self.local_desk();
        if !local.has(race_id) {
            let away = self.services.bus.clone().and_then(|bus| {
                let home = bus.home_of(race_id)?;
                Some((RemoteDesk::new(bus, home), home))
            });
            if let Some((desk, home)) = away {
                let reply = desk.join(&member, race_id);
                return self.answer(reply, Some((race_id, Some(home))));
            }
        }
        let reply = local.join(&member, race_id);
        self.answer(reply, Some((race_id, None)))
    }

    /// Leave this player's race (`leave`, or its game left): what to say, if in one.
    pub fn leave_race(&mut self) -> Option<String> {
        let member = self.member();
        let race = match self.away_race.take() {
            Some(away) => {
                let (race, home) = *away;
                if let Some(bus) = self.services.bus.clone() {
                    RemoteDesk::new(bus, home).leave(&member);
                }
                race
            }
            None => self.local_desk().leave(&member)?,
        };
        if matches!(self.place(), Some(Place::Race { .. })) {
            self.set_place(Place::Lobby);
        }
        Some(format!("You left race {race}.\n"))
    }

    /// `start`.
    pub fn start_race(&mut self) -> RaceReply {
        let member = self.member();
        let reply = match self.away_desk() {
            Some(desk) => desk.start(&member),
            None => self.local_desk().start(&member),
        };
        self.answer(reply, None)
    }

    /// `standings`.
    pub fn standings(&mut self) -> RaceReply {
        let member = self.member();
        let reply = match self.away_desk() {
            Some(desk) => desk.standings(&member),
            None => self.local_desk().standings(&member),
        };
        self.answer(reply, None)
    }

    /// This racer's game got to `progress`: the others hear what is news; the words for
    /// the racer, if this made the racer done.
    pub fn race_progress(&self, progress: Progress) -> Option<String> {
        let member = self.member();
        if let (Some(away), Some(bus)) = (&self.away_race, &self.services.bus) {
            // The race's instance tells the racer, as a line of its own, when this
            // made the racer done.
            return RemoteDesk::new(bus.clone(), away.1).progress(&member, progress);
        }
        self.local_desk().progress(&member, progress)
    }

    /// This racer's game has begun: who shows it, and watchers may come.
    pub fn racing(&self, race: RaceId) {
        self.set_place(Place::Race {
            race,
            playing: true,
        });
    }
}
