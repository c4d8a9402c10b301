//! `join N`: enter race N (SPEC section 9), here or on the instance that has it.

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `join`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "join",
    place: Place::LOBBY,
    admins_only: false,
    // Help has always printed this line without its indent; kept byte for byte.
    help: Help::Lobby("  join N             join race N (leave leaves it)\n"),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let race = args.word(0);
    console.race_reply(|seat| seat.join(race))
}
