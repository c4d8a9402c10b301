//! What a race is made of: its number, its game, its members and what it tells them
//! ([`Notice`]), and why a join or a start is refused.

use std::sync::Arc;
use std::time::Duration;

use crate::catalog::table::GameKind;

/// The most racers in one race: a class many times over, and few enough that a line
/// to every racer stays cheap.
pub const MAX_RACERS: usize = 500;

/// A race's number, unique for the life of the server.
pub type RaceId = u32;

/// The game every racer plays: fixed when the race opens.
#[derive(Debug, Clone)]
pub struct RaceGame {
    /// Which game.
    pub kind: &'static GameKind,
    /// Its arguments, as recorded (a 2048 race's seed, a Star Pusher race's `only`).
    pub args: Vec<String>,
    /// The world, for games that start from one ([`GameKind::from_state`]): a
    /// host's saved wumpus world is not in the racers' own folders.
    pub world: Option<String>,
}

/// Two race games are the same game with the same arguments and world.
impl PartialEq for RaceGame {
    fn eq(&self, other: &RaceGame) -> bool {
        self.kind.name == other.kind.name && self.args == other.args && self.world == other.world
    }
}

impl Eq for RaceGame {}

impl RaceGame {
    /// `GAME ARGS`, as `races` and the race's lines show it.
    pub fn label(&self) -> String {
        let mut label = self.kind.name.to_string();
        for arg in &self.args {
            label.push(' ');
            label.push_str(arg);
        }
        label
    }
}

/// A session in a race.
#[derive(Debug, Clone)]
pub struct Member<K, I> {
    /// Its session.
    pub id: K,
    /// Its name when it joined.
    pub name: Arc<str>,
    /// Where its messages go.
    pub inbox: I,
}

/// A line for some sessions, sent once the lock is let go.
#[derive(Debug)]
pub struct Notice<I> {
    /// Who gets it.
    pub to: Vec<I>,
    /// What they get.
    pub what: Tell,
}

/// What a [`Notice`] carries.
#[derive(Debug, Clone)]
pub enum Tell {
    /// A line of its own, then the prompt (to racers and the host).
    Line(Arc<str>),
    /// A screen for those watching the race: dropped if they fall behind.
    Frame(Arc<str>),
    /// The race has started: start its game.
    Start(RaceId, Arc<RaceGame>),
    /// The race is over while this racer still plays: stop the game.
    Stop(RaceId),
}

/// Why `join` did not join.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    /// No such race.
    #[error("No race {0}: races lists them.")]
    NoRace(RaceId),
    /// It has started.
    #[error("Race {0} has started: watch race {0} to follow it.")]
    Started(RaceId),
    /// It is full.
    #[error("Race {0} is full ({MAX_RACERS} racers).")]
    Full(RaceId),
    /// The player is in a race already.
    #[error("You are in race {0} already: leave it first.")]
    InRace(RaceId),
}

/// Why `start` did not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The player hosts no race and is in none.
    #[error("You are not in a race: race GAME opens one.")]
    NotInRace,
    /// Someone else hosts it.
    #[error("Only the host ({host}) can start race {race}.")]
    NotHost {
        /// The race.
        race: RaceId,
        /// Its host.
        host: Arc<str>,
    },
    /// It has started already.
    #[error("Race {0} has started already.")]
    Started(RaceId),
    /// Nobody but the host is in it: a second `start` races alone.
    #[error("Nobody has joined race {0} yet: type start again to race alone.")]
    Alone(RaceId),
    /// Nobody at all is in it (an admin's race for the lobby).
    #[error("Nobody has joined race {0} yet.")]
    Empty(RaceId),
}

/// One line of `races`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The race.
    pub id: RaceId,
    /// Its game.
    pub label: String,
    /// Its host.
    pub host: Arc<str>,
    /// How many race.
    pub racers: usize,
    /// Since when it runs, if it has started.
    pub running: Option<Duration>,
    /// Its time limit.
    pub limit: Option<Duration>,
}
