//! `quit`: `Goodbye.`, and the server closes the connection (SPEC section 1).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{lobby, Console, Outcome};

/// `quit`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "quit",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Last("  quit               leave\n"),
    run,
};

fn run(_: &mut Console, _: Args<'_>) -> Outcome {
    Outcome::Close(String::from(lobby::GOODBYE))
}
