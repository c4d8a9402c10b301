//! What travels on the bus between instances, as JSON: presence (heartbeats, roll
//! calls, changes), direct messages for one instance (deliveries, racers' commands),
//! the subjects they go to and the sizes of their parts under NATS's payload limit.

use serde::{Deserialize, Serialize};

use crate::games::Progress;
use crate::players::registry::{Remote, SessionView};
use crate::races::rules::{self, RaceId};

/// The subject every instance hears.
pub(super) const PRESENCE: &str = "arcade.presence";

/// The subject instance `instance` hears alone.
pub(super) fn subject_of(instance: u64) -> String {
    format!("arcade.to.{instance}")
}

/// What travels on [`PRESENCE`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) enum Announce {
    /// An instance is alive, with its open races.
    Heartbeat { from: u64, races: Vec<RaceRow> },
    /// Sessions of `from` changed or ended.
    Sessions {
        from: u64,
        changed: Vec<(u64, SessionView)>,
        gone: Vec<u64>,
    },
    /// Part of a roll call of `from`'s sessions.
    All(Roll),
    /// `from` is stopping.
    Bye { from: u64 },
}

/// Part of a roll call: every session of instance `from`, in parts of at most
/// [`ROLL_PART`] (NATS refuses a message over its `max_payload`, 1 MiB by default).
/// When the `last` part has come, the sessions of `from` numbered up to `upto` that no
/// part named have ended (those numbered above it are newer than the roll call).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Roll {
    pub(super) from: u64,
    /// Which roll call of `from`.
    pub(super) roll: u64,
    /// The highest session number `from` had given when the roll call began.
    pub(super) upto: u64,
    pub(super) sessions: Vec<(u64, SessionView)>,
    pub(super) last: bool,
}

/// Sessions in one part of a roll call: about 30 KB of JSON, and about a millisecond
/// of the receiver's CPU, taken in one go between its sessions' turns (a part of 2,000
/// held a worker thread for 9 ms, and the tail of every session's latency with it).
pub(super) const ROLL_PART: usize = 250;

/// Local sessions' changes in one message, at most: what a receiver handles in one go
/// (a few microseconds each).
pub(super) const CHANGES_PART: usize = 128;

/// Players named in one message for many (a broadcast to a large instance goes in
/// several): well under NATS's 1 MiB.
pub(super) const DELIVER_PART: usize = 20_000;

/// What travels on an instance's own subject.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) enum Direct {
    /// A message for sessions `to` (one player; a place's chat, a broadcast), from
    /// instance `from` (`None` from an instance of a version before it was sent: a
    /// `Close` is then not taken).
    Deliver {
        to: Vec<u64>,
        message: Wire,
        #[serde(default)]
        from: Option<u64>,
    },
    /// Part of a roll call of `from`'s sessions, to an instance that has just heard
    /// of it.
    Snapshot(Roll),
    /// A racer's command for a race of this instance.
    Race {
        from: Remote,
        name: String,
        op: RaceOp,
    },
}

/// A [`Message`] as it travels: sessions named by instance and number.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) enum Wire {
    Line(String),
    Frame(String),
    Close(String),
    Watch(Remote),
    Unwatch(Remote),
    WatchEnded(String),
    RaceStart(RaceId, WireGame),
    RaceStop(RaceId),
}

/// A race's game as it travels.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct WireGame {
    pub(super) game: String,
    pub(super) args: Vec<String>,
    pub(super) world: Option<String>,
}

/// One open race, as `races` lists it on every instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaceRow {
    /// The race.
    pub id: RaceId,
    /// Its game.
    pub label: String,
    /// Its host.
    pub host: String,
    /// How many race.
    pub racers: usize,
    /// Seconds since it started, if it has.
    pub running: Option<u64>,
    /// Its time limit, in seconds.
    pub limit: Option<u64>,
}

impl From<rules::Listed> for RaceRow {
    fn from(race: rules::Listed) -> RaceRow {
        RaceRow {
            id: race.id,
            label: race.label,
            host: race.host.to_string(),
            racers: race.racers,
            running: race.running.map(|running| running.as_secs()),
            limit: race.limit.map(|limit| limit.as_secs()),
        }
    }
}

/// A racer's command for a race on another instance.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum RaceOp {
    /// `join N`.
    Join(RaceId),
    /// `start`.
    Start,
    /// `/standings`.
    Standings,
    /// `leave`, or the race's game left.
    Leave,
    /// The racer's game got this far.
    Progress(Progress),
}
