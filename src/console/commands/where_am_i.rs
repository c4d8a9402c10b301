//! `where` (`/where` in a game): where the player is, in words, and nothing else
//! (SPEC section 10).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `where`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "where",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::InGame("  /where             where you are in the game, in words\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.where_am_i()
}
