//! The remote race desk: a racer's commands on a race another instance keeps
//! (`--bus`), sent over the bus to that instance, whose local desk answers them.

use crate::cluster::bus::Bus;
use crate::cluster::wire::RaceOp;
use crate::games::Progress;
use crate::players::registry::Member;
use crate::races::desk::{Answer, RaceDesk, Reply};
use crate::races::rules::RaceId;

/// The races of instance `home`, reached over the bus.
#[derive(Debug, Clone)]
pub struct RemoteDesk {
    bus: Bus,
    home: u64,
}

impl RemoteDesk {
    /// The desk of instance `home`'s races.
    pub fn new(bus: Bus, home: u64) -> RemoteDesk {
        RemoteDesk { bus, home }
    }

    /// A request that waits for the race's instance to answer.
    fn ask(&self, racer: &Member, op: RaceOp) -> Reply {
        let (bus, home, from, name) = (self.bus.clone(), self.home, racer.id, racer.name.clone());
        Reply::Later(Box::pin(async move {
            bus.race_request(home, from, &name, op)
                .await
                .unwrap_or_else(|text| Answer::say(format!("{text}\n")))
        }))
    }
}

impl RaceDesk for RemoteDesk {
    type Racer = Member;

    fn join(&self, racer: &Member, race: RaceId) -> Reply {
        self.ask(racer, RaceOp::Join(race))
    }

    fn start(&self, racer: &Member) -> Reply {
        self.ask(racer, RaceOp::Start)
    }

    fn standings(&self, racer: &Member) -> Reply {
        self.ask(racer, RaceOp::Standings)
    }

    /// Told, not asked: the race's instance tells the others.
    fn leave(&self, racer: &Member) -> Option<RaceId> {
        self.bus
            .race_notice(self.home, racer.id, &racer.name, RaceOp::Leave);
        None
    }

    /// Told, not asked: the race's instance tells the racer, as a line of its own,
    /// when this made the racer done.
    fn progress(&self, racer: &Member, progress: Progress) -> Option<String> {
        self.bus
            .race_notice(self.home, racer.id, &racer.name, RaceOp::Progress(progress));
        None
    }
}
