//! `register`: protect the player's name with a password, asked twice (SPEC section 7).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `register`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "register",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player("  register           protect your name with a password\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.seat_reply(|seat| seat.register())
}
