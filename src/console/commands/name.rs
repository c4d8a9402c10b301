//! `name`, `name NAME`: say or take a name (SPEC section 7).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `name`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "name",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player(
        "  name NAME          take a name (a registered one asks for its password)\n",
    ),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    console.seat_reply(|seat| seat.name_command(args.word(0)))
}
