//! Races (SPEC section 9): the same game for several players at once, who is in
//! which race, everyone's progress, the standings and the places.
//!
//! Races are plain data and rules. The registry keeps them behind one lock
//! ([`crate::players::registry::Registry`]) and never across an `.await`: each method here
//! changes the races and returns what to tell whom ([`Notice`]), which the registry
//! sends once it has let go of the lock. Times come in as arguments, so the rules are
//! tested without a clock.
//!
//! Choices where the spec is silent (docs/decisions.md, "Races"):
//! - The host races too, except an admin's `race ... all` (a teacher opens it for the
//!   class); before the start a host who leaves hands the race to the first who
//!   joined, and a race nobody is left in closes.
//! - A racer is done when the game ends by its rules ([`Progress::ended`]): solved,
//!   2048's win tile or no move left, out of the cave or dead. Leaving the game, or the
//!   connection, before that is "left". The race is over when every racer is done or
//!   has left, or when its time limit runs out.
//! - Places: first those who reached the goal (solved; the win tile; out with the
//!   gold), by time in whole seconds, ties to fewer moves; then the others by how far
//!   they got (boxes on goals; score; the gold), then fewer moves; the dead after
//!   them; those who left last.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::games::Progress;
pub use crate::races::ids::{
    JoinError, Listed, Member, Notice, RaceGame, RaceId, StartError, Tell, MAX_RACERS,
};
pub use crate::races::standings::{clock, how_far, limit_words, milestone};
use crate::races::standings::{describe, news, racers, Phase, Race, Racer, State, WATCHED_ROWS};

/// Every race of the server, and who is in which.
#[derive(Debug)]
pub struct Races<K, I> {
    pub(super) races: BTreeMap<RaceId, Race<K, I>>,
    /// Each racer's (and each non-racing host's) race.
    pub(super) members: HashMap<K, RaceId>,
    /// Who watches which race.
    pub(super) watching: HashMap<K, RaceId>,
    pub(super) last_id: RaceId,
    /// With `--bus`, this instance's races are numbered from `first` up (instance `k`
    /// from `k` × [`IDS_PER_INSTANCE`]), so that a race's number names it on every
    /// instance; 0 on its own.
    pub(super) first: RaceId,
    /// Races closed since the keeper of the races last asked ([`Races::take_closed`]):
    /// what it holds for a race (a timer) goes with it.
    pub(super) closed: Vec<RaceId>,
}

impl<K, I> Default for Races<K, I> {
    fn default() -> Self {
        Races {
            races: BTreeMap::new(),
            members: HashMap::new(),
            watching: HashMap::new(),
            last_id: 0,
            first: 0,
            closed: Vec::new(),
        }
    }
}

/// How many race numbers each instance on a bus has to itself.
pub const IDS_PER_INSTANCE: RaceId = 10_000;

/// What opening a race did.
#[derive(Debug)]
pub struct Opened<I> {
    /// Its number.
    pub id: RaceId,
    /// The invitations, for `all`.
    pub notices: Vec<Notice<I>>,
}

impl<K: Copy + Eq + Hash + Debug, I: Clone + Debug> Races<K, I> {
    /// Open a race of `game` hosted by `host`, who races unless `invite` lists the
    /// players to invite instead (an admin's `race ... all`).
    ///
    /// # Errors
    /// [`JoinError::InRace`] when the host is in a race already.
    pub fn open(
        &mut self,
        host: Member<K, I>,
        game: RaceGame,
        limit: Option<Duration>,
        invite: Option<Vec<I>>,
    ) -> Result<Opened<I>, JoinError> {
        if let Some(race) = self.members.get(&host.id) {
            return Err(JoinError::InRace(*race));
        }
        let id = self.next_id();
        let host_races = invite.is_none();
        let game = Arc::new(game);
        let mut notices = Vec::new();
        if let Some(invited) = invite {
            let line = format!(
                "[race {id}] {} invites you to race {}{}: type join {id}.",
                host.name,
                game.label(),
                limit_words(limit)
            );
            notices.push(Notice {
                to: invited,
                what: Tell::Line(Arc::from(line)),
            });
        }
        let racers = if host_races {
            vec![Racer::new(host.clone())]
        } else {
            Vec::new()
        };
        self.members.insert(host.id, id);
        self.races.insert(
            id,
            Race {
                id,
                game,
                host,
                host_races,
                limit,
                racers,
                audience: Vec::new(),
                phase: Phase::Open,
                alone_confirmed: false,
            },
        );
        Ok(Opened { id, notices })
    }

