//! `broadcast TEXT`: an admin's line to everyone (SPEC section 11).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `broadcast`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "broadcast",
    place: Place::Everywhere,
    admins_only: true,
    help: Help::Admin("broadcast TEXT"),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    console.seat_says(|seat| seat.broadcast(args.text()))
}
