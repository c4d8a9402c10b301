//! `start`: the host starts the race (SPEC section 9).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::seat::Seat;

/// `start`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "start",
    place: Place::LOBBY,
    admins_only: false,
    // Help has always printed this line without its indent; kept byte for byte.
    help: Help::Lobby("  start              start the race you host\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.race_reply(Seat::start_race)
}