    /// Number this instance's races from instance `instance`'s own range (`--bus`).
    pub fn number_for_instance(&mut self, instance: u64) {
        let instance = RaceId::try_from(instance).unwrap_or(RaceId::MAX);
        self.first = instance.saturating_mul(IDS_PER_INSTANCE);
        self.last_id = 0;
    }

    /// The next free race number: 1, 2, 3... on its own; on a bus, within this
    /// instance's range, wrapping round past its end and skipping races still open.
    fn next_id(&mut self) -> RaceId {
        loop {
            self.last_id += 1;
            if self.first > 0 && self.last_id >= IDS_PER_INSTANCE {
                self.last_id = 1;
            }
            let id = self.first.saturating_add(self.last_id);
            if !self.races.contains_key(&id) {
                return id;
            }
        }
    }

    /// The races closed since the last call, whatever closed them (their end, their
    /// last racer gone, a disconnection).
    pub fn take_closed(&mut self) -> Vec<RaceId> {
        std::mem::take(&mut self.closed)
    }

    /// Whether race `race` is one of this instance's.
    pub fn has(&self, race: RaceId) -> bool {
        self.races.contains_key(&race)
    }

    /// The race session `id` is in (racing, or hosting).
    pub fn race_of(&self, id: K) -> Option<RaceId> {
        self.members.get(&id).copied()
    }

    /// The race session `id` races in and waits for the start of, if any.
    pub fn waiting(&self, id: K) -> Option<RaceId> {
        let race = self.races.get(self.members.get(&id)?)?;
        (race.phase == Phase::Open && race.racers.iter().any(|racer| racer.member.id == id))
            .then_some(race.id)
    }

    /// The game of race `race`.
    pub fn game(&self, race: RaceId) -> Option<Arc<RaceGame>> {
        self.races.get(&race).map(|race| Arc::clone(&race.game))
    }

    /// The open races, for `races`.
    pub fn list(&self, now: Instant) -> Vec<Listed> {
        self.races
            .values()
            .map(|race| Listed {
                id: race.id,
                label: race.game.label(),
                host: race.host.name.clone(),
                racers: race.racers.len(),
                running: match race.phase {
                    Phase::Open => None,
                    Phase::Running(started) => Some(now.saturating_duration_since(started)),
                },
                limit: race.limit,
            })
            .collect()
    }

    /// `join N`: the race's game and how many race now, and what the others hear.
    ///
    /// # Errors
    /// [`JoinError`]: no such race, started, full, or the player is in a race.
    pub fn join(
        &mut self,
        race_id: RaceId,
        member: Member<K, I>,
    ) -> Result<(String, usize, Arc<str>, Notice<I>), JoinError> {
        if let Some(race) = self.members.get(&member.id) {
            return Err(JoinError::InRace(*race));
        }
        let race = self
            .races
            .get_mut(&race_id)
            .ok_or(JoinError::NoRace(race_id))?;
        if race.phase != Phase::Open {
            return Err(JoinError::Started(race_id));
        }
        if race.racers.len() >= MAX_RACERS {
            return Err(JoinError::Full(race_id));
        }
        let line = format!(
            "[race {race_id}] {} joined ({}).",
            member.name,
            racers(race.racers.len() + 1)
        );
        let notice = Notice {
            to: race.hearers(Some(member.id)),
            what: Tell::Line(Arc::from(line)),
        };
        self.members.insert(member.id, race_id);
        race.racers.push(Racer::new(member));
        Ok((
            format!("{}{}", race.game.label(), limit_words(race.limit)),
            race.racers.len(),
            race.host.name.clone(),
            notice,
        ))
    }

