//! `/solve`: how many pushes are left at best from the current position, never the
//! solution itself unless the server runs with `--allow-solutions`, which plays it out
//! (SPEC section 13).

use super::{Args, CommandSpec, Help, Place};
use crate::coach::ask::Ask;
use crate::console::{Console, Outcome};

/// `solve`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "solve",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::InGame("  /solve             Sokoban: how many pushes are left at best\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.ask_coach(Ask::Solve)
}
