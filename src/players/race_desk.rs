//! The local race desk: a racer's commands on this instance's races, kept in the
//! registry under one lock. Players here and racers of other instances (whose
//! requests arrive over the bus) are served by the same code.

use std::sync::{Arc, PoisonError};
use std::time::Instant;

use crate::games::Progress;
use crate::players::accounts::PlayerName;
use crate::players::inbox::Message;
use crate::players::registry::{Member, Registry};
use crate::races::desk::{Answer, RaceDesk, Reply};
use crate::races::rules::{RaceId, StartError};

/// What `standings` answers someone in no race.
const NOT_IN_A_RACE: &str = "You are not in a race: races lists them.\n";

/// This instance's races: cheap to clone.
#[derive(Debug, Clone)]
pub struct LocalDesk {
    registry: Registry,
}

impl LocalDesk {
    /// The desk over `registry`'s races.
    pub fn new(registry: Registry) -> LocalDesk {
        LocalDesk { registry }
    }

    /// Whether race `race` is one of this instance's.
    pub fn has(&self, race: RaceId) -> bool {
        self.registry.with_races(|races| races.has(race))
    }
}

/// What a player who joined race `race_id` is told (on the race's instance or not).
pub fn joined_race(race_id: RaceId, label: &str, count: usize, host: &str) -> String {
    let racers = crate::races::standings::racers(count);
    let text = format!(
        "You joined race {race_id}: {label} ({racers}).\n{host} starts it; leave leaves it.\n"
    );
    crate::text::wrap(&text, crate::text::COLUMNS, "  ").into_owned()
}

impl RaceDesk for LocalDesk {
    type Racer = Member;

    fn join(&self, racer: &Member, race: RaceId) -> Reply {
        let registry = &self.registry;
        let joined = registry.with_races(|races| races.join(race, racer.clone()));
        Reply::Now(match joined {
            Ok((label, count, host, notice)) => {
                registry.deliver(vec![notice]);
                Answer {
                    text: joined_race(race, &label, count, &host),
                    joined: true,
                }
            }
            Err(error) => Answer::say(format!("{error}\n")),
        })
    }

    fn start(&self, racer: &Member) -> Reply {
        let registry = &self.registry;
        let started = registry.with_races(|races| {
            let started = races.start(racer.id, Instant::now())?;
            let limit = races.limit(started.0);
            Ok::<_, StartError>((started, limit))
        });
        Reply::Now(Answer::say(match started {
            Ok(((race_id, notices), limit)) => {
                registry.deliver(notices);
                if let Some(limit) = limit {
                    registry.race_clock(race_id, limit);
                }
                tracing::info!(race = race_id, host = %racer.name, "race started");
                format!("Race {race_id} starts now.\n")
            }
            Err(error) => format!("{error}\n"),
        }))
    }

    fn standings(&self, racer: &Member) -> Reply {
        let now = Instant::now();
        let table = self
            .registry
            .with_races(|races| races.standings(races.race_of(racer.id)?, now));
        Reply::Now(Answer::say(
            table.unwrap_or_else(|| String::from(NOT_IN_A_RACE)),
        ))
    }

    fn leave(&self, racer: &Member) -> Option<RaceId> {
        let registry = &self.registry;
        let (race, notices) = registry.with_races(|races| races.leave(racer.id, Instant::now()))?;
        registry.deliver(notices);
        Some(race)
    }

    fn progress(&self, racer: &Member, progress: Progress) -> Option<String> {
        let registry = &self.registry;
        let (notices, own) =
            registry.with_races(|races| races.progress(racer.id, progress, Instant::now()));
        registry.deliver(notices);
        own
    }
}

/// A racer's name as the races keep it.
pub fn racer_name(name: &PlayerName) -> Arc<str> {
    Arc::from(name.as_str())
}

/// Tell a racer of another instance, as a line of its own, what its progress made of
/// it (done in the race).
pub fn tell_racer(racer: &Member, own: &str) {
    let _ = racer
        .inbox
        .send(Message::Line(Arc::from(own.trim_end_matches('\n'))));
}

impl Registry {
    /// Run race `race_id`'s clock: its time is up `left` from now.
    pub fn race_clock(&self, race_id: RaceId, left: std::time::Duration) {
        let timer_registry = self.clone();
        let timer = tokio::spawn(async move {
            tokio::time::sleep(left).await;
            let notices = timer_registry.with_races(|races| races.time_up(race_id));
            timer_registry.deliver(notices);
        });
        self.time_race(race_id, timer.abort_handle());
    }

    /// Keep race `race`'s timer, to abort it when the race closes (at once if it is
    /// closed already).
    pub fn time_race(&self, race: RaceId, timer: tokio::task::AbortHandle) {
        let races = self
            .shared
            .races
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !races.has(race) {
            timer.abort();
            return;
        }
        let mut timers = self
            .shared
            .race_timers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(old) = timers.insert(race, timer) {
            old.abort();
        }
    }

    /// How many race timers are running: for the tests and /metrics.
    pub fn race_timers(&self) -> usize {
        self.shared
            .race_timers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}
