//! `ladders`: the open ladders (SPEC section 12), each with its game, seeds, time per
//! move and deadline.

use super::ladder::LadderWork;
use super::{Args, CommandSpec, Help, Place};
use crate::console::jobs::StoreWork;
use crate::console::{Console, Outcome};

/// `ladders`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "ladders",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Lobby(
        "  ladders            the open ladders: every entrant plays the same seeds\n",
    ),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.store_job(StoreWork::Ladder(LadderWork::List))
}
