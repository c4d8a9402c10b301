//! The races as they move to a new server process in an upgrade (SPEC section 11):
//! every race with its game, host, racers, their progress and places, its audience,
//! and its clock (how long it has run, against its limit), with sessions named by
//! number. The new process puts them back with its own inboxes for the same numbers,
//! and the clock goes on from where it was.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::catalog::table::GameKind;
use crate::games::Progress;

use super::ids::{Member, RaceGame, RaceId};
use super::rules::Races;
use super::standings::{Phase, Race, Racer, State};

/// Every race, as it moves.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct RacesState {
    races: Vec<RaceState>,
    /// Each racer's (and each non-racing host's) race, by session number.
    members: Vec<(u64, RaceId)>,
    /// Who watches which race, by session number.
    watching: Vec<(u64, RaceId)>,
    last_id: RaceId,
    first: RaceId,
}

#[derive(Debug, Serialize, Deserialize)]
struct RaceState {
    id: RaceId,
    game: String,
    args: Vec<String>,
    world: Option<String>,
    host: MemberState,
    host_races: bool,
    limit_ms: Option<u64>,
    racers: Vec<RacerState>,
    audience: Vec<u64>,
    /// How long it has run, once started.
    running_ms: Option<u64>,
    alone_confirmed: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct MemberState {
    number: u64,
    name: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct RacerState {
    member: MemberState,
    progress: Progress,
    reported: bool,
    /// How long it took, once done; `left` when it left.
    done_ms: Option<u64>,
    left: bool,
}

/// What each running race with a limit has left of it.
pub type Clocks = Vec<(RaceId, Duration)>;

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl<K: Copy + Eq + Hash + Debug, I: Clone + Debug> Races<K, I> {
    /// Every race at `now`, sessions named by `number` (`None`: a session that cannot
    /// move, such as another instance's; the races then refuse to move, and why).
    ///
    /// # Errors
    /// The first race with a member that cannot move, in words for the admin.
    pub fn pack(
        &self,
        now: Instant,
        number: impl Fn(K) -> Option<u64>,
    ) -> Result<RacesState, String> {
        let member = |member: &Member<K, I>, race: RaceId| {
            number(member.id)
                .map(|number| MemberState {
                    number,
                    name: member.name.to_string(),
                })
                .ok_or_else(|| {
                    format!(
                        "{} in race {race} is on another instance: races with players of other instances do not move",
                        member.name
                    )
                })
        };
        let mut races = Vec::new();
        for race in self.races.values() {
            let racers = race
                .racers
                .iter()
                .map(|racer| {
                    Ok(RacerState {
                        member: member(&racer.member, race.id)?,
                        progress: racer.progress,
                        reported: racer.reported,
                        done_ms: match racer.state {
                            State::Done(took) => Some(millis(took)),
                            _ => None,
                        },
                        left: racer.state == State::Left,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            races.push(RaceState {
                id: race.id,
                game: race.game.kind.name.to_string(),
                args: race.game.args.clone(),
                world: race.game.world.clone(),
                host: member(&race.host, race.id)?,
                host_races: race.host_races,
                limit_ms: race.limit.map(millis),
                racers,
                audience: race
                    .audience
                    .iter()
                    .filter_map(|(id, _)| number(*id))
                    .collect(),
                running_ms: match race.phase {
                    Phase::Open => None,
                    Phase::Running(since) => Some(millis(now.saturating_duration_since(since))),
                },
                alone_confirmed: race.alone_confirmed,
            });
        }
        let numbered = |map: &std::collections::HashMap<K, RaceId>| {
            map.iter()
                .filter_map(|(id, race)| Some((number(*id)?, *race)))
                .collect()
        };
        Ok(RacesState {
            races,
            members: numbered(&self.members),
            watching: numbered(&self.watching),
            last_id: self.last_id,
            first: self.first,
        })
    }

    /// The races of `state` at `now`, each session found by `session` from its number
    /// (its key and inbox; one that did not move is given as it is and marked left).
    /// What the clock has left of each running race with a limit, for its timer.
    ///
    /// # Errors
    /// A race of a game this server does not have.
    pub fn unpack(
        state: RacesState,
        now: Instant,
        session: impl Fn(u64) -> (K, I, bool),
    ) -> Result<(Races<K, I>, Clocks), String> {
        let mut moved = Races {
            races: BTreeMap::new(),
            members: std::collections::HashMap::new(),
            watching: std::collections::HashMap::new(),
            last_id: state.last_id,
            first: state.first,
            closed: Vec::new(),
        };
        let mut timers = Vec::new();
        let member = |member: MemberState| {
            let (id, inbox, here) = session(member.number);
            (
                Member {
                    id,
                    name: Arc::from(member.name),
                    inbox,
                },
                here,
            )
        };
        for race in state.races {
            let kind = GameKind::from_name(&race.game).ok_or_else(|| {
                format!(
                    "race {} is of a game this server does not have: {}",
                    race.id, race.game
                )
            })?;
            let (host, _) = member(race.host);
            let mut racers = Vec::new();
            for racer in race.racers {
                let (member, here) = member(racer.member);
                let state = match (racer.done_ms, racer.left || !here) {
                    (Some(took), _) => State::Done(Duration::from_millis(took)),
                    (None, true) => State::Left,
                    (None, false) => State::Racing,
                };
                racers.push(Racer {
                    member,
                    progress: racer.progress,
                    reported: racer.reported,
                    state,
                });
            }
            let audience: Vec<(K, I)> = race
                .audience
                .into_iter()
                .map(&session)
                .filter(|(_, _, here)| *here)
                .map(|(id, inbox, _)| (id, inbox))
                .collect();
            let limit = race.limit_ms.map(Duration::from_millis);
            let phase = match race.running_ms {
                None => Phase::Open,
                Some(ran) => {
                    let ran = Duration::from_millis(ran);
                    if let Some(limit) = limit {
                        timers.push((race.id, limit.saturating_sub(ran)));
                    }
                    Phase::Running(now.checked_sub(ran).unwrap_or(now))
                }
            };
            moved.races.insert(
                race.id,
                Race {
                    id: race.id,
                    game: Arc::new(RaceGame {
                        kind,
                        args: race.args,
                        world: race.world,
                    }),
                    host,
                    host_races: race.host_races,
                    limit,
                    racers,
                    audience,
                    phase,
                    alone_confirmed: race.alone_confirmed,
                },
            );
        }
        for (number, race) in state.members {
            let (id, _, _) = session(number);
            moved.members.insert(id, race);
        }
        for (number, race) in state.watching {
            let (id, _, here) = session(number);
            if here {
                moved.watching.insert(id, race);
            }
        }
        Ok((moved, timers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Outcome;

    type Races = super::Races<u64, &'static str>;

    fn member(id: u64, name: &str) -> Member<u64, &'static str> {
        Member {
            id,
            name: Arc::from(name),
            inbox: "old",
        }
    }

    #[test]
    fn races_move_with_their_places_and_their_clock() {
        let mut races = Races::default();
        let game = RaceGame {
            kind: GameKind::from_name("sokoban").expect("sokoban"),
            args: vec![String::from("classic")],
            world: None,
        };
        let started = Instant::now();
        let race = races
            .open(
                member(1, "ann"),
                game.clone(),
                Some(Duration::from_secs(60)),
                None,
            )
            .expect("opened")
            .id;
        races.join(race, member(2, "bob")).expect("bob joins");
        races.join(race, member(3, "cy")).expect("cy joins");
        races.start(1, started).expect("started");
        let solved = Progress {
            moves: 12,
            placed: Some((2, 2)),
            ended: Some(Outcome::Solved),
            ..Progress::default()
        };
        races.progress(1, solved, started + Duration::from_secs(5));
        races.leave(3, started + Duration::from_secs(6));
        // A second race, still open, and someone watching the first.
        let second = races
            .open(member(4, "dee"), game, None, None)
            .expect("opened")
            .id;
        races.watch(race, 5, "old", started).expect("watching");
        let at = started + Duration::from_secs(10);
        let before = races.standings(race, at).expect("standings");
        let state = races.pack(at, Some).expect("packed");
        let json = serde_json::to_string(&state).expect("written");
        let state: RacesState = serde_json::from_str(&json).expect("read");
        // In the new process, 1 ms of its own clock later; cy's session did not move.
        let now = Instant::now();
        let (mut moved, clocks) =
            Races::unpack(state, now, |number| (number, "new", number != 3)).expect("unpacked");
        assert_eq!(moved.standings(race, now).expect("standings"), before);
        assert_eq!(moved.race_of(2), Some(race));
        assert_eq!(moved.race_of(4), Some(second));
        assert_eq!(clocks.len(), 1);
        assert_eq!(clocks[0].0, race);
        assert!(clocks[0].1 <= Duration::from_secs(50), "{clocks:?}");
        assert!(clocks[0].1 > Duration::from_secs(49), "{clocks:?}");
        // The race goes on: bob solves it, and the places come out as they would have.
        let (notices, done) = moved.progress(2, solved, now + Duration::from_secs(1));
        assert!(done.is_some(), "bob is done");
        let over = notices
            .iter()
            .any(|notice| matches!(&notice.what, crate::races::ids::Tell::Line(line) if line.contains("Race over")));
        assert!(over, "{notices:?}");
        assert!(notices
            .iter()
            .all(|notice| notice.to.iter().all(|inbox| *inbox == "new")));
        // A member of another instance cannot move.
        let refused = races.pack(at, |id| (id != 2).then_some(id));
        assert!(refused.is_err_and(|why| why.contains("bob in race 1")));
    }
}
