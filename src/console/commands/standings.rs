//! `standings` (in a race, `/standings`): the table of the player's race (SPEC
//! section 9), here or from the instance that has it.

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::seat::Seat;

/// `standings`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "standings",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player("  standings          the standings of your race\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.race_reply(Seat::standings)
}
