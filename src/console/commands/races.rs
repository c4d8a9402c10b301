//! `races`: the open races (SPEC section 9).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `races`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "races",
    place: Place::Everywhere,
    admins_only: false,
    // Help has always printed this line without its indent; kept byte for byte.
    help: Help::Lobby("  races              the open races\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.seat_says(|seat| seat.races())
}
