//! One way to a race, wherever it is kept: a racer's `join`, `start`, `standings`,
//! `leave` and progress go to a [`RaceDesk`]. The local desk (`players::race_desk`)
//! works on this instance's races; the remote desk (`cluster::race_desk`) sends the
//! same request to the instance that has the race (`--bus`), whose local desk answers
//! it. Written once, so a race on another instance behaves as one here.

use std::future::Future;
use std::pin::Pin;

use crate::games::Progress;

use super::rules::RaceId;

/// What a desk answers a racer's command.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Answer {
    /// What to show the racer.
    pub text: String,
    /// The racer is in this race now (a `join` that worked).
    pub joined: bool,
}

impl Answer {
    /// An answer that is only words.
    pub fn say(text: String) -> Answer {
        Answer {
            text,
            joined: false,
        }
    }
}

/// An answer to wait for: another instance's, over the bus.
pub type Pending = Pin<Box<dyn Future<Output = Answer> + Send>>;

/// A desk's answer: at once (this instance's races), or later (another instance's).
pub enum Reply {
    /// Answered now.
    Now(Answer),
    /// Answered when the race's instance does.
    Later(Pending),
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reply::Now(answer) => f.debug_tuple("Now").field(answer).finish(),
            Reply::Later(_) => f.write_str("Later(..)"),
        }
    }
}

/// A racer's commands on a race, here or on another instance.
pub trait RaceDesk {
    /// Who asks: a session with its name and where its messages go.
    type Racer;

    /// `join N`.
    fn join(&self, racer: &Self::Racer, race: RaceId) -> Reply;

    /// `start` (the host).
    fn start(&self, racer: &Self::Racer) -> Reply;

    /// `standings`.
    fn standings(&self, racer: &Self::Racer) -> Reply;

    /// `leave`, the race's game left, or the connection gone: the race left, if the
    /// racer was in one this desk knows.
    fn leave(&self, racer: &Self::Racer) -> Option<RaceId>;

    /// The racer's game got to `progress`: the words for the racer when this made it
    /// done and the desk can say so at once (a remote desk's come as a line later).
    fn progress(&self, racer: &Self::Racer, progress: Progress) -> Option<String>;
}
