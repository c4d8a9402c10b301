//! `look` (`/look` in a game): the whole game described in words again, for a player
//! who reads through a screen reader (SPEC section 10).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `look`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "look",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::InGame("  /look              the whole game in words (set reader on)\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.look()
}
