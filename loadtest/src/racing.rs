//! What the sessions of a race load (`--race N`) share: each race's setup (its number
//! once its host has opened it, who has joined, who is still in it) and, for every
//! racer, when it sent its moves, so that the others can time the race's lines about
//! it.
//!
//! A progress line (`[race K] NAME reached 16.`) does not say which of NAME's moves
//! caused it. The server makes it while it handles that move, before it answers the
//! move, and NAME sends its next move only after the answer has come. So while NAME has
//! not yet read that answer, its latest move is the cause. Once NAME has read it, NAME
//! notes the move as the one that raised its largest tile to 16 (or ended its game),
//! and a line read after that finds it there. Either way a line is timed from the move
//! that caused it, even when it arrives after NAME's next move (at 1 move a second, a
//! line more than about a second late); taking NAME's latest move then would make the
//! slowest deliveries look fast.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;
use tokio::time::Instant;

use super::parse::News;
use super::social::Sent;
use arcade::races::rules::RaceId;

/// Where a race of the load stands before it starts, for those waiting to join it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opening {
    /// Its host has not opened it yet.
    Waiting,
    /// Open under this number.
    Open(RaceId),
    /// Its host failed before opening it: nobody can join.
    Failed,
}

/// One race of the load: consecutive sessions, the first of them its host.
#[derive(Debug)]
pub(crate) struct Group {
    opening: watch::Sender<Opening>,
    /// Racers other than the host that have neither joined nor failed.
    pending: watch::Sender<usize>,
    /// Racers in the race with their connection open, the host included: a progress
    /// line goes to every one of them but its maker (done racers still hear them).
    in_race: AtomicUsize,
}

impl Group {
    /// A race of `members` sessions (one of them the host).
    fn new(members: usize) -> Group {
        Group {
            opening: watch::Sender::new(Opening::Waiting),
            pending: watch::Sender::new(members.saturating_sub(1)),
            in_race: AtomicUsize::new(0),
        }
    }

    /// For the host: the race is open as `race`, and the host is in it.
    pub(crate) fn opened(&self, race: RaceId) {
        self.in_race.fetch_add(1, Ordering::Relaxed);
        self.opening.send_replace(Opening::Open(race));
    }

    /// For the host, failed before the race was open: nobody waits for it any more.
    pub(crate) fn host_failed(&self) {
        self.opening.send_if_modified(|opening| {
            let waiting = *opening == Opening::Waiting;
            if waiting {
                *opening = Opening::Failed;
            }
            waiting
        });
    }

    /// For a racer: the server said it joined.
    pub(crate) fn joined(&self) {
        self.in_race.fetch_add(1, Ordering::Relaxed);
        self.settled();
    }

    /// For a racer that failed before it joined: the host stops waiting for it.
    pub(crate) fn gave_up(&self) {
        self.settled();
    }

    fn settled(&self) {
        self.pending
            .send_modify(|pending| *pending = pending.saturating_sub(1));
    }

    /// For a racer in the race whose session ends (failed, or the run is over).
    pub(crate) fn left(&self) {
        // Never below zero, even if a racer were counted out twice by mistake.
        let _ = self
            .in_race
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |count| {
                Some(count.saturating_sub(1))
            });
    }

    /// How many hear a progress line: everyone in the race but its maker.
    pub(crate) fn hearers(&self) -> u64 {
        let in_race = self.in_race.load(Ordering::Relaxed).saturating_sub(1);
        u64::try_from(in_race).unwrap_or(u64::MAX)
    }

    /// For a racer: the race's number once its host has opened it, waiting at most
    /// until `deadline`; none if the host failed first or the deadline passed.
    pub(crate) async fn race(&self, deadline: Instant) -> Option<RaceId> {
        let mut opening = self.opening.subscribe();
        let opened = tokio::time::timeout_at(
            deadline,
            opening.wait_for(|opening| *opening != Opening::Waiting),
        )
        .await;
        match opened {
            Ok(Ok(opening)) => match *opening {
                Opening::Open(race) => Some(race),
                Opening::Waiting | Opening::Failed => None,
            },
            _ => None,
        }
    }

    /// For the host: wait until every other racer has joined or failed, at most until
    /// `deadline`.
    pub(crate) async fn everyone_in(&self, deadline: Instant) {
        let mut pending = self.pending.subscribe();
        let _ = tokio::time::timeout_at(deadline, pending.wait_for(|pending| *pending == 0)).await;
    }
}

/// When one racer sent its moves, for the others to time the race's lines about it.
#[derive(Debug, Default)]
pub(crate) struct Moves {
    noted: Mutex<Noted>,
}

#[derive(Debug, Default)]
struct Noted {
    /// The latest move sent.
    latest: Option<Sent>,
    /// Each move that raised the racer's largest tile, with the tile, in order.
    raised: Vec<(u64, Sent)>,
    /// The move that ended the racer's game.
    finished: Option<Sent>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under this lock is an assignment or a push: a panic cannot leave it
    // half done.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Moves {
    /// The racer's next move goes out now. Called before the move is written, so that
    /// a line it causes always finds it.
    pub(crate) fn sending(&self, sent: Sent) {
        lock(&self.noted).latest = Some(sent);
    }

    /// The answer to the latest move came: it raised the largest tile to `raised`, if
    /// any, and ended the game if `finished`.
    pub(crate) fn answered(&self, raised: Option<u64>, finished: bool) {
        let mut noted = lock(&self.noted);
        let Some(latest) = noted.latest else {
            return;
        };
        if let Some(tile) = raised {
            noted.raised.push((tile, latest));
        }
        if finished {
            noted.finished = Some(latest);
        }
    }

