//! One race's racers and the standings: where each racer stands, the table the
//! standings and the places show, and who hears the race's lines.

use std::fmt::Debug;
use std::fmt::Write as _;
use std::hash::Hash;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::games::{Outcome, Progress};
use crate::races::ids::{Member, Notice, RaceGame, RaceId, Tell};

/// The most rows `watch race N` redraws on each change (the standings keep them all).
pub(super) const WATCHED_ROWS: usize = 10;

/// How one racer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// Waiting for the start, or playing.
    Racing,
    /// The game ended by its rules, this long after the start.
    Done(Duration),
    /// Left before being done (the game or the connection).
    Left,
}

#[derive(Debug)]
pub(super) struct Racer<K, I> {
    pub(super) member: Member<K, I>,
    pub(super) progress: Progress,
    /// The game has reported its progress once (its opening position).
    pub(super) reported: bool,
    pub(super) state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Open,
    Running(Instant),
}

/// One race.
#[derive(Debug)]
pub(super) struct Race<K, I> {
    pub(super) id: RaceId,
    pub(super) game: Arc<RaceGame>,
    /// Who may start it.
    pub(super) host: Member<K, I>,
    /// The host is one of the racers (not for an admin's race for everyone).
    pub(super) host_races: bool,
    pub(super) limit: Option<Duration>,
    pub(super) racers: Vec<Racer<K, I>>,
    /// Those who watch the standings (`watch race N`).
    pub(super) audience: Vec<(K, I)>,
    pub(super) phase: Phase,
    /// The host typed `start` alone once: the next one starts.
    pub(super) alone_confirmed: bool,
}

impl<K, I> Racer<K, I> {
    pub(super) fn new(member: Member<K, I>) -> Racer<K, I> {
        Racer {
            member,
            progress: Progress::default(),
            reported: false,
            state: State::Racing,
        }
    }
}

impl<K: Copy + Eq + Hash + Debug, I: Clone + Debug> Race<K, I> {
    /// The racers still in it and a host who does not race, less `except`: who hears
    /// the race's lines.
    pub(super) fn hearers(&self, except: Option<K>) -> Vec<I> {
        let mut hearers: Vec<I> = self
            .racers
            .iter()
            .filter(|racer| racer.state != State::Left && Some(racer.member.id) != except)
            .map(|racer| racer.member.inbox.clone())
            .collect();
        if !self.host_races && Some(self.host.id) != except {
            hearers.push(self.host.inbox.clone());
        }
        hearers
    }

    pub(super) fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Running(_))
            && self.racers.iter().all(|racer| racer.state != State::Racing)
    }

    /// The standings as a frame for the audience, if it has anyone.
    pub(super) fn watched(&self, now: Instant) -> Option<Notice<I>> {
        if self.audience.is_empty() {
            return None;
        }
        Some(Notice {
            to: self
                .audience
                .iter()
                .map(|(_, inbox)| inbox.clone())
                .collect(),
            what: Tell::Frame(Arc::from(self.table(now, WATCHED_ROWS))),
        })
    }

    /// The heading and the first `rows` places.
    pub(super) fn table(&self, now: Instant, rows: usize) -> String {
        let mut text = format!(
            "Race {}: {}{}, ",
            self.id,
            self.game.label(),
            limit_words(self.limit)
        );
        match self.phase {
            Phase::Open => {
                let _ = writeln!(
                    text,
                    "waiting for {} to start it; {}.",
                    self.host.name,
                    racers(self.racers.len())
                );
            }
            Phase::Running(started) => {
                let running = now.saturating_duration_since(started);
                let _ = write!(text, "running for {}", clock(running));
                if let Some(limit) = self.limit {
                    let _ = write!(text, ", {} left", clock(limit.saturating_sub(running)));
                }
                text.push_str(".\n");
            }
        }
        text.push_str(&self.rows(rows));
        text
    }

    /// One line per racer in the order of their places, at most `rows` of them.
    pub(super) fn rows(&self, rows: usize) -> String {
        let mut order: Vec<&Racer<K, I>> = self.racers.iter().collect();
        order.sort_by_key(|racer| rank(racer));
        let mut text = String::new();
        for (place, racer) in order.iter().enumerate().take(rows) {
            let _ = writeln!(
                text,
                "  {:>3}. {:<16}  {}",
                place + 1,
                &*racer.member.name,
                describe(&racer.progress, racer.state)
            );
        }
        if order.len() > rows {
            let _ = writeln!(text, "  ... and {} more", order.len() - rows);
        }
        text
    }
}

/// Where a racer stands: the smaller, the better. Of those who reached the goal in
/// the same second with as many moves, the first to reach it.
pub(super) fn rank<K, I>(racer: &Racer<K, I>) -> (u8, u64, u64, Duration) {
    let progress = &racer.progress;
    let moves = progress.moves;
    match (racer.state, progress.ended) {
        (State::Done(after), Some(Outcome::Solved | Outcome::Won)) => {
            (0, after.as_secs(), moves, after)
        }
        (State::Left, _) => (3, u64::MAX - points(progress), moves, Duration::ZERO),
        (_, Some(Outcome::Died)) => (2, u64::MAX - moves, 0, Duration::ZERO),
        _ => (1, u64::MAX - points(progress), moves, Duration::ZERO),
    }
}

/// How far a racer got towards the goal, for those who did not reach it: the game's
/// own count ([`Progress::points`]).
pub(super) fn points(progress: &Progress) -> u64 {
    progress.points()
}

/// A racer's progress and state in words, for the standings and the places.
pub(super) fn describe(progress: &Progress, state: State) -> String {
    let how = how_far(progress);
    match state {
        State::Racing => how,
        State::Done(after) => format!("{how}, in {}", clock(after)),
        State::Left => format!("left ({how})"),
    }
}

/// How far a game has got, in each game's own words ([`Progress::how_far`]): the
/// standings' and the web page's table.
pub fn how_far(progress: &Progress) -> String {
    progress.how_far()
}

/// What others hear when a racer's progress changes, in the game's own words
/// ([`Progress::news`]), with the racer's time on the race's clock.
pub(super) fn news(before: &Progress, after: &Progress, elapsed: Duration) -> Option<String> {
    after.news(before, || clock(elapsed))
}

/// The smallest 2048 tile worth telling the others about
/// ([`crate::games::twenty48::milestone`]). Public for the load test's racers, which
/// count the lines their moves make others hear.
pub fn milestone(win: u64) -> u64 {
    crate::games::twenty48::milestone(win)
}

/// ` (time 5m00s)` for a race with a limit.
pub fn limit_words(limit: Option<Duration>) -> String {
    limit.map_or_else(String::new, |limit| format!(" (time {})", clock(limit)))
}

/// A duration as the standings show it: `42s`, `1m05s`, `1h02m` ([`crate::text::clock`]).
pub fn clock(duration: Duration) -> String {
    crate::text::clock(duration)
}

/// `N racers`, or `1 racer`: how every line and list of races counts its racers.
pub fn racers(n: usize) -> String {
    crate::text::count(u64::try_from(n).unwrap_or(u64::MAX), "racer", "racers")
}