    /// Session `id` leaves its race (`leave`, the game left, the connection gone):
    /// which race, and what to tell. Before the start the racer is gone from it; after
    /// it, a racer not yet done is kept as "left".
    pub fn leave(&mut self, id: K, now: Instant) -> Option<(RaceId, Vec<Notice<I>>)> {
        let race_id = self.members.remove(&id)?;
        let race = self.races.get_mut(&race_id)?;
        let mut notices = Vec::new();
        let name = race
            .racers
            .iter()
            .find(|racer| racer.member.id == id)
            .map_or_else(|| race.host.name.clone(), |racer| racer.member.name.clone());
        match race.phase {
            Phase::Open => {
                race.racers.retain(|racer| racer.member.id != id);
                let line = format!(
                    "[race {race_id}] {name} left ({}).",
                    racers(race.racers.len())
                );
                notices.push(Notice {
                    to: race.hearers(Some(id)),
                    what: Tell::Line(Arc::from(line)),
                });
                if race.host.id == id {
                    match race.racers.first() {
                        Some(next) => {
                            race.host = next.member.clone();
                            race.host_races = true;
                            race.alone_confirmed = false;
                            let line = format!(
                                "[race {race_id}] {} is the host now: start starts the race.",
                                race.host.name
                            );
                            notices.push(Notice {
                                to: race.hearers(None),
                                what: Tell::Line(Arc::from(line)),
                            });
                        }
                        None => {
                            let closed = format!(
                                "[race {race_id}] Race {race_id} is closed: nobody is in it."
                            );
                            let audience: Vec<I> = race
                                .audience
                                .iter()
                                .map(|(_, inbox)| inbox.clone())
                                .collect();
                            // Its watchers see why, then stop watching.
                            notices.push(Notice {
                                to: audience.clone(),
                                what: Tell::Line(Arc::from(closed)),
                            });
                            notices.push(Notice {
                                to: audience,
                                what: Tell::Stop(race_id),
                            });
                            self.close(race_id);
                        }
                    }
                }
            }
            Phase::Running(_) => {
                if let Some(racer) = race.racers.iter_mut().find(|racer| racer.member.id == id) {
                    if racer.state == State::Racing {
                        racer.state = State::Left;
                        let line = format!("[race {race_id}] {name} left the race.");
                        notices.push(Notice {
                            to: race.hearers(Some(id)),
                            what: Tell::Line(Arc::from(line)),
                        });
                        notices.extend(race.watched(now));
                    }
                }
                if race.is_over() {
                    notices.extend(self.finish(race_id));
                }
            }
        }
        Some((race_id, notices))
    }

    /// `start` by session `id`: the notices that start every racer's game.
    ///
    /// # Errors
    /// [`StartError`]: not in a race, not its host, started, or nobody to race.
    pub fn start(&mut self, id: K, now: Instant) -> Result<(RaceId, Vec<Notice<I>>), StartError> {
        let race_id = *self.members.get(&id).ok_or(StartError::NotInRace)?;
        let race = self.races.get_mut(&race_id).ok_or(StartError::NotInRace)?;
        if race.phase != Phase::Open {
            return Err(StartError::Started(race_id));
        }
        if race.host.id != id {
            return Err(StartError::NotHost {
                race: race_id,
                host: race.host.name.clone(),
            });
        }
        if race.racers.is_empty() {
            return Err(StartError::Empty(race_id));
        }
        if race.racers.len() == 1 && race.host_races && !race.alone_confirmed {
            race.alone_confirmed = true;
            return Err(StartError::Alone(race_id));
        }
        race.phase = Phase::Running(now);
        let line = format!(
            "[race {race_id}] Go! {}{}.",
            racers(race.racers.len()),
            limit_words(race.limit)
        );
        let racers: Vec<I> = race
            .racers
            .iter()
            .map(|racer| racer.member.inbox.clone())
            .collect();
        // Racers see their game begin (`Race N: go!`); a host who does not race hears
        // it here.
        let host = if race.host_races {
            Vec::new()
        } else {
            vec![race.host.inbox.clone()]
        };
        let mut notices = vec![
            Notice {
                to: host,
                what: Tell::Line(Arc::from(line)),
            },
            Notice {
                to: racers,
                what: Tell::Start(race_id, Arc::clone(&race.game)),
            },
        ];
        notices.extend(race.watched(now));
        Ok((race_id, notices))
    }

    /// The time limit of race `race`, once it has started.
    pub fn limit(&self, race: RaceId) -> Option<Duration> {
        self.races.get(&race).and_then(|race| race.limit)
    }