    /// The move that caused a line telling `news` of this racer: the one noted for it,
    /// or, not noted yet, the latest (see the module's comment).
    pub(crate) fn cause(&self, news: News) -> Option<Sent> {
        let noted = lock(&self.noted);
        let found = match news {
            News::Reached(tile) => noted
                .raised
                .iter()
                .find(|(raised, _)| *raised == tile)
                .map(|(_, sent)| *sent),
            News::Finished => noted.finished,
        };
        found.or(noted.latest)
    }
}

/// The races of a load.
#[derive(Debug)]
pub(crate) struct Racing {
    /// Racers per race (the last race may have fewer).
    pub(crate) size: usize,
    /// The line a host opens its race with: `race 2048 ARGS`.
    pub(crate) line: String,
    /// The smallest tile the server tells the others about ([`arcade::races::rules::milestone`]
    /// of the race's win tile): a racer counts the lines its moves make.
    pub(crate) milestone: u64,
    groups: Box<[Group]>,
    /// Every racer's moves, by session.
    moves: Box<[Moves]>,
}

impl Racing {
    /// `sessions` sessions in races of `size`, opened with `line`.
    pub(crate) fn new(sessions: usize, size: usize, line: String, milestone: u64) -> Racing {
        let size = size.max(1);
        let groups = (0..sessions.div_ceil(size))
            .map(|group| Group::new(size.min(sessions - group * size)))
            .collect();
        Racing {
            size,
            line,
            milestone,
            groups,
            moves: (0..sessions).map(|_| Moves::default()).collect(),
        }
    }

    /// How many races.
    pub(crate) fn races(&self) -> usize {
        self.groups.len()
    }

    /// Session `index`'s race, and whether it is its host.
    pub(crate) fn seat(&self, index: usize) -> Option<(&Group, bool)> {
        if index >= self.moves.len() {
            return None;
        }
        let group = self.groups.get(index / self.size)?;
        Some((group, index.is_multiple_of(self.size)))
    }

    /// Session `index`'s moves.
    pub(crate) fn moves(&self, index: usize) -> Option<&Moves> {
        self.moves.get(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn sent(at_us: u64) -> Sent {
        Sent {
            at_us,
            measured: true,
        }
    }

    #[test]
    fn sessions_are_dealt_into_races_with_a_host_each() {
        let racing = Racing::new(7, 3, String::from("race 2048"), 8);
        assert_eq!(racing.races(), 3);
        let hosts: Vec<usize> = (0..7)
            .filter(|&index| racing.seat(index).is_some_and(|(_, host)| host))
            .collect();
        assert_eq!(hosts, [0, 3, 6]);
        assert!(racing.seat(7).is_none());
        assert!(racing.moves(6).is_some() && racing.moves(7).is_none());
        // The last race has the one session left: no one to wait for.
        let pending: Vec<usize> = racing.groups.iter().map(|g| *g.pending.borrow()).collect();
        assert_eq!(pending, [2, 2, 0]);
    }

    #[tokio::test]
    async fn racers_learn_the_race_and_the_host_waits_for_them() {
        let group = Group::new(3);
        let soon = Instant::now() + Duration::from_millis(20);
        assert_eq!(group.race(soon).await, None, "not open yet");
        group.opened(5);
        let later = Instant::now() + Duration::from_secs(5);
        assert_eq!(group.race(later).await, Some(5));
        group.joined();
        // One racer still to come: the host waits until the deadline.
        let soon = Instant::now() + Duration::from_millis(20);
        group.everyone_in(soon).await;
        assert!(Instant::now() >= soon);
        group.gave_up();
        tokio::time::timeout(Duration::from_secs(5), group.everyone_in(later))
            .await
            .expect("everyone is in or gone");
        // The host and one racer are in: a line of either reaches the other.
        assert_eq!(group.hearers(), 1);
        group.left();
        group.left();
        group.left();
        assert_eq!(group.hearers(), 0);
    }

    #[tokio::test]
    async fn a_host_that_fails_first_lets_its_racers_go() {
        let group = Group::new(2);
        group.host_failed();
        let later = Instant::now() + Duration::from_secs(5);
        assert_eq!(group.race(later).await, None);
        // Once open, a later failure of the host does not close it for the others.
        let group = Group::new(2);
        group.opened(1);
        group.host_failed();
        assert_eq!(group.race(later).await, Some(1));
    }

    #[test]
    fn a_line_is_timed_from_the_move_that_caused_it() {
        let moves = Moves::default();
        assert_eq!(moves.cause(News::Reached(8)), None, "no move yet");
        moves.sending(sent(10));
        // Not yet answered: the latest move is the cause.
        assert_eq!(moves.cause(News::Reached(8)), Some(sent(10)));
        moves.answered(Some(8), false);
        moves.sending(sent(20));
        moves.answered(None, false);
        moves.sending(sent(30));
        moves.answered(Some(16), false);
        moves.sending(sent(40));
        // A line about 8 read after later moves still finds the move that made it.
        assert_eq!(moves.cause(News::Reached(8)), Some(sent(10)));
        assert_eq!(moves.cause(News::Reached(16)), Some(sent(30)));
        assert_eq!(moves.cause(News::Finished), Some(sent(40)));
        moves.answered(Some(32), true);
        moves.sending(sent(50));
        assert_eq!(moves.cause(News::Finished), Some(sent(40)));
    }
}
