//! `who`: who is online, where, idle for how long, watched by how many (SPEC section 7).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `who`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "who",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player(
        "  who                who is online, where, idle how long, watched by how many\n",
    ),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.seat_says(|seat| seat.who())
}