    /// Racer `id`'s game has got to `progress`: what the others hear, and the words
    /// for the racer when this made the racer done.
    pub fn progress(
        &mut self,
        id: K,
        progress: Progress,
        now: Instant,
    ) -> (Vec<Notice<I>>, Option<String>) {
        let Some(&race_id) = self.members.get(&id) else {
            return (Vec::new(), None);
        };
        let Some(race) = self.races.get_mut(&race_id) else {
            return (Vec::new(), None);
        };
        let Phase::Running(started) = race.phase else {
            return (Vec::new(), None);
        };
        let Some(racer) = race.racers.iter_mut().find(|racer| racer.member.id == id) else {
            return (Vec::new(), None);
        };
        if racer.state != State::Racing {
            return (Vec::new(), None);
        }
        // The first report is the game's opening position: nothing to tell.
        let before = if racer.reported {
            racer.progress
        } else {
            progress
        };
        racer.reported = true;
        racer.progress = progress;
        let after = now.saturating_duration_since(started);
        let news = news(&before, &progress, after);
        let mut own = None;
        if progress.ended.is_some() {
            racer.state = State::Done(after);
            own = Some(format!(
                "You are done in race {race_id}: {}.\n",
                describe(&progress, racer.state)
            ));
        }
        let name = racer.member.name.clone();
        let mut notices = Vec::new();
        if let Some(news) = news {
            let line = format!("[race {race_id}] {name} {news}");
            notices.push(Notice {
                to: race.hearers(Some(id)),
                what: Tell::Line(Arc::from(line)),
            });
        }
        if !race.audience.is_empty() && (before != progress) {
            notices.extend(race.watched(now));
        }
        if race.is_over() {
            notices.extend(self.finish(race_id));
        }
        (notices, own)
    }

    /// The time limit of race `race` ran out: it is over.
    pub fn time_up(&mut self, race_id: RaceId) -> Vec<Notice<I>> {
        let Some(race) = self.races.get(&race_id) else {
            return Vec::new();
        };
        if race.phase == Phase::Open {
            return Vec::new();
        }
        let line = format!("[race {race_id}] Time is up.");
        let mut notices = vec![Notice {
            to: race.hearers(None),
            what: Tell::Line(Arc::from(line)),
        }];
        notices.extend(self.finish(race_id));
        notices
    }

    /// The standings of race `race`, every racer.
    pub fn standings(&self, race: RaceId, now: Instant) -> Option<String> {
        self.standings_top(race, now, usize::MAX)
    }

    /// The standings of race `race`, its first `rows` places and how many more: what
    /// the web page's live table shows, made under the races' lock every half second,
    /// so no longer than shown.
    pub fn standings_top(&self, race: RaceId, now: Instant, rows: usize) -> Option<String> {
        self.races.get(&race).map(|race| race.table(now, rows))
    }

    /// `watch race N`: the standings to show at once.
    ///
    /// # Errors
    /// [`JoinError::NoRace`] when there is no such race.
    pub fn watch(
        &mut self,
        race_id: RaceId,
        watcher: K,
        inbox: I,
        now: Instant,
    ) -> Result<String, JoinError> {
        let race = self
            .races
            .get_mut(&race_id)
            .ok_or(JoinError::NoRace(race_id))?;
        race.audience.retain(|(id, _)| *id != watcher);
        race.audience.push((watcher, inbox));
        self.watching.insert(watcher, race_id);
        Ok(race.table(now, WATCHED_ROWS))
    }

    /// Session `watcher` stops watching a race.
    pub fn unwatch(&mut self, watcher: K) {
        if let Some(race_id) = self.watching.remove(&watcher) {
            if let Some(race) = self.races.get_mut(&race_id) {
                race.audience.retain(|(id, _)| *id != watcher);
            }
        }
    }

    /// The race is over: the places to everyone still in it, and those still playing
    /// stop.
    fn finish(&mut self, race_id: RaceId) -> Vec<Notice<I>> {
        let Some(race) = self.close(race_id) else {
            return Vec::new();
        };
        let mut text = format!("[race {race_id}] Race over. Places:\n");
        text.push_str(race.rows(usize::MAX).trim_end());
        tracing::info!(race = race_id, game = %race.game.label(), places = %text, "race over");
        let playing: Vec<I> = race
            .racers
            .iter()
            .filter(|racer| racer.state == State::Racing)
            .map(|racer| racer.member.inbox.clone())
            .collect();
        let audience: Vec<I> = race
            .audience
            .iter()
            .map(|(_, inbox)| inbox.clone())
            .collect();
        let mut everyone = race.hearers(None);
        everyone.extend(audience.iter().cloned());
        // Those still playing stop first, so that the places come after their game's
        // last words; those watching see the places, then stop watching.
        vec![
            Notice {
                to: playing,
                what: Tell::Stop(race_id),
            },
            Notice {
                to: everyone,
                what: Tell::Line(Arc::from(text)),
            },
            Notice {
                to: audience,
                what: Tell::Stop(race_id),
            },
        ]
    }

