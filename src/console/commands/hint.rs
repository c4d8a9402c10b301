//! `/hint`: the next push of a solution from the current position, or how far back the
//! last position is that can still be solved (SPEC section 13).

use super::{Args, CommandSpec, Help, Place};
use crate::coach::ask::Ask;
use crate::console::{Console, Outcome};

/// `hint`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "hint",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::InGame("  /hint              Sokoban: the next push of a solution from here\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.ask_coach(Ask::Hint)
}