    /// Remove race `race_id` and everyone's membership of it.
    fn close(&mut self, race_id: RaceId) -> Option<Race<K, I>> {
        let race = self.races.remove(&race_id)?;
        self.closed.push(race_id);
        self.members.retain(|_, race| *race != race_id);
        self.watching.retain(|_, race| *race != race_id);
        Some(race)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::table::GameKind;
    use crate::games::Outcome;
    use crate::games::Tiles;

    /// A racer's inbox in these tests: the lines it got.
    #[derive(Debug, Clone, Default)]
    struct Lines(Arc<std::sync::Mutex<Vec<String>>>);

    type Member = super::Member<u64, Lines>;
    type Notice = super::Notice<Lines>;
    type Races = super::Races<u64, Lines>;

    struct Someone {
        member: Member,
        inbox: Lines,
    }

    fn someone(n: u64, name: &str) -> Someone {
        let inbox = Lines::default();
        Someone {
            member: Member {
                id: n,
                name: Arc::from(name),
                inbox: inbox.clone(),
            },
            inbox,
        }
    }

    fn sokoban() -> RaceGame {
        RaceGame {
            kind: GameKind::from_name("sokoban").unwrap(),
            args: vec![String::from("classic")],
            world: None,
        }
    }

    fn boxes(placed: usize, moves: u64, solved: bool) -> Progress {
        Progress {
            moves,
            placed: Some((placed, 3)),
            ended: solved.then_some(Outcome::Solved),
            ..Progress::default()
        }
    }

    /// Deliver the notices as the registry does; each inbox keeps its lines.
    fn deliver(notices: Vec<Notice>) {
        for notice in notices {
            for to in notice.to {
                let line = match &notice.what {
                    Tell::Line(line) | Tell::Frame(line) => line.to_string(),
                    Tell::Start(race, _) => format!("start {race}"),
                    Tell::Stop(race) => format!("stop {race}"),
                };
                to.0.lock().unwrap().push(line);
            }
        }
    }

    fn lines(someone: &mut Someone) -> Vec<String> {
        std::mem::take(&mut *someone.inbox.0.lock().unwrap())
    }

    #[test]
    fn a_race_of_three_from_open_to_places() {
        let mut races = Races::default();
        let t0 = Instant::now();
        let mut ann = someone(1, "ann");
        let mut bob = someone(2, "bob");
        let mut cy = someone(3, "cy");
        let opened = races
            .open(ann.member.clone(), sokoban(), None, None)
            .unwrap();
        assert!(opened.notices.is_empty());
        let id = opened.id;
        let (_, count, host, notice) = races.join(id, bob.member.clone()).unwrap();
        assert_eq!((count, &*host), (2, "ann"));
        deliver(vec![notice]);
        assert_eq!(
            lines(&mut ann),
            [format!("[race {id}] bob joined (2 racers).")]
        );
        let (.., notice) = races.join(id, cy.member.clone()).unwrap();
        deliver(vec![notice]);
        assert_eq!(
            races.start(bob.member.id, t0).err(),
            Some(StartError::NotHost {
                race: id,
                host: Arc::from("ann")
            })
        );
        let (_, notices) = races.start(ann.member.id, t0).unwrap();
        deliver(notices);
        assert_eq!(lines(&mut cy), [format!("start {id}")]);
        assert_eq!(
            races.join(id, someone(4, "di").member).err(),
            Some(JoinError::Started(id))
        );
        for racer in [&ann, &bob, &cy] {
            let (notices, _) = races.progress(racer.member.id, boxes(0, 0, false), t0);
            assert!(notices.is_empty(), "the opening position is no news");
        }
        // bob places a box: the others hear it, bob does not.
        let (notices, own) = races.progress(
            bob.member.id,
            boxes(1, 5, false),
            t0 + Duration::from_secs(3),
        );
        assert!(own.is_none());
        deliver(notices);
        assert_eq!(
            lines(&mut ann).last().unwrap(),
            &format!("[race {id}] bob placed a box (1/3).")
        );
        assert!(!lines(&mut bob)
            .iter()
            .any(|line| line.contains("placed a box")));
        // A move that places nothing says nothing.
        let (notices, _) = races.progress(
            bob.member.id,
            boxes(1, 6, false),
            t0 + Duration::from_secs(4),
        );
        assert!(notices.is_empty());
        // cy solves at 10.2 s with 40 moves, ann at 10.9 s with 30: the same second, so
        // fewer moves comes first.
        let (notices, own) = races.progress(
            cy.member.id,
            boxes(3, 40, true),
            t0 + Duration::from_millis(10_200),
        );
        assert_eq!(
            own.as_deref(),
            Some(format!("You are done in race {id}: solved, 40 moves, in 10s.\n").as_str())
        );
        deliver(notices);
        assert_eq!(
            lines(&mut ann).last().unwrap(),
            &format!("[race {id}] cy solved it in 10s: 40 moves.")
        );
        let (notices, _) = races.progress(
            ann.member.id,
            boxes(3, 30, true),
            t0 + Duration::from_millis(10_900),
        );
        deliver(notices);
        let standings = races.standings(id, t0 + Duration::from_secs(12)).unwrap();
        assert!(standings.contains("1. ann"), "{standings}");
        assert!(standings.contains("2. cy"), "{standings}");
        assert!(
            standings.contains("3. bob               1/3 boxes, 6 moves"),
            "{standings}"
        );
        // bob's connection drops: kept as left, and the race is over.
        let (_, notices) = races
            .leave(bob.member.id, t0 + Duration::from_secs(20))
            .unwrap();
        deliver(notices);
        let last = lines(&mut ann).pop().unwrap();
        assert_eq!(
            last,
            format!(
                "[race {id}] Race over. Places:\n    1. ann               solved, 30 moves, in 10s\n    2. cy                solved, 40 moves, in 10s\n    3. bob               left (1/3 boxes, 6 moves)"
            )
        );
        assert_eq!(lines(&mut cy).pop().unwrap(), last);
        assert!(races.list(t0).is_empty());
        assert_eq!(races.race_of(ann.member.id), None);
    }

    #[test]
    fn the_host_leaving_before_the_start_hands_the_race_on_and_an_empty_race_closes() {
        let mut races = Races::default();
        let now = Instant::now();
        let mut ann = someone(1, "ann");
        let mut bob = someone(2, "bob");
        let id = races
            .open(ann.member.clone(), sokoban(), None, None)
            .unwrap()
            .id;
        assert_eq!(
            races.open(ann.member.clone(), sokoban(), None, None).err(),
            Some(JoinError::InRace(id))
        );
        races.join(id, bob.member.clone()).unwrap();
        let (_, notices) = races.leave(ann.member.id, now).unwrap();
        deliver(notices);
        assert_eq!(
            lines(&mut bob),
            [
                format!("[race {id}] ann left (1 racer)."),
                format!("[race {id}] bob is the host now: start starts the race.")
            ]
        );
        assert!(lines(&mut ann).is_empty());
        // Alone: the first start asks, the second starts.
        assert_eq!(
            races.start(bob.member.id, now).err(),
            Some(StartError::Alone(id))
        );
        assert!(races.start(bob.member.id, now).is_ok());
        // A race nobody is left in closes.
        let other = races
            .open(ann.member.clone(), sokoban(), None, None)
            .unwrap()
            .id;
        races.leave(ann.member.id, now).unwrap();
        assert_eq!(
            races.join(other, ann.member.clone()).err(),
            Some(JoinError::NoRace(other))
        );
    }

    #[test]
    fn an_admins_race_invites_and_its_host_does_not_race() {
        let mut races = Races::default();
        let now = Instant::now();
        let mut teacher = someone(1, "teacher");
        let mut student = someone(2, "student");
        let opened = races
            .open(
                teacher.member.clone(),
                sokoban(),
                Some(Duration::from_secs(300)),
                Some(vec![student.member.inbox.clone()]),
            )
            .unwrap();
        deliver(opened.notices);
        assert_eq!(
            lines(&mut student),
            [format!(
                "[race {}] teacher invites you to race sokoban classic (time 5m00s): type join {}.",
                opened.id, opened.id
            )]
        );
        assert_eq!(
            races.start(teacher.member.id, now).err(),
            Some(StartError::Empty(opened.id))
        );
        races.join(opened.id, student.member.clone()).unwrap();
        let (_, notices) = races.start(teacher.member.id, now).unwrap();
        deliver(notices);
        assert_eq!(
            lines(&mut teacher),
            [format!("[race {}] Go! 1 racer (time 5m00s).", opened.id)]
        );
        // Time runs out: the student still playing is stopped, and everyone gets places.
        let notices = races.time_up(opened.id);
        deliver(notices);
        let got = lines(&mut student);
        assert!(got.contains(&format!("stop {}", opened.id)), "{got:?}");
        assert!(
            got.last()
                .unwrap()
                .contains("Race over. Places:\n    1. student"),
            "{got:?}"
        );
    }

    #[test]
    fn a_tie_in_time_and_moves_goes_to_the_first_to_finish() {
        let mut races = Races::default();
        let t0 = Instant::now();
        let ann = someone(1, "ann");
        let bob = someone(2, "bob");
        let id = races
            .open(ann.member.clone(), sokoban(), None, None)
            .unwrap()
            .id;
        races.join(id, bob.member.clone()).unwrap();
        races.start(ann.member.id, t0).unwrap();
        // bob joined last and finishes first, within the same second as ann.
        races.progress(
            bob.member.id,
            boxes(3, 9, true),
            t0 + Duration::from_millis(2_100),
        );
        let (notices, _) = races.progress(
            ann.member.id,
            boxes(3, 9, true),
            t0 + Duration::from_millis(2_800),
        );
        deliver(notices);
        let table = races.standings(id, t0 + Duration::from_secs(3));
        assert!(table.is_none(), "everyone is done: the race is over");
        let mut ann = ann;
        let places = lines(&mut ann).pop().unwrap();
        assert!(places.contains("1. bob "), "{places}");
        assert!(places.contains("2. ann "), "{places}");
    }

    #[test]
    fn a_full_race_takes_no_one_more() {
        let mut races = Races::default();
        let host = someone(0, "host");
        let id = races
            .open(host.member.clone(), sokoban(), None, None)
            .unwrap()
            .id;
        let mut inboxes = Vec::new();
        for n in 1..MAX_RACERS as u64 {
            let racer = someone(n, &format!("r{n}"));
            races.join(id, racer.member.clone()).unwrap();
            inboxes.push(racer);
        }
        let late = someone(MAX_RACERS as u64, "late");
        assert_eq!(races.join(id, late.member).err(), Some(JoinError::Full(id)));
        assert_eq!(
            JoinError::Full(id).to_string(),
            format!("Race {id} is full (500 racers).")
        );
        // One who leaves makes room.
        races.leave(inboxes[0].member.id, Instant::now()).unwrap();
        assert!(races.join(id, someone(1000, "next").member).is_ok());
    }

    #[test]
    fn a_race_closed_before_its_start_lets_its_watchers_go() {
        let mut races = Races::default();
        let now = Instant::now();
        let host = someone(1, "host");
        let mut watcher = someone(2, "watcher");
        let id = races
            .open(host.member.clone(), sokoban(), None, None)
            .unwrap()
            .id;
        let table = races
            .watch(id, watcher.member.id, watcher.member.inbox.clone(), now)
            .unwrap();
        assert!(
            table.starts_with(&format!(
                "Race {id}: sokoban classic, waiting for host to start it; 1 racer.\n"
            )),
            "{table}"
        );
        let (_, notices) = races.leave(host.member.id, now).unwrap();
        deliver(notices);
        assert_eq!(
            lines(&mut watcher),
            [
                format!("[race {id}] Race {id} is closed: nobody is in it."),
                format!("stop {id}")
            ]
        );
    }

    #[test]
    fn tiles_are_news_only_near_the_win_and_the_gold_once() {
        let tiles = |largest, won: bool| Progress {
            moves: 1,
            tiles: Some(Tiles {
                score: 10,
                largest,
                win: 2048,
            }),
            ended: won.then_some(Outcome::Won),
            ..Progress::default()
        };
        let second = Duration::from_secs(1);
        assert_eq!(news(&tiles(16, false), &tiles(32, false), second), None);
        assert_eq!(
            news(&tiles(32, false), &tiles(64, false), second).as_deref(),
            Some("reached 64.")
        );
        assert_eq!(
            news(&tiles(1024, false), &tiles(2048, true), second).as_deref(),
            Some("reached 2048 in 1s: score 10, 1 move.")
        );
        let gold = |gold| Progress {
            gold: Some(gold),
            ..Progress::default()
        };
        assert_eq!(
            news(&gold(false), &gold(true), second).as_deref(),
            Some("grabbed the gold.")
        );
        assert_eq!(news(&gold(true), &gold(true), second), None);
        assert_eq!(milestone(32), 8);
    }
}
